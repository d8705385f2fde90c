/**
 * `<pedelec-tool form="id">` (spec every-agent.md §3): a `<form>` as a tool, in every browser, with
 * WebMCP or without. A lazy chunk of its own, loaded the first time a tool with `form` is read
 * (form-link.ts).
 *
 * - The schema is synthesized from the form's named controls (form-schema.ts) unless the tool
 *   declares one itself, and read again when they change.
 * - The form is the tool's inline handler (the resolution order is unchanged). A call fills the
 *   controls, firing `input` and `change`; runs `checkValidity()` (a failure is `TOOL_ARGS_INVALID`
 *   naming the field, with the browser's message); then, with `autosubmit` on the tool or
 *   `toolautosubmit` on the form, `requestSubmit()` — else it focuses the submit button, sets
 *   `:state(awaiting-submit)` on the tool and waits for the user.
 * - The submit event the page gets has `agentInvoked === true` and `respondWith(value)` as own
 *   properties of that event only (no prototype is patched), as the browsers' declarative WebMCP
 *   forms give them: one submit listener serves every agent. `respondWith` answers the call; a submit
 *   whose default is not prevented (the browser navigates away) answers `FORM_NOT_ANSWERED` at once,
 *   and so does silence until 1 s before the tool's deadline.
 */
import { pedelecError, type PedelecError } from '../../core/errors.js';
import type { ToolCallContext, ToolSpecificHandler } from '../../core/index.js';
import { isPlainObject, pointerOf } from '../../core/json.js';
import { MAX_TIMER_MS } from '../../core/bridge-port.js';
import { controlsOf, destinationElsewhere, formOf, type Control } from './form-schema.js';
import type { PedelecToolElement } from './pedelec-tool.element.js';

export { schemaOf } from './form-schema.js';

/** How long before the tool's deadline a call the page has not answered is answered. */
const ANSWER_MARGIN_MS = 1000;

/** The args' values into the controls, each changed control firing `input` and `change` as a user's edit would. */
function fill(group: Control[], value: unknown): void {
  const first = group[0];
  const chosen = Array.isArray(value) ? value.map(String) : [String(value)];
  for (const control of group) {
    if (control.type === 'radio' || control.type === 'checkbox') {
      const input = control as HTMLInputElement;
      const checked = group.length > 1 || input.type === 'radio' ? chosen.includes(input.value) : value === true;
      if (input.checked === checked) continue;
      input.checked = checked;
    } else if (control !== first) continue;
    else if (control.localName === 'select' && (control as HTMLSelectElement).multiple) {
      for (const option of (control as HTMLSelectElement).options) option.selected = chosen.includes(option.value);
    } else control.value = value === null || value === undefined ? '' : String(value);
    control.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    control.dispatchEvent(new Event('change', { bubbles: true }));
  }
}

/** The schema keyword each of the browser's validity flags stands for. */
const REASONS: [keyof ValidityState, string][] = [
  ['valueMissing', 'required'],
  ['typeMismatch', 'type'],
  ['badInput', 'type'],
  ['patternMismatch', 'pattern'],
  ['tooShort', 'minLength'],
  ['tooLong', 'maxLength'],
  ['rangeUnderflow', 'minimum'],
  ['rangeOverflow', 'maximum'],
  ['stepMismatch', 'multipleOf'],
];

/**
 * `TOOL_ARGS_INVALID` for the first control the browser finds invalid, with the browser's message,
 * and the keyword its validity flag stands for.
 */
function invalidField(form: HTMLFormElement): PedelecError {
  const field = ([...form.elements] as Control[]).find((control) => control.willValidate && !control.validity.valid);
  const path = field?.name ?? '';
  const message = `${path || 'form'}: ${field?.validationMessage || 'is invalid'}`;
  const reason = REASONS.find(([flag]) => field?.validity[flag])?.[1] ?? 'type';
  return pedelecError('TOOL_ARGS_INVALID', message, {
    errors: [{ path, message, pointer: pointerOf(path ? [path] : []), reason, schemaPath: `/${reason}` }],
  });
}

/** The tool's custom states (`:state(awaiting-submit)`), once it has internals of the kit's. */
const internals = new WeakMap<Element, ElementInternals | null>();
function statesOf(tool: PedelecToolElement): Set<string> | undefined {
  if (!internals.has(tool)) {
    let attached: ElementInternals | null = null;
    try {
      attached = tool.attachInternals();
    } catch {
      // A subclass of the page's attached them already: no state, the rest works.
    }
    internals.set(tool, attached);
  }
  return internals.get(tool)?.states;
}

/** The calls waiting on a form, each with how to answer it: a later call takes the form over. */
const waiting = new WeakMap<HTMLFormElement, (error: unknown) => void>();

/** The handler a tool's `form` gives it (none without `form`). */
export function handlerOf(tool: PedelecToolElement): ToolSpecificHandler | undefined {
  return tool.hasAttribute('form') ? (args, ctx) => callForm(tool, args, ctx) : undefined;
}

/** One call: fill, check, submit (or wait for the user), and the page's `respondWith` as the answer. */
function callForm(tool: PedelecToolElement, args: unknown, ctx: ToolCallContext): Promise<unknown> {
  const name = tool.name ?? '';
  const form = formOf(tool);
  if (!form) throw pedelecError('TOOL_UNAVAILABLE', `Tool ${name}: its form is not in the page`, { tool: name });
  const given = isPlainObject(args) ? args : {};
  for (const [arg, group] of controlsOf(form)) if (Object.hasOwn(given, arg)) fill(group, given[arg]);
  if (!form.checkValidity()) throw invalidField(form);

  // Never on an agent's command where the submission leaves the page's origin: a person presses the button.
  const autosubmit =
    (tool.hasAttribute('autosubmit') || form.hasAttribute('toolautosubmit')) && !destinationElsewhere(form);
  const root = form.getRootNode() as Document | ShadowRoot;
  const states = autosubmit ? undefined : statesOf(tool);
  return new Promise((resolve, reject) => {
    /** Answers the call once, and lets go of the form. */
    const end = (settle: () => void) => {
      if (waiting.get(form) !== fail) return;
      waiting.delete(form);
      clearTimeout(timer);
      root.removeEventListener('submit', onSubmit, true);
      ctx.signal?.removeEventListener('abort', onAbort);
      states?.delete('awaiting-submit');
      settle();
    };
    const fail = (error: unknown) => end(() => reject(error));
    const notAnswered = (why: string) => fail(pedelecError('FORM_NOT_ANSWERED', `${name}: ${why}`, { tool: name }));
    const onAbort = () => fail(ctx.signal!.reason);
    // Every submit of the form while the call waits: the first answer given counts.
    const onSubmit = (event: Event) => {
      if (event.target !== form) return;
      let answer: Promise<unknown> | undefined;
      let dispatched = false;
      const settle = () => answer!.then((value) => end(() => resolve(value)), fail);
      const respondWith = (value: unknown) => {
        if (answer) return;
        answer = Promise.resolve(value);
        if (dispatched) void settle();
      };
      Object.defineProperties(event, {
        agentInvoked: { value: true, configurable: true },
        respondWith: { value: respondWith, configurable: true },
      });
      // A task later every listener has run: a default still not prevented is a navigation.
      setTimeout(() => {
        dispatched = true;
        if (!event.defaultPrevented)
          notAnswered('the form was submitted without preventDefault(), so the browser navigates away');
        else if (answer) void settle();
      });
    };

    waiting.get(form)?.(pedelecError('FORM_NOT_ANSWERED', `${name}: another call filled the form`, { tool: name }));
    waiting.set(form, fail);
    root.addEventListener('submit', onSubmit, true);
    const left = (ctx.deadline ?? Infinity) - ANSWER_MARGIN_MS - Date.now();
    const timer = setTimeout(
      () => notAnswered('not answered before the deadline'),
      Math.min(Math.max(left, 0), MAX_TIMER_MS),
    );
    if (ctx.signal?.aborted) return onAbort();
    ctx.signal?.addEventListener('abort', onAbort, { once: true });
    if (autosubmit) return form.requestSubmit();
    states?.add('awaiting-submit');
    const submit = ([...form.elements] as HTMLInputElement[]).find(
      (control) => (control.type === 'submit' || control.type === 'image') && !control.disabled,
    );
    submit?.focus();
  });
}
