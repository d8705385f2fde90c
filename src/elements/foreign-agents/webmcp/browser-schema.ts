/**
 * A tool's args schema as browsers that validate WebMCP registrations accept it (docs/webmcp.md,
 * "Schemas the browser accepts"): `registerTool` may refuse a schema with a keyword outside a fixed
 * subset, so each node keeps only the keywords of that subset — an allowlist, so that a keyword the
 * browsers add later is never sent before they take it. `additionalProperties` stays only as `false`,
 * a `pattern` only if it compiles with the `u` flag (as browsers compile it). Removing a keyword only
 * ever widens what a node accepts, so the browser takes every call the tool takes; the kit still
 * validates the full schema when a call runs. What was removed is listed, in document order, for the
 * `WEBMCP_SCHEMA_REDUCED` warning. Nothing is modified in place: the result is a copy.
 */
import { appendKey, isPlainObject } from '../../../core/json.js';

/** The keywords validating browsers accept in a registered schema. */
const ACCEPTED = new Set([
  'type',
  'properties',
  'required',
  'enum',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'items',
  'prefixItems',
  'additionalProperties',
  'default',
  'description',
]);

type Node = Record<string, unknown>;

/** Whether the browser takes `value` for `keyword` (the keyword itself is accepted). */
function acceptedValue(keyword: string, value: unknown): boolean {
  if (keyword === 'additionalProperties') return value === false;
  if (keyword !== 'pattern') return true;
  try {
    new RegExp(value as string, 'u');
    return true;
  } catch {
    return false;
  }
}

/** `schema` with what validating browsers refuse removed, and the paths of what was (`argsSchema.…`). */
export function browserSchema(schema: Node): { schema: Node; removed: string[] } {
  const removed: string[] = [];
  /** One node, reduced into a copy; `path` names it. The schema's depth was bounded when it was checked. */
  const reduce = (node: Node, path: string): Node => {
    const copy: Node = {};
    for (const [keyword, value] of Object.entries(node)) {
      const at = appendKey(path, keyword);
      if (!ACCEPTED.has(keyword) || !acceptedValue(keyword, value)) {
        removed.push(at);
      } else if (keyword === 'properties' && isPlainObject(value)) {
        copy.properties = Object.fromEntries(
          Object.entries(value).map(([name, child]) => [name, reduced(child, appendKey(at, name))]),
        );
      } else if (keyword === 'items' || keyword === 'prefixItems') {
        const list = Array.isArray(value);
        const children = (list ? value : [value]).map((child: unknown, i) => reduced(child, list ? `${at}[${i}]` : at));
        copy[keyword] = list ? children : children[0];
      } else {
        copy[keyword] = value;
      }
    }
    return copy;
  };
  /** A child schema: a node is reduced; anything else (a boolean schema) is taken as no constraint. */
  const reduced = (child: unknown, path: string): Node => {
    if (isPlainObject(child)) return reduce(child, path);
    if (child !== true) removed.push(path);
    return {};
  };
  return { schema: reduce(schema, 'argsSchema'), removed };
}
