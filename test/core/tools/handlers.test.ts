/**
 * Tool handlers (docs/design/tools-api.md "onTool", "Handler resolution"): onTool registers one named handler
 * per name and one generic fallback; a call goes named → inline → generic → TOOL_HANDLER_NOT_FOUND and
 * its result is submitted; a handler that fails gives the agent an error result and the session goes on.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import type { PedelecError, ToolCallContext } from '../../../src/core/index.js';
import {
  fake,
  open,
  startTurn,
  toolCall,
  submits,
  resultOf,
  submitted,
  thrownBy,
  collectErrors,
  counterTool,
  pageTool,
  skillsOf,
  toolHooks,
} from './harness.js';
import { nextTask } from '../../support/waits.js';

toolHooks();

describe('session.onTool', () => {
  it('throws INVALID_INPUT synchronously for an invalid name', async () => {
    const { session } = await open();
    for (const name of ['1bad', '_bad', 'has space', '', 42 as unknown as string]) {
      const error = thrownBy(() => session.onTool(name, () => null));
      expect(error.code, String(name)).to.equal('INVALID_INPUT');
      expect(error.message).to.be.a('string');
    }
    expect(fake.posted.filter((m) => m.type !== 'create_session')).to.deep.equal([]);
  });

  it('throws INVALID_INPUT synchronously when a named handler is not a function', async () => {
    const { session } = await open();
    for (const handler of [undefined, null, 'h', {}]) {
      const error = thrownBy(() => session.onTool('update_counter', handler as any));
      expect(error.code).to.equal('INVALID_INPUT');
    }
  });

  it('accepts any valid name, declared or not, and returns an unsubscribe function', async () => {
    const { session } = await open();
    const off = session.onTool('some.other-tool_2', () => null);
    expect(off).to.be.a('function');
  });

  it('keeps one named handler per name: the latest wins', async () => {
    const { session } = await open(skillsOf(counterTool()));
    const seen: string[] = [];
    session.onTool('update_counter', () => (seen.push('first'), 1));
    session.onTool('update_counter', () => (seen.push('second'), 2));
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    expect(seen).to.deep.equal(['second']);
    expect(resultOf('r1')).to.equal(2);
  });

  it('unsubscribes a named handler only if it is still the registered one', async () => {
    const { session } = await open(skillsOf(counterTool()));
    const offFirst = session.onTool('update_counter', () => 'first');
    const offSecond = session.onTool('update_counter', () => 'second');
    startTurn(session);
    offFirst(); // no longer registered: must not remove the second
    toolCall('r1', 'update_counter', { delta: 1 });
    expect(resultOf('r1')).to.equal('second');
    offSecond();
    toolCall('r2', 'update_counter', { delta: 1 });
    expect(resultOf('r2').error.code).to.equal('TOOL_HANDLER_NOT_FOUND');
    offSecond(); // idempotent
    const offThird = session.onTool('update_counter', () => 'third');
    offSecond(); // stale unsubscribe must not remove a newer handler
    toolCall('r3', 'update_counter', { delta: 1 });
    expect(resultOf('r3')).to.equal('third');
    offThird();
  });

  it('keeps one generic fallback: the latest wins, and a stale unsubscribe does not remove it', async () => {
    const { session } = await open();
    const offFirst = session.onTool(() => 'first');
    session.onTool(() => 'second');
    startTurn(session);
    offFirst();
    toolCall('r1', 'anything');
    expect(resultOf('r1')).to.equal('second');
  });

  it('unsubscribing the generic fallback removes it', async () => {
    const { session } = await open();
    const off = session.onTool(() => 'generic');
    startTurn(session);
    toolCall('r1', 'anything');
    expect(resultOf('r1')).to.equal('generic');
    off();
    toolCall('r2', 'anything');
    expect(resultOf('r2').error.code).to.equal('TOOL_HANDLER_NOT_FOUND');
  });

  it('unregistering never cancels a handler already running', async () => {
    const { session } = await open(skillsOf(counterTool()));
    let finish!: (v: unknown) => void;
    let signal: AbortSignal | undefined;
    const off = session.onTool('update_counter', (_args, ctx) => {
      signal = ctx.signal;
      return new Promise((resolve) => (finish = resolve));
    });
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    off();
    await nextTask();
    expect(signal!.aborted).to.equal(false);
    finish({ value: 1 });
    await submitted('r1');
    expect(resultOf('r1')).to.deep.equal({ value: 1 });
  });
});

describe('handler resolution', () => {
  it('goes named → inline → generic → TOOL_HANDLER_NOT_FOUND', async () => {
    const calls: string[] = [];
    const { session } = await open(
      skillsOf(counterTool({ handler: () => (calls.push('inline'), 'inline') }), pageTool()),
    );
    const offGeneric = session.onTool((tool) => (calls.push(`generic:${tool}`), 'generic'));
    const offNamed = session.onTool('update_counter', () => (calls.push('named'), 'named'));
    startTurn(session);

    toolCall('r1', 'update_counter', { delta: 1 });
    expect(resultOf('r1')).to.equal('named');
    offNamed();
    toolCall('r2', 'update_counter', { delta: 1 });
    expect(resultOf('r2')).to.equal('inline');
    toolCall('r3', 'get_current_page'); // declared, no inline handler
    expect(resultOf('r3')).to.equal('generic');
    offGeneric();
    toolCall('r4', 'get_current_page');
    expect(calls).to.deep.equal(['named', 'inline', 'generic:get_current_page']);
    expect(resultOf('r4')).to.deep.equal({
      error: {
        code: 'TOOL_HANDLER_NOT_FOUND',
        message: 'No tool handler registered for get_current_page',
        details: { tool: 'get_current_page' },
      },
    });
    toolCall('r5', 'not_declared');
    expect(resultOf('r5')).to.deep.equal({
      error: {
        code: 'TOOL_HANDLER_NOT_FOUND',
        message: 'No tool handler registered for not_declared',
        details: { tool: 'not_declared' },
      },
    });
  });

  it('passes (args, ctx) to named and inline handlers and (tool, args, ctx) to the generic one', async () => {
    const seen: unknown[][] = [];
    const { session } = await open(
      skillsOf(
        counterTool({
          handler: (args: unknown, ctx: ToolCallContext) => (seen.push(['inline', args, ctx.tool]), null),
        }),
      ),
    );
    session.onTool((tool, args, ctx) => (seen.push(['generic', tool, args, ctx.toolRequestId]), null));
    session.onTool('named_tool', (args, ctx) => (seen.push(['named', args, ctx.toolRequestId]), null));
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 4 });
    toolCall('r2', 'other_tool', { x: 1 });
    toolCall('r3', 'named_tool', { y: 2 });
    expect(seen).to.deep.equal([
      ['inline', { delta: 4 }, 'update_counter'],
      ['generic', 'other_tool', { x: 1 }, 'r2'],
      ['named', { y: 2 }, 'r3'],
    ]);
  });

  it('posts submit_tool_result { sessionId, toolRequestId, result }', async () => {
    const { session } = await open(skillsOf(counterTool()));
    session.onTool('update_counter', (args: any) => ({ value: 10 + args.delta }));
    startTurn(session);
    toolCall('req-42', 'update_counter', { delta: 2 });
    const [message] = submits();
    expect(message).to.include({ type: 'submit_tool_result', sessionId: 's1', toolRequestId: 'req-42' });
    expect(message!.result).to.deep.equal({ value: 12 });
    expect(Object.keys(message!).sort()).to.deep.equal([
      'channelId',
      'requestId',
      'result',
      'sessionId',
      'toolRequestId',
      'type',
    ]);
    expect(message!.channelId).to.equal(fake.last('create_session').channelId);
  });

  it('sends null when the handler returns nothing (sync or async)', async () => {
    const { session } = await open();
    session.onTool('sync_void', () => undefined);
    session.onTool('async_void', async () => {});
    startTurn(session);
    toolCall('r1', 'sync_void');
    toolCall('r2', 'async_void');
    await Promise.all([submitted('r1'), submitted('r2')]);
    const [r1, r2] = [submits('r1')[0]!, submits('r2')[0]!];
    expect('result' in r1 && r1.result === null).to.equal(true);
    expect('result' in r2 && r2.result === null).to.equal(true);
  });

  describe('a handler that fails', () => {
    const cases: Array<[string, () => unknown, PedelecError]> = [
      [
        'throws an Error',
        () => {
          throw new Error('counter is locked');
        },
        { code: 'TOOL_HANDLER_ERROR', message: 'counter is locked' },
      ],
      [
        'rejects with an Error',
        () => Promise.reject(new Error('later failure')),
        { code: 'TOOL_HANDLER_ERROR', message: 'later failure' },
      ],
      [
        'async-throws a TypeError',
        async () => {
          throw new TypeError('bad type');
        },
        { code: 'TOOL_HANDLER_ERROR', message: 'bad type' },
      ],
      [
        'throws an Error without a message',
        () => {
          throw new Error('');
        },
        { code: 'TOOL_HANDLER_ERROR', message: 'Tool handler failed' },
      ],
      [
        'throws a string',
        () => {
          throw 'no counter here';
        },
        { code: 'TOOL_HANDLER_ERROR', message: 'no counter here' },
      ],
      ['rejects with a string', () => Promise.reject('nope'), { code: 'TOOL_HANDLER_ERROR', message: 'nope' }],
      [
        'throws { code, message }',
        () => {
          throw { code: 'COUNTER_LOCKED', message: 'Locked by admin' };
        },
        // A copy of what was thrown: with an own `details` key, as the public SDK's copies have.
        { code: 'COUNTER_LOCKED', message: 'Locked by admin', details: undefined },
      ],
      [
        'throws { code, message, details }',
        () => {
          throw { code: 'COUNTER_LOCKED', message: 'Locked', details: { by: 'admin' } };
        },
        { code: 'COUNTER_LOCKED', message: 'Locked', details: { by: 'admin' } },
      ],
      [
        'throws null',
        () => {
          throw null;
        },
        { code: 'TOOL_HANDLER_ERROR', message: 'Tool handler failed' },
      ],
      [
        'throws undefined',
        () => {
          throw undefined;
        },
        { code: 'TOOL_HANDLER_ERROR', message: 'Tool handler failed' },
      ],
      [
        'rejects with undefined',
        () => Promise.reject(undefined),
        { code: 'TOOL_HANDLER_ERROR', message: 'Tool handler failed' },
      ],
      [
        'throws a plain object without code',
        () => {
          throw { reason: 'busy' };
        },
        { code: 'TOOL_HANDLER_ERROR', message: 'Tool handler failed', details: { reason: 'busy' } },
      ],
      [
        'throws a number',
        () => {
          throw 42;
        },
        { code: 'TOOL_HANDLER_ERROR', message: 'Tool handler failed', details: 42 },
      ],
    ];
    for (const [label, handler, expected] of cases) {
      it(`${label} → error result ${expected.code}`, async () => {
        const { session } = await open();
        session.onTool('risky', handler);
        startTurn(session);
        toolCall('r1', 'risky');
        await submitted('r1');
        const result = resultOf('r1');
        expect(result).to.deep.equal({ error: expected });
        expect(Object.keys(result)).to.deep.equal(['error']);
        if (!('details' in expected)) expect('details' in result.error, 'no details key').to.equal(false);
      });
    }

    const cyclic = (): Record<string, unknown> => {
      const o: Record<string, unknown> = { name: 'loop' };
      o.self = o;
      return o;
    };
    const unsendable: Array<[string, () => unknown]> = [
      ['a BigInt', () => ({ used: 10n })],
      ['a cycle', cyclic],
      ['a Map', () => new Map([['a', 1]])],
      ['a function', () => ({ retry: () => {} })],
    ];
    for (const [label, details] of unsendable) {
      it(`throws { code, message, details } whose details hold ${label} → the error result without details, still sent`, async () => {
        const { session } = await open();
        const errors = collectErrors(session);
        session.onTool('risky', () => {
          throw { code: 'QUOTA', message: 'Quota used up', details: details() };
        });
        startTurn(session);
        toolCall('r1', 'risky');
        await submitted('r1');
        const result = resultOf('r1');
        expect(result).to.deep.equal({ error: { code: 'QUOTA', message: 'Quota used up' } });
        expect(JSON.parse(JSON.stringify(result))).to.deep.equal(result);
        expect(errors).to.deep.equal([]);
      });
    }

    it('throws details holding a Date → sent converted, as a result would be', async () => {
      const { session } = await open();
      session.onTool('risky', () =>
        Promise.reject({ code: 'LATE', message: 'Too late', details: { at: new Date(Date.UTC(2026, 0, 1)) } }),
      );
      startTurn(session);
      toolCall('r1', 'risky');
      await submitted('r1');
      expect(resultOf('r1')).to.deep.equal({
        error: { code: 'LATE', message: 'Too late', details: { at: '2026-01-01T00:00:00.000Z' } },
      });
    });

    it('does not stop later calls: the session keeps answering', async () => {
      const { session } = await open();
      let n = 0;
      session.onTool('flaky', () => {
        if (n++ === 0) throw new Error('first fails');
        return 'second works';
      });
      startTurn(session);
      toolCall('r1', 'flaky');
      toolCall('r2', 'flaky');
      expect(resultOf('r1').error.message).to.equal('first fails');
      expect(resultOf('r2')).to.equal('second works');
    });
  });
});
