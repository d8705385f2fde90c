/**
 * The Pedelec Tool Args Schema in one walk over the schema: what of it the kit can validate
 * (args-schema.md "Well-formedness"; tools-api.md "Normalization" step 6) and the args validator
 * (args-schema.md "Validation semantics") that is compiled from it once per tool.
 *
 * Checking only reads the schema — the JSON clone that will be sent to Core — and never writes it, and
 * it rejects nothing: the public SDK accepts any object schema, and Core checks full JSON Schema. A node
 * the kit cannot validate — outside the subset (`anyOf`, `$ref`, a type array, the missing `items` of
 * an array), or with a keyword it cannot use (`enum: []`, a minimum above its maximum, a `pattern` that
 * does not compile) — is left unvalidated: it accepts any value, and the problem is listed with the
 * JSON path of that keyword (or node). A `oneOf` with such an alternative is left unvalidated as a
 * whole, since counting matches against an alternative that accepts anything would refuse valid args.
 * Keywords outside the subset (or outside the node's type) on a node the kit does validate, and
 * `required` names missing from `properties`, are warnings, because schemas produced by other tools
 * must keep working.
 *
 * Every node compiles to two closures over the same precomputed data:
 * - `test(v)`: a boolean predicate with no path building and no allocation on the common path —
 *   this is all that runs for valid args. Kept small, so the engine can inline it into its parent;
 * - `explain(v, out, path)`: run only on a value that failed `test`; it re-walks the failing parts
 *   (children that pass `test` are skipped) and collects up to {@link MAX_ERRORS} errors with paths,
 *   worded by args-errors.ts.
 *
 * No `eval`/`new Function`; each `pattern` is compiled once. The schema's depth is bounded
 * (`MAX_SCHEMA_DEPTH`), so recursion over the schema is bounded; the only recursion that follows
 * the *value* alone (uniqueItems) is bounded by {@link MAX_DEPTH}.
 */
import { appendKey, hasOwn, isPlainObject } from '../json.js';
import { more, oneOfMessage, plural, push, MAX_ERRORS, type ArgsError, type Keys } from './args-errors.js';
import { KEYWORDS, KINDS, RULES, TYPES, type Test } from './keywords.js';
import { codePointLength, lengthWithin, uniqueProblem } from './value-checks.js';
import type { ToolArgsSchema } from './types.js';

export { argsError, argsMessage, MAX_ERRORS, type ArgsError, type Keys } from './args-errors.js';

export type SchemaProblem = { path: string; message: string };
/** `null` when the args are valid, else the errors found (at most {@link MAX_ERRORS}). */
export type ArgsValidator = (args: unknown) => ArgsError[] | null;

/** Deepest node nesting accepted (the root node is level 1). Also bounds the validator's recursion. */
export const MAX_SCHEMA_DEPTH = 64;
/**
 * Containers nested deeper than this (the args object is level 1) are an error where the validator
 * walks a value on its own (uniqueItems). Elsewhere it follows the schema, whose depth is bounded.
 */
export const MAX_DEPTH = 64;

/** Pushes the errors of a value that failed the node's test. */
type Explain = (v: unknown, out: ArgsError[], where: Keys) => void;
/** What leaves a node unvalidated when thrown: an empty object, known by its identity alone. */
type Unvalidated = { readonly [key: string]: never };
/** A compiled node: the predicate that is all valid args ever meet, and the explanation of a failure. */
type Compiled = [test: Test, explain: Explain];

/** A failed test: notes where (see `first` in analyzeArgsSchema). */
const stop = (first: number[], at: number) => ((first[0] = at), false);
/**
 * Accepts any value: a node the kit cannot validate, and a `required` name that is not listed in
 * `properties` (only its presence is checked).
 */
const PASS: Compiled = [() => true, () => {}];

/**
 * Checks `schema` (rooted at `path`) and compiles it: the validator, what it leaves unvalidated (each
 * problem once, in document order) and the warnings. Never modifies `schema`.
 */
export function analyzeArgsSchema(
  schema: unknown,
  path = 'argsSchema',
): { unvalidated: SchemaProblem[]; warnings: SchemaProblem[]; validate: ArgsValidator } {
  const warnings: SchemaProblem[] = [];
  const unvalidated: SchemaProblem[] = [];
  /** Thrown to leave the node being compiled unvalidated; caught in `walk`. */
  const open: Unvalidated = {};
  // Typed on the name, so that TypeScript narrows after a call (a `never` return alone does not).
  const reject: (p: string, rest: string) => never = (p, rest) => {
    unvalidated.push({ path: p, message: `${p} ${rest}` });
    throw open;
  };
  const warn = (p: string, rest: string) => warnings.push({ path: p, message: `${p}: ${rest}` });
  // The names checked against Object.prototype per validation (see `run` below): every `required`
  // name, and every name read under a `oneOf`. And whether any property name the validator reads is
  // one Object.prototype has (`constructor`, `toString`…).
  const guarded = new Set<string>();
  let inherent = false;
  const proto = { clean: true };

  /**
   * `level` counts nodes (the root is 1); `depth` is the container level of the value (args = 1);
   * `alternative`: the node is (inside) a `oneOf` alternative. A node that cannot be validated
   * accepts anything.
   */
  const walk = (node: unknown, p: string, level: number, depth: number, alternative?: boolean): Compiled => {
    try {
      return compile(node, p, level, depth, alternative);
    } catch (thrown) {
      if (thrown !== open) throw thrown;
      return PASS;
    }
  };
  const compile = (node: unknown, p: string, level: number, depth: number, alternative = false): Compiled => {
    const at = (key: string) => appendKey(p, key);
    if (!isPlainObject(node)) reject(p, 'must be an object (a schema node)');
    // Each keyword's value read below has passed its RULES check, or the node was rejected: it is
    // read as the type that check ensures.
    /** Own-property read: a key such as `constructor` never resolves through the prototype chain. */
    const get = (key: string) => (hasOwn(node, key) ? node[key] : undefined);
    // The recursion below is bounded by this, so a hostile schema cannot overflow the stack.
    if (level > MAX_SCHEMA_DEPTH) reject(p, `is nested deeper than ${MAX_SCHEMA_DEPTH} levels`);

    const hasType = hasOwn(node, 'type');
    // Anything but one of TYPES is rejected just below.
    const kind = hasType ? (node.type as string) : 'oneOf';
    if (!hasType && !hasOwn(node, 'oneOf')) reject(at('type'), 'is missing (or use oneOf)');
    if (hasType && !TYPES.includes(kind)) reject(at('type'), oneOfMessage(TYPES));

    const [, is, what] = KINDS[kind];
    const keywords = KEYWORDS[kind];
    let min = -Infinity;
    let max = Infinity;
    let minKey = '';
    let maxKey = '';
    let re: RegExp | undefined;
    // Paths are built only for a problem: most keywords are absent, and valid ones need none.
    for (const key of keywords) {
      if (!hasOwn(node, key)) continue;
      const value = node[key];
      if (!RULES[key][0](value)) reject(at(key), `must be ${RULES[key][1]}`);
      if (key === 'enum')
        (value as unknown[]).forEach(
          (v: unknown, i: number) => is!(v) || reject(`${at(key)}[${i}]`, `must be ${what}`),
        );
      if (key.startsWith('min')) {
        min = value as number;
        minKey = key;
      }
      if (key.startsWith('max') && ((maxKey = key), (max = value as number) < min))
        reject(at(minKey), `must not exceed ${at(key)} (${min} > ${max})`);
      if (key === 'pattern') {
        // Non-global: `test` keeps no `lastIndex` state between calls. Without `u` only when it must.
        try {
          re = new RegExp(value as string, 'u');
        } catch {
          try {
            re = new RegExp(value as string);
          } catch (e) {
            reject(at(key), `must compile (${(e as Error).message})`);
          }
        }
      }
      if (key === 'required')
        (value as unknown[]).forEach(
          (name: unknown, i: number) => typeof name === 'string' || reject(`${at(key)}[${i}]`, 'must be a string'),
        );
    }

    // Warnings before descending, so they come out in document order.
    for (const key of Object.keys(node)) {
      if (key !== 'type' && !keywords.includes(key)) {
        warn(
          at(key),
          `${hasOwn(RULES, key) ? `does not apply to ${hasType ? `type "${kind}"` : 'oneOf'}` : 'is not in the Pedelec Tool Args Schema'}; ignored`,
        );
      }
    }

    // The node can be validated; its children are checked as they are compiled.
    // Keywords outside the node's kind were only warned about: never read them.
    const values = keywords.includes('enum') ? (get('enum') as unknown[] | undefined) : undefined;
    const allowed = values && new Set(values);
    const string = kind === 'string';
    const array = kind === 'array';
    const object = kind === 'object';
    // Alternatives describe the same value, at the same container level; array elements sit one
    // level below the array, object properties one below the object.
    const before = unvalidated.length;
    const alts: Test[] = hasType
      ? []
      : (node.oneOf as unknown[]).map(
          (alt: unknown, i: number) => walk(alt, `${at('oneOf')}[${i}]`, level + 1, depth, true)[0],
        );
    if (unvalidated.length > before) reject(at('oneOf'), 'has an alternative that is not validated');
    const [itemTest, itemExplain] = array ? walk(node.items, at('items'), level + 1, depth + 1, alternative) : PASS;
    const unique = array && get('uniqueItems') === true;
    // Each element may add this many more container levels.
    const budget = MAX_DEPTH - depth;
    // An object's listed properties, then `required` names not listed (only their presence is
    // checked). Both closures walk these, never the value's keys.
    const props = ((object && get('properties')) || {}) as Record<string, unknown>;
    const required = ((object && get('required')) || []) as string[];
    required.forEach(
      (name, i) =>
        hasOwn(props, name) || warn(`${at('required')}[${i}]`, `${JSON.stringify(name)} is not in properties`),
    );
    // A name listed twice is required once. Looked up in a Set: a long list costs no quadratic scan.
    const requiredSet = new Set(required);
    const keys = [...Object.keys(props), ...[...requiredSet].filter((name) => !hasOwn(props, name))];
    const propertiesPath = object ? at('properties') : '';
    const nodes = keys.map((name) =>
      hasOwn(props, name)
        ? walk(props[name], appendKey(propertiesPath, name), level + 1, depth + 1, alternative)
        : PASS,
    );
    const tests = nodes.map((c) => c[0]);
    const mandatory = keys.map((name) => requiredSet.has(name));
    (alternative ? keys : required).forEach((name) => guarded.add(name));
    inherent ||= keys.some((name) => name in Object.prototype);

    // Where the last failed test of an array or object found its first failing element or
    // property (-1: the array's length failed). `explain(v)` always directly follows a failed
    // `test(v)`, so it starts there and explains that child without testing it again — re-testing
    // would walk a large failing child (an array of 1 000 items) twice.
    const first = [0];
    const count = (v: unknown, most: number) => {
      let matched = 0;
      for (let i = 0; i < alts.length; i++) if (alts[i](v) && ++matched > most) break;
      return matched;
    };
    /** One explanation for every kind of node. */
    const explain: Explain = (v, out, where) => {
      if (!hasType)
        return push(
          out,
          where,
          'oneOf',
          `must match exactly one of ${plural(alts.length, 'schema')} (matched ${count(v, alts.length)})`,
        );
      if (!is!(v))
        return push(out, where, 'type', `must be ${kind === 'number' && typeof v !== 'number' ? 'a number' : what}`);
      if (object) {
        // Properties before the one that failed the test passed it: start there.
        const failed = first[0];
        for (let i = failed; i < keys.length && more(out); i++) {
          const name = keys[i];
          const x = (v as Record<string, unknown>)[name];
          if (hasOwn(v as object, name)) {
            if (i === failed || !tests[i](x)) nodes[i][1](x, out, [...where, name]);
          } else if (mandatory[i]) push(out, [...where, name], 'required', 'is required');
        }
        return;
      }
      if (allowed && !allowed.has(v)) push(out, where, 'enum', oneOfMessage(values));
      // A number (or boolean) is its own size; minimum ≤ maximum, so only one bound can fail.
      const size = string ? codePointLength(v as string) : array ? (v as unknown[]).length : (v as number);
      if (size < min || size > max) {
        const [least, n] = size < min ? ['least', min] : ['most', max];
        push(
          out,
          where,
          size < min ? minKey : maxKey,
          string
            ? `must be at ${least} ${plural(n, 'character')}`
            : array
              ? `must have at ${least} ${plural(n, 'item')}`
              : `must be ${size < min ? '≥' : '≤'} ${n}`,
        );
        // Lengths first: a pathological pattern never sees an over-long string.
        if (string) return;
      }
      if (re && !re.test(v as string)) push(out, where, 'pattern', `must match pattern ${node.pattern as string}`);
      if (array) {
        const failed = first[0];
        for (let i = failed < 0 ? 0 : failed; i < (v as unknown[]).length && more(out); i++) {
          if (i === failed || !itemTest((v as unknown[])[i])) itemExplain((v as unknown[])[i], out, [...where, i]);
        }
        const problem = unique && more(out) && uniqueProblem(v as unknown[], budget);
        if (problem) {
          if (problem[1] === undefined)
            push(out, [...where, problem[0]], 'uniqueItems', `nested deeper than ${MAX_DEPTH} levels`);
          else
            push(
              out,
              where,
              'uniqueItems',
              `must not contain duplicates (items ${problem[0]} and ${problem[1]} are equal)`,
            );
        }
      }
    };
    // One small test per kind: valid args meet nothing else.
    let test: Test;
    if (!hasType) test = (v) => count(v, 1) === 1;
    else if (string)
      test = (v) =>
        typeof v === 'string' && (!allowed || allowed.has(v)) && lengthWithin(v, min, max) && (!re || re.test(v));
    else if (kind === 'boolean') test = (v) => typeof v === 'boolean' && (!allowed || allowed.has(v));
    else if (array)
      test = (v) => {
        if (!Array.isArray(v) || v.length < min || v.length > max) return stop(first, -1);
        for (let i = 0; i < v.length; i++) if (!itemTest(v[i])) return stop(first, i);
        return !unique || !uniqueProblem(v, budget) || stop(first, v.length);
      };
    else if (object) test = propsTest(keys, tests, mandatory, proto, first);
    // Number.isInteger and Number.isFinite are false for non-numbers, NaN and ±Infinity.
    else test = (v) => is!(v) && (!allowed || allowed.has(v)) && (v as number) >= min && (v as number) <= max;
    return [test, explain];
  };

  const [test, explain] = walk(schema, path, 1, 1);
  // Reads skip hasOwn (`proto.clean`) unless a name Object.prototype has is read, or a guarded name
  // is now found on it (the page polluted it). Only those need that check per validation (checking
  // every name costs more than the rest of a typical validation; docs/performance.md): an optional property read
  // through the prototype is harmless where it passes its test (absent is valid too), and where it
  // fails, `explain` (own data only) finds nothing and `run` validates again reading own data only.
  // Not so under a `oneOf`, whose tests are counted: there every name is guarded.
  const needed = [...guarded];
  const run = (args: unknown, clean: boolean): ArgsError[] | null => {
    proto.clean = clean;
    if (test(args)) return null;
    const out: ArgsError[] = [];
    explain(args, out, []);
    if (out.length) return out.slice(0, MAX_ERRORS);
    // Nothing found although `test` failed: an optional property was read through the prototype.
    if (clean) return run(args, false);
    push(out, [], 'type', 'is invalid');
    return out;
  };
  return {
    unvalidated,
    warnings,
    validate: (args) => run(args, !inherent && !needed.some((name) => name in Object.prototype)),
  };
}

/**
 * Checks `schema` (rooted at `path`): what the validator would leave unvalidated, and the warnings.
 * Never modifies `schema`.
 */
export function checkArgsSchema(
  schema: unknown,
  path?: string,
): { unvalidated: SchemaProblem[]; warnings: SchemaProblem[] } {
  const { unvalidated, warnings } = analyzeArgsSchema(schema, path);
  return { unvalidated, warnings };
}

/**
 * Compiles `schema` into a reusable validator; what `checkArgsSchema` lists as unvalidated accepts
 * any value. The validator never modifies, nor keeps, the args it is given.
 */
export function compileArgsValidator(schema: ToolArgsSchema): ArgsValidator {
  return analyzeArgsSchema(schema).validate;
}

/**
 * An object's test: each listed property in turn, own data only, so `constructor` or `__proto__`
 * never come from the prototype chain. The value is read first; `hasOwn` is skipped only when the
 * read gave a value other than `undefined` while `proto.clean` (set per validation, see `run` in
 * analyzeArgsSchema). The object's prototype is Object.prototype or null (isPlainObject), so such a
 * value is own — or an optional property's value inherited from a polluted Object.prototype, which
 * `run` deals with. An `undefined` read — absent, or own with the value `undefined` (present: it then
 * fails its test) — asks `hasOwn`.
 */
function propsTest(
  keys: string[],
  tests: Test[],
  mandatory: boolean[],
  proto: { clean: boolean },
  first: number[],
): Test {
  const properties = keys.map((key, i) => ({ key, test: tests[i], required: mandatory[i] }));
  return (o) => {
    if (!isPlainObject(o)) return false;
    const clean = proto.clean;
    for (let i = 0; i < properties.length; i++) {
      const { key, test, required } = properties[i];
      const value = o[key];
      const present = (value !== undefined && clean) || hasOwn(o, key);
      if (present ? !test(value) : required) return stop(first, i);
    }
    return true;
  };
}
