import { normalizeError } from './errors.js';

/** The values a Chrome port (and so the bridge) carries intact. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };

/** Why a value is not bridge JSON: where (`result.items[2]`) and what. */
export type JsonProblem = { path: string; message: string };

const MAX_DEPTH = 256;

/** Own-property test (ES2022, like the rest of the build). */
export const hasOwn = Object.hasOwn;

/** An array or an object, read by index or key. */
type Entries = Record<string | number, unknown>;

/** An object that is not an array (the client's loose check of what arrives). */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && !!value && !Array.isArray(value);

/** A non-empty string. */
export const isText = (value: unknown): value is string => typeof value === 'string' && !!value;

/** A string with something in it besides spaces. */
export const isFilled = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** The fields of what arrived: the value itself when it is an object, else none. */
export const fieldsOf = (value: unknown): Record<string, unknown> => (isObject(value) ? value : {});

/**
 * A plain object: not an array, not `null`, its prototype `Object.prototype` — this realm's or another
 * one's (a same-origin iframe's data) — or `null`.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  // An array's prototype is Array.prototype: no separate isArray test.
  const proto: unknown = typeof value === 'object' && value !== null && Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null || (proto !== false && Object.getPrototypeOf(proto) === null);
}

/** `a.b`, `a["odd key"]`, `a[2]`: JS notation, readable by the agent and the developer. */
export const appendKey = (path: string, key: string): string =>
  /^[A-Za-z_$][\w$]*$/.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`;

/** The same keys as a JSON Pointer (`/a/b/2`): `~` and `/` in a key escaped as `~0` and `~1`. */
export const pointerOf = (keys: readonly (string | number)[]): string =>
  keys.map((key) => `/${String(key).replace(/[~/]/g, (c) => (c === '~' ? '~0' : '~1'))}`).join('');

/** The keys (names and indexes) from a root down to a value, as a path after `root`: `a.b[2]`. */
export const pathOf = (keys: readonly (string | number)[], root = ''): string =>
  keys.reduce<string>((p, key) => (typeof key === 'number' ? `${p}[${key}]` : appendKey(p, key)), root);

/** What a value that is not JSON is called in a problem's message. */
const describe = (value: unknown): string =>
  (({ bigint: 'BigInt', function: 'a function', symbol: 'a symbol', number: String(value) }) as Record<string, string>)[
    typeof value
  ] ??
  ((value as object)?.constructor?.name
    ? `${/^[AEIOU]/.test((value as object).constructor.name) ? 'an' : 'a'} ${(value as object).constructor.name}`
    : 'a non-plain object');

/** Thrown by {@link convert} at the first value that is not JSON; nothing else can throw it. */
class NotJson {
  constructor(readonly what: string) {}
}

/**
 * Whether an object's own enumerable data is all it holds: a plain object, or an instance of the page's
 * own classes (no built-in constructor but `Object` on its prototype chain), of any realm. Built-ins
 * hold more than their keys show, and name themselves otherwise (`[object Map]`, `[object Error]`,
 * `[object HTMLDivElement]`) — also those a runtime writes in JS, such as Node's EventTarget.
 */
const isDataObject = (value: object): boolean => Object.prototype.toString.call(value) === '[object Object]';

/**
 * Converts a handler's result to bridge JSON the way `JSON.stringify` would (`toJSON` called once per
 * value, with its key; `undefined` object properties dropped; `undefined` at the top level → `null`),
 * or reports the first value that loses something on the way, with its path: a function, symbol,
 * BigInt, non-finite number, `undefined` in an array, cycle, or an object with more than its own
 * enumerable data. Every value is read once, into a copy: what was checked is what is sent, whatever
 * getters or proxies would answer on a second read. Never throws: a `toJSON` or a getter that throws
 * is reported as a problem where it threw.
 */
export function toBridgeJson(
  value: unknown,
  path = 'result',
): { ok: true; value: JsonValue } | { ok: false; problem: JsonProblem } {
  // The keys from `value` down to the value being converted: turned into a path only on failure,
  // so a valid result costs no string building (this runs for every tool call).
  const keys: (string | number)[] = [];
  try {
    return { ok: true, value: (convert(value, keys, [], 0, '') ?? null) as JsonValue };
  } catch (thrown) {
    const what =
      thrown instanceof NotJson
        ? thrown.what
        : `could not be converted (${normalizeError(thrown, '', 'it threw').message})`;
    const at = pathOf(keys, path);
    return { ok: false, problem: { path: at, message: `${at}: ${what}` } };
  }
}

/**
 * One step of {@link toBridgeJson}: `v` is the value at `holderKey` of its container; returns its
 * JSON copy, `undefined` when it is left out. `seen` holds the containers above `v` (a cycle check).
 */
function convert(
  v: unknown,
  keys: (string | number)[],
  seen: object[],
  depth: number,
  holderKey: string | number,
): unknown {
  // As JSON.stringify: an object's (or a BigInt's) toJSON is called once, with the key, and what it
  // returns is converted as it is (a toJSON that returns `this` is no loop).
  if (typeof v === 'object' || typeof v === 'bigint') {
    const toJSON = (v as { toJSON?: unknown } | null)?.toJSON;
    if (typeof toJSON === 'function') v = toJSON.call(v, String(holderKey));
  }
  if (v == null || typeof v === 'string' || typeof v === 'boolean' || Number.isFinite(v)) return v;
  if (typeof v !== 'object') throw new NotJson(`${describe(v)} is not JSON`);
  if (depth > MAX_DEPTH) throw new NotJson(`nested deeper than ${MAX_DEPTH} levels`);
  if (seen.includes(v)) throw new NotJson('cycle is not JSON');
  const array = Array.isArray(v);
  if (!array && !isDataObject(v)) throw new NotJson(`${describe(v)} is not JSON`);
  seen.push(v);
  // An array's items or an object's entries, each read once.
  const out: unknown[] = [];
  for (const key of array ? [...Array((v as unknown[]).length).keys()] : Object.keys(v)) {
    // Popped only on success: after a throw, `keys` ends at the value that is not JSON.
    keys.push(key);
    const item = convert((v as Entries)[key], keys, seen, depth + 1, key);
    if (item === undefined && array) throw new NotJson('undefined in an array is not JSON');
    keys.pop();
    // An undefined property is dropped.
    if (item !== undefined) out.push(array ? item : [key, item]);
  }
  seen.pop();
  // Entries become own data properties, even "__proto__".
  return array ? out : Object.fromEntries(out as [string, unknown][]);
}

/**
 * Canonical text of a value: object keys sorted (those whose value is `undefined` left out), so
 * equal data gives one string whatever its key order. `leaf` spells everything that is not a
 * container; `null` when containers nest deeper than `depth` levels. Linear in the size of the value.
 */
export function canonicalText(value: unknown, leaf: (v: unknown) => string, depth = Infinity): string | null {
  if (value === null || typeof value !== 'object') return leaf(value);
  if (depth < 1) return null;
  // An array's items by index, an object's values by key (`Entries`).
  const keys =
    !Array.isArray(value) &&
    Object.keys(value)
      .filter((k) => (value as Entries)[k] !== undefined)
      .sort();
  let text = '';
  for (const k of keys || (value as unknown[]).keys()) {
    const item = canonicalText((value as Entries)[k], leaf, depth - 1);
    if (item === null) return null;
    text += `${text && ','}${keys ? `${JSON.stringify(k)}:` : ''}${item}`;
  }
  return keys ? `{${text}}` : `[${text}]`;
}

/**
 * Canonical JSON text: object keys sorted, so two equal definitions give one string whatever
 * their key order. Used as a cache key and for manifest hashes; input must already be JSON.
 */
export const canonicalJson = (value: unknown): string => canonicalText(value, (v) => JSON.stringify(v) ?? 'null')!;
