/**
 * The result check (reliability.md "Bad results from handlers"): plain JSON passes, toJSON values are
 * converted as JSON.stringify would, objects from another realm are accepted, a shared (not cyclic)
 * object is JSON; anything else is TOOL_RESULT_INVALID at its path, to the agent and to the page.
 */
import { describe, it } from 'node:test';
import { runInNewContext } from 'node:vm';
import { expect } from '../../support/expect.js';
import type { ErrorEventContext, PedelecError } from '../../../src/core/index.js';
import {
  fake,
  open,
  startTurn,
  toolCall,
  submits,
  resultOf,
  submitted,
  collectErrors,
  openInTurn,
  toolHooks,
} from './harness.js';

toolHooks();

describe('result check (ours)', () => {
  async function resultFor(
    value: () => unknown,
  ): Promise<{ result: any; errors: Array<{ error: PedelecError; ctx: ErrorEventContext }> }> {
    const { session } = await open();
    const errors = collectErrors(session);
    session.onTool('produce', () => value());
    startTurn(session);
    toolCall('r1', 'produce');
    await submitted('r1');
    return { result: resultOf('r1'), errors };
  }

  it('passes plain JSON through unchanged', async () => {
    const value = { a: [1, 'two', true, null, { b: -0.5 }], c: '' };
    const { result, errors } = await resultFor(() => value);
    expect(result).to.deep.equal({ a: [1, 'two', true, null, { b: -0.5 }], c: '' });
    expect(errors).to.deep.equal([]);
  });

  it('converts Date (and any toJSON) the way JSON.stringify would', async () => {
    const date = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6));
    const custom = { toJSON: () => ({ kind: 'custom' }) };
    const { result, errors } = await resultFor(() => ({ at: date, list: [date], custom }));
    expect(result).to.deep.equal({
      at: '2024-01-02T03:04:05.006Z',
      list: ['2024-01-02T03:04:05.006Z'],
      custom: { kind: 'custom' },
    });
    expect(errors).to.deep.equal([]);
  });

  it('calls toJSON once, with its key, as JSON.stringify does: undefined drops the property', async () => {
    const keys: string[] = [];
    const keyed = { toJSON: (key: string) => (keys.push(key), `at ${key}`) };
    const gone = { toJSON: () => undefined };
    const value = { keep: 1, secret: gone, list: [1, keyed], when: keyed };
    const { result, errors } = await resultFor(() => value);
    expect(result).to.deep.equal({ keep: 1, list: [1, 'at 1'], when: 'at when' });
    expect(keys).to.deep.equal(['1', 'when']);
    expect(result).to.deep.equal(JSON.parse(JSON.stringify(value)));
    expect(errors).to.deep.equal([]);
  });

  it('a toJSON that returns its own object is called once, not forever', async () => {
    const value = {
      id: 7,
      toJSON() {
        return this;
      },
    };
    const { result } = await resultFor(() => ({ value }));
    // What toJSON returned is converted as it is: its own `toJSON` is then a function property —
    // refused with its path, like any function in a result (never a stack overflow).
    expect(result.error.code).to.equal('TOOL_RESULT_INVALID');
    expect(result.error.details).to.deep.equal({ path: 'result.value.toJSON' });
  });

  it('a top-level toJSON that gives undefined sends null', async () => {
    const { result } = await resultFor(() => ({ toJSON: () => undefined }));
    expect(result).to.equal(null);
  });

  it('a BigInt with a toJSON is converted by it', async () => {
    const proto = BigInt.prototype as unknown as { toJSON?: () => string };
    proto.toJSON = function (this: bigint) {
      return `${this}n`;
    };
    try {
      const { result, errors } = await resultFor(() => ({ big: 12n }));
      expect(result).to.deep.equal({ big: '12n' });
      expect(errors).to.deep.equal([]);
    } finally {
      delete proto.toJSON;
    }
  });

  it('accepts plain objects and arrays from another realm (a vm context, as a same-origin iframe is)', async () => {
    const other = runInNewContext('({ count: 3, tags: ["a"], nested: { ok: true } })');
    expect(Object.getPrototypeOf(other)).not.to.equal(Object.prototype);
    const { result, errors } = await resultFor(() => other);
    expect(result).to.deep.equal({ count: 3, tags: ['a'], nested: { ok: true } });
    expect(errors).to.deep.equal([]);
  });

  const throwingToJson = () => ({
    when: {
      toJSON() {
        throw new Error('clock broke');
      },
    },
  });
  for (const [kind, handler] of [
    ['sync', throwingToJson],
    ['async', async () => throwingToJson()],
  ] as const) {
    it(`refuses a result whose toJSON throws, with the path (${kind} handler)`, async () => {
      const { result, errors } = await resultFor(handler);
      expect(result).to.deep.equal({
        error: {
          code: 'TOOL_RESULT_INVALID',
          message: 'result.when: could not be converted (clock broke)',
          details: { path: 'result.when' },
        },
      });
      expect(errors.map((e) => e.error.code)).to.deep.equal(['TOOL_RESULT_INVALID']);
    });
  }

  it("answers TOOL_HANDLER_ERROR when reading the result's `then` throws", async () => {
    const { result } = await resultFor(() => ({
      get then() {
        throw new Error('no then here');
      },
    }));
    expect(result).to.deep.equal({ error: { code: 'TOOL_HANDLER_ERROR', message: 'no then here' } });
  });

  it('copes with an Error whose message getter throws, thrown by a handler', async () => {
    const secretive = () => {
      const error = new Error();
      Object.defineProperty(error, 'message', {
        get() {
          throw new Error('no message');
        },
      });
      return error;
    };
    const fromHandler = await resultFor(() => {
      throw secretive();
    });
    expect(fromHandler.result).to.deep.equal({ error: { code: 'TOOL_HANDLER_ERROR', message: 'Tool handler failed' } });
  });

  it('copes with an Error whose message getter throws, thrown by a toJSON', async () => {
    const error = new Error();
    Object.defineProperty(error, 'message', {
      get() {
        throw new Error('no message');
      },
    });
    const { result } = await resultFor(() => ({
      x: {
        toJSON() {
          throw error;
        },
      },
    }));
    expect(result.error.message).to.equal('result.x: could not be converted (it threw)');
  });

  it('refuses a result with a getter that throws, with the path', async () => {
    const value = {
      list: [
        1,
        {
          get secret() {
            throw 'not readable';
          },
        },
      ],
    };
    const { result, errors } = await resultFor(() => value);
    expect(result.error.message).to.equal('result.list[1].secret: could not be converted (not readable)');
    expect(errors).to.have.length(1);
  });

  it('converts a top-level Date (async handler)', async () => {
    const { result, errors } = await resultFor(() => Promise.resolve(new Date(0)));
    expect(result).to.equal('1970-01-01T00:00:00.000Z');
    expect(errors).to.deep.equal([]);
  });

  it('drops undefined object properties', async () => {
    const { result, errors } = await resultFor(() => ({
      kept: 1,
      dropped: undefined,
      nested: { gone: undefined, here: 'x' },
    }));
    expect(result).to.deep.equal({ kept: 1, nested: { here: 'x' } });
    expect('dropped' in result).to.equal(false);
    expect('gone' in result.nested).to.equal(false);
    expect(errors).to.deep.equal([]);
  });

  it('refuses a BigInt with the exact error to the agent and an sdk_error to the page', async () => {
    const { result, errors } = await resultFor(() => ({ items: [1, 2, 3n] }));
    expect(result).to.deep.equal({
      error: {
        code: 'TOOL_RESULT_INVALID',
        message: 'result.items[2]: BigInt is not JSON',
        details: { path: 'result.items[2]' },
      },
    });
    expect(errors).to.have.length(1);
    expect(errors[0]!.error.code).to.equal('TOOL_RESULT_INVALID');
    expect(errors[0]!.ctx.type).to.equal('sdk_error');
  });

  it("sends an instance of the page's own class as its own enumerable data, as JSON.stringify does", async () => {
    class Point {
      constructor(
        public x = 1,
        public y = 2,
      ) {}
      get length() {
        return Math.hypot(this.x, this.y);
      }
    }
    class Labelled extends Point {
      label = 'p';
    }
    const value = { p: new Point(), q: new Labelled(3, 4) };
    const { result, errors } = await resultFor(() => value);
    expect(result).to.deep.equal({ p: { x: 1, y: 2 }, q: { x: 3, y: 4, label: 'p' } });
    expect(result).to.deep.equal(JSON.parse(JSON.stringify(value)));
    expect(errors).to.deep.equal([]);
  });

  const nonJson: Array<[string, () => unknown, string]> = [
    ['a function', () => ({ items: [0, () => 1] }), 'result.items[1]'],
    ['a symbol', () => ({ tag: Symbol('t') }), 'result.tag'],
    ['a top-level BigInt', () => 10n, 'result'],
    ['NaN', () => ({ n: NaN }), 'result.n'],
    ['Infinity', () => ({ list: [1, -Infinity] }), 'result.list[1]'],
    [
      'a cycle',
      () => {
        const node: Record<string, unknown> = { name: 'root' };
        node.self = node;
        return { node };
      },
      'result.node.self',
    ],
    ['a Map', () => ({ m: new Map([['a', 1]]) }), 'result.m'],
    ['a Set', () => ({ s: new Set([1]) }), 'result.s'],
    // A DOM node's kind: a platform object (no DOM in Node; every DOM node is an EventTarget).
    ['a platform object (EventTarget)', () => ({ el: new EventTarget() }), 'result.el'],
    ['an instance of a class extending a built-in', () => ({ e: new (class extends Error {})() }), 'result.e'],
    [
      'undefined in an array (a toJSON giving undefined)',
      () => ({ list: [1, { toJSON: () => undefined }] }),
      'result.list[1]',
    ],
    ['a function (async handler)', () => Promise.resolve({ deep: { fn() {} } }), 'result.deep.fn'],
  ];
  for (const [label, value, path] of nonJson) {
    it(`refuses ${label} → TOOL_RESULT_INVALID at ${path}`, async () => {
      const { result, errors } = await resultFor(value);
      expect(Object.keys(result)).to.deep.equal(['error']);
      expect(result.error.code).to.equal('TOOL_RESULT_INVALID');
      expect(result.error.details).to.deep.equal({ path });
      expect(result.error.message.startsWith(`${path}: `), result.error.message).to.equal(true);
      expect(JSON.parse(JSON.stringify(result))).to.deep.equal(result); // what is posted is itself JSON
      const pageErrors = errors.filter((e) => e.error.code === 'TOOL_RESULT_INVALID');
      expect(pageErrors).to.have.length(1);
      expect(pageErrors[0]!.ctx.type).to.equal('sdk_error');
    });
  }
});

describe('tool calls: shared objects', () => {
  // Each test here has a session with a user turn running, and reads what was submitted for a request.
  const open = openInTurn;
  const submitted = submits;

  // Mutation that survived: json.ts convert() without `seen.pop()` (every repeated object is a "cycle").
  it('a result holding the same object twice (no cycle) is JSON and is posted as is', async () => {
    const session = await open();
    const errors: PedelecError[] = [];
    session.onError((e) => errors.push(e));
    const shared = { id: 7 };
    session.onTool('dag', () => ({ a: shared, b: shared, list: [shared, [shared]] }));
    fake.event('s1', 'tool_call', { seq: 1, toolRequestId: 'r1', tool: 'dag', args: {} });
    await fake.request('submit_tool_result', (m) => m.toolRequestId === 'r1');
    expect(submitted('r1').map((m) => m.result)).to.deep.equal([
      { a: { id: 7 }, b: { id: 7 }, list: [{ id: 7 }, [{ id: 7 }]] },
    ]);
    expect(errors).to.deep.equal([]);
  });
});
