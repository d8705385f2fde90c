/**
 * What a handler is called with, and when (docs/design/tools-api.md "ToolCallContext"): argument validation
 * first (on by default, off with validateArgs: false, declared tools only), a synchronous result
 * submitted in the same task, the AbortController made lazily, and the context of each call.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import { type StatusEventContext, type ToolCallContext } from '../../../src/core/index.js';
import {
  fake,
  open,
  startTurn,
  toolCall,
  submits,
  resultOf,
  collectErrors,
  counterTool,
  skillsOf,
  toolHooks,
} from './harness.js';

toolHooks();

describe('argument validation (ours)', () => {
  it('the message names every failing path, not only the first', async () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'string', minLength: 2 } },
      required: ['a', 'c'],
    };
    const { session } = await open(skillsOf(counterTool({ argsSchema: schema })));
    startTurn(session);
    toolCall('r1', 'update_counter', { b: 'x' });
    const { error } = resultOf('r1');
    expect(error.message).to.equal(error.details.errors.map((e: { message: string }) => e.message).join('; '));
    expect(error.details.errors.map((e: { path: string }) => e.path).sort()).to.deep.equal(['a', 'b', 'c']);
  });

  it('is on by default: invalid args never reach the handler, the agent gets TOOL_ARGS_INVALID', async () => {
    const calls: unknown[] = [];
    const { session } = await open(skillsOf(counterTool({ handler: (a: unknown) => (calls.push(a), 'inline') })));
    session.onTool((tool, a) => (calls.push([tool, a]), 'generic'));
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 'two' });
    toolCall('r2', 'update_counter', {});
    toolCall('r3', 'update_counter', { delta: 1.5 });
    toolCall('r4', 'update_counter', null);
    expect(calls).to.deep.equal([]);
    for (const [id, path, reason] of [
      ['r1', 'delta', 'type'],
      ['r2', 'delta', 'required'],
      ['r3', 'delta', 'type'],
      ['r4', '', 'type'],
    ] as const) {
      const result = resultOf(id);
      expect(Object.keys(result)).to.deep.equal(['error']);
      expect(result.error.code, id).to.equal('TOOL_ARGS_INVALID');
      expect(Object.keys(result.error).sort()).to.deep.equal(['code', 'details', 'message']);
      const { errors } = result.error.details;
      expect(Object.keys(result.error.details)).to.deep.equal(['errors']);
      expect(errors).to.be.an('array').that.is.not.empty;
      for (const e of errors)
        expect(Object.keys(e).sort()).to.deep.equal(['message', 'path', 'pointer', 'reason', 'schemaPath']);
      expect(errors[0].path, id).to.equal(path);
      // The WebMCP drafts' triple, for the Pedelec agent too.
      const { pointer, schemaPath } = errors[0];
      expect([pointer, errors[0].reason, schemaPath], id).to.deep.equal([path && `/${path}`, reason, `/${reason}`]);
      expect(result.error.message, 'the first problem').to.equal(errors[0].message);
    }
    expect(resultOf('r1').error.details.errors[0].message).to.match(/^delta: .*integer/);
    expect(resultOf('r2').error.details.errors[0].message).to.equal('delta: is required');
  });

  it('also guards a named handler for a declared tool', async () => {
    const calls: unknown[] = [];
    const { session } = await open(skillsOf(counterTool()));
    session.onTool('update_counter', (a) => (calls.push(a), 'named'));
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: '1' });
    toolCall('r2', 'update_counter', { delta: 1, extra: 'allowed' });
    expect(calls).to.deep.equal([{ delta: 1, extra: 'allowed' }]);
    expect(resultOf('r1').error.code).to.equal('TOOL_ARGS_INVALID');
    expect(resultOf('r2')).to.equal('named');
  });

  it('is off with new Pedelec({ validateArgs: false })', async () => {
    const calls: unknown[] = [];
    const { session } = await open(skillsOf(counterTool({ handler: (a: unknown) => (calls.push(a), 'inline') })), {
      validateArgs: false,
    });
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 'two' });
    toolCall('r2', 'update_counter', 'not even an object');
    expect(calls).to.deep.equal([{ delta: 'two' }, 'not even an object']);
    expect(resultOf('r1')).to.equal('inline');
    expect(resultOf('r2')).to.equal('inline');
  });

  it('never validates tools the manifest does not declare, whichever handler answers', async () => {
    const calls: unknown[] = [];
    const { session } = await open(skillsOf(counterTool()));
    session.onTool('core_tool', (a) => (calls.push(a), 'named'));
    session.onTool((tool, a) => (calls.push([tool, a]), 'generic'));
    startTurn(session);
    toolCall('r1', 'core_tool', { delta: 'anything', n: [1, 2] });
    toolCall('r2', 'core_tool', 'a string');
    toolCall('r3', 'elsewhere', null);
    expect(calls).to.deep.equal([{ delta: 'anything', n: [1, 2] }, 'a string', ['elsewhere', null]]);
    expect(resultOf('r1')).to.equal('named');
    expect(resultOf('r2')).to.equal('named');
    expect(resultOf('r3')).to.equal('generic');
  });
});

describe('dispatch speed (ours)', () => {
  it("submits a synchronous handler's result in the same task as the event", async () => {
    const { session } = await open(
      skillsOf(counterTool({ handler: ({ delta }: { delta: number }) => ({ value: delta * 2 }) })),
    );
    startTurn(session);
    const before = fake.posted.length;
    toolCall('r1', 'update_counter', { delta: 21 });
    // No await: the submit must already be posted when fake.event(...) returns.
    const posted = fake.posted.slice(before);
    expect(posted.map((m) => m.type)).to.deep.equal(['submit_tool_result']);
    expect(posted[0]!.result).to.deep.equal({ value: 42 });
    // SDK-made answers too.
    toolCall('r2', 'nobody_answers');
    expect(submits('r2')).to.have.length(1);
  });

  it('creates the AbortController lazily: only when a handler reads ctx.signal', async () => {
    const { session } = await open(skillsOf(counterTool()));
    session.onTool('quiet', () => 'no signal');
    session.onTool('curious', (_args, ctx) => (ctx.signal!.aborted ? 'aborted' : 'live'));
    startTurn(session);
    const Original = globalThis.AbortController;
    let constructed = 0;
    class CountingAbortController extends Original {
      constructor() {
        super();
        constructed++;
      }
    }
    globalThis.AbortController = CountingAbortController;
    try {
      toolCall('r1', 'quiet');
      toolCall('r2', 'update_counter', { delta: 1 }); // TOOL_HANDLER_NOT_FOUND: no handler at all
      expect(constructed).to.equal(0);
      toolCall('r3', 'curious');
      expect(constructed, 'the control: reading ctx.signal constructs one').to.equal(1);
    } finally {
      globalThis.AbortController = Original;
    }
    expect(resultOf('r1')).to.equal('no signal');
    expect(resultOf('r3')).to.equal('live');
  });
});

describe('ToolCallContext', () => {
  it('carries the tool_call fields, the turn, signal and deadline — and no seq', async () => {
    const { session } = await open(skillsOf(counterTool({ timeoutMs: 5000 })));
    let running!: StatusEventContext;
    session.onStatus((status, ctx) => {
      if (status === 'running') running = ctx;
    });
    let ctx!: ToolCallContext;
    session.onTool('update_counter', (_args, c) => void (ctx = c));
    const createdAt = session.sessionCreatedAt;
    startTurn(session);
    const before = Date.now();
    toolCall('req-7', 'update_counter', { delta: 1 });
    const after = Date.now();
    expect(ctx.type).to.equal('tool_call');
    expect(ctx.toolRequestId).to.equal('req-7');
    expect(ctx.tool).to.equal('update_counter');
    expect(ctx.sessionId).to.equal('s1');
    expect(ctx.provider).to.equal('codex');
    expect(ctx.model).to.equal('gpt-test');
    expect(ctx.source).to.equal('core');
    expect(ctx.sessionCreatedAt).to.equal(createdAt);
    expect(ctx.turnId).to.be.a('string').and.equal(running.turnId);
    expect(ctx.turnStartedAt).to.be.a('number').and.equal(running.turnStartedAt);
    expect(ctx.turnKind).to.equal('user');
    expect(ctx.eventReceivedAt).to.be.within(before, after);
    expect(ctx.eventEmittedAt).to.be.within(before, after);
    expect(ctx.deadline).to.equal(ctx.eventReceivedAt + 5000);
    expect(ctx.signal).to.be.instanceOf(AbortSignal);
    expect('seq' in ctx).to.equal(false);
    expect(Object.keys(ctx)).not.to.include('seq');
    for (const key of [
      'type',
      'toolRequestId',
      'tool',
      'turnId',
      'turnStartedAt',
      'eventReceivedAt',
      'turnKind',
      'signal',
      'deadline',
    ]) {
      expect(ctx, key).to.have.property(key);
    }
  });

  it('has turnKind "prepare" for a call during prepare()', async () => {
    const { session } = await open();
    let ctx!: ToolCallContext;
    session.onTool('warm_up', (_args, c) => void (ctx = c));
    const preparing = session.prepare();
    preparing.catch(() => {});
    toolCall('r1', 'warm_up');
    expect(ctx.turnKind).to.equal('prepare');
    expect(resultOf('r1')).to.equal(null);
  });

  it('a tool_call outside any turn runs no handler and is reported as SDK_PROTOCOL_ERROR', async () => {
    const { session } = await open();
    const errors = collectErrors(session);
    let runs = 0;
    session.onTool(() => ++runs);
    toolCall('r1', 'anything');
    expect(runs).to.equal(0);
    expect(submits()).to.deep.equal([]);
    expect(errors.map((e) => e.error.code)).to.deep.equal(['SDK_PROTOCOL_ERROR']);
  });
});
