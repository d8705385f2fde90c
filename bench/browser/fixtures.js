// The schema and documents shared by `dispatch` and `validate` (docs/design/benchmarks.md): a 6-property
// args schema with a nested object, an array of objects, an enum and patterns — standard JSON Schema
// that our validator, Ajv and @cfworker/json-schema all read the same way.

export const SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[^<>{}]+$' },
    mode: { type: 'string', enum: ['fast', 'balanced', 'thorough'] },
    limit: { type: 'integer', minimum: 1, maximum: 1000 },
    filters: {
      type: 'object',
      properties: {
        from: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
        to: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
        inStock: { type: 'boolean' },
      },
      required: ['from'],
    },
    items: {
      type: 'array',
      maxItems: 5000,
      items: {
        type: 'object',
        properties: {
          sku: { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' },
          qty: { type: 'integer', minimum: 1 },
          price: { type: 'number', minimum: 0 },
        },
        required: ['sku', 'qty'],
      },
    },
    notify: { type: 'boolean' },
  },
  required: ['query', 'mode', 'items'],
};

const item = (i) => ({ sku: `ABC-${String(i % 10000).padStart(4, '0')}`, qty: 1 + (i % 7), price: 9.5 + i });

function args(count) {
  return {
    query: 'red bicycle bell',
    mode: 'balanced',
    limit: 20,
    filters: { from: '2026-01-01', to: '2026-12-31', inStock: true },
    items: Array.from({ length: count }, (_, i) => item(i)),
    notify: false,
  };
}

/** A valid document with `count` items. */
export const validArgs = (count) => args(count);

/**
 * An invalid document with `count` items: the last item breaks a rule (a pattern for small
 * documents, a minimum for large ones), so every validator has to walk the whole array first.
 */
export function invalidArgs(count) {
  const doc = args(count);
  const last = doc.items[count - 1];
  if (count <= 10) last.sku = 'abc-12';
  else last.qty = 0;
  return doc;
}

/** The documents of the `validate` benchmark, by name. */
export const DOCUMENTS = [
  { name: 'small valid (3 items)', doc: validArgs(3), valid: true },
  { name: 'small invalid (3 items)', doc: invalidArgs(3), valid: false },
  { name: 'large valid (1 000 items)', doc: validArgs(1000), valid: true },
  { name: 'large invalid (1 000 items)', doc: invalidArgs(1000), valid: false },
];
