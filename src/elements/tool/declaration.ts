/**
 * Markup → args schema. Pure functions over attributes: `<pedelec-arg>` elements need not even be
 * upgraded, so the order in which elements are defined never matters. Values are carried over as
 * written where they cannot be read (e.g. `minimum="abc"` stays the string "abc"), so the one
 * well-formedness check (core/schema/check.ts) reports them with their JSON path, as for JS tools.
 */
import { ARG_TAG } from '../tags.js';

type Node = Record<string, unknown>;

const NUMBER_KEYS: ReadonlyArray<[attribute: string, keyword: string]> = [
  ['minimum', 'minimum'],
  ['maximum', 'maximum'],
  ['min-length', 'minLength'],
  ['max-length', 'maxLength'],
  ['min-items', 'minItems'],
  ['max-items', 'maxItems'],
];

/** Sets an own data property: names like `__proto__` stay ordinary keys. */
export function setOwn(target: Node, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The `<pedelec-arg>` children of an element, in order (direct children only). */
export function argChildren(parent: Element): Element[] {
  const args: Element[] = [];
  for (let child = parent.firstElementChild; child; child = child.nextElementSibling) if (child.localName === ARG_TAG) args.push(child);
  return args;
}

const isJsonScript = (child: Element) => child.localName === 'script' && (child.getAttribute('type') ?? '').trim().toLowerCase() === 'application/json';

/** Builds one property's schema node from a `<pedelec-arg>`. */
export function argNode(arg: Element): Node {
  const type = arg.getAttribute('type') ?? 'string';
  const node: Node = { type };
  const description = arg.getAttribute('description');
  if (description !== null) node.description = description;

  const enumText = arg.getAttribute('enum');
  if (enumText !== null) {
    const parsed = enumText.trim().startsWith('[') ? parseJson(enumText) : { ok: false as const };
    if (parsed.ok) node.enum = parsed.value;
    else if (type === 'string') node.enum = enumText.split(',').map((s) => s.trim());
    else node.enum = enumText; // not a JSON array: reported by the check with its path
  }
  for (const [attribute, keyword] of NUMBER_KEYS) {
    const text = arg.getAttribute(attribute);
    if (text === null) continue;
    const n = text.trim() === '' ? NaN : Number(text);
    node[keyword] = Number.isNaN(n) ? text : n;
  }
  const pattern = arg.getAttribute('pattern');
  if (pattern !== null) node.pattern = pattern;
  if (arg.hasAttribute('unique-items')) node.uniqueItems = arg.getAttribute('unique-items') !== 'false';

  const defaultText = arg.getAttribute('default');
  if (defaultText !== null) {
    const parsed = parseJson(defaultText);
    // For strings, a default that is not JSON is the literal text (default="hello").
    node.default = parsed.ok ? parsed.value : defaultText;
  }
  const examplesText = arg.getAttribute('examples');
  if (examplesText !== null) {
    const parsed = parseJson(examplesText);
    node.examples = parsed.ok ? parsed.value : examplesText;
  }

  const children = argChildren(arg);
  if (type === 'object' && children.length > 0) Object.assign(node, objectFromArgs(children));
  if (type === 'array') {
    const items = arg.getAttribute('items');
    if (children.length > 0) node.items = { type: 'object', ...objectFromArgs(children) };
    else if (items !== null) node.items = { type: items };
  }
  return node;
}

/** `properties` (+ `required` when any) for an object whose properties are these args. */
export function objectFromArgs(args: Element[]): { properties: Node; required?: string[] } {
  const properties: Node = {};
  const required: string[] = [];
  for (const arg of args) {
    const name = arg.getAttribute('name') ?? '';
    setOwn(properties, name, argNode(arg));
    if (arg.hasAttribute('required')) required.push(name);
  }
  return required.length > 0 ? { properties, required } : { properties };
}

/** What declares a tool's args schema, and the problem when it cannot be read. */
export type SchemaSource =
  | { ok: true; schema: unknown; path?: undefined }
  | { ok: false; reason: string; path?: string };

/**
 * A tool's args schema from exactly one of: the `schema` attribute, an inline
 * `<script type="application/json">` child, `<pedelec-arg>` children, the `argsSchema` property.
 * None → an empty object schema; two or more → ambiguous, hence invalid.
 */
export function readSchema(tool: Element, schemaAttribute: string | null, argsSchemaProperty: unknown): SchemaSource {
  const args = argChildren(tool);
  let script: Element | undefined;
  for (let child = tool.firstElementChild; child && !script; child = child.nextElementSibling) if (isJsonScript(child)) script = child;
  const sources = [
    schemaAttribute !== null && 'the schema attribute',
    script && 'an inline JSON script',
    args.length > 0 && '<pedelec-arg> children',
    argsSchemaProperty !== undefined && argsSchemaProperty !== null && 'the argsSchema property',
  ].filter(Boolean);
  if (sources.length > 1) return { ok: false, reason: `args schema is ambiguous: given by ${sources.join(' and ')}` };
  if (schemaAttribute !== null) {
    const parsed = parseJson(schemaAttribute);
    return parsed.ok ? { ok: true, schema: parsed.value } : { ok: false, reason: 'schema attribute is not valid JSON', path: 'schema' };
  }
  if (script) {
    const parsed = parseJson(script.textContent ?? '');
    return parsed.ok ? { ok: true, schema: parsed.value } : { ok: false, reason: 'inline JSON schema is not valid JSON', path: 'script' };
  }
  if (args.length > 0) return { ok: true, schema: { type: 'object', ...objectFromArgs(args) } };
  if (argsSchemaProperty !== undefined && argsSchemaProperty !== null) return { ok: true, schema: argsSchemaProperty };
  return { ok: true, schema: { type: 'object', properties: {} } };
}
