/**
 * Markup → args schema. Pure functions over attributes: `<pedelec-arg>` elements need not even be
 * upgraded, so the order in which elements are defined never matters. An attribute whose text cannot be
 * read as its keyword's value (`minimum="abc"`, an `enum` that starts like a JSON array but is not JSON)
 * makes the declaration unreadable, reported with the JSON path it would have had. A value that can be
 * read is kept as written (`type="date"` too), and core's check (core/schema/check.ts) treats it
 * exactly as the same JSON from a JS tool.
 *
 * What is read is JSON data exactly as its JSON clone would be (-0 read as 0, a number that is not
 * finite as null), built fresh for each reading: normalization sends it without cloning it.
 */
import { checkAttributes } from '../unknown-attributes.js';
import { appendKey } from '../../core/json.js';
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

/** Reads one attribute's text as its keyword's value; `undefined` when it cannot be read. */
type Reader = (text: string, type: string) => unknown;
const text: Reader = (t) => t;
const number: Reader = (t) => {
  const n = t.trim() === '' ? NaN : Number(t);
  return Number.isNaN(n) ? undefined : Number.isFinite(n) ? n + 0 : null; // what a JSON round trip gives
};
// For strings, a default that is not JSON is the literal text (default="hello").
const jsonOrText: Reader = (t) => jsonOr(t, t);
// A JSON array, or comma-separated for strings. Text that starts like an array but is not JSON is not
// read as a list (`['a','b']` is not a list of two quoted names).
const enumValues: Reader = (t, type) =>
  t.trim().startsWith('[') ? jsonOr(t, undefined) : type === 'string' ? t.split(',').map((s) => s.trim()) : undefined;

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

/** The types a `<pedelec-arg>` may name (JSON Schema's). */
const ARG_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'];

/** What declares a tool's args schema, and the problem when it cannot be read. */
export type SchemaSource = { ok: true; schema: unknown; owned: boolean; path?: undefined } | Unreadable;
/** A schema that cannot be read: why, and where when that is known. */
type Unreadable = { ok: false; reason: string; path?: string };

/** Markup that cannot be read, at the JSON path it would have had: thrown while reading the args. */
const unreadable = (path: string, problem: string): Unreadable => ({
  ok: false,
  reason: `${path}: ${problem}`,
  path,
});

/**
 * Builds one property's schema node, at `path`, from a `<pedelec-arg>` (`level`: its node level, the
 * args object is 1). Throws what it cannot read.
 */
function argNode(arg: Element, path: string, level: number): Node {
  checkAttributes(arg, DECLARATION_ATTRIBUTES);
  // This bounds the recursion: deeper markup (built from script; the HTML parser stops at 512) is
  // reported as too deep with its path instead of overflowing the stack.
  if (level > MAX_SCHEMA_DEPTH) throw unreadable(path, `is nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
  const type = arg.getAttribute('type') ?? 'string';
  // A misspelled type would turn validation off for the argument (a keyword the kit cannot check):
  // in markup it is a mistake, said as one.
  if (!ARG_TYPES.includes(type))
    throw unreadable(appendKey(path, 'type'), `type="${type}" is not one of ${ARG_TYPES.join(', ')}`);
  const node: Node = { type };
  for (const [attribute, keyword, read] of KEYWORDS) {
    const written = arg.getAttribute(attribute);
    if (written === null) continue;
    const value = read(written, type);
    if (value === undefined)
      throw unreadable(
        appendKey(path, keyword),
        `${attribute}="${written}" is not ${read === number ? 'a number' : 'a JSON array'}`,
      );
    node[keyword] = value;
  }

  const children = argChildren(arg);
  const items = arg.getAttribute('items');
  if (type === 'array' && children.length > 0)
    node.items = { type: 'object', ...objectFromArgs(children, appendKey(path, 'items'), level + 2) };
  else {
    // On any other type kept as written, like every keyword: the check warns about them exactly as
    // for the same JSON (a forgotten type="object" is said, not silently dropped).
    if (children.length > 0) Object.assign(node, objectFromArgs(children, path, level + 1));
    if (items !== null) node.items = { type: items };
  }
  return node;
}

/** `properties` (+ `required` when any) for the object at `path` whose properties are these args. */
function objectFromArgs(args: Element[], path: string, level: number): { properties: Node; required?: string[] } {
  const properties: Node = {};
  const required: string[] = [];
  for (const arg of args) {
    const name = arg.getAttribute('name') ?? '';
    setOwn(properties, name, argNode(arg, appendKey(appendKey(path, 'properties'), name), level));
    if (arg.hasAttribute('required')) required.push(name);
  }
  return required.length > 0 ? { properties, required } : { properties };
}

function fromJson(text: string, what: string, path: string): SchemaSource {
  const schema = jsonOr(text, NOT_JSON);
  return schema !== NOT_JSON
    ? { ok: true, schema, owned: true }
    : { ok: false, reason: `${what} is not valid JSON`, path };
}

/**
 * A tool's args schema from exactly one of: the `schema` attribute, an inline
 * `<script type="application/json">` child, `<pedelec-arg>` children, the `argsSchema` property.
 * None → `fallback` (the schema of the tool's form), else an empty object schema; two or more →
 * ambiguous, hence invalid.
 */
export function readSchema(
  tool: Element,
  schemaAttribute: string | null,
  argsSchemaProperty: unknown,
  fallback?: SchemaSource,
): SchemaSource {
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
  if (args.length > 0) {
    try {
      return { ok: true, schema: { type: 'object', ...objectFromArgs(args, 'argsSchema', 2) }, owned: true };
    } catch (thrown) {
      if ((thrown as SchemaSource).ok === false) return thrown as SchemaSource;
      throw thrown;
    }
  }
  // The page's own object: normalization clones it.
  if (argsSchemaProperty !== undefined && argsSchemaProperty !== null)
    return { ok: true, schema: argsSchemaProperty, owned: false };
  return fallback ?? { ok: true, schema: { type: 'object', properties: {} }, owned: true };
}
