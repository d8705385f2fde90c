/**
 * The args validator (args-schema.md "Validation semantics"), compiled once per tool schema.
 *
 * Every node compiles to two closures over the same precomputed data:
 * - `test(v)`: a boolean predicate with no path building and no allocation on the common path —
 *   this is all that runs for valid args;
 * - `explain(v, path, out)`: run only when `test` failed at the root; it re-walks the failing parts
 *   (children that pass `test` are skipped) and collects up to {@link MAX_ERRORS} errors with paths.
 *
 * No `eval`/`new Function`; each `pattern` is compiled once here. The schema is assumed to have
 * passed `checkArgsSchema`, which also bounds its depth, so recursion over the schema is bounded.
 * The only recursion that follows the *value* alone (uniqueItems) is bounded by {@link MAX_DEPTH}.
 */
import { appendKey } from '../json.js';
import type { ToolArgsSchema } from './types.js';

export type ArgsError = { path: string; message: string };
/** `null` when the args are valid, else the errors found (at most {@link MAX_ERRORS}). */
export type ArgsValidator = (args: unknown) => ArgsError[] | null;

/** How many errors one validation reports at most. */
export const MAX_ERRORS = 10;
/**
 * Containers nested deeper than this (the args object is level 1) are an error where the validator
 * walks a value on its own (uniqueItems). Elsewhere it follows the schema, whose depth is bounded.
 */
export const MAX_DEPTH = 64;
/** Arrays up to this length are checked for duplicates pairwise; longer ones are hashed. */
const PAIRWISE_LIMIT = 16;
/** Enum values listed in a message before it is shortened. */
const ENUM_LISTED = 20;

type Test = (v: unknown) => boolean;
type Explain = (v: unknown, path: string, out: ArgsError[]) => void;
type Compiled = { test: Test; explain: Explain };
/** A schema node read loosely: well-formedness was checked before. */
type Node = Record<string, unknown>;

/** Own-property test: `Object.hasOwn` where the engine has it (measurably faster), else the method. */
const hasOwn: (o: object, key: PropertyKey) => boolean =
  Object.hasOwn ?? ((o: object, key: PropertyKey) => Object.prototype.hasOwnProperty.call(o, key));
const ObjectProto = Object.prototype;
const getProto = Object.getPrototypeOf;
const isArray = Array.isArray;

function own(obj: object, key: string): unknown {
  return hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

/** A plain object: not an array, not `null`, prototype `Object.prototype` or `null`. */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto = getProto(v); // an array's is Array.prototype, so no separate isArray test
  return proto === ObjectProto || proto === null;
}

const label = (path: string) => (path === '' ? 'args' : path);
const push = (out: ArgsError[], path: string, rest: string) => {
  out.push({ path, message: `${label(path)}: ${rest}` });
};
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function formatEnum(values: readonly unknown[]): string {
  const shown = values.slice(0, ENUM_LISTED).map((v) => (typeof v === 'string' ? JSON.stringify(v) : String(v)));
  const more = values.length - shown.length;
  return `must be one of ${shown.join(', ')}${more > 0 ? `, … (${more} more)` : ''}`;
}

// ---------------------------------------------------------------------------------------------
// Strings: lengths in code points.

/** Unicode code points in `s`: a surrogate pair counts once, a lone surrogate once. Linear. */
function codePointLength(s: string): number {
  const n = s.length;
  let pairs = 0;
  for (let i = 0; i < n - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return n - pairs;
}

/**
 * `min ≤ code points ≤ max`. A string of n UTF-16 units has between ⌈n/2⌉ and n code points, so
 * most strings are decided from `.length` alone and only borderline ones are counted.
 */
function lengthWithin(s: string, min: number, max: number): boolean {
  const n = s.length;
  const least = (n + 1) >> 1;
  if (least >= min && n <= max) return true;
  if (n < min || least > max) return false;
  const cp = codePointLength(s);
  return cp >= min && cp <= max;
}

// ---------------------------------------------------------------------------------------------
// uniqueItems: JSON deep equality, depth-bounded.

/** True when `v` has containers nested more than `budget` levels deep (`v` itself counting as one). */
function tooDeep(v: unknown, budget: number): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (budget <= 0) return true;
  if (isArray(v)) {
    for (let i = 0; i < v.length; i++) if (tooDeep(v[i], budget - 1)) return true;
  } else {
    for (const k of Object.keys(v)) if (tooDeep((v as Record<string, unknown>)[k], budget - 1)) return true;
  }
  return false;
}

/**
 * JSON equality: same type and value; arrays element by element; objects key by key whatever
 * the key order. Callers bound the depth first (`tooDeep`). Values that are not JSON (functions,
 * symbols) are never equal to anything, matching `canonical` below.
 */
function deepEqual(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    if (typeof a === 'function' || typeof a === 'symbol') return false;
    return a === b || (a !== a && b !== b); // NaN as a Map would see it (SameValueZero)
  }
  const arrA = isArray(a);
  if (arrA !== isArray(b)) return false;
  if (arrA) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!deepEqual(x[i], y[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const k of keys) if (!hasOwn(y, k) || !deepEqual(x[k], y[k])) return false;
  return true;
}

let uniqueToken = 0;

/**
 * A string equal for two containers exactly when they are JSON-equal (keys sorted), or `null` when
 * nested more than `budget` levels. Linear in the size of the value (times its depth, ≤ 64).
 */
function canonical(v: unknown, budget: number): string | null {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
    case 'boolean':
      return String(v); // String(-0) === "0": 0 and -0 are JSON-equal
    case 'bigint':
      return `${v}n`;
    case 'undefined':
      return 'undefined';
    case 'function':
    case 'symbol':
      return `#${++uniqueToken}`; // never equal to anything, as in deepEqual
  }
  if (v === null) return 'null';
  if (budget <= 0) return null;
  let s: string;
  if (isArray(v)) {
    s = '[';
    for (let i = 0; i < v.length; i++) {
      const c = canonical(v[i], budget - 1);
      if (c === null) return null;
      s += i ? `,${c}` : c;
    }
    return `${s}]`;
  }
  const obj = v as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  s = '{';
  for (let i = 0; i < keys.length; i++) {
    const c = canonical(obj[keys[i]], budget - 1);
    if (c === null) return null;
    s += `${i ? ',' : ''}${JSON.stringify(keys[i])}:${c}`;
  }
  return `${s}}`;
}

type UniqueProblem = { kind: 'duplicate'; first: number; second: number } | { kind: 'deep'; index: number };

/**
 * `null` when no two elements are equal and none is nested more than `budget` levels; else the
 * first problem. Small arrays pairwise; large ones in one pass through a Map — primitives keyed by
 * themselves (SameValueZero is JSON equality for them), containers by their canonical string.
 */
function findUniqueProblem(arr: readonly unknown[], budget: number): UniqueProblem | null {
  const n = arr.length;
  if (n <= PAIRWISE_LIMIT) {
    for (let i = 0; i < n; i++) if (tooDeep(arr[i], budget)) return { kind: 'deep', index: i };
    for (let j = 1; j < n; j++) {
      for (let i = 0; i < j; i++) if (deepEqual(arr[i], arr[j])) return { kind: 'duplicate', first: i, second: j };
    }
    return null;
  }
  const primitives = new Map<unknown, number>();
  let containers: Map<string, number> | undefined;
  for (let i = 0; i < n; i++) {
    const v = arr[i];
    let seen: number | undefined;
    if (typeof v === 'object' && v !== null) {
      const key = canonical(v, budget);
      if (key === null) return { kind: 'deep', index: i };
      containers ??= new Map();
      seen = containers.get(key);
      if (seen === undefined) containers.set(key, i);
    } else if (typeof v === 'function' || typeof v === 'symbol') {
      continue; // never equal to anything
    } else {
      seen = primitives.get(v);
      if (seen === undefined) primitives.set(v, i);
    }
    if (seen !== undefined) return { kind: 'duplicate', first: seen, second: i };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Node compilers. `level` is the container level of the value this node describes (args = 1);
// oneOf alternatives describe the same value, so they share their parent's level.

function compileNode(node: Node, level: number): Compiled {
  if (hasOwn(node, 'oneOf')) return compileOneOf(node, level);
  switch (own(node, 'type')) {
    case 'string':
      return compileString(node);
    case 'number':
    case 'integer':
      return compileNumber(node, own(node, 'type') === 'integer');
    case 'boolean':
      return compileBoolean(node);
    case 'array':
      return compileArray(node, level);
    case 'object':
      return compileObject(node, level);
    default:
      // Unreachable for a checked schema; refuse everything rather than accept silently.
      return { test: () => false, explain: (_v, path, out) => push(out, path, 'has no valid schema') };
  }
}

function compileString(node: Node): Compiled {
  const values = own(node, 'enum') as string[] | undefined;
  const allowed = values ? new Set<unknown>(values) : undefined;
  const min = (own(node, 'minLength') as number | undefined) ?? 0;
  const max = (own(node, 'maxLength') as number | undefined) ?? Infinity;
  const hasLength = min > 0 || max !== Infinity;
  const source = own(node, 'pattern') as string | undefined;
  // Non-global: `test` keeps no `lastIndex` state between calls.
  const re = source === undefined ? undefined : new RegExp(source, 'u');

  const test: Test =
    !allowed && !hasLength && !re
      ? (v) => typeof v === 'string'
      : (v) =>
          typeof v === 'string' &&
          (!allowed || allowed.has(v)) &&
          // Lengths first: a pathological pattern never sees an over-long string.
          (!hasLength || lengthWithin(v, min, max)) &&
          (!re || re.test(v));

  const explain: Explain = (v, path, out) => {
    if (typeof v !== 'string') return push(out, path, 'must be a string');
    if (allowed && !allowed.has(v)) push(out, path, formatEnum(values!));
    if (hasLength && !lengthWithin(v, min, max)) {
      const cp = codePointLength(v);
      if (cp < min) push(out, path, `must be at least ${plural(min, 'character')}`);
      else push(out, path, `must be at most ${plural(max, 'character')}`);
      return;
    }
    if (re && !re.test(v)) push(out, path, `must match pattern ${source}`);
  };
  return { test, explain };
}

function compileNumber(node: Node, integer: boolean): Compiled {
  const values = own(node, 'enum') as number[] | undefined;
  const allowed = values ? new Set<unknown>(values) : undefined;
  const min = (own(node, 'minimum') as number | undefined) ?? -Infinity;
  const max = (own(node, 'maximum') as number | undefined) ?? Infinity;
  // Number.isInteger and Number.isFinite are false for non-numbers, NaN and ±Infinity.
  const isKind: Test = integer ? Number.isInteger : Number.isFinite;

  const test: Test =
    !allowed && min === -Infinity && max === Infinity
      ? isKind
      : (v) => isKind(v) && (!allowed || allowed.has(v)) && (v as number) >= min && (v as number) <= max;

  const explain: Explain = (v, path, out) => {
    if (integer && !Number.isInteger(v)) return push(out, path, 'must be an integer');
    if (typeof v !== 'number') return push(out, path, 'must be a number');
    if (!Number.isFinite(v)) return push(out, path, 'must be a finite number');
    if (allowed && !allowed.has(v)) push(out, path, formatEnum(values!));
    if (v < min) push(out, path, `must be ≥ ${min}`);
    if (v > max) push(out, path, `must be ≤ ${max}`);
  };
  return { test, explain };
}

function compileBoolean(node: Node): Compiled {
  const values = own(node, 'enum') as boolean[] | undefined;
  const allowed = values ? new Set<unknown>(values) : undefined;
  const test: Test = allowed ? (v) => allowed.has(v) && typeof v === 'boolean' : (v) => v === true || v === false;
  const explain: Explain = (v, path, out) => {
    if (typeof v !== 'boolean') return push(out, path, 'must be a boolean');
    if (allowed && !allowed.has(v)) push(out, path, formatEnum(values!));
  };
  return { test, explain };
}

function compileArray(node: Node, level: number): Compiled {
  const items = compileNode(own(node, 'items') as Node, level + 1);
  const itemTest = items.test;
  const min = (own(node, 'minItems') as number | undefined) ?? 0;
  const max = (own(node, 'maxItems') as number | undefined) ?? Infinity;
  const unique = own(node, 'uniqueItems') === true;
  // Elements sit one level below this array; each may add this many more container levels.
  const budget = MAX_DEPTH - level;

  const test: Test = (v) => {
    if (!isArray(v)) return false;
    const n = v.length;
    if (n < min || n > max) return false;
    for (let i = 0; i < n; i++) if (!itemTest(v[i])) return false;
    return !unique || findUniqueProblem(v, budget) === null;
  };

  const explain: Explain = (v, path, out) => {
    if (!isArray(v)) return push(out, path, 'must be an array');
    const n = v.length;
    if (n < min) push(out, path, `must have at least ${plural(min, 'item')}`);
    if (n > max) push(out, path, `must have at most ${plural(max, 'item')}`);
    for (let i = 0; i < n && out.length < MAX_ERRORS; i++) {
      if (!itemTest(v[i])) items.explain(v[i], `${path}[${i}]`, out);
    }
    if (!unique || out.length >= MAX_ERRORS) return;
    const problem = findUniqueProblem(v, budget);
    if (problem?.kind === 'deep') push(out, `${path}[${problem.index}]`, `nested deeper than ${MAX_DEPTH} levels`);
    else if (problem) push(out, path, `must not contain duplicates (items ${problem.first} and ${problem.second} are equal)`);
  };
  return { test, explain };
}

/** Checks some of an object's listed properties; the object is already known to be plain. */
type PropsTest = (o: Record<string, unknown>) => boolean;

/**
 * Tests up to four listed properties per closure, each in its own line of code, then hands over to
 * `next`. Unrolled on purpose: a property read whose key is fixed at its own source position stays
 * monomorphic for the engine, where one loop over a key array (or one closure per property) makes
 * every read megamorphic — about 2.5× slower on small objects in V8, which are the common case.
 * Own data only: `hasOwn` before each read, so `constructor` or `__proto__` never come from the
 * prototype chain (an own `__proto__` data property shadows the inherited accessor when read).
 */
function propsChunk(names: string[], tests: Test[], mandatory: boolean[], start: number): PropsTest {
  const n = Math.min(4, names.length - start);
  const next = start + 4 < names.length ? propsChunk(names, tests, mandatory, start + 4) : undefined;
  const [k0, k1, k2, k3] = names.slice(start, start + 4) as [string, string, string, string];
  const [t0, t1, t2, t3] = tests.slice(start, start + 4) as [Test, Test, Test, Test];
  const [m0, m1, m2, m3] = mandatory.slice(start, start + 4);
  return (o) => {
    if (hasOwn(o, k0)) {
      if (!t0(o[k0])) return false;
    } else if (m0) return false;
    if (n > 1) {
      if (hasOwn(o, k1)) {
        if (!t1(o[k1])) return false;
      } else if (m1) return false;
      if (n > 2) {
        if (hasOwn(o, k2)) {
          if (!t2(o[k2])) return false;
        } else if (m2) return false;
        if (n > 3) {
          if (hasOwn(o, k3)) {
            if (!t3(o[k3])) return false;
          } else if (m3) return false;
        }
      }
    }
    return next === undefined || next(o);
  };
}

function compileObject(node: Node, level: number): Compiled {
  const props = (own(node, 'properties') as Record<string, Node> | undefined) ?? {};
  const required = new Set((own(node, 'required') as string[] | undefined) ?? []);
  const names = Object.keys(props);
  const children = names.map((name) => compileNode(own(props, name) as Node, level + 1));
  const tests = children.map((c) => c.test);
  const mandatory = names.map((name) => required.has(name));
  // `required` names not in `properties`: only their presence is checked.
  const extraRequired = [...required].filter((name) => !hasOwn(props, name));
  const listed = names.length > 0 ? propsChunk(names, tests, mandatory, 0) : undefined;

  // The fast path walks the schema's lists, never the value's keys (no allocation).
  const test: Test = (v) => {
    if (!isPlainObject(v)) return false;
    if (listed !== undefined && !listed(v)) return false;
    for (let i = 0; i < extraRequired.length; i++) if (!hasOwn(v, extraRequired[i])) return false;
    return true;
  };

  const explain: Explain = (v, path, out) => {
    if (!isPlainObject(v)) return push(out, path, 'must be an object');
    for (let i = 0; i < names.length && out.length < MAX_ERRORS; i++) {
      const name = names[i];
      if (hasOwn(v, name)) {
        if (!tests[i](v[name])) children[i].explain(v[name], appendKey(path, name), out);
      } else if (mandatory[i]) push(out, appendKey(path, name), 'is required');
    }
    for (const name of extraRequired) {
      if (out.length >= MAX_ERRORS) return;
      if (!hasOwn(v, name)) push(out, appendKey(path, name), 'is required');
    }
  };
  return { test, explain };
}

function compileOneOf(node: Node, level: number): Compiled {
  const tests = (own(node, 'oneOf') as Node[]).map((alt) => compileNode(alt, level).test);
  const n = tests.length;

  const test: Test = (v) => {
    let matched = 0;
    for (let i = 0; i < n; i++) if (tests[i](v) && ++matched > 1) return false;
    return matched === 1;
  };
  const explain: Explain = (v, path, out) => {
    let matched = 0;
    for (let i = 0; i < n; i++) if (tests[i](v)) matched++;
    if (matched !== 1) push(out, path, `must match exactly one of ${plural(n, 'schema')} (matched ${matched})`);
  };
  return { test, explain };
}

/**
 * Compiles `schema` (which must have passed `checkArgsSchema`) into a reusable validator.
 * The validator never modifies, nor keeps, the args it is given.
 */
export function compileArgsValidator(schema: ToolArgsSchema): ArgsValidator {
  const root = compileNode(schema as unknown as Node, 1);
  const { test, explain } = root;
  return (args) => {
    if (test(args)) return null;
    const out: ArgsError[] = [];
    explain(args, '', out);
    // `explain` mirrors `test`; this only guards against the two ever disagreeing.
    if (out.length === 0) push(out, '', 'is invalid');
    return out.length > MAX_ERRORS ? out.slice(0, MAX_ERRORS) : out;
  };
}
