/**
 * Well-formedness of a tool's `argsSchema` against the Pedelec Tool Args Schema subset
 * (args-schema.md "Well-formedness"; tools-api.md "Normalization" step 6).
 *
 * The input is the JSON clone that will be sent to Core, so the check only reads it — never writes.
 * A known keyword with a wrong value is an error naming the JSON path of that keyword; keywords
 * outside the subset (or outside the node's type) and `required` names missing from `properties`
 * are warnings, because schemas produced by other tools must keep working.
 */
import { appendKey } from '../json.js';

export type SchemaProblem = { path: string; message: string };

/** Deepest node nesting accepted (the root node is level 1). Also bounds the validator's recursion. */
export const MAX_SCHEMA_DEPTH = 64;

const TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'] as const;
type NodeType = (typeof TYPES)[number];

const METADATA = ['description', 'default', 'examples'];

/** Keywords each kind of node understands (besides the metadata). */
const KEYWORDS: Record<NodeType | 'oneOf', readonly string[]> = {
  string: ['type', 'enum', 'minLength', 'maxLength', 'pattern'],
  number: ['type', 'enum', 'minimum', 'maximum'],
  integer: ['type', 'enum', 'minimum', 'maximum'],
  boolean: ['type', 'enum'],
  array: ['type', 'items', 'minItems', 'maxItems', 'uniqueItems'],
  object: ['type', 'properties', 'required'],
  oneOf: ['oneOf'],
};

/** Every keyword of the subset, to tell "misplaced" from "unknown" in warnings. */
const SUBSET = new Set<string>([...METADATA, ...Object.values(KEYWORDS).flat()]);

const hasOwn = Object.prototype.hasOwnProperty;

/** Own-property read: a key such as `constructor` never resolves through the prototype chain. */
function own(obj: object, key: string): unknown {
  return hasOwn.call(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

function has(obj: object, key: string): boolean {
  return hasOwn.call(obj, key);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isNonNegativeInteger(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= 0;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** Thrown internally to stop at the first error; never escapes `checkArgsSchema`. */
class FirstError {
  constructor(readonly problem: SchemaProblem) {}
}

function fail(path: string, rest: string): never {
  throw new FirstError({ path, message: `${path} ${rest}` });
}

/**
 * Checks `schema` (rooted at `path`) and returns the first error, or `null`, plus every warning
 * found before checking stopped. Never modifies `schema`.
 */
export function checkArgsSchema(
  schema: unknown,
  path = 'argsSchema',
): { error: SchemaProblem | null; warnings: SchemaProblem[] } {
  const warnings: SchemaProblem[] = [];
  const warn = (p: string, rest: string) => warnings.push({ path: p, message: `${p}: ${rest}` });

  const checkNode = (node: unknown, p: string, level: number): void => {
    if (!isPlainObject(node)) fail(p, 'must be an object (a schema node)');
    // The recursion below is bounded by this, so a hostile schema cannot overflow the stack.
    if (level > MAX_SCHEMA_DEPTH) fail(p, `is nested deeper than ${MAX_SCHEMA_DEPTH} levels`);

    const hasType = has(node, 'type');
    const hasOneOf = has(node, 'oneOf');
    if (hasType && hasOneOf) fail(appendKey(p, 'oneOf'), 'must not be combined with type (a node has either type or oneOf)');
    if (!hasType && !hasOneOf) fail(appendKey(p, 'type'), 'is missing (a node needs a type or a oneOf)');
    let kind: NodeType | 'oneOf' = 'oneOf';
    if (hasType) {
      const type = own(node, 'type');
      if (typeof type !== 'string' || !(TYPES as readonly string[]).includes(type)) {
        fail(appendKey(p, 'type'), `must be one of ${TYPES.map((t) => JSON.stringify(t)).join(', ')}`);
      }
      kind = type as NodeType;
    }

    // Metadata, allowed on every node.
    if (has(node, 'description') && typeof own(node, 'description') !== 'string') {
      fail(appendKey(p, 'description'), 'must be a string');
    }
    if (has(node, 'examples') && !Array.isArray(own(node, 'examples'))) fail(appendKey(p, 'examples'), 'must be an array');
    // `default` may be any JSON value, and the input is already JSON.

    switch (kind) {
      case 'string':
        checkEnum(node, p, (v) => typeof v === 'string', 'a string');
        checkBounds(node, p, 'minLength', 'maxLength', isNonNegativeInteger, 'a non-negative integer');
        if (has(node, 'pattern')) {
          const pattern = own(node, 'pattern');
          const pp = appendKey(p, 'pattern');
          if (typeof pattern !== 'string') fail(pp, 'must be a string');
          try {
            new RegExp(pattern, 'u');
          } catch (e) {
            fail(pp, `must be a valid regular expression with the u flag (${(e as Error).message})`);
          }
        }
        break;
      case 'number':
        checkEnum(node, p, isFiniteNumber, 'a finite number');
        checkBounds(node, p, 'minimum', 'maximum', isFiniteNumber, 'a finite number');
        break;
      case 'integer':
        checkEnum(node, p, Number.isInteger, 'an integer');
        checkBounds(node, p, 'minimum', 'maximum', isFiniteNumber, 'a finite number');
        break;
      case 'boolean':
        checkEnum(node, p, (v) => typeof v === 'boolean', 'a boolean');
        break;
      case 'array':
        checkBounds(node, p, 'minItems', 'maxItems', isNonNegativeInteger, 'a non-negative integer');
        if (has(node, 'uniqueItems') && typeof own(node, 'uniqueItems') !== 'boolean') {
          fail(appendKey(p, 'uniqueItems'), 'must be a boolean');
        }
        if (!has(node, 'items')) fail(appendKey(p, 'items'), 'is missing (an array node needs items)');
        break;
      case 'object':
        checkObjectKeywords(node, p);
        break;
      case 'oneOf': {
        const list = own(node, 'oneOf');
        if (!Array.isArray(list) || list.length === 0) fail(appendKey(p, 'oneOf'), 'must be a non-empty array of schema nodes');
        break;
      }
    }

    // Warnings before descending, so they come out in document order.
    const known = KEYWORDS[kind];
    for (const key of Object.keys(node)) {
      if (known.includes(key) || METADATA.includes(key)) continue;
      const where = kind === 'oneOf' ? 'a oneOf node' : `type "${kind}"`;
      warn(
        appendKey(p, key),
        SUBSET.has(key)
          ? `keyword "${key}" does not apply to ${where} and is ignored`
          : `keyword "${key}" is not part of the Pedelec Tool Args Schema and is ignored`,
      );
    }
    if (kind === 'object') warnRequiredNotInProperties(node, p);

    // Children.
    if (kind === 'array') checkNode(own(node, 'items'), appendKey(p, 'items'), level + 1);
    if (kind === 'oneOf') {
      const list = own(node, 'oneOf') as unknown[];
      for (let i = 0; i < list.length; i++) checkNode(list[i], `${appendKey(p, 'oneOf')}[${i}]`, level + 1);
    }
    if (kind === 'object' && has(node, 'properties')) {
      const props = own(node, 'properties') as Record<string, unknown>;
      const pp = appendKey(p, 'properties');
      for (const name of Object.keys(props)) checkNode(own(props, name), appendKey(pp, name), level + 1);
    }
  };

  const checkEnum = (node: object, p: string, ok: (v: unknown) => boolean, what: string): void => {
    if (!has(node, 'enum')) return;
    const values = own(node, 'enum');
    const ep = appendKey(p, 'enum');
    if (!Array.isArray(values) || values.length === 0) fail(ep, 'must be a non-empty array');
    values.forEach((v, i) => {
      if (!ok(v)) fail(`${ep}[${i}]`, `must be ${what}`);
    });
  };

  const checkBounds = (
    node: object,
    p: string,
    minKey: string,
    maxKey: string,
    ok: (v: unknown) => boolean,
    what: string,
  ): void => {
    for (const key of [minKey, maxKey]) {
      if (has(node, key) && !ok(own(node, key))) fail(appendKey(p, key), `must be ${what}`);
    }
    const min = own(node, minKey) as number | undefined;
    const max = own(node, maxKey) as number | undefined;
    if (min !== undefined && max !== undefined && min > max) {
      fail(appendKey(p, minKey), `must not exceed ${appendKey(p, maxKey)} (${min} > ${max})`);
    }
  };

  const checkObjectKeywords = (node: object, p: string): void => {
    if (has(node, 'properties') && !isPlainObject(own(node, 'properties'))) {
      fail(appendKey(p, 'properties'), 'must be an object mapping property names to schema nodes');
    }
    if (!has(node, 'required')) return;
    const required = own(node, 'required');
    const rp = appendKey(p, 'required');
    if (!Array.isArray(required)) fail(rp, 'must be an array of strings');
    const seen = new Set<string>();
    required.forEach((name, i) => {
      if (typeof name !== 'string') fail(`${rp}[${i}]`, 'must be a string');
      if (seen.has(name)) fail(`${rp}[${i}]`, `repeats ${JSON.stringify(name)} (required names must be unique)`);
      seen.add(name);
    });
  };

  const warnRequiredNotInProperties = (node: object, p: string): void => {
    const required = own(node, 'required') as string[] | undefined;
    if (!required) return;
    const props = own(node, 'properties') as Record<string, unknown> | undefined;
    const rp = appendKey(p, 'required');
    required.forEach((name, i) => {
      if (!props || !has(props, name)) {
        warn(`${rp}[${i}]`, `required property ${JSON.stringify(name)} is not listed in properties`);
      }
    });
  };

  try {
    checkNode(schema, path, 1);
  } catch (e) {
    if (e instanceof FirstError) return { error: e.problem, warnings };
    throw e;
  }
  return { error: null, warnings };
}
