/**
 * Drop-in compatibility with the public Pedelec SDK (sdk-compat.md §1): what a tool handler's result
 * becomes on the wire, and `PedelecSession.replaceInlineToolHandlers`. Each rule is one test, written
 * as an SDK user's page registers handlers, on the fake Chrome port.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import { defineTool, type ToolSpecificHandler } from '../../../src/core/index.js';
import {
  fake,
  open,
  startTurn,
  toolCall,
  resultOf,
  submitted,
  collectErrors,
  skillsOf,
  toolHooks,
} from '../tools/harness.js';

toolHooks();

/** What the page submits for one call answered by `handler`, and the errors it reports. */
async function submittedFor(handler: () => unknown) {
  const { session } = await open();
  const errors = collectErrors(session);
  session.onTool('produce', handler);
  startTurn(session);
  toolCall('r1', 'produce');
  await submitted('r1');
  return { result: resultOf('r1'), errors: errors.map((e) => e.error) };
}

describe('SDK compatibility: tool results and handlers', () => {
  it("a result is sent as JSON.stringify would when that loses nothing: plain data, toJSON values, the page's own classes", async () => {
    class Point {
      constructor(
        public x: number,
        public y: number,
      ) {}
      get length() {
        return Math.hypot(this.x, this.y);
      }
    }
    class Labelled extends Point {
      label = 'origin';
    }
    const value = {
      plain: { a: [1, 'two', true, null], skipped: undefined },
      at: new Date(Date.UTC(2024, 0, 2)),
      custom: { toJSON: (key: string) => `custom at ${key}` },
      point: new Point(3, 4),
      labelled: new Labelled(0, 0),
      bare: Object.assign(Object.create(null), { n: 1 }),
    };
    const { result, errors } = await submittedFor(() => value);
    expect(result).to.deep.equal(JSON.parse(JSON.stringify(value)));
    expect(result.point).to.deep.equal({ x: 3, y: 4 });
    expect(Object.getPrototypeOf(result.point)).to.equal(Object.prototype);
    expect(errors).to.deep.equal([]);
  });

  it('anything else is TOOL_RESULT_INVALID with its path, to the agent and the page', async () => {
    const cycle: Record<string, unknown> = { name: 'root' };
    cycle.self = cycle;
    const lossy: Array<[string, unknown, string]> = [
      ['a Map', { m: new Map([['a', 1]]) }, 'result.m'],
      ['a Set', { s: new Set([1]) }, 'result.s'],
      ['a WeakMap', { w: new WeakMap() }, 'result.w'],
      ['a WeakSet', { w: new WeakSet() }, 'result.w'],
      ['an Error', { e: new Error('boom') }, 'result.e'],
      ['a RegExp', { r: /x/g }, 'result.r'],
      ['a Promise', { p: Promise.resolve(1) }, 'result.p'],
      ['an ArrayBuffer', { b: new ArrayBuffer(2) }, 'result.b'],
      ['a typed array', { b: new Uint8Array([1]) }, 'result.b'],
      // A DOM node's kind: a platform object (every DOM node is an EventTarget; Node has no DOM).
      ['a platform object', { el: new EventTarget() }, 'result.el'],
      ['a function', { f: () => 1 }, 'result.f'],
      ['a symbol', { s: Symbol('s') }, 'result.s'],
      ['a BigInt', { n: [1n] }, 'result.n[0]'],
      ['NaN', { n: NaN }, 'result.n'],
      ['Infinity', { n: Infinity }, 'result.n'],
      ['-Infinity', { n: -Infinity }, 'result.n'],
      ['undefined inside an array', { list: [1, undefined] }, 'result.list[1]'],
      ['a cycle', { cycle }, 'result.cycle.self'],
    ];
    for (const [label, value, path] of lossy) {
      const { result, errors } = await submittedFor(() => value);
      expect(result.error, label).to.deep.include({ code: 'TOOL_RESULT_INVALID', details: { path } });
      expect(result.error.message.startsWith(`${path}: `), label).to.equal(true);
      expect(
        errors.map((e) => e.code),
        label,
      ).to.deep.equal(['TOOL_RESULT_INVALID']);
      fake.posted.length = 0;
    }
  });

  it('each value of a result is read once: what is checked is what is sent', async () => {
    // A getter and a proxy whose second read would give what is not JSON.
    let getterReads = 0;
    const shifty = {
      get count() {
        return ++getterReads === 1 ? 1 : 10n;
      },
    };
    let proxyReads = 0;
    const proxied = new Proxy(
      { n: 1 },
      { get: (t, key) => (key !== 'n' ? Reflect.get(t, key) : ++proxyReads === 1 ? 1 : NaN) },
    );
    const { result, errors } = await submittedFor(() => ({ shifty, proxied }));
    expect([getterReads, proxyReads]).to.deep.equal([1, 1]);
    expect(errors).to.deep.equal([]);
    // What was posted is the data read then, not the objects that would answer differently now.
    expect(result).to.deep.equal({ shifty: { count: 1 }, proxied: { n: 1 } });
    expect([getterReads, proxyReads]).to.deep.equal([1, 1]);
  });

  it('PedelecSession.replaceInlineToolHandlers(handlers) replaces the inline handlers', async () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look a word up.',
      argsSchema: { type: 'object', properties: {} },
      handler: () => 'from the definition',
    });
    const { session } = await open(skillsOf(lookup));
    const handlers = new Map<string, ToolSpecificHandler>([['lookup', () => 'replaced']]);
    const returned: void = session.replaceInlineToolHandlers(handlers);
    expect(returned).to.equal(undefined);
    handlers.set('lookup', () => 'changed afterwards'); // the session keeps its own copy
    startTurn(session);
    toolCall('r1', 'lookup');
    expect(resultOf('r1')).to.equal('replaced');
    // A map without the tool: nothing answers it inline any more.
    session.replaceInlineToolHandlers(new Map());
    toolCall('r2', 'lookup');
    expect(resultOf('r2').error.code).to.equal('TOOL_HANDLER_NOT_FOUND');
  });
});
