/**
 * Markup → args schema. Pure functions over attributes: `<pedelec-arg>` elements need not even be
 * upgraded, so the order in which elements are defined never matters. Values are carried over as
 * written where they cannot be read (e.g. `minimum="abc"` stays the string "abc"), so the one
 * well-formedness check (core/schema/check.ts) reports them with their JSON path, as for JS tools.
 *
 * What is read is JSON data exactly as its JSON clone would be (-0 read as 0, a number that is not
 * finite as null), built fresh for each reading: normalization sends it without cloning it.
 */
import { MAX_SCHEMA_DEPTH } from '../../core/schema/check.js';
import { PedelecArgElement } from '../arg/pedelec-arg.element.js';
import { ARG_TAG } from '../tags.js';

type Node = Record<string, unknown>;

/** Sets an own data property: names like `__proto__` stay ordinary keys. */
export function setOwn(target: Node, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A number as a JSON round trip gives it: -0 is 0, one that is not finite is null (`JSON.parse` gives both: `-0`, `1e400`). */
const asJson = (_key: string, value: unknown) =>
  typeof value === 'number' ? (Number.isFinite(value) ? value + 0 : null) : value;

/** Parsed JSON, or `fallback` when the text is not JSON. */
function jsonOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text, asJson);
  } catch {
    return fallback;
  }
}
const NOT_JSON = Symbol('not JSON');

/**
 * The `<pedelec-arg>` children of an element, in order (direct children only): args defined under any
 * tag, and — as markup, like a `<select>`'s options — `<pedelec-arg>` elements not upgraded yet.
 */
export function argChildren(parent: Element): Element[] {
  const args: Element[] = [];
  for (let child = parent.firstElementChild; child; child = child.nextElementSibling)
    if (child instanceof PedelecArgElement || child.localName === ARG_TAG) args.push(child);
  return args;
}

const isJsonScript = (child: Element) =>
  child.localName === 'script' && (child.getAttribute('type') ?? '').trim().toLowerCase() === 'application/json';

/** Reads one attribute's text as its keyword's value (what cannot be read stays text, for the check). */
type Reader = (text: string, type: string) => unknown;
const text: Reader = (t) => t;
const number: Reader = (t) => {
  const n = t.trim() === '' ? NaN : Number(t);
  return Number.isNaN(n) ? t : Number.isFinite(n) ? n + 0 : null; // what a JSON round trip gives
};
// For strings, a default that is not JSON is the literal text (default="hello").
const jsonOrText: Reader = (t) => jsonOr(t, t);
// A JSON array, or comma-separated for strings; anything else is reported by the check with its path
// — text that starts like an array but is not JSON too (`['a','b']` is not a list of two quoted names).
const enumValues: Reader = (t, type) =>
  t.trim().startsWith('[') ? jsonOr(t, t) : type === 'string' ? t.split(',').map((s) => s.trim()) : t;

/** `<pedelec-arg>` attributes and the keywords they set, in this order. */
const KEYWORDS: ReadonlyArray<[attribute: string, keyword: string, read: Reader]> = [
  ['description', 'description', text],
  ['enum', 'enum', enumValues],
  ['minimum', 'minimum', number],
  ['maximum', 'maximum', number],
  ['min-length', 'minLength', number],
  ['max-length', 'maxLength', number],
  ['min-items', 'minItems', number],
  ['max-items', 'maxItems', number],
  ['pattern', 'pattern', text],
  ['unique-items', 'uniqueItems', (t) => t !== 'false'],
  ['default', 'default', jsonOrText],
  ['examples', 'examples', jsonOrText],
];

/**
 * The attributes a declaration is read from, on `<pedelec-arg>`s and the inline JSON script: the
 * only ones whose change is a change of the tool (a `class` or `data-*` change is not).
 */
export const DECLARATION_ATTRIBUTES = [
  'name',
  'type',
  'required',
  'items',
  ...KEYWORDS.map(([attribute]) => attribute),
];

/**
 * Nested `<pedelec-arg>`s read at most this deep (node levels). Deeper markup (built from script: the
 * HTML parser stops at 512) is cut here, still deeper than the check allows, so it is reported as too
 * deep with its path instead of overflowing the stack.
 */
const MAX_READ_DEPTH = MAX_SCHEMA_DEPTH + 2;

/** Builds one property's schema node from a `<pedelec-arg>` (`level`: its node level, the args object is 1). */
export function argNode(arg: Element, level = 2): Node {
  const type = arg.getAttribute('type') ?? 'string';
  const node: Node = { type };
  for (const [attribute, keyword, read] of KEYWORDS) {
    const value = arg.getAttribute(attribute);
    if (value !== null) node[keyword] = read(value, type);
  }

  const children = level < MAX_READ_DEPTH ? argChildren(arg) : [];
  const items = arg.getAttribute('items');
  if (type === 'array' && children.length > 0) node.items = { type: 'object', ...objectFromArgs(children, level + 2) };
  else {
    // On any other type kept as written, like every keyword: the check warns about them exactly as
    // for the same JSON (a forgotten type="object" is said, not silently dropped).
    if (children.length > 0) Object.assign(node, objectFromArgs(children, level + 1));
    if (items !== null) node.items = { type: items };
  }
  return node;
}

/** `properties` (+ `required` when any) for an object whose properties are these args. */
export function objectFromArgs(args: Element[], level = 2): { properties: Node; required?: string[] } {
  const properties: Node = {};
  const required: string[] = [];
  for (const arg of args) {
    const name = arg.getAttribute('name') ?? '';
    setOwn(properties, name, argNode(arg, level));
    if (arg.hasAttribute('required')) required.push(name);
  }
  return required.length > 0 ? { properties, required } : { properties };
}

/** What declares a tool's args schema, and the problem when it cannot be read. */
export type SchemaSource =
  { ok: true; schema: unknown; owned: boolean; path?: undefined } | { ok: false; reason: string; path?: string };

function fromJson(text: string, what: string, path: string): SchemaSource {
  const schema = jsonOr(text, NOT_JSON);
  return schema !== NOT_JSON
    ? { ok: true, schema, owned: true }
    : { ok: false, reason: `${what} is not valid JSON`, path };
}

/**
 * A tool's args schema from exactly one of: the `schema` attribute, an inline
 * `<script type="application/json">` child, `<pedelec-arg>` children, the `argsSchema` property.
 * None → an empty object schema; two or more → ambiguous, hence invalid.
 */
export function readSchema(tool: Element, schemaAttribute: string | null, argsSchemaProperty: unknown): SchemaSource {
  const args = argChildren(tool);
  let script: Element | undefined;
  for (let child = tool.firstElementChild; child && !script; child = child.nextElementSibling)
    if (isJsonScript(child)) script = child;
  const sources = [
    schemaAttribute !== null && 'the schema attribute',
    script && 'an inline JSON script',
    args.length > 0 && '<pedelec-arg> children',
    argsSchemaProperty !== undefined && argsSchemaProperty !== null && 'the argsSchema property',
  ].filter(Boolean);
  if (sources.length > 1) return { ok: false, reason: `args schema is ambiguous: given by ${sources.join(' and ')}` };
  if (schemaAttribute !== null) return fromJson(schemaAttribute, 'schema attribute', 'schema');
  if (script) return fromJson(script.textContent ?? '', 'inline JSON schema', 'script');
  if (args.length > 0) return { ok: true, schema: { type: 'object', ...objectFromArgs(args) }, owned: true };
  // The page's own object: normalization clones it.
  if (argsSchemaProperty !== undefined && argsSchemaProperty !== null)
    return { ok: true, schema: argsSchemaProperty, owned: false };
  return { ok: true, schema: { type: 'object', properties: {} }, owned: true };
}
