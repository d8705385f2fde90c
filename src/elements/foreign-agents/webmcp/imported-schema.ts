/**
 * The schemas of the page's WebMCP tools (webmcp-import.ts), brought into the args subset
 * (args-schema.md) where they say what the subset can say in other words — as the browsers synthesize
 * them for `<form toolname>`:
 * - `type: "number"` with `multipleOf: 1` (a number input with step 1) → `type: "integer"`;
 * - `anyOf` whose every alternative is a `const` (a select, a radio group) → `enum`, each `title`
 *   folded into the description;
 * - `format: "date"` → a `pattern` for `YYYY-MM-DD`; a `format` that holds a regular expression
 *   (Chromium's time, month and colour inputs) → that `pattern`.
 * Everything else is left as it is: the Pedelec manifest carries it, and what the kit cannot validate
 * is reported by the core's one `SCHEMA_NOT_VALIDATED` warning, never refused. Nothing is modified in
 * place: the result is a copy.
 */
import { isPlainObject } from '../../../core/json.js';

/** A date control's value, `YYYY-MM-DD` (the form binding synthesizes the same). */
const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';

type SchemaNode = Record<string, unknown>;

/** The JSON Schema type all `values` share, if they share one the subset has. */
function typeOf(values: unknown[]): string | undefined {
  if (values.every((v) => typeof v === 'string')) return 'string';
  if (values.every((v) => Number.isInteger(v))) return 'integer';
  if (values.every((v) => Number.isFinite(v))) return 'number';
  return values.every((v) => typeof v === 'boolean') ? 'boolean' : undefined;
}

/** `anyOf` alternatives that each name one value, as an `enum`, their titles folded into the description. */
function enumFromConsts(node: SchemaNode, options: SchemaNode[]): void {
  const values = options.map((option) => option.const);
  delete node.anyOf;
  node.enum = values;
  node.type ??= typeOf(values);
  const titled = options.some((o) => typeof o.title === 'string' && o.title && o.title !== String(o.const));
  if (!titled) return;
  const listed = options
    .map(({ const: value, title }) =>
      typeof title === 'string' && title ? `${JSON.stringify(value)} (${title})` : JSON.stringify(value),
    )
    .join(', ');
  const said = typeof node.description === 'string' ? node.description.trim() : '';
  // "Rating" → "Rating. Values: …"; a description that ends a sentence already keeps its own stop.
  node.description = `${said}${said && !/[.!?:]$/.test(said) ? '.' : ''}${said ? ' ' : ''}Values: ${listed}.`;
}

/**
 * One node and what is below it, normalized into a copy (own data properties only, so a key such as
 * `__proto__` stays a key). Recursion follows the schema: one nested deeper than the stack allows
 * throws, and is then taken as it is (importedArgsSchema).
 */
function normalizeNode(node: unknown): unknown {
  if (!isPlainObject(node)) return node;
  const copy: SchemaNode = Object.fromEntries(Object.entries(node));
  if (isPlainObject(copy.properties))
    copy.properties = Object.fromEntries(
      Object.entries(copy.properties).map(([name, child]) => [name, normalizeNode(child)]),
    );
  if (Object.hasOwn(copy, 'items')) copy.items = normalizeNode(copy.items);
  for (const key of ['oneOf', 'anyOf'])
    if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map(normalizeNode);

  if (copy.type === 'number' && copy.multipleOf === 1) {
    copy.type = 'integer';
    delete copy.multipleOf;
  }
  const options = copy.anyOf;
  if (
    Array.isArray(options) &&
    options.length > 0 &&
    options.every((option) => isPlainObject(option) && Object.hasOwn(option, 'const'))
  )
    enumFromConsts(copy, options as SchemaNode[]);
  const { format } = copy;
  if (typeof format === 'string' && copy.type === 'string' && !Object.hasOwn(copy, 'pattern')) {
    const pattern = format === 'date' ? DATE_PATTERN : /^\^.*\$$/.test(format) ? format : undefined;
    if (pattern) {
      copy.pattern = pattern;
      delete copy.format;
    }
  }
  return copy;
}

/**
 * An imported tool's input schema as its args schema: normalized (see above); no schema at all (a
 * tool that takes any input) is an object with any properties, and an object schema that does not
 * say `type` says it.
 */
export function importedArgsSchema(inputSchema: unknown): SchemaNode {
  let schema = isPlainObject(inputSchema) ? inputSchema : {};
  try {
    schema = normalizeNode(schema) as SchemaNode;
  } catch {
    // Nested too deep to walk: sent as the page wrote it (the validator reads 64 levels of it).
  }
  return Object.hasOwn(schema, 'type') ? schema : { type: 'object', ...schema };
}
