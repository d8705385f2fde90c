import { describe, it } from 'node:test';
import { expect } from '../support/expect.js';
import { checkArgsSchema } from '../../src/core/schema/check.js';
import { compileArgsValidator, type ArgsError } from '../../src/core/schema/compile.js';
import type { ToolArgsSchema, ToolArgsSchemaNode } from '../../src/core/schema/types.js';

/** The schema as tools-api.md step 3 hands it to the check: a JSON clone. */
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const check = (schema: unknown) => checkArgsSchema(schema);
/** The first thing the schema's validator leaves unvalidated, or null. */
const firstOf = (schema: unknown) => checkArgsSchema(schema).unvalidated[0] ?? null;
/** An object root holding one property `x` with the given node. */
const withX = (x: unknown) => ({ type: 'object', properties: { x } });
/** The errors' paths and messages (the machine-readable triple has tests of its own, "the WebMCP triple"). */
const validate = (schema: ToolArgsSchema, args: unknown) =>
  compileArgsValidator(schema)(args)?.map(({ path, message }) => ({ path, message })) ?? null;
/** A validator whose errors are brief: their paths and messages. */
const brief =
  (validator: ReturnType<typeof compileArgsValidator>) =>
  (args: unknown): { path: string; message: string }[] | null =>
    validator(args)?.map(({ path, message }) => ({ path, message })) ?? null;
/** The errors as the validator gives them. */
const validateFully = (schema: ToolArgsSchema, args: unknown) => compileArgsValidator(schema)(args);
const messages = (errors: Pick<ArgsError, 'message'>[] | null) => (errors ?? []).map((e) => e.message);
/** `{ a: { a: … {} } }` with `levels` objects, built without recursion. */
function nestObjects(levels: number): unknown {
  let v: unknown = {};
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
}
function nestArrays(levels: number): unknown {
  let v: unknown = [];
  for (let i = 1; i < levels; i++) v = [v];
  return v;
}
function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    Object.values(v).forEach(deepFreeze);
    Object.freeze(v);
  }
  return v;
}

describe('checkArgsSchema', () => {
  const full = {
    type: 'object',
    description: 'every keyword of the subset',
    required: ['query'],
    properties: {
      query: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        pattern: '^\\p{L}',
        enum: ['a', 'b'],
        default: 'a',
        examples: ['a'],
      },
      delta: { type: 'number', minimum: -10, maximum: 10, enum: [1.5, -2] },
      count: { type: 'integer', minimum: 0, maximum: 0, enum: [0] },
      flag: { type: 'boolean', enum: [true] },
      tags: { type: 'array', items: { type: 'string' }, minItems: 0, maxItems: 3, uniqueItems: true },
      nested: { type: 'object', properties: {}, required: [] },
      value: { oneOf: [{ type: 'string' }, { type: 'number' }], description: 'either', default: { any: ['json'] } },
    },
  };

  it('accepts a schema using every keyword, without warnings', () => {
    expect(check(clone(full))).to.deep.equal({ unvalidated: [], warnings: [] });
    expect(check({ type: 'object' })).to.deep.equal({ unvalidated: [], warnings: [] });
  });

  it('never modifies its input (it works on a frozen schema and leaves it deeply equal)', () => {
    const schema = deepFreeze(
      clone({ ...full, additionalProperties: false, properties: { ...full.properties, bad: { type: 'array' } } }),
    );
    const before = clone(schema);
    const result = check(schema);
    expect(result.unvalidated[0]?.path).to.equal('argsSchema.properties.bad.items');
    expect(schema).to.deep.equal(before);
  });

  it('leaves a node it cannot use unvalidated, naming the JSON path of the offending keyword', () => {
    const cases: [unknown, string, string][] = [
      [withX({ type: 'number', minimum: '3' }), 'argsSchema.properties.x.minimum', 'must be a finite number'],
      [withX({ type: 'integer', maximum: null }), 'argsSchema.properties.x.maximum', 'must be a finite number'],
      [
        withX({ type: 'number', minimum: 5, maximum: 3 }),
        'argsSchema.properties.x.minimum',
        'must not exceed argsSchema.properties.x.maximum (5 > 3)',
      ],
      [withX({ type: 'string', minLength: -1 }), 'argsSchema.properties.x.minLength', 'must be a non-negative integer'],
      [
        withX({ type: 'string', maxLength: 1.5 }),
        'argsSchema.properties.x.maxLength',
        'must be a non-negative integer',
      ],
      [
        withX({ type: 'string', minLength: 4, maxLength: 3 }),
        'argsSchema.properties.x.minLength',
        'must not exceed argsSchema.properties.x.maxLength (4 > 3)',
      ],
      [withX({ type: 'string', pattern: 3 }), 'argsSchema.properties.x.pattern', 'must be a string'],
      [
        withX({ type: 'array', items: { type: 'string' }, minItems: '1' }),
        'argsSchema.properties.x.minItems',
        'must be a non-negative integer',
      ],
      [
        withX({ type: 'array', items: { type: 'string' }, maxItems: -2 }),
        'argsSchema.properties.x.maxItems',
        'must be a non-negative integer',
      ],
      [
        withX({ type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 1 }),
        'argsSchema.properties.x.minItems',
        'must not exceed argsSchema.properties.x.maxItems (2 > 1)',
      ],
      [
        withX({ type: 'array', items: { type: 'string' }, uniqueItems: 'yes' }),
        'argsSchema.properties.x.uniqueItems',
        'must be a boolean',
      ],
      [withX({ type: 'array' }), 'argsSchema.properties.x.items', 'must be an object (a schema node)'],
      [withX({ type: 'array', items: 'string' }), 'argsSchema.properties.x.items', 'must be an object (a schema node)'],
      [
        withX({ type: 'array', items: [{ type: 'string' }] }),
        'argsSchema.properties.x.items',
        'must be an object (a schema node)',
      ],
      [
        withX({ type: 'array', items: { type: 'string', minLength: 'x' } }),
        'argsSchema.properties.x.items.minLength',
        'must be a non-negative integer',
      ],
      [withX({ type: 'string', enum: [] }), 'argsSchema.properties.x.enum', 'must be a non-empty array'],
      [withX({ type: 'string', enum: 'a' }), 'argsSchema.properties.x.enum', 'must be a non-empty array'],
      [withX({ type: 'string', enum: ['a', 1] }), 'argsSchema.properties.x.enum[1]', 'must be a string'],
      [withX({ type: 'number', enum: [1, null] }), 'argsSchema.properties.x.enum[1]', 'must be a finite number'],
      [withX({ type: 'integer', enum: [1, 1.5] }), 'argsSchema.properties.x.enum[1]', 'must be an integer'],
      [withX({ type: 'boolean', enum: ['true'] }), 'argsSchema.properties.x.enum[0]', 'must be a boolean'],
      [withX({ type: 'object', properties: [] }), 'argsSchema.properties.x.properties', 'must be an object'],
      [withX({ type: 'object', properties: null }), 'argsSchema.properties.x.properties', 'must be an object'],
      [withX({ type: 'object', required: 'a' }), 'argsSchema.properties.x.required', 'must be an array of strings'],
      [withX({ type: 'object', required: ['a', 2] }), 'argsSchema.properties.x.required[1]', 'must be a string'],
      [withX({ type: 'string', description: 5 }), 'argsSchema.properties.x.description', 'must be a string'],
      [withX({ type: 'string', examples: 'a' }), 'argsSchema.properties.x.examples', 'must be an array'],
      [withX(5), 'argsSchema.properties.x', 'must be an object (a schema node)'],
      [withX(null), 'argsSchema.properties.x', 'must be an object (a schema node)'],
      [withX({}), 'argsSchema.properties.x.type', 'is missing (or use oneOf)'],
      [
        withX({ type: 'null' }),
        'argsSchema.properties.x.type',
        'must be one of "string", "number", "integer", "boolean", "array", "object"',
      ],
      [
        withX({ type: ['string', 'null'] }),
        'argsSchema.properties.x.type',
        'must be one of "string", "number", "integer", "boolean", "array", "object"',
      ],
      [withX({ oneOf: [] }), 'argsSchema.properties.x.oneOf', 'must be a non-empty array'],
      [withX({ oneOf: { type: 'string' } }), 'argsSchema.properties.x.oneOf', 'must be a non-empty array'],
      [
        withX({ oneOf: [{ type: 'string' }, { type: 'text' }] }),
        'argsSchema.properties.x.oneOf[1].type',
        'must be one of "string", "number", "integer", "boolean", "array", "object"',
      ],
      [
        withX({ oneOf: [{ type: 'string' }, 'number'] }),
        'argsSchema.properties.x.oneOf[1]',
        'must be an object (a schema node)',
      ],
      [[], 'argsSchema', 'must be an object (a schema node)'],
    ];
    for (const [schema, path, rest] of cases) {
      expect(firstOf(clone(schema)), path).to.deep.equal({ path, message: `${path} ${rest}` });
    }
  });

  it('compiles pattern with the u flag, without it when only that compiles, and leaves it unvalidated when neither does', () => {
    const bad = firstOf(withX({ type: 'string', pattern: '(' }));
    expect(bad?.path).to.equal('argsSchema.properties.x.pattern');
    expect(bad?.message).to.match(/^argsSchema\.properties\.x\.pattern must compile \(.+\)$/);
    expect(validate(withX({ type: 'string', pattern: '(' }) as ToolArgsSchema, { x: 5 })).to.equal(null);
    // Valid without `u`, invalid with it: an identity escape and a lone brace. Compiled without `u`.
    expect(firstOf(withX({ type: 'string', pattern: '\\a' }))).to.equal(null);
    expect(firstOf(withX({ type: 'string', pattern: 'a{' }))).to.equal(null);
    const brace = withX({ type: 'string', pattern: '^a{$' }) as ToolArgsSchema;
    expect(validate(brace, { x: 'a{' })).to.equal(null);
    expect(messages(validate(brace, { x: 'a' }))).to.deep.equal(['x: must match pattern ^a{$']);
    // With `u` whenever it compiles so: one code point, however many UTF-16 units.
    expect(firstOf(withX({ type: 'string', pattern: '^\\p{Lu}\\u{1F600}$' }))).to.equal(null);
    expect(validate(withX({ type: 'string', pattern: '^.$' }) as ToolArgsSchema, { x: '😀' })).to.equal(null);
  });

  it('writes odd property names in JS notation and treats __proto__ / constructor as ordinary keys', () => {
    expect(firstOf({ type: 'object', properties: { 'my key': { type: 'number', minimum: 'x' } } })).to.deep.equal({
      path: 'argsSchema.properties["my key"].minimum',
      message: 'argsSchema.properties["my key"].minimum must be a finite number',
    });
    const proto = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"integer","maximum":"9"}}}');
    expect(firstOf(proto)?.path).to.equal('argsSchema.properties.__proto__.maximum');
    const ok = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"integer"},"constructor":{"type":"string"},"hasOwnProperty":{"type":"boolean"}},"required":["constructor"]}',
    );
    expect(check(ok)).to.deep.equal({ unvalidated: [], warnings: [] });
    // A properties object without own `constructor`: the required name is missing (a warning),
    // not found on Object.prototype.
    expect(
      check({ type: 'object', properties: {}, required: ['constructor'] }).warnings.map((w) => w.path),
    ).to.deep.equal(['argsSchema.required[0]']);
  });

  it('lists every node it cannot validate, each accepting any value while the rest is validated', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'number', minimum: 'x' },
        b: { type: 'array', maxItems: 2 },
        c: { type: 'string' },
      },
      required: ['a', 'b'],
    };
    expect(check(schema).unvalidated.map((u) => u.path)).to.deep.equal([
      'argsSchema.properties.a.minimum',
      'argsSchema.properties.b.items',
    ]);
    // An array without items is still an array (maxItems too); only its items accept anything.
    expect(validate(schema as ToolArgsSchema, { a: 'any', b: [{}, null] })).to.equal(null);
    expect(messages(validate(schema as ToolArgsSchema, { a: 1, b: {}, c: 1 }))).to.deep.equal([
      'b: must be an array',
      'c: must be a string',
    ]);
    expect(messages(validate(schema as ToolArgsSchema, { b: [1, 2, 3] }))).to.deep.equal([
      'a: is required',
      'b: must have at most 2 items',
    ]);
  });

  it('leaves a whole oneOf unvalidated when one of its alternatives is', () => {
    // An alternative that accepts anything would make every value match it too: counting matches
    // would then refuse values the schema allows.
    const schema = withX({ oneOf: [{ type: 'string' }, { anyOf: [{ type: 'number' }] }] }) as ToolArgsSchema;
    expect(check(schema).unvalidated.map((u) => u.message)).to.deep.equal([
      'argsSchema.properties.x.oneOf[1].type is missing (or use oneOf)',
      'argsSchema.properties.x.oneOf has an alternative that is not validated',
    ]);
    expect(validate(schema, { x: 'a' })).to.equal(null);
    expect(validate(schema, { x: true })).to.equal(null);
  });

  it('validates a type beside a oneOf, and warns that the oneOf is ignored', () => {
    const schema = withX({ type: 'string', oneOf: [{ type: 'string', minLength: 2 }] }) as ToolArgsSchema;
    const { unvalidated, warnings } = check(schema);
    expect(unvalidated).to.deep.equal([]);
    expect(warnings.map((w) => w.message)).to.deep.equal([
      'argsSchema.properties.x.oneOf: does not apply to type "string"; ignored',
    ]);
    expect(validate(schema, { x: 'a' })).to.equal(null);
    expect(messages(validate(schema, { x: 1 }))).to.deep.equal(['x: must be a string']);
  });

  it('requires a name listed twice in required once', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'b', 'a', 'b'] };
    expect(check(schema).unvalidated).to.deep.equal([]);
    expect(messages(validate(schema as ToolArgsSchema, {}))).to.deep.equal(['a: is required', 'b: is required']);
  });

  it('uses the given root path', () => {
    expect(checkArgsSchema(withX({ type: 'array' }), 'skills.tools[0].argsSchema').unvalidated[0]?.message).to.equal(
      'skills.tools[0].argsSchema.properties.x.items must be an object (a schema node)',
    );
  });

  it('validates 64 levels of nodes and leaves the 65th unvalidated, even at 100 000 levels, without a stack overflow', () => {
    const nest = (levels: number) => {
      let node: unknown = { type: 'string' };
      for (let i = 1; i < levels; i++) node = { type: 'object', properties: { a: node } };
      return node;
    };
    expect(firstOf(nest(64))).to.equal(null);
    const path65 = `argsSchema${'.properties.a'.repeat(64)}`;
    expect(check(nest(65)).unvalidated).to.deep.equal([
      { path: path65, message: `${path65} is nested deeper than 64 levels` },
    ]);
    expect(check(nest(100_000)).unvalidated.map((u) => u.message)).to.deep.equal([
      `${path65} is nested deeper than 64 levels`,
    ]);
    // oneOf and items count as levels too.
    let node: unknown = { type: 'string' };
    for (let i = 1; i < 65; i++) node = i % 2 ? { oneOf: [node] } : { type: 'array', items: node };
    expect(firstOf({ type: 'object', properties: { a: node } })?.message).to.match(/is nested deeper than 64 levels$/);
  });

  it('warns once per unknown keyword, with its path, and never rejects it', () => {
    const schema = {
      type: 'object',
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      additionalProperties: false,
      properties: {
        email: { type: 'string', format: 'email', 'x-odd': 1 },
        list: { type: 'array', items: { type: 'integer', exclusiveMinimum: 0 } },
        either: { oneOf: [{ type: 'string' }], $ref: '#/x' },
      },
    };
    const { unvalidated, warnings } = check(clone(schema));
    expect(unvalidated).to.deep.equal([]);
    expect(warnings).to.deep.equal([
      {
        path: 'argsSchema.$schema',
        message: 'argsSchema.$schema: is not in the Pedelec Tool Args Schema; ignored',
      },
      {
        path: 'argsSchema.additionalProperties',
        message: 'argsSchema.additionalProperties: is not in the Pedelec Tool Args Schema; ignored',
      },
      {
        path: 'argsSchema.properties.email.format',
        message: 'argsSchema.properties.email.format: is not in the Pedelec Tool Args Schema; ignored',
      },
      {
        path: 'argsSchema.properties.email["x-odd"]',
        message: 'argsSchema.properties.email["x-odd"]: is not in the Pedelec Tool Args Schema; ignored',
      },
      {
        path: 'argsSchema.properties.list.items.exclusiveMinimum',
        message: 'argsSchema.properties.list.items.exclusiveMinimum: is not in the Pedelec Tool Args Schema; ignored',
      },
      {
        path: 'argsSchema.properties.either.$ref',
        message: 'argsSchema.properties.either.$ref: is not in the Pedelec Tool Args Schema; ignored',
      },
    ]);
  });

  it('warns about a subset keyword on the wrong kind of node, without checking its value', () => {
    const { unvalidated, warnings } = check(
      withX({ oneOf: [{ type: 'number', minLength: 'x', items: 3 }], enum: [1] }),
    );
    expect(unvalidated).to.deep.equal([]);
    expect(warnings.map((w) => w.message)).to.deep.equal([
      'argsSchema.properties.x.enum: does not apply to oneOf; ignored',
      'argsSchema.properties.x.oneOf[0].minLength: does not apply to type "number"; ignored',
      'argsSchema.properties.x.oneOf[0].items: does not apply to type "number"; ignored',
    ]);
  });

  it('neither checks nor validates with a subset keyword on the wrong kind of node', () => {
    const schema = {
      type: 'object',
      properties: {
        s: { type: 'string', required: 3, properties: { a: 5 }, items: 'x', uniqueItems: 1 },
        list: { type: 'array', items: { type: 'number' }, enum: 5, pattern: '(', minimum: 'x' },
        tags: { type: 'array', items: { type: 'string' }, enum: [['a']] },
      },
    };
    const { unvalidated, warnings } = check(schema);
    expect(unvalidated).to.deep.equal([]);
    expect(warnings.map((w) => w.path)).to.deep.equal([
      'argsSchema.properties.s.required',
      'argsSchema.properties.s.properties',
      'argsSchema.properties.s.items',
      'argsSchema.properties.s.uniqueItems',
      'argsSchema.properties.list.enum',
      'argsSchema.properties.list.pattern',
      'argsSchema.properties.list.minimum',
      'argsSchema.properties.tags.enum',
    ]);
    const v = compileArgsValidator(schema as ToolArgsSchema);
    expect(v({ s: 'x', list: [1, 1], tags: ['b', 'b'] })).to.equal(null);
    expect(messages(v({ list: ['1'] }))).to.deep.equal(['list[0]: must be a number']);
  });

  it('warns about required names missing from properties', () => {
    const { unvalidated, warnings } = check({
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a', 'b'],
    });
    expect(unvalidated).to.deep.equal([]);
    expect(warnings).to.deep.equal([
      { path: 'argsSchema.required[1]', message: 'argsSchema.required[1]: "b" is not in properties' },
    ]);
    expect(check({ type: 'object', required: ['z'] }).warnings.map((w) => w.path)).to.deep.equal([
      'argsSchema.required[0]',
    ]);
  });
});

describe('compileArgsValidator', () => {
  describe('string', () => {
    const schema = (x: ToolArgsSchemaNode): ToolArgsSchema => ({ type: 'object', properties: { name: x } });

    it('accepts only strings', () => {
      const s = schema({ type: 'string' });
      expect(validate(s, { name: '' })).to.equal(null);
      for (const bad of [1, null, true, ['a'], { a: 1 }]) {
        expect(validate(s, { name: bad })).to.deep.equal([{ path: 'name', message: 'name: must be a string' }]);
      }
    });

    it('counts lengths in code points, inclusive', () => {
      const max2 = schema({ type: 'string', maxLength: 2 });
      expect(validate(max2, { name: '😀😀' })).to.equal(null);
      expect(validate(max2, { name: 'ab' })).to.equal(null);
      expect(messages(validate(max2, { name: '😀😀😀' }))).to.deep.equal(['name: must be at most 2 characters']);
      expect(messages(validate(max2, { name: 'abc' }))).to.deep.equal(['name: must be at most 2 characters']);
      const min3 = schema({ type: 'string', minLength: 3 });
      expect(messages(validate(min3, { name: '😀😀' }))).to.deep.equal(['name: must be at least 3 characters']);
      expect(validate(min3, { name: '😀a😀' })).to.equal(null);
      // A lone surrogate is one code point.
      expect(validate(schema({ type: 'string', minLength: 2, maxLength: 2 }), { name: '\ud800\ud800' })).to.equal(null);
      expect(validate(schema({ type: 'string', maxLength: 1 }), { name: '\udc00\ud800' })).to.have.length(1);
      expect(messages(validate(schema({ type: 'string', minLength: 1 }), { name: '' }))).to.deep.equal([
        'name: must be at least 1 character',
      ]);
      expect(validate(schema({ type: 'string', minLength: 0, maxLength: 0 }), { name: '' })).to.equal(null);
    });

    it('searches pattern unanchored, with u-flag semantics', () => {
      expect(validate(schema({ type: 'string', pattern: 'a' }), { name: 'cat' })).to.equal(null);
      expect(validate(schema({ type: 'string', pattern: '^a' }), { name: 'cat' })).to.deep.equal([
        { path: 'name', message: 'name: must match pattern ^a' },
      ]);
      // With `u`, `.` is a whole code point and \p{…} works.
      expect(validate(schema({ type: 'string', pattern: '^.$' }), { name: '😀' })).to.equal(null);
      expect(validate(schema({ type: 'string', pattern: '^\\p{Lu}' }), { name: 'Élan' })).to.equal(null);
      expect(validate(schema({ type: 'string', pattern: '^\\p{Lu}' }), { name: 'élan' })).to.have.length(1);
    });

    it('checks lengths before pattern, so a pathological pattern never sees an over-long string', () => {
      const s = schema({ type: 'string', maxLength: 10, pattern: '^(a+)+$' });
      const result = validate(s, { name: `${'a'.repeat(40)}!` });
      expect(messages(result)).to.deep.equal(['name: must be at most 10 characters']);
    });

    it('checks enum by equality', () => {
      const s: ToolArgsSchema = { type: 'object', properties: { mode: { type: 'string', enum: ['fast', 'exact'] } } };
      expect(validate(s, { mode: 'exact' })).to.equal(null);
      expect(validate(s, { mode: 'Fast' })).to.deep.equal([
        { path: 'mode', message: 'mode: must be one of "fast", "exact"' },
      ]);
      expect(messages(validate(s, { mode: 1 }))).to.deep.equal(['mode: must be a string']);
    });

    it('shortens a long enum in the message', () => {
      const values = Array.from({ length: 25 }, (_, i) => `v${i}`);
      const [error] = validate({ type: 'object', properties: { m: { type: 'string', enum: values } } }, { m: 'x' })!;
      expect(error.message).to.equal(
        `m: must be one of ${values
          .slice(0, 20)
          .map((v) => `"${v}"`)
          .join(', ')}, … (5 more)`,
      );
    });

    it('validates a 10 MB string with maxLength and pattern', () => {
      const big = `${'a'.repeat(10 * 1024 * 1024)}z`;
      const s = schema({ type: 'string', maxLength: 20_000_000, pattern: 'z$' });
      expect(validate(s, { name: big })).to.equal(null);
      // Borderline lengths force an exact code-point count over the whole string.
      const emoji = '😀'.repeat(5 * 1024 * 1024);
      const s2 = schema({ type: 'string', maxLength: 5 * 1024 * 1024 - 1, pattern: '😀$' });
      expect(messages(validate(s2, { name: emoji }))).to.deep.equal([
        `name: must be at most ${5 * 1024 * 1024 - 1} characters`,
      ]);
      const s3 = schema({ type: 'string', minLength: 5 * 1024 * 1024, maxLength: 6 * 1024 * 1024, pattern: '^😀+$' });
      expect(validate(s3, { name: emoji })).to.equal(null);
    });
  });

  describe('number and integer', () => {
    const num: ToolArgsSchema = {
      type: 'object',
      properties: { delta: { type: 'number', minimum: -10, maximum: 10 } },
    };
    const int: ToolArgsSchema = { type: 'object', properties: { count: { type: 'integer' } } };

    it('accepts finite numbers only', () => {
      expect(validate(num, { delta: 2.5 })).to.equal(null);
      for (const bad of [NaN, Infinity, -Infinity]) {
        expect(validate(num, { delta: bad })).to.deep.equal([
          { path: 'delta', message: 'delta: must be a finite number' },
        ]);
      }
      for (const bad of ['1', null, true, [1]]) {
        expect(messages(validate(num, { delta: bad }))).to.deep.equal(['delta: must be a number']);
      }
    });

    it('has inclusive minimum and maximum', () => {
      expect(validate(num, { delta: 10 })).to.equal(null);
      expect(validate(num, { delta: -10 })).to.equal(null);
      expect(validate(num, { delta: 10.5 })).to.deep.equal([{ path: 'delta', message: 'delta: must be ≤ 10' }]);
      expect(validate(num, { delta: -11 })).to.deep.equal([{ path: 'delta', message: 'delta: must be ≥ -10' }]);
      const frac: ToolArgsSchema = { type: 'object', properties: { x: { type: 'number', minimum: 0.5 } } };
      expect(messages(validate(frac, { x: 0.25 }))).to.deep.equal(['x: must be ≥ 0.5']);
    });

    it('treats 1.0 as an integer and rejects fractions, NaN, Infinity and non-numbers', () => {
      expect(validate(int, { count: 1.0 })).to.equal(null);
      expect(validate(int, JSON.parse('{"count": 1.0}'))).to.equal(null);
      expect(validate(int, { count: -0 })).to.equal(null);
      expect(validate(int, { count: 1e21 })).to.equal(null);
      for (const bad of [1.5, NaN, Infinity, '1', null]) {
        expect(validate(int, { count: bad })).to.deep.equal([{ path: 'count', message: 'count: must be an integer' }]);
      }
      const bounded: ToolArgsSchema = {
        type: 'object',
        properties: { count: { type: 'integer', minimum: 1, maximum: 3 } },
      };
      expect(messages(validate(bounded, { count: 4 }))).to.deep.equal(['count: must be ≤ 3']);
      expect(messages(validate(bounded, { count: 0 }))).to.deep.equal(['count: must be ≥ 1']);
    });

    it('checks numeric enums (0 equals -0)', () => {
      const s: ToolArgsSchema = { type: 'object', properties: { n: { type: 'number', enum: [0, 1.5] } } };
      expect(validate(s, { n: -0 })).to.equal(null);
      expect(validate(s, { n: 1.5 })).to.equal(null);
      expect(messages(validate(s, { n: 2 }))).to.deep.equal(['n: must be one of 0, 1.5']);
      const i: ToolArgsSchema = { type: 'object', properties: { n: { type: 'integer', enum: [1, 2], maximum: 1 } } };
      expect(messages(validate(i, { n: 2 }))).to.deep.equal(['n: must be ≤ 1']);
      expect(messages(validate(i, { n: 3 }))).to.deep.equal(['n: must be one of 1, 2', 'n: must be ≤ 1']);
    });
  });

  describe('boolean', () => {
    it('accepts true and false only, and checks enum', () => {
      const s: ToolArgsSchema = {
        type: 'object',
        properties: { b: { type: 'boolean' }, t: { type: 'boolean', enum: [true] } },
      };
      expect(validate(s, { b: false, t: true })).to.equal(null);
      expect(messages(validate(s, { b: 'true' }))).to.deep.equal(['b: must be a boolean']);
      expect(messages(validate(s, { b: 0 }))).to.deep.equal(['b: must be a boolean']);
      expect(messages(validate(s, { t: false }))).to.deep.equal(['t: must be one of true']);
      expect(messages(validate(s, { t: 'true' }))).to.deep.equal(['t: must be a boolean']);
    });
  });

  describe('array', () => {
    const items: ToolArgsSchema = {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
      },
    };

    it('accepts arrays only and validates every element with its path', () => {
      expect(validate(items, { items: [] })).to.equal(null);
      expect(validate(items, { items: [{ name: 'a' }, { name: 'b', extra: 1 }] })).to.equal(null);
      expect(messages(validate(items, { items: { 0: { name: 'a' }, length: 1 } }))).to.deep.equal([
        'items: must be an array',
      ]);
      expect(messages(validate(items, { items: 'a' }))).to.deep.equal(['items: must be an array']);
      expect(validate(items, { items: [{ name: 'a' }, { name: 'b' }, { name: 3 }, {}] })).to.deep.equal([
        { path: 'items[2].name', message: 'items[2].name: must be a string' },
        { path: 'items[3].name', message: 'items[3].name: is required' },
      ]);
    });

    it('has inclusive minItems and maxItems', () => {
      const s: ToolArgsSchema = {
        type: 'object',
        properties: { tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 } },
      };
      expect(validate(s, { tags: ['a'] })).to.equal(null);
      expect(validate(s, { tags: ['a', 'b', 'c'] })).to.equal(null);
      expect(validate(s, { tags: [] })).to.deep.equal([{ path: 'tags', message: 'tags: must have at least 1 item' }]);
      expect(messages(validate(s, { tags: ['a', 'b', 'c', 'd'] }))).to.deep.equal(['tags: must have at most 3 items']);
      const two: ToolArgsSchema = {
        type: 'object',
        properties: { t: { type: 'array', items: { type: 'string' }, minItems: 2 } },
      };
      expect(messages(validate(two, { t: ['a'] }))).to.deep.equal(['t: must have at least 2 items']);
    });

    describe('uniqueItems', () => {
      const unique = (items: ToolArgsSchemaNode): ToolArgsSchema => ({
        type: 'object',
        properties: { tags: { type: 'array', items, uniqueItems: true } },
      });
      const any = unique({
        oneOf: [
          { type: 'object' },
          { type: 'array', items: { type: 'number' } },
          { type: 'string' },
          { type: 'number' },
        ],
      });
      const objects = unique({ type: 'object' });
      /** Pads `list` with distinct numbers past the pairwise limit, so the hashed path runs too. */
      const padded = (list: unknown[], schema: ToolArgsSchema) => {
        const extra = Array.from({ length: 20 }, (_, i) => (schema === objects ? { pad: i } : 1000 + i));
        return [...extra, ...list];
      };

      it('names the first equal pair', () => {
        const s = unique({ type: 'string' });
        expect(validate(s, { tags: ['a', 'b', 'c', 'a'] })).to.deep.equal([
          { path: 'tags', message: 'tags: must not contain duplicates (items 0 and 3 are equal)' },
        ]);
        expect(validate(s, { tags: ['a', 'b', 'c'] })).to.equal(null);
        expect(validate(unique({ type: 'string' }), { tags: [] })).to.equal(null);
      });

      for (const size of ['small', 'large'] as const) {
        const list = (l: unknown[], schema: ToolArgsSchema) => (size === 'small' ? l : padded(l, schema));

        it(`compares deeply, whatever the key order (${size} arrays)`, () => {
          expect(
            validate(objects, {
              tags: list(
                [
                  { a: 1, b: 2 },
                  { b: 2, a: 1 },
                ],
                objects,
              ),
            }),
          ).to.have.length(1);
          expect(
            validate(objects, {
              tags: list([{ a: { x: [1, { y: 2, z: 3 }] } }, { a: { x: [1, { z: 3, y: 2 }] } }], objects),
            }),
          ).to.have.length(1);
          expect(validate(objects, { tags: list([{ a: 1 }, { a: 1, b: 2 }], objects) })).to.equal(null);
          expect(validate(objects, { tags: list([{ a: [1, 2] }, { a: [2, 1] }], objects) })).to.equal(null);
          expect(validate(objects, { tags: list([{ a: '1' }, { a: 1 }], objects) })).to.equal(null);
          expect(validate(objects, { tags: list([{ a: null }, { a: 'null' }], objects) })).to.equal(null);
          expect(validate(objects, { tags: list([{ a: {} }, { a: [] }], objects) })).to.equal(null);
          expect(validate(objects, { tags: list([{ 'a"': 1 }, { a: 1 }], objects) })).to.equal(null);
          expect(
            validate(any, {
              tags: list(
                [
                  [1, 2],
                  [1, 2],
                ],
                any,
              ),
            }),
          ).to.have.length(1);
          expect(
            validate(any, {
              tags: list(
                [
                  [1, 2],
                  [2, 1],
                ],
                any,
              ),
            }),
          ).to.equal(null);
          expect(validate(any, { tags: list([1, '1'], any) })).to.equal(null);
          expect(validate(any, { tags: list(['[]', []], any) })).to.equal(null);
          expect(validate(any, { tags: list([0, -0], any) })).to.have.length(1);
          expect(validate(any, { tags: list([{}, {}], any) })).to.have.length(1);
        });

        it(`stops at 64 levels of nesting with an error, not a stack overflow (${size} arrays)`, () => {
          // args (1) → tags (2) → element: 62 more levels make 64, which is allowed.
          const ok = list([nestObjects(62), { b: 1 }], objects);
          expect(validate(objects, { tags: ok })).to.equal(null);
          const index = size === 'small' ? 0 : 20;
          const deep = list([nestObjects(63), { b: 1 }], objects);
          expect(validate(objects, { tags: deep })).to.deep.equal([
            { path: `tags[${index}]`, message: `tags[${index}]: nested deeper than 64 levels` },
          ]);
          for (const hostile of [nestObjects(100_000), { a: nestArrays(100_000) }]) {
            expect(messages(validate(objects, { tags: list([hostile, hostile], objects) }))).to.deep.equal([
              `tags[${index}]: nested deeper than 64 levels`,
            ]);
          }
        });
      }

      it('handles 100 000 elements', () => {
        const numbers = Array.from({ length: 100_000 }, (_, i) => i);
        const ints = unique({ type: 'integer' });
        expect(validate(ints, { tags: numbers })).to.equal(null);
        expect(messages(validate(ints, { tags: [...numbers, 42] }))).to.deep.equal([
          'tags: must not contain duplicates (items 42 and 100000 are equal)',
        ]);

        const records = Array.from({ length: 100_000 }, (_, i) => ({ id: i, name: `n${i}`, tags: ['x', i % 7] }));
        expect(validate(objects, { tags: records })).to.equal(null);
        expect(
          messages(validate(objects, { tags: [...records, { tags: ['x', 3], name: 'n10', id: 10 }] })),
        ).to.deep.equal(['tags: must not contain duplicates (items 10 and 100000 are equal)']);
      });
    });
  });

  describe('object', () => {
    const s: ToolArgsSchema = {
      type: 'object',
      properties: { query: { type: 'string' }, limit: { type: 'integer' } },
      required: ['query'],
    };

    it('accepts plain objects only: not arrays, null or class instances', () => {
      expect(validate(s, { query: 'q' })).to.equal(null);
      const bare = Object.create(null) as Record<string, unknown>;
      bare.query = 'q';
      expect(validate(s, bare)).to.equal(null);
      for (const bad of [[], null, 'q', 1, new Date(), new Map(), Object.create({ query: 'q' })]) {
        expect(validate(s, bad)).to.deep.equal([{ path: '', message: 'args: must be an object' }]);
      }
      const nested: ToolArgsSchema = { type: 'object', properties: { o: { type: 'object' } } };
      expect(messages(validate(nested, { o: [] }))).to.deep.equal(['o: must be an object']);
      expect(messages(validate(nested, { o: null }))).to.deep.equal(['o: must be an object']);
    });

    it('requires own properties, allows unlisted ones', () => {
      expect(validate(s, { query: 'q', other: [1, { deep: true }] })).to.equal(null);
      expect(validate(s, { limit: 3 })).to.deep.equal([{ path: 'query', message: 'query: is required' }]);
      expect(validate(s, { query: 'q', limit: undefined })).to.deep.equal([
        { path: 'limit', message: 'limit: must be an integer' },
      ]);
      // A required name not in properties: only its presence is checked.
      const extra: ToolArgsSchema = { type: 'object', required: ['x'] };
      expect(validate(extra, { x: null })).to.equal(null);
      expect(messages(validate(extra, {}))).to.deep.equal(['x: is required']);
    });

    it('reads __proto__, constructor and hasOwnProperty as own data only', () => {
      const proto: ToolArgsSchema = JSON.parse(
        '{"type":"object","properties":{"__proto__":{"type":"integer"}},"required":["__proto__"]}',
      );
      expect(validate(proto, JSON.parse('{"__proto__": 5}'))).to.equal(null);
      expect(validate(proto, JSON.parse('{"__proto__": "x"}'))).to.deep.equal([
        { path: '__proto__', message: '__proto__: must be an integer' },
      ]);
      expect(messages(validate(proto, {}))).to.deep.equal(['__proto__: is required']);

      // Built from JSON: TypeScript types keys named like Object.prototype members specially.
      const ctor: ToolArgsSchema = JSON.parse(
        '{"type":"object","properties":{"constructor":{"type":"string"},"toString":{"type":"string"}}}',
      );
      expect(validate(ctor, {})).to.equal(null); // inherited functions are not read
      expect(validate({ type: 'object', required: ['constructor'] }, {})).to.deep.equal([
        { path: 'constructor', message: 'constructor: is required' },
      ]);
      expect(validate({ type: 'object', required: ['constructor'] }, JSON.parse('{"constructor": 1}'))).to.equal(null);

      const own: ToolArgsSchema = JSON.parse(
        '{"type":"object","properties":{"hasOwnProperty":{"type":"integer"}},"required":["hasOwnProperty"]}',
      );
      expect(validate(own, JSON.parse('{"hasOwnProperty": 1, "x": 2}'))).to.equal(null);
      expect(messages(validate(own, JSON.parse('{"hasOwnProperty": "no"}')))).to.deep.equal([
        'hasOwnProperty: must be an integer',
      ]);
    });

    it('writes error paths in JS notation, nested', () => {
      const nested: ToolArgsSchema = {
        type: 'object',
        properties: {
          'odd key': { type: 'string' },
          a: {
            type: 'object',
            properties: { 'b c': { type: 'array', items: { type: 'object', properties: { d: { type: 'boolean' } } } } },
          },
        },
      };
      expect(validate(nested, { 'odd key': 1, a: { 'b c': [{ d: true }, { d: 'no' }] } })).to.deep.equal([
        { path: '["odd key"]', message: '["odd key"]: must be a string' },
        { path: 'a["b c"][1].d', message: 'a["b c"][1].d: must be a boolean' },
      ]);
    });
  });

  describe('oneOf', () => {
    const s: ToolArgsSchema = {
      type: 'object',
      properties: { value: { oneOf: [{ type: 'number' }, { type: 'integer' }, { type: 'string', maxLength: 1 }] } },
    };
    const two: ToolArgsSchema = {
      type: 'object',
      properties: { value: { oneOf: [{ type: 'string' }, { type: 'boolean' }] } },
    };

    it('accepts a value matching exactly one alternative', () => {
      expect(validate(s, { value: 1.5 })).to.equal(null);
      expect(validate(s, { value: 'a' })).to.equal(null);
      expect(validate(two, { value: true })).to.equal(null);
    });

    it('rejects no match and more than one match', () => {
      expect(validate(two, { value: 1 })).to.deep.equal([
        { path: 'value', message: 'value: must match exactly one of 2 schemas (matched 0)' },
      ]);
      expect(messages(validate(s, { value: 3 }))).to.deep.equal([
        'value: must match exactly one of 3 schemas (matched 2)',
      ]);
      expect(messages(validate(s, { value: 'ab' }))).to.deep.equal([
        'value: must match exactly one of 3 schemas (matched 0)',
      ]);
    });

    it('works inside arrays and as the root of a node with metadata', () => {
      const list: ToolArgsSchema = {
        type: 'object',
        properties: { v: { type: 'array', items: { oneOf: [{ type: 'string' }], description: 'one' } } },
      };
      expect(validate(list, { v: ['a', 'b'] })).to.equal(null);
      expect(messages(validate(list, { v: ['a', 2] }))).to.deep.equal([
        'v[1]: must match exactly one of 1 schema (matched 0)',
      ]);
    });
  });

  describe('the WebMCP triple: pointer, reason, schemaPath', () => {
    /** Each error's path, pointer, reason and schemaPath. */
    const triples = (schema: ToolArgsSchema, args: unknown) =>
      (validateFully(schema, args) ?? []).map(({ path, pointer, reason, schemaPath }) => ({
        path,
        pointer,
        reason,
        schemaPath,
      }));
    const order: ToolArgsSchema = {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          minItems: 1,
          maxItems: 3,
          uniqueItems: true,
          items: {
            type: 'object',
            properties: { qty: { type: 'integer', minimum: 1, maximum: 9 }, sku: { type: 'string', pattern: '^S' } },
            required: ['qty'],
          },
        },
        note: { type: 'string', minLength: 2, maxLength: 4 },
        mode: { type: 'string', enum: ['fast', 'slow'] },
        'a/b~c': { type: 'boolean' },
        pick: { oneOf: [{ type: 'string' }, { type: 'number' }] },
      },
      required: ['items'],
    };

    it('names the keyword that failed, its place in the subschema, and the value as a JSON Pointer', () => {
      expect(
        triples(order, {
          items: [{ qty: 0, sku: 'X1' }, { sku: 'S2' }, { qty: 10 }],
          note: 'abcdef',
          mode: 'other',
          'a/b~c': 1,
          pick: true,
        }),
      ).to.deep.equal([
        { path: 'items[0].qty', pointer: '/items/0/qty', reason: 'minimum', schemaPath: '/minimum' },
        { path: 'items[0].sku', pointer: '/items/0/sku', reason: 'pattern', schemaPath: '/pattern' },
        { path: 'items[1].qty', pointer: '/items/1/qty', reason: 'required', schemaPath: '/required' },
        { path: 'items[2].qty', pointer: '/items/2/qty', reason: 'maximum', schemaPath: '/maximum' },
        { path: 'note', pointer: '/note', reason: 'maxLength', schemaPath: '/maxLength' },
        { path: 'mode', pointer: '/mode', reason: 'enum', schemaPath: '/enum' },
        { path: '["a/b~c"]', pointer: '/a~1b~0c', reason: 'type', schemaPath: '/type' },
        { path: 'pick', pointer: '/pick', reason: 'oneOf', schemaPath: '/oneOf' },
      ]);
    });

    it('covers the root, lengths, counts and duplicates', () => {
      expect(triples(order, 'x')).to.deep.equal([{ path: '', pointer: '', reason: 'type', schemaPath: '/type' }]);
      expect(triples(order, {})).to.deep.equal([
        { path: 'items', pointer: '/items', reason: 'required', schemaPath: '/required' },
      ]);
      expect(triples(order, { items: [], note: 'a' })).to.deep.equal([
        { path: 'items', pointer: '/items', reason: 'minItems', schemaPath: '/minItems' },
        { path: 'note', pointer: '/note', reason: 'minLength', schemaPath: '/minLength' },
      ]);
      const four = [{ qty: 1 }, { qty: 2 }, { qty: 3 }, { qty: 4 }];
      expect(triples(order, { items: four })).to.deep.equal([
        { path: 'items', pointer: '/items', reason: 'maxItems', schemaPath: '/maxItems' },
      ]);
      expect(triples(order, { items: [{ qty: 1 }, { qty: 1 }] })).to.deep.equal([
        { path: 'items', pointer: '/items', reason: 'uniqueItems', schemaPath: '/uniqueItems' },
      ]);
    });
  });

  describe('general', () => {
    it('reports at most 10 errors', () => {
      const s: ToolArgsSchema = {
        type: 'object',
        properties: { list: { type: 'array', items: { type: 'string' } }, after: { type: 'string' } },
      };
      const errors = validate(s, { list: Array.from({ length: 50 }, (_, i) => i), after: 1 });
      expect(errors).to.have.length(10);
      expect(errors![9]).to.deep.equal({ path: 'list[9]', message: 'list[9]: must be a string' });
    });

    it('is reusable: the same validator gives the same answers again', () => {
      const v = brief(
        compileArgsValidator({
          type: 'object',
          properties: {
            name: { type: 'string', pattern: 'a' },
            tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
          },
          required: ['name'],
        }),
      );
      for (let round = 0; round < 3; round++) {
        expect(v({ name: 'cat', tags: ['x', 'y'] })).to.equal(null);
        expect(v({ name: 'dog', tags: ['x', 'x'] })).to.deep.equal([
          { path: 'name', message: 'name: must match pattern a' },
          { path: 'tags', message: 'tags: must not contain duplicates (items 0 and 1 are equal)' },
        ]);
        expect(v({})).to.deep.equal([{ path: 'name', message: 'name: is required' }]);
      }
    });

    it('ignores metadata and unknown keywords, and never fills in a default', () => {
      const schema = JSON.parse(
        JSON.stringify({
          type: 'object',
          additionalProperties: false,
          required: ['a'],
          properties: { a: { type: 'string', format: 'email', default: 'x@y', description: 'd', examples: ['e'] } },
        }),
      ) as ToolArgsSchema;
      expect(check(schema).unvalidated).to.deep.equal([]);
      const v = compileArgsValidator(schema);
      expect(v({ a: 'not an email', extra: 1 })).to.equal(null);
      const args = {};
      expect(messages(v(args))).to.deep.equal(['a: is required']);
      expect(args).to.deep.equal({});
    });

    it('never modifies args nor any prototype, whatever the input', () => {
      const protoKeys = (o: object) => Object.getOwnPropertyNames(o).sort();
      const before = [Object.prototype, Array.prototype, Function.prototype].map(protoKeys);
      const schema: ToolArgsSchema = JSON.parse(
        '{"type":"object","properties":{"__proto__":{"type":"object","properties":{"polluted":{"type":"boolean"}}},' +
          '"constructor":{"type":"object","properties":{"prototype":{"type":"object"}}},' +
          '"list":{"type":"array","items":{"type":"object"},"uniqueItems":true}},"required":["constructor"]}',
      );
      const hostile = [
        '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
        '{"__proto__":{"polluted":"x"},"constructor":{"prototype":[]}}',
        '{"constructor":{"prototype":{}},"list":[{"__proto__":{"polluted":1}},{"__proto__":{"polluted":1}}]}',
        `{"constructor":{"prototype":{}},"list":[${Array.from({ length: 30 }, (_, i) => `{"__proto__":{"p":${i}},"constructor":1}`).join(',')}]}`,
      ].map((text) => deepFreeze(JSON.parse(text)));
      const snapshots = hostile.map((h) => JSON.stringify(h));
      const results = hostile.map((h) => compileArgsValidator(schema)(h));
      expect(results.map((r) => r === null)).to.deep.equal([true, false, false, true]);
      expect(messages(results[2])).to.deep.equal(['list: must not contain duplicates (items 0 and 1 are equal)']);
      expect(hostile.map((h) => JSON.stringify(h))).to.deep.equal(snapshots);
      expect([Object.prototype, Array.prototype, Function.prototype].map(protoKeys)).to.deep.equal(before);
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    });

    it('reads own data only, even after the page pollutes Object.prototype (enumerable or not)', () => {
      const v = brief(
        compileArgsValidator({
          type: 'object',
          properties: {
            query: { type: 'string' },
            limit: { type: 'integer' },
            tags: {
              type: 'array',
              items: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
            },
          },
          required: ['query'],
        }),
      );
      const proto = Object.prototype as Record<string, unknown>;
      const withPolluted = (how: 'assign' | 'define', values: Record<string, unknown>, check: () => void) => {
        for (const [key, value] of Object.entries(values)) {
          if (how === 'assign') proto[key] = value;
          else Object.defineProperty(proto, key, { value, configurable: true, writable: true });
        }
        try {
          check();
        } finally {
          for (const key of Object.keys(values)) delete proto[key];
        }
      };
      expect(v({})).to.not.equal(null); // compiled and used before the pollution
      for (const how of ['assign', 'define'] as const) {
        // An inherited value of an optional property is never validated as if it were the args' own…
        withPolluted(how, { limit: 'not an integer' }, () => {
          expect(v({ query: 'q' }), how).to.equal(null);
          expect(messages(v({ query: 'q', limit: 'x' })), how).to.deep.equal(['limit: must be an integer']);
          expect(messages(v({})), how).to.deep.equal(['query: is required']);
        });
        // …and a missing required property is missing, whatever Object.prototype says.
        withPolluted(how, { query: 'inherited', id: 'inherited', limit: 'not an integer' }, () => {
          expect(messages(v({ limit: 1 })), how).to.deep.equal(['query: is required']);
          expect(messages(v({})), how).to.deep.equal(['query: is required']);
          expect(messages(v({ query: 'q', tags: [{}] })), how).to.deep.equal(['tags[0].id: is required']);
          expect(v({ query: 'q', limit: 3, tags: [{ id: 'a' }] }), how).to.equal(null);
        });
      }
      expect(v({ query: 'q', limit: 1.5 })).to.deep.equal([{ path: 'limit', message: 'limit: must be an integer' }]);
    });

    it('counts oneOf matches on own data, even with names of the alternatives on Object.prototype', () => {
      // An alternative must not fail (nor pass) on an inherited value: matches are counted.
      const optionalInOne = compileArgsValidator({
        type: 'object',
        properties: {
          v: {
            oneOf: [
              { type: 'object', properties: { a: { type: 'string' } } },
              { type: 'object', properties: { b: { type: 'string' } }, required: ['b'] },
            ],
          },
        },
        required: ['v'],
      });
      const tagged = compileArgsValidator({
        type: 'object',
        properties: {
          v: {
            oneOf: [
              { type: 'object', properties: { k: { type: 'string', enum: ['A'] } } },
              { type: 'object', properties: { k: { type: 'string', enum: ['B'] } } },
            ],
          },
        },
        required: ['v'],
      });
      const proto = Object.prototype as Record<string, unknown>;
      for (const how of ['assign', 'define'] as const) {
        for (const [key, value] of [
          ['a', 5],
          ['k', 'A'],
        ] as const) {
          if (how === 'assign') proto[key] = value;
          else Object.defineProperty(proto, key, { value, configurable: true, writable: true });
        }
        try {
          expect(optionalInOne({ v: {} }), how).to.equal(null);
          expect(messages(tagged({ v: {} })), how).to.deep.equal([
            'v: must match exactly one of 2 schemas (matched 2)',
          ]);
          expect(tagged({ v: { k: 'B' } }), how).to.equal(null);
        } finally {
          delete proto.a;
          delete proto.k;
        }
      }
    });

    it('explains a failing child once, where the test found it, and still reports every later error', () => {
      const v = compileArgsValidator({
        type: 'object',
        properties: {
          list: {
            type: 'array',
            minItems: 2,
            items: { type: 'object', properties: { n: { type: 'integer' }, s: { type: 'string' } }, required: ['n'] },
          },
        },
      });
      expect(messages(v({ list: [{ n: 1 }, { n: 'x', s: 2 }, { n: 3 }, {}] }))).to.deep.equal([
        'list[1].n: must be an integer',
        'list[1].s: must be a string',
        'list[3].n: is required',
      ]);
      // A length failure is not an item failure: items are tested, not assumed wrong.
      expect(messages(v({ list: [{ n: 1 }] }))).to.deep.equal(['list: must have at least 2 items']);
      expect(messages(v({ list: [{ n: 'x' }] }))).to.deep.equal([
        'list: must have at least 2 items',
        'list[0].n: must be an integer',
      ]);
      const choice = compileArgsValidator({
        type: 'object',
        properties: {
          list: { type: 'array', minItems: 2, items: { oneOf: [{ type: 'string' }, { type: 'integer' }] } },
        },
      });
      expect(messages(choice({ list: ['a'] }))).to.deep.equal(['list: must have at least 2 items']);
      expect(messages(choice({ list: ['a', 1.5, true] }))).to.deep.equal([
        'list[1]: must match exactly one of 2 schemas (matched 0)',
        'list[2]: must match exactly one of 2 schemas (matched 0)',
      ]);
    });
  });
});
