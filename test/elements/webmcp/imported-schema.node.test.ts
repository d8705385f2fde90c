/**
 * The schemas of imported WebMCP tools (src/elements/foreign-agents/webmcp/imported-schema.ts), in Node: what
 * browsers synthesize for forms is brought into the args subset — `number` with `multipleOf: 1` →
 * `integer`, an `anyOf` of `const`s → `enum` with the titles in the description, `format: "date"` (and
 * Chromium's regular expressions in `format`) → `pattern` — at any depth, as a copy; the rest is left
 * for the core's validator, which accepts it, unvalidated where it must be.
 */
import { describe, it } from 'node:test';
import { analyzeArgsSchema } from '../../../src/core/schema/compile.js';
import { importedArgsSchema } from '../../../src/elements/foreign-agents/webmcp/imported-schema.js';
import { expect } from '../../support/expect.js';

describe('importedArgsSchema', () => {
  it("normalizes Chromium's form schema into the subset", () => {
    const chromium = {
      type: 'object',
      properties: {
        guests: { type: 'number', minimum: 1, maximum: 12, multipleOf: 1, description: 'How many guests' },
        price: { type: 'number', multipleOf: 0.5 },
        when: { type: 'string', format: 'date', description: "Dates MUST be provided in 'YYYY-MM-DD' format." },
        at: { type: 'string', format: '^([01][0-9]|2[0-3]):[0-5][0-9]$' },
        email: { type: 'string', format: 'email' },
        room: {
          type: 'string',
          anyOf: [
            { type: 'string', const: '', title: 'Pick' },
            { type: 'string', const: 'terrace', title: 'Terrace' },
            { type: 'string', const: 'hall', title: 'hall' },
          ],
          enum: ['', 'terrace', 'hall'],
        },
        extras: {
          type: 'array',
          items: { type: 'string', anyOf: [{ const: 'wine' }, { const: 'cake' }], enum: ['wine', 'cake'] },
          uniqueItems: true,
        },
      },
      required: ['guests'],
    };
    const before = JSON.stringify(chromium);
    const schema = importedArgsSchema(chromium);
    expect(JSON.stringify(chromium)).to.equal(before); // a copy: the browser's object is untouched
    expect(schema).to.deep.equal({
      type: 'object',
      properties: {
        guests: { type: 'integer', minimum: 1, maximum: 12, description: 'How many guests' },
        price: { type: 'number', multipleOf: 0.5 },
        when: {
          type: 'string',
          description: "Dates MUST be provided in 'YYYY-MM-DD' format.",
          pattern: '^\\d{4}-\\d{2}-\\d{2}$',
        },
        at: { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' },
        email: { type: 'string', format: 'email' },
        room: {
          type: 'string',
          enum: ['', 'terrace', 'hall'],
          description: 'Values: "" (Pick), "terrace" (Terrace), "hall" (hall).',
        },
        extras: { type: 'array', items: { type: 'string', enum: ['wine', 'cake'] }, uniqueItems: true },
      },
      required: ['guests'],
    });
    // Inside the subset but for the keywords it ignores (multipleOf, format): validated, no node left out.
    const { unvalidated, warnings, validate } = analyzeArgsSchema(schema);
    expect(unvalidated).to.deep.equal([]);
    expect(warnings.map((w) => w.path)).to.deep.equal([
      'argsSchema.properties.price.multipleOf',
      'argsSchema.properties.email.format',
    ]);
    expect(validate({ guests: 2.5 })![0]!.message).to.equal('guests: must be an integer');
    expect(validate({ guests: 2, when: '2025-13' })![0]!.path).to.equal('when');
    expect(validate({ guests: 2, room: 'cellar' })![0]!.path).to.equal('room');
  });

  it('folds titles into the description as a sentence of its own', () => {
    const room = (description?: string) =>
      (
        importedArgsSchema({
          type: 'object',
          properties: {
            room: { type: 'string', description, anyOf: [{ const: 'a', title: 'Terrace' }, { const: 'b' }] },
          },
        }) as any
      ).properties.room.description;
    expect(room()).to.equal('Values: "a" (Terrace), "b".');
    expect(room('Room')).to.equal('Room. Values: "a" (Terrace), "b".');
    expect(room('Pick a room.')).to.equal('Pick a room. Values: "a" (Terrace), "b".');
  });

  it('a const list without a type gets the type its values share; a list that does not is left as it is', () => {
    expect(importedArgsSchema({ properties: { n: { anyOf: [{ const: 1 }, { const: 2 }] } } })).to.deep.equal({
      type: 'object',
      properties: { n: { enum: [1, 2], type: 'integer' } },
    });
    const mixed = { type: 'object', properties: { id: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } };
    expect(importedArgsSchema(mixed)).to.deep.equal(mixed);
    expect(analyzeArgsSchema(importedArgsSchema(mixed)).unvalidated.map((u) => u.path)).to.deep.equal([
      'argsSchema.properties.id.type',
    ]);
  });

  it('no schema is any object; a schema nested deeper than can be walked is taken as it is', () => {
    expect(importedArgsSchema(undefined)).to.deep.equal({ type: 'object' });
    let deep: Record<string, unknown> = { type: 'number', multipleOf: 1 };
    for (let i = 0; i < 20_000; i++) deep = { type: 'object', properties: { a: deep } };
    expect(importedArgsSchema(deep)).to.equal(deep);
  });

  it('keeps keys such as __proto__ as keys', () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"number","multipleOf":1}}}');
    const normalized = importedArgsSchema(schema) as { properties: Record<string, unknown> };
    expect(Object.hasOwn(normalized.properties, '__proto__')).to.equal(true);
    expect(Object.getOwnPropertyDescriptor(normalized.properties, '__proto__')!.value).to.deep.equal({
      type: 'integer',
    });
  });
});
