/**
 * The Pedelec Tool Args Schema in one walk over the schema: its well-formedness (args-schema.md
 * "Well-formedness"; tools-api.md "Normalization" step 6) and the args validator (args-schema.md
 * "Validation semantics") that is compiled from it once per tool.
 *
 * Checking only reads the schema — the JSON clone that will be sent to Core — and never writes it.
 * A known keyword with a wrong value is an error naming the JSON path of that keyword; keywords
 * outside the subset (or outside the node's type) and `required` names missing from `properties`
 * are warnings, because schemas produced by other tools must keep working.
 *
 * Every node compiles to two closures over the same precomputed data:
 * - `test(v)`: a boolean predicate with no path building and no allocation on the common path —
 *   this is all that runs for valid args;
 * - `explain(v, out, path)`: run only when `test` failed at the root; it re-walks the failing parts
 *   (children that pass `test` are skipped) and collects up to {@link MAX_ERRORS} errors with paths.
 *
 * No `eval`/`new Function`; each `pattern` is compiled once here. The schema's depth is bounded
 * (`MAX_SCHEMA_DEPTH`), so recursion over the schema is bounded; the only recursion that follows
 * the *value* alone (uniqueItems) is bounded by {@link MAX_DEPTH}.
 */
import { appendKey, hasOwn, isPlainObject } from '../json.js';
import type { ToolArgsSchema } from './types.js';

export type SchemaProblem = { path: string; message: string };
export type ArgsError = { path: string; message: string };
/** `null` when the args are valid, else the errors found (at most {@link MAX_ERRORS}). */
export type ArgsValidator = (args: unknown) => ArgsError[] | null;

/** Deepest node nesting accepted (the root node is level 1). Also bounds the validator's recursion. */
export const MAX_SCHEMA_DEPTH = 64;
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

type Test = (v: any) => boolean;
/** Pushes the errors of a value that failed the node's test. */
type Explain = (v: any, out: ArgsError[], path: string) => void;
/** A compiled node: the predicate that is all valid args ever meet, and the explanation of a failure. */
type Compiled = [test: Test, explain: Explain];
/** An object's property: name, compiled node, required. */
type Entry = [string, Compiled, boolean];

const NON_NEGATIVE = 'a non-negative integer';
const FINITE = 'a finite number';
const NON_EMPTY = 'must be a non-empty array';
const isNonNegative: Test = (v) => Number.isInteger(v) && (v as number) >= 0;
const isString: Test = (v) => typeof v === 'string';

/**
 * Each kind of node: the keywords it understands (when it has bounds, they are the 3rd and 4th),
 * what each `enum` value must be, and what the bounds must be.
 */
const KINDS: Record<string, [keywords: string[], enumOk?: Test | 0, enumWhat?: string | 0, boundOk?: Test, boundWhat?: string]> = {
  string: [['type', 'enum', 'minLength', 'maxLength', 'pattern'], isString, 'a string', isNonNegative, NON_NEGATIVE],
  number: [['type', 'enum', 'minimum', 'maximum'], Number.isFinite, FINITE, Number.isFinite, FINITE],
  integer: [['type', 'enum', 'minimum', 'maximum'], Number.isInteger, 'an integer', Number.isFinite, FINITE],
  boolean: [['type', 'enum'], (v) => typeof v === 'boolean', 'a boolean'],
  array: [['type', 'items', 'minItems', 'maxItems', 'uniqueItems'], 0, 0, isNonNegative, NON_NEGATIVE],
  object: [['type', 'properties', 'required']],
  oneOf: [['oneOf']],
};
const TYPES = Object.keys(KINDS).slice(0, 6);
const METADATA = ['description', 'default', 'examples'];
/** Every keyword of the subset, to tell "misplaced" from "unknown" in warnings. */
const SUBSET = new Set([...METADATA, ...Object.values(KINDS).flatMap((kind) => kind[0])]);

const push = (out: ArgsError[], path: string, rest: string) => {
  out.push({ path, message: `${path || 'args'}: ${rest}` });
};
/** Whether there is room for more errors. */
const more = (out: ArgsError[]) => out.length < MAX_ERRORS;
/** A `required` name that is not listed in `properties`: only its presence is checked. */
const PASS: Compiled = [() => true, () => {}];

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Checks `schema` (rooted at `path`) and compiles it: the first error, or `null` and the validator,
 * plus every warning found before checking stopped. Never modifies `schema`.
 */
export function analyzeArgsSchema(
  schema: unknown,
  path = 'argsSchema',
): { error: SchemaProblem | null; warnings: SchemaProblem[]; validate?: ArgsValidator } {
  const warnings: SchemaProblem[] = [];
  let error: SchemaProblem | null = null;
  /** Stops at the first error: thrown here, caught below. */
  const fail = (p: string, rest: string): never => {
    throw (error = { path: p, message: `${p} ${rest}` });
  };
  const warn = (p: string, rest: string) => warnings.push({ path: p, message: `${p}: ${rest}` });

  /** `level` counts nodes (the root is 1); `depth` is the container level of the value (args = 1). */
  // Property names the fast path may read without `hasOwn` (see propsTest), and whether, for this
  // validation, none of them is reachable through Object.prototype.
  const fast: Fast = { keys: [], clean: true };
  const walk = (node: any, p: string, level: number, depth: number): Compiled => {
    const at = (key: string) => appendKey(p, key);
    const has = (key: string) => hasOwn(node, key);
    /** Own-property read: a key such as `constructor` never resolves through the prototype chain. */
    const get = (key: string) => (has(key) ? node[key] : undefined);
    if (!isPlainObject(node)) fail(p, 'must be an object (a schema node)');
    // The recursion below is bounded by this, so a hostile schema cannot overflow the stack.
    if (level > MAX_SCHEMA_DEPTH) fail(p, `is nested deeper than ${MAX_SCHEMA_DEPTH} levels`);

    const hasType = has('type');
    if (hasType && has('oneOf')) fail(at('oneOf'), 'cannot be combined with type');
    if (!hasType && !has('oneOf')) fail(at('type'), 'is missing (or use oneOf)');
    const kind: string = hasType ? node.type : 'oneOf';
    if (hasType && !TYPES.includes(kind)) fail(at('type'), `must be one of ${TYPES.map((t) => `"${t}"`).join(', ')}`);

    // Metadata, allowed on every node. `default` may be any JSON value, and the input is already JSON.
    if (has('description') && typeof node.description !== 'string') fail(at('description'), 'must be a string');
    if (has('examples') && !Array.isArray(node.examples)) fail(at('examples'), 'must be an array');

    const [keywords, enumOk, enumWhat, boundOk, boundWhat] = KINDS[kind]!;
    const hasEnum = enumOk && has('enum');
    const values: unknown[] | undefined = hasEnum ? node.enum : undefined;
    if (hasEnum) {
      const ep = at('enum');
      if (!Array.isArray(values) || !values.length) fail(ep, NON_EMPTY);
      values!.forEach((v, i) => enumOk!(v) || fail(`${ep}[${i}]`, `must be ${enumWhat}`));
    }
    let min = -Infinity;
    let max = Infinity;
    if (boundOk) {
      const [minKey, maxKey] = keywords.slice(2) as [string, string];
      for (const key of [minKey, maxKey]) if (has(key) && !boundOk(node[key])) fail(at(key), `must be ${boundWhat}`);
      min = get(minKey) ?? min;
      max = get(maxKey) ?? max;
      if (min > max) fail(at(minKey), `must not exceed ${at(maxKey)} (${min} > ${max})`);
    }
    const source = get('pattern');
    const required = get('required');
    const rp = at('required');
    switch (kind) {
      case 'string':
        if (has('pattern')) {
          const pp = at('pattern');
          if (typeof source !== 'string') fail(pp, 'must be a string');
          try {
            new RegExp(source, 'u');
          } catch (e) {
            fail(pp, `must compile with the u flag (${(e as Error).message})`);
          }
        }
        break;
      case 'array':
        if (has('uniqueItems') && typeof node.uniqueItems !== 'boolean') fail(at('uniqueItems'), 'must be a boolean');
        if (!has('items')) fail(at('items'), 'is missing');
        break;
      case 'object': {
        if (has('properties') && !isPlainObject(node.properties)) fail(at('properties'), 'must be an object');
        if (!has('required')) break;
        if (!Array.isArray(required)) fail(rp, 'must be an array of strings');
        const seen = new Set<string>();
        required.forEach((name: any, i: number) => {
          if (typeof name !== 'string') fail(`${rp}[${i}]`, 'must be a string');
          if (seen.has(name)) fail(`${rp}[${i}]`, `repeats ${JSON.stringify(name)}`);
          seen.add(name);
        });
        break;
      }
      case 'oneOf':
        if (!Array.isArray(node.oneOf) || !node.oneOf.length) fail(at('oneOf'), NON_EMPTY);
    }

    // Warnings before descending, so they come out in document order.
    for (const key of Object.keys(node)) {
      if (!keywords.includes(key) && !METADATA.includes(key)) {
        warn(at(key), `${SUBSET.has(key) ? `does not apply to ${hasType ? `type "${kind}"` : 'oneOf'}` : 'is not in the Pedelec Tool Args Schema'}; ignored`);
      }
    }

    // The node is well-formed (its children are checked as they are compiled): compile it.
    const allowed = values && new Set(values);
    const enumMessage =
      values &&
      `must be one of ${values
        .slice(0, ENUM_LISTED)
        .map((v) => (typeof v === 'string' ? JSON.stringify(v) : String(v)))
        .join(', ')}${values.length > ENUM_LISTED ? `, … (${values.length - ENUM_LISTED} more)` : ''}`;

    if (kind === 'oneOf') {
      // Alternatives describe the same value, at the same container level.
      const tests: Test[] = node.oneOf.map((alt: unknown, i: number) => walk(alt, `${at('oneOf')}[${i}]`, level + 1, depth)[0]);
      const n = tests.length;
      const count = (v: unknown, most: number) => {
        let matched = 0;
        for (let i = 0; i < n; i++) if (tests[i]!(v) && ++matched > most) break;
        return matched;
      };
      return [(v) => count(v, 1) === 1, (v, out, path) => push(out, path, `must match exactly one of ${plural(n, 'schema')} (matched ${count(v, n)})`)];
    }

    if (kind === 'string') {
      // Non-global: `test` keeps no `lastIndex` state between calls.
      const re = source !== undefined && new RegExp(source, 'u');
      return [
        !allowed && !re && min <= 0 && max === Infinity
          ? (v) => typeof v === 'string'
          : // Lengths first: a pathological pattern never sees an over-long string.
            (v) => typeof v === 'string' && (!allowed || allowed.has(v)) && lengthWithin(v, min, max) && (!re || re.test(v)),
        (v, out, path) => {
          if (typeof v !== 'string') return push(out, path, 'must be a string');
          if (allowed && !allowed.has(v)) push(out, path, enumMessage!);
          if (!lengthWithin(v, min, max)) {
            return push(out, path, codePointLength(v) < min ? `must be at least ${plural(min, 'character')}` : `must be at most ${plural(max, 'character')}`);
          }
          if (re && !re.test(v)) push(out, path, `must match pattern ${source}`);
        },
      ];
    }

    if (kind === 'number' || kind === 'integer') {
      const integer = kind === 'integer';
      // Number.isInteger and Number.isFinite are false for non-numbers, NaN and ±Infinity.
      const isKind = integer ? Number.isInteger : Number.isFinite;
      return [
        !allowed && min === -Infinity && max === Infinity ? isKind : (v) => isKind(v) && (!allowed || allowed.has(v)) && v >= min && v <= max,
        (v, out, path) => {
          if (!isKind(v)) return push(out, path, `must be ${integer ? 'an integer' : typeof v === 'number' ? FINITE : 'a number'}`);
          if (allowed && !allowed.has(v)) push(out, path, enumMessage!);
          if (v < min) push(out, path, `must be ≥ ${min}`);
          if (v > max) push(out, path, `must be ≤ ${max}`);
        },
      ];
    }

    if (kind === 'boolean') {
      return [
        allowed ? (v) => allowed.has(v) && typeof v === 'boolean' : (v) => v === true || v === false,
        (v, out, path) => push(out, path, typeof v !== 'boolean' ? 'must be a boolean' : enumMessage!),
      ];
    }

    if (kind === 'array') {
      const [itemTest, itemExplain] = walk(node.items, at('items'), level + 1, depth + 1);
      const unique = get('uniqueItems') === true;
      // Elements sit one level below this array; each may add this many more container levels.
      const budget = MAX_DEPTH - depth;
      return [
        (v) => {
          if (!Array.isArray(v) || v.length < min || v.length > max) return false;
          for (let i = 0; i < v.length; i++) if (!itemTest(v[i])) return false;
          return !unique || !uniqueProblem(v, budget);
        },
        (v, out, path) => {
          if (!Array.isArray(v)) return push(out, path, 'must be an array');
          const n = v.length;
          if (n < min) push(out, path, `must have at least ${plural(min, 'item')}`);
          if (n > max) push(out, path, `must have at most ${plural(max, 'item')}`);
          for (let i = 0; i < n && more(out); i++) if (!itemTest(v[i])) itemExplain(v[i], out, `${path}[${i}]`);
          const problem = unique && more(out) && uniqueProblem(v, budget);
          if (problem) {
            if (problem[1] === undefined) push(out, `${path}[${problem[0]}]`, `nested deeper than ${MAX_DEPTH} levels`);
            else push(out, path, `must not contain duplicates (items ${problem[0]} and ${problem[1]} are equal)`);
          }
        },
      ];
    }

    // An object.
    const props = get('properties');
    const names: string[] = required ?? [];
    // [name, compiled, required]: the listed properties, then `required` names not listed (only
    // their presence is checked). The fast path walks these, never the value's keys.
    const unlisted: Entry[] = [];
    names.forEach((name, i) => {
      if (props && hasOwn(props, name)) return;
      warn(`${rp}[${i}]`, `${JSON.stringify(name)} is not in properties`);
      unlisted.push([name, PASS, true]);
    });
    const entries: Entry[] = [
      ...Object.keys(props ?? {}).map((name): Entry => [name, walk(props[name], appendKey(at('properties'), name), level + 1, depth + 1), names.includes(name)]),
      ...unlisted,
    ];
    const n = entries.length;
    return [
      propsTest(entries, 0, fast),
      (v, out, path) => {
        if (!isPlainObject(v)) return push(out, path, 'must be an object');
        for (let i = 0; i < n && more(out); i++) {
          const [name, [test, explain], mandatory] = entries[i]!;
          if (hasOwn(v, name)) {
            if (!test(v[name])) explain(v[name], out, appendKey(path, name));
          } else if (mandatory) push(out, appendKey(path, name), 'is required');
        }
      },
    ];
  };

  try {
    const [test, explain] = walk(schema, path, 1, 1);
    return {
      error,
      warnings,
      validate: (args) => {
        fast.clean = protoClean(fast.keys);
        if (test(args)) return null;
        const out: ArgsError[] = [];
        explain(args, out, '');
        // `explain` mirrors `test`; this only guards against the two ever disagreeing.
        return out.length ? out.slice(0, MAX_ERRORS) : [{ path: '', message: 'args: is invalid' }];
      },
    };
  } catch (thrown) {
    if (!error) throw thrown;
    return { error, warnings };
  }
}

/**
 * Checks `schema` (rooted at `path`) and returns the first error, or `null`, plus every warning
 * found before checking stopped. Never modifies `schema`.
 */
export function checkArgsSchema(schema: unknown, path?: string): { error: SchemaProblem | null; warnings: SchemaProblem[] } {
  const { error, warnings } = analyzeArgsSchema(schema, path);
  return { error, warnings };
}

/**
 * Compiles `schema` (which must pass `checkArgsSchema`; otherwise its first error is thrown) into
 * a reusable validator. The validator never modifies, nor keeps, the args it is given.
 */
export function compileArgsValidator(schema: ToolArgsSchema): ArgsValidator {
  const { error, validate } = analyzeArgsSchema(schema);
  if (!validate) throw error;
  return validate;
}

/** A validator's fast-path property names, and whether Object.prototype has none of them now. */
type Fast = { keys: string[]; clean: boolean };

/** No name in `keys` is reachable on Object.prototype (own or inherited, enumerable or not). */
function protoClean(keys: readonly string[]): boolean {
  for (let i = 0; i < keys.length; i++) if (keys[i]! in Object.prototype) return false;
  return true;
}

/**
 * An object's test: four listed properties per closure, then the next four. Each property is read
 * at its own source position on purpose: a read whose key is fixed there stays monomorphic for the
 * engine, where one loop over the keys makes every read megamorphic — markedly slower on small
 * objects in V8, the common case.
 *
 * Own data only, so `constructor` or `__proto__` never come from the prototype chain. The value is
 * read first; `hasOwn` is skipped only when the read gave a value other than `undefined` for a name
 * that Object.prototype did not have at compile time (`quick`) and does not have at this
 * validation (`fast.clean`, checked once per validation at the root). The object's prototype is
 * Object.prototype or null (isPlainObject), so such a value can only be own. An `undefined` read —
 * absent, or own with the value `undefined` (present: it then fails its test) — asks `hasOwn`.
 */
function propsTest(entries: Entry[], start: number, fast: Fast): Test {
  const n = entries.length - start;
  const next = n > 4 && propsTest(entries, start + 4, fast);
  const quick = (k: string) => {
    const ok = !(k in Object.prototype);
    if (ok && !fast.keys.includes(k)) fast.keys.push(k);
    return ok;
  };
  const [[k0, [t0], m0], [k1, [t1], m1], [k2, [t2], m2], [k3, [t3], m3]] = [0, 1, 2, 3].map((i) => entries[start + i] ?? ['', PASS, false]);
  const [q0, q1, q2, q3] = [k0, k1, k2, k3].map((k, i) => i < n && quick(k));
  return (o) => {
    if (!start && !isPlainObject(o)) return false;
    if (n > 0) {
      const clean = fast.clean;
      const x0 = o[k0];
      if ((x0 !== undefined && q0 && clean) || hasOwn(o, k0) ? !t0(x0) : m0) return false;
      if (n > 1) {
        const x1 = o[k1];
        if ((x1 !== undefined && q1 && clean) || hasOwn(o, k1) ? !t1(x1) : m1) return false;
        if (n > 2) {
          const x2 = o[k2];
          if ((x2 !== undefined && q2 && clean) || hasOwn(o, k2) ? !t2(x2) : m2) return false;
          if (n > 3) {
            const x3 = o[k3];
            if ((x3 !== undefined && q3 && clean) || hasOwn(o, k3) ? !t3(x3) : m3) return false;
          }
        }
      }
    }
    return !next || next(o);
  };
}

// ---------------------------------------------------------------------------------------------
// Strings: lengths in code points.

/** Unicode code points in `s`: a surrogate pair counts once, a lone surrogate once. Linear. */
function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
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
// uniqueItems: JSON equality, depth-bounded.

let uniqueToken = 0;

/**
 * A string equal for two values exactly when they are JSON-equal (keys sorted; 0 and -0 alike, NaN
 * equal to itself), or `null` when containers nest more than `budget` levels. Functions and
 * symbols get a fresh token: never equal to anything. Linear in the size of the value.
 */
function canonical(v: any, budget: number): string | null {
  if (typeof v === 'function' || typeof v === 'symbol') return `#${++uniqueToken}`;
  if (typeof v !== 'object' || v === null) return typeof v === 'string' ? JSON.stringify(v) : typeof v === 'bigint' ? `${v}n` : String(v);
  if (budget <= 0) return null;
  const keys = Array.isArray(v) ? null : Object.keys(v).sort();
  let s = '';
  for (const k of keys ?? v.keys()) {
    const c = canonical(v[k], budget - 1);
    if (c === null) return null;
    s += `${s && ','}${keys ? `${JSON.stringify(k)}:` : ''}${c}`;
  }
  return keys ? `{${s}}` : `[${s}]`;
}

const isContainer = (v: unknown): v is object => typeof v === 'object' && v !== null;

/** JSON equality of two elements; allocates only to compare two containers. */
const same = (a: unknown, b: unknown, budget: number): boolean =>
  isContainer(a) && isContainer(b)
    ? canonical(a, budget) === canonical(b, budget)
    : a === b
      ? typeof a !== 'function' && typeof a !== 'symbol'
      : a !== a && b !== b; // NaN as a Map sees it (SameValueZero)

/**
 * `undefined` when no two elements are equal and none is nested more than `budget` levels; else
 * `[index]` of a too deep element or `[first, second]` of a duplicate. Small arrays pairwise, after
 * checking every element's depth; large ones in one pass through Maps — primitives keyed by
 * themselves (SameValueZero is JSON equality for them), containers by their canonical string.
 */
function uniqueProblem(arr: readonly unknown[], budget: number): number[] | undefined {
  const n = arr.length;
  if (n <= PAIRWISE_LIMIT) {
    for (let i = 0; i < n; i++) if (isContainer(arr[i]) && canonical(arr[i], budget) === null) return [i];
    for (let j = 1; j < n; j++) for (let i = 0; i < j; i++) if (same(arr[i], arr[j], budget)) return [i, j];
    return;
  }
  const primitives = new Map<unknown, number>();
  const containers = new Map<unknown, number>();
  for (let i = 0; i < n; i++) {
    let v = arr[i];
    let seen = primitives;
    if (typeof v === 'function' || typeof v === 'symbol') continue; // never equal to anything
    if (isContainer(v)) {
      v = canonical(v, budget);
      if (v === null) return [i];
      seen = containers;
    }
    const first = seen.get(v);
    if (first !== undefined) return [first, i];
    seen.set(v, i);
  }
}
