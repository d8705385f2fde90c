/**
 * The schema a `<pedelec-tool form="id">` gets from its form (spec every-agent.md §3): synthesized
 * from the form's named controls unless the tool declares one itself, and read again when they change.
 * Part of the form binding's chunk (form-binding.ts).
 */
import type { SchemaSource } from './declaration.js';
import type { PedelecToolElement } from './pedelec-tool.element.js';
import { memberChanged } from '../registration.js';

/** A date control's value (`YYYY-MM-DD`), as the args subset can say it. */
export const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';
/** Input types that are no args: hidden values, files, buttons. */
const NOT_ARGS = new Set(['hidden', 'file', 'submit', 'reset', 'button', 'image']);
/** Input types whose `pattern` applies. */
const PATTERNED = new Set(['text', 'search', 'url', 'tel', 'email', 'password']);
/**
 * What the tool is read from in the form — its schema, and whether the browser registered the form
 * itself (`toolname`: then it is not exposed again): a change of one is a change of the tool.
 */
const SCHEMA_ATTRIBUTES = [
  'id',
  'toolname',
  'name',
  'type',
  'required',
  'min',
  'max',
  'step',
  'pattern',
  'minlength',
  'maxlength',
  'multiple',
  'disabled',
  'value',
  'label',
  'for',
  'toolparamdescription',
];
/** Elements whose text is not their label's: a label's text leaves them out (a select's options). */
const CONTROLS = 'input, select, textarea, button, datalist';

export type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
type SchemaNode = Record<string, unknown>;

/** The `<form>` a tool names by id in the tool's document or shadow root; null when there is none. */
export function formOf(tool: Element): HTMLFormElement | null {
  const id = tool.getAttribute('form');
  const found = id ? (tool.getRootNode() as Partial<Document>).getElementById?.(id) : null;
  return found?.localName === 'form' ? (found as HTMLFormElement) : null;
}

/**
 * The origin a form's submission goes to when it is not the page's own, else `null`: such a form is
 * never submitted on an agent's command, since the agent's arguments would leave the page.
 */
export function destinationElsewhere(form: HTMLFormElement): string | null {
  try {
    // The attribute, not `form.action`, which a control named `action` would stand for.
    const to = new URL(form.getAttribute('action') ?? '', form.ownerDocument.baseURI).origin;
    return to === form.ownerDocument.defaultView?.location.origin ? null : to;
  } catch {
    return 'an address that cannot be read';
  }
}

/** The controls that take args, by name in tree order: one control, or a radio or checkbox group. */
export function controlsOf(form: HTMLFormElement): Map<string, Control[]> {
  const byName = new Map<string, Control[]>();
  for (const element of form.elements) {
    const control = element as Control;
    const kind = control.localName;
    if (kind !== 'select' && kind !== 'textarea' && (kind !== 'input' || NOT_ARGS.has(control.type))) continue;
    if (!control.name || control.disabled) continue;
    const group = byName.get(control.name);
    if (group) group.push(control);
    else byName.set(control.name, [control]);
  }
  return byName;
}

/** A label's own words: without the text of the controls inside it (a select's options). */
function labelText(label: Element): string {
  const walker = label.ownerDocument.createTreeWalker(label, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
    acceptNode: (node) =>
      node.nodeType === Node.TEXT_NODE
        ? NodeFilter.FILTER_ACCEPT
        : (node as Element).matches(CONTROLS)
          ? NodeFilter.FILTER_REJECT
          : NodeFilter.FILTER_SKIP,
  });
  let text = '';
  while (walker.nextNode()) text += walker.currentNode.nodeValue;
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * What the agent reads about an arg: `toolparamdescription`, else the control's `<label>` — for a
 * radio or checkbox group, whose labels name its options, the legend of its fieldset.
 */
function descriptionOf(group: Control[]): string {
  for (const control of group) {
    const written = control.getAttribute('toolparamdescription');
    if (written) return written;
  }
  const first = group[0];
  const label =
    group.length > 1 || first.type === 'radio'
      ? first.closest('fieldset')?.querySelector(':scope > legend')
      : first.labels?.[0];
  return label ? labelText(label) : '';
}

const distinct = (values: string[]) => [...new Set(values)];

/** A number attribute's value; undefined when absent or not a finite number. */
function numberAttribute(control: Element, name: string): number | undefined {
  const text = control.getAttribute(name)?.trim();
  const value = text ? Number(text) : NaN;
  return Number.isFinite(value) ? value : undefined;
}

/** number/range: an integer when the step is 1 (or absent) and `min` an integer (or absent). */
function numberSchema(input: HTMLInputElement): SchemaNode {
  const range = input.type === 'range';
  const min = numberAttribute(input, 'min') ?? (range ? 0 : undefined);
  const max = numberAttribute(input, 'max') ?? (range ? 100 : undefined);
  const step = numberAttribute(input, 'step');
  // An absent or invalid step is the default step, 1; `any` allows every number.
  const integer =
    input.getAttribute('step')?.trim().toLowerCase() !== 'any' &&
    (step === undefined || step <= 0 || step === 1) &&
    (min === undefined || Number.isInteger(min));
  const node: SchemaNode = { type: integer ? 'integer' : 'number' };
  if (min !== undefined) node.minimum = min;
  if (max !== undefined) node.maximum = max;
  return node;
}

/** Text: a string, with the control's pattern (whole-value, as the browser matches it) and lengths. */
function textSchema(control: HTMLInputElement | HTMLTextAreaElement): SchemaNode {
  const node: SchemaNode = { type: 'string' };
  const pattern = control.getAttribute('pattern');
  if (pattern !== null && control.localName === 'input' && PATTERNED.has(control.type))
    node.pattern = `^(?:${pattern})$`;
  if (control.minLength >= 0) node.minLength = control.minLength;
  if (control.maxLength >= 0) node.maxLength = control.maxLength;
  return node;
}

/** The schema of one arg, from its control (or group). */
function controlSchema(group: Control[]): SchemaNode {
  const first = group[0];
  const values = (list: { value: string }[]) => distinct(list.map((option) => option.value));
  let node: SchemaNode;
  if (first.type === 'radio') node = { type: 'string', enum: values(group) };
  else if (first.type === 'checkbox')
    node =
      group.length > 1
        ? { type: 'array', items: { type: 'string', enum: values(group) }, uniqueItems: true }
        : { type: 'boolean' };
  else if (first.localName === 'select') {
    const select = first as HTMLSelectElement;
    const options = values([...select.options]);
    const item: SchemaNode = options.length > 0 ? { type: 'string', enum: options } : { type: 'string' };
    node = select.multiple ? { type: 'array', items: item, uniqueItems: true } : item;
  } else if (first.type === 'number' || first.type === 'range') node = numberSchema(first as HTMLInputElement);
  else if (first.type === 'date') node = { type: 'string', pattern: DATE_PATTERN };
  else node = textSchema(first as HTMLInputElement | HTMLTextAreaElement);
  const description = descriptionOf(group);
  if (description) node.description = description;
  return node;
}

/**
 * The schema a tool's `form` gives it — undefined without `form` — or why it cannot be read (no such
 * form).
 */
export function schemaOf(tool: PedelecToolElement): SchemaSource | undefined {
  if (!tool.hasAttribute('form')) return undefined;
  const form = formOf(tool);
  watch(tool, form);
  // Markup injected before the page's own form could take its id, and its calls: an id must name one element.
  const id = tool.getAttribute('form')!;
  const named = (tool.getRootNode() as ParentNode).querySelectorAll(`[id="${CSS.escape(id)}"]`).length;
  if (named > 1)
    return { ok: false, reason: `form: ${named} elements have the id "${id}"; it must name one form`, path: 'form' };
  if (!form) {
    const reason = `form: no <form id="${tool.getAttribute('form')}"> in the tool's document or shadow root`;
    return { ok: false, reason, path: 'form' };
  }
  const groups = [...controlsOf(form)];
  // Own data properties: a control named `__proto__` is an arg like any other.
  const properties = Object.fromEntries(groups.map(([name, group]) => [name, controlSchema(group)]));
  const required = groups.filter(([, group]) => group.some((control) => control.required)).map(([name]) => name);
  const schema: Record<string, unknown> = { type: 'object', properties };
  if (required.length > 0) schema.required = required;
  const elsewhere = destinationElsewhere(form);
  // Said to every agent, in the schema it reads: such a form waits for a person (form-binding.ts).
  if (elsewhere) schema.description = `Submitting sends this form to ${elsewhere}: a person must press its button.`;
  return { ok: true, schema, owned: true };
}

/** Each tool's observer: of its form, or — while the form is missing — of its document or shadow root. */
const watching = new WeakMap<PedelecToolElement, { target: Node; observer: MutationObserver }>();

/**
 * Reads the tool again when its form's controls change, or when its missing form appears. The
 * observer holds the tool weakly: a removed tool is not kept alive by a form that stays.
 */
function watch(tool: PedelecToolElement, form: HTMLFormElement | null): void {
  const target = form ?? tool.getRootNode();
  const current = watching.get(tool);
  if (current?.target === target) return;
  current?.observer.disconnect();
  const ref = new WeakRef(tool);
  const observer = new MutationObserver(() => {
    const alive = ref.deref();
    if (alive?.isConnected) {
      if (form || formOf(alive)) memberChanged(alive);
      return;
    }
    observer.disconnect();
    if (alive && watching.get(alive)?.observer === observer) watching.delete(alive);
  });
  observer.observe(target, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: form ? SCHEMA_ATTRIBUTES : ['id'],
    characterData: !!form,
  });
  watching.set(tool, { target, observer });
}
