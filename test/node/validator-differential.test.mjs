// The compiled args validator against a plain reference validator (args-schema.md "Validation
// semantics", read literally: own data only, every error collected), on random schemas and values —
// with Object.prototype clean, and polluted (enumerable and not) with names the schemas use. The
// compiled one takes shortcuts for speed (property reads without hasOwn, an explanation that starts
// where the quick test failed); this is what keeps them honest. Bounded and seeded: it always runs
// the same cases, in a few seconds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileArgsValidator, MAX_ERRORS } from '../../dist/core/schema/compile.js';
import { appendKey } from '../../dist/core/json.js';

const SCHEMAS = 3_000;
const VALUES_PER_SCHEMA = 6;

/** A small seeded generator (xorshift-multiply), so a failure can be replayed. */
function random(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    state ^= state >>> 13;
    state = Math.imul(state, 2654435761) >>> 0;
    return (state >>> 1) / 0x80000000;
  };
  const int = (n) => Math.floor(next() * n);
  return { int, pick: (list) => list[int(list.length)], chance: (p) => next() < p };
}

// Names include ones Object.prototype has, and ones that need brackets in a path.
const NAMES = ['a', 'b', 'c', 'd', 'p', 'q', 'constructor', 'toString', '__proto__', 'valueOf', 'x y', '0'];
const STRINGS = ['', 'a', 'ab', 'abc', 'xyz', '😀', 'aaaa', 'B'];
const setOwn = (object, key, value) =>
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });

function schemaOf(r, level) {
  const type = r.pick(
    level >= 4
      ? ['string', 'number', 'integer', 'boolean']
      : ['string', 'number', 'integer', 'boolean', 'array', 'array', 'object', 'object', 'object', 'oneOf'],
  );
  if (type === 'oneOf') return { oneOf: Array.from({ length: 1 + r.int(3) }, () => schemaOf(r, level + 1)) };
  const s = { type };
  if (type === 'string') {
    if (r.chance(0.3)) s.enum = Array.from({ length: 1 + r.int(3) }, () => r.pick(STRINGS));
    if (r.chance(0.3)) s.minLength = r.int(3);
    if (r.chance(0.3)) s.maxLength = (s.minLength ?? 0) + r.int(3);
    if (r.chance(0.2)) s.pattern = r.pick(['^a', 'b', '^.{0,2}$', '\\d']);
  } else if (type === 'number' || type === 'integer') {
    if (r.chance(0.3))
      s.enum = Array.from({ length: 1 + r.int(3) }, () =>
        type === 'integer' ? r.int(5) - 2 : r.pick([0, 1, 2.5, -1]),
      );
    if (r.chance(0.3)) s.minimum = r.int(4) - 2;
    if (r.chance(0.3)) s.maximum = (s.minimum ?? -2) + r.int(4);
  } else if (type === 'boolean') {
    if (r.chance(0.3)) s.enum = [r.chance(0.5)];
  } else if (type === 'array') {
    s.items = schemaOf(r, level + 1);
    if (r.chance(0.3)) s.minItems = r.int(3);
    if (r.chance(0.3)) s.maxItems = (s.minItems ?? 0) + r.int(4);
    if (r.chance(0.4)) s.uniqueItems = r.chance(0.8);
  } else {
    s.properties = {};
    for (let i = r.int(7); i > 0; i--) setOwn(s.properties, r.pick(NAMES), schemaOf(r, level + 1));
    const listed = Object.keys(s.properties);
    const required = new Set(
      Array.from({ length: r.int(4) }, () => (listed.length && r.chance(0.7) ? r.pick(listed) : r.pick(NAMES))),
    );
    if (required.size) s.required = [...required];
  }
  return s;
}

/** A value for `s`: mostly valid, sometimes wrong anywhere. */
function valueOf(r, s, level) {
  if (r.chance(0.08) || level > 6) return r.pick([null, 1, 'a', true, [], {}, undefined, 2.5, -0, NaN]);
  if (s.oneOf) return valueOf(r, r.pick(s.oneOf), level);
  if (s.type === 'string') return s.enum && r.chance(0.7) ? r.pick(s.enum) : r.pick(STRINGS);
  if (s.type === 'number' || s.type === 'integer')
    return s.enum && r.chance(0.7) ? r.pick(s.enum) : r.pick([0, 1, -1, 2, 2.5, 3, -3, Infinity]);
  if (s.type === 'boolean') return r.chance(0.5);
  if (s.type === 'array') {
    const list = Array.from({ length: r.int(5) }, () => valueOf(r, s.items, level + 1));
    if (list.length && r.chance(0.2)) list.push(structuredClone(list[0]));
    return list;
  }
  const o = r.chance(0.1) ? Object.create(null) : {};
  for (const key of Object.keys(s.properties))
    if (r.chance(0.75)) setOwn(o, key, valueOf(r, s.properties[key], level + 1));
  for (const key of s.required ?? []) {
    if (!Object.hasOwn(o, key) && r.chance(0.6))
      setOwn(o, key, valueOf(r, Object.hasOwn(s.properties, key) ? s.properties[key] : { type: 'string' }, level + 1));
  }
  if (r.chance(0.2)) setOwn(o, r.pick(NAMES), r.pick([1, 'z', null]));
  return o;
}

// ── the reference: the semantics as written, own data only, every error ──
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
const oneOfText = (values) =>
  `must be one of ${values
    .slice(0, 20)
    .map((v) => JSON.stringify(v))
    .join(', ')}${values.length > 20 ? `, … (${values.length - 20} more)` : ''}`;
const canonical = (v) =>
  v === null || typeof v !== 'object'
    ? typeof v === 'string'
      ? JSON.stringify(v)
      : String(v)
    : Array.isArray(v)
      ? `[${v.map(canonical).join(',')}]`
      : `{${Object.keys(v)
          .filter((k) => v[k] !== undefined)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
          .join(',')}}`;
const isPlainObject = (v) => {
  const proto = typeof v === 'object' && v !== null && Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

function reference(s, v, path, out) {
  const fail = (p, what) => out.push(`${p || 'args'}: ${what}`);
  if (s.oneOf) {
    const matched = s.oneOf.filter((alternative) => reference(alternative, v, '', []).length === 0).length;
    if (matched !== 1) fail(path, `must match exactly one of ${plural(s.oneOf.length, 'schema')} (matched ${matched})`);
    return out;
  }
  const { type } = s;
  if (type === 'string') {
    if (typeof v !== 'string') return (fail(path, 'must be a string'), out);
    if (s.enum && !s.enum.includes(v)) fail(path, oneOfText(s.enum));
    const length = [...v].length;
    if (s.minLength !== undefined && length < s.minLength)
      return (fail(path, `must be at least ${plural(s.minLength, 'character')}`), out);
    if (s.maxLength !== undefined && length > s.maxLength)
      return (fail(path, `must be at most ${plural(s.maxLength, 'character')}`), out);
    if (s.pattern !== undefined && !new RegExp(s.pattern, 'u').test(v)) fail(path, `must match pattern ${s.pattern}`);
  } else if (type === 'number' || type === 'integer') {
    if (type === 'number' ? !Number.isFinite(v) : !Number.isInteger(v)) {
      return (
        fail(
          path,
          type === 'integer'
            ? 'must be an integer'
            : typeof v !== 'number'
              ? 'must be a number'
              : 'must be a finite number',
        ),
        out
      );
    }
    if (s.enum && !s.enum.includes(v)) fail(path, oneOfText(s.enum));
    if (s.minimum !== undefined && v < s.minimum) fail(path, `must be ≥ ${s.minimum}`);
    else if (s.maximum !== undefined && v > s.maximum) fail(path, `must be ≤ ${s.maximum}`);
  } else if (type === 'boolean') {
    if (typeof v !== 'boolean') return (fail(path, 'must be a boolean'), out);
    if (s.enum && !s.enum.includes(v)) fail(path, oneOfText(s.enum));
  } else if (type === 'array') {
    if (!Array.isArray(v)) return (fail(path, 'must be an array'), out);
    if (s.minItems !== undefined && v.length < s.minItems)
      fail(path, `must have at least ${plural(s.minItems, 'item')}`);
    else if (s.maxItems !== undefined && v.length > s.maxItems)
      fail(path, `must have at most ${plural(s.maxItems, 'item')}`);
    v.forEach((item, i) => reference(s.items, item, `${path}[${i}]`, out));
    if (s.uniqueItems === true) {
      const seen = new Map();
      for (let j = 0; j < v.length; j++) {
        const key = canonical(v[j]);
        if (seen.has(key)) {
          fail(path, `must not contain duplicates (items ${seen.get(key)} and ${j} are equal)`);
          break;
        }
        seen.set(key, j);
      }
    }
  } else {
    if (!isPlainObject(v)) return (fail(path, 'must be an object'), out);
    const required = s.required ?? [];
    for (const key of [...Object.keys(s.properties), ...required.filter((k) => !Object.hasOwn(s.properties, k))]) {
      if (Object.hasOwn(v, key)) {
        if (Object.hasOwn(s.properties, key)) reference(s.properties[key], v[key], appendKey(path, key), out);
      } else if (required.includes(key)) fail(appendKey(path, key), 'is required');
    }
  }
  return out;
}

/** Whether the compiled validator's answer is the reference's (the first MAX_ERRORS errors, in order). */
function agrees(expected, got) {
  if (expected.length === 0) return got === null;
  return got !== null && JSON.stringify(got.map((e) => e.message)) === JSON.stringify(expected.slice(0, MAX_ERRORS));
}

const POLLUTERS = ['a', 'b', 'c', 'd', 'p', 'q', 'x y', '0'];

test(`the compiled validator agrees with the reference on ${SCHEMAS} random schemas × ${VALUES_PER_SCHEMA} values, Object.prototype clean or polluted`, () => {
  const r = random(20261130);
  const counts = { checked: 0, invalid: 0, polluted: 0 };
  for (let n = 0; n < SCHEMAS; n++) {
    const schema = { type: 'object', properties: {} };
    for (let i = 1 + r.int(5); i > 0; i--) setOwn(schema.properties, r.pick(NAMES), schemaOf(r, 1));
    if (r.chance(0.5))
      schema.required = [
        ...new Set(Array.from({ length: 1 + r.int(3) }, () => r.pick([...Object.keys(schema.properties), ...NAMES]))),
      ];
    // Two validators of one schema, used in turns: they must share no state.
    const first = compileArgsValidator(schema);
    const second = compileArgsValidator(schema);
    const pollution = r.int(4); // 0, 1: none; 2: enumerable; 3: not enumerable
    const added = [];
    if (pollution >= 2) {
      for (const key of [r.pick(POLLUTERS), r.pick(POLLUTERS)]) {
        if (key in Object.prototype) continue;
        const value = r.pick([1, 'a', 'ab', true, [], {}, null, 2.5, ['a']]);
        Object.defineProperty(Object.prototype, key, {
          value,
          enumerable: pollution === 2,
          writable: true,
          configurable: true,
        });
        added.push(key);
      }
    }
    try {
      for (let k = 0; k < VALUES_PER_SCHEMA; k++) {
        const value = valueOf(r, schema, 0);
        const expected = reference(schema, value, '', []);
        for (const validate of [first, second]) {
          const got = validate(value);
          counts.checked++;
          if (expected.length) counts.invalid++;
          if (added.length) counts.polluted++;
          assert.ok(
            agrees(expected, got),
            `schema ${JSON.stringify(schema)}\nvalue ${JSON.stringify(value)}\n` +
              `Object.prototype: ${added.map((key) => `${key}=${JSON.stringify(Object.prototype[key])}`).join(', ') || 'clean'}\n` +
              `expected ${JSON.stringify(expected)}\ngot ${JSON.stringify(got)}`,
          );
        }
      }
    } finally {
      for (const key of added) delete Object.prototype[key];
    }
  }
  // The cases exercise what they should: invalid documents and a polluted prototype, both often.
  assert.ok(counts.invalid > counts.checked / 5 && counts.invalid < counts.checked * 0.9, JSON.stringify(counts));
  assert.ok(counts.polluted > counts.checked / 3, JSON.stringify(counts));
});

test('oneOf alternatives count own data only, with their property names on a polluted Object.prototype', () => {
  // Where the first test rarely goes: objects told apart by optional properties, and a prototype
  // that carries those very names (an inherited value must not make an alternative fail or pass).
  const r = random(7);
  const leaf = () =>
    r.pick([
      { type: 'string' },
      { type: 'string', enum: ['A'] },
      { type: 'string', enum: ['B'] },
      { type: 'integer' },
      { type: 'boolean' },
    ]);
  const names = ['a', 'b', 'k'];
  let checked = 0;
  for (let n = 0; n < 1_500; n++) {
    const alternatives = Array.from({ length: 2 + r.int(2) }, () => {
      const properties = {};
      for (const name of names) if (r.chance(0.6)) properties[name] = leaf();
      const required = Object.keys(properties).filter(() => r.chance(0.3));
      return required.length ? { type: 'object', properties, required } : { type: 'object', properties };
    });
    const schema = { type: 'object', properties: { v: { oneOf: alternatives } }, required: ['v'] };
    const validate = compileArgsValidator(schema);
    const enumerable = r.chance(0.5);
    const key = r.pick(names);
    Object.defineProperty(Object.prototype, key, {
      value: r.pick(['A', 'B', 'x', 5, true]),
      enumerable,
      writable: true,
      configurable: true,
    });
    try {
      for (let k = 0; k < 4; k++) {
        const v = {};
        for (const name of names) if (r.chance(0.4)) v[name] = r.pick(['A', 'B', 'x', 5, true]);
        const args = { v };
        const expected = reference(schema, args, '', []);
        checked++;
        assert.ok(
          agrees(expected, validate(args)),
          `schema ${JSON.stringify(schema)}\nargs ${JSON.stringify(args)}\nObject.prototype.${key} = ${JSON.stringify(Object.prototype[key])}\nexpected ${JSON.stringify(expected)}`,
        );
      }
    } finally {
      delete Object.prototype[key];
    }
  }
  assert.equal(checked, 6_000);
});
