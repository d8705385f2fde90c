/**
 * Deadlines and cancellation (docs/design/tools-api.md "ctx.signal", reliability.md "Handler faults"):
 * ctx.deadline, and ctx.signal aborted at the deadline, when the session ends (by Core, end() or a
 * status listener) or the bridge disconnects — a later result is not posted but reported — and not
 * by a transport-wide error nor by the timer of a handler that already answered.
 */
import { describe, it, beforeEach } from 'node:test';
import { expect } from '../../support/expect.js';
import type { PedelecError, ToolCallContext } from '../../../src/core/index.js';
import {
  fake,
  open,
  startTurn,
  submits,
  resultOf,
  submitted,
  sleep,
  aborted,
  collectErrors,
  counterTool,
  pageTool,
  skillsOf,
  openInTurn,
  toolHooks,
} from './harness.js';
import { watchUnhandled } from '../../support/unhandled.js';
import { nextTask } from '../../support/waits.js';

// One test emits an event with the next seq itself: this file counts seq, and emits tool calls, itself.
let seq = 0;
beforeEach(() => {
  seq = 0;
});

/** Emits a tool_call for session s1 with a fresh seq. */
function toolCall(toolRequestId: string, tool: string, args: unknown = {}): void {
  fake.event('s1', 'tool_call', { seq: ++seq, toolRequestId, tool, args });
}

toolHooks();

describe('deadline and cancellation (ours)', () => {
  it('ctx.deadline is the call arrival + timeoutMs, or + 60 000 ms', async () => {
    const contexts: Record<string, ToolCallContext> = {};
    const { session } = await open(skillsOf(counterTool({ timeoutMs: 30 }), pageTool()));
    session.onTool((tool, _args, ctx) => void (contexts[tool] = ctx));
    startTurn(session);
    const before = Date.now();
    toolCall('r1', 'update_counter', { delta: 1 });
    toolCall('r2', 'get_current_page');
    toolCall('r3', 'not_declared');
    const after = Date.now();
    for (const ctx of Object.values(contexts)) {
      expect(ctx.eventReceivedAt).to.be.within(before, after);
    }
    expect(contexts.update_counter!.deadline).to.equal(contexts.update_counter!.eventReceivedAt + 30);
    expect(contexts.get_current_page!.deadline).to.equal(contexts.get_current_page!.eventReceivedAt + 60_000);
    expect(contexts.not_declared!.deadline).to.equal(contexts.not_declared!.eventReceivedAt + 60_000);
  });

  it('aborts ctx.signal at the deadline but does not answer: the late result is submitted once, its refusal an error event', async () => {
    const unhandled = watchUnhandled();
    try {
      const { session } = await open(skillsOf(counterTool({ timeoutMs: 30 })));
      const errors = collectErrors(session);
      let ctx!: ToolCallContext;
      let finish!: (v: unknown) => void;
      session.onTool('update_counter', (_args, c) => {
        ctx = c;
        void c.signal; // read it: the deadline timer starts now
        return new Promise((resolve) => (finish = resolve));
      });
      startTurn(session);
      toolCall('r1', 'update_counter', { delta: 1 });
      expect(ctx.signal!.aborted).to.equal(false);
      await aborted(ctx.signal!);
      expect(Date.now()).to.be.at.least(ctx.deadline! - 2);
      await sleep(50); // well past the deadline: still nothing answered on the handler's behalf
      expect(submits(), 'nothing posted at the deadline').to.deep.equal([]);
      finish({ value: 'late' });
      await submitted('r1');
      expect(resultOf('r1')).to.deep.equal({ value: 'late' });
      fake.fail({ code: 'TOOL_TIMEOUT', message: 'Tool call timed out' }, submits('r1')[0]);
      await nextTask();
      const failures = errors.filter((e) => e.error.code === 'SUBMIT_TOOL_RESULT_FAILED');
      expect(failures).to.have.length(1);
      expect((failures[0]!.error.details as any).cause).to.deep.equal({
        code: 'TOOL_TIMEOUT',
        message: 'Tool call timed out',
        details: undefined,
      });
      expect(submits('r1')).to.have.length(1);
      expect(unhandled.events).to.deep.equal([]);
    } finally {
      unhandled.stop();
    }
  });

  it('aborts ctx.signal when a signal is first read after the deadline', async () => {
    const { session } = await open(skillsOf(counterTool({ timeoutMs: 30 })));
    let ctx!: ToolCallContext;
    session.onTool('update_counter', (_args, c) => {
      ctx = c;
      return new Promise(() => {});
    });
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    await sleep(60);
    expect(ctx.signal!.aborted).to.equal(true);
    expect(submits()).to.deep.equal([]);
  });

  it('aborts ctx.signal when Core ends the session; a later result is not posted, but said (SUBMIT_TOOL_RESULT_FAILED)', async () => {
    const { session } = await open(skillsOf(counterTool()));
    const errors = collectErrors(session);
    let ctx!: ToolCallContext;
    let finish!: (v: unknown) => void;
    session.onTool('update_counter', (_args, c) => {
      ctx = c;
      void c.signal;
      return new Promise((resolve) => (finish = resolve));
    });
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    expect(ctx.signal!.aborted).to.equal(false);
    fake.event('s1', 'ended', { seq: ++seq });
    expect(ctx.signal!.aborted).to.equal(true);
    expect(errors).to.deep.equal([]);
    finish({ value: 1 });
    await nextTask();
    expect(submits()).to.deep.equal([]);
    // Nothing lost silently: the result that could not go is reported, its cause the session's end.
    expect(errors.map((e) => e.error.code)).to.deep.equal(['SUBMIT_TOOL_RESULT_FAILED']);
    const { details } = errors[0]!.error as { details: { tool: string; toolRequestId: string; cause: PedelecError } };
    expect(details.tool).to.equal('update_counter');
    expect(details.toolRequestId).to.equal('r1');
    expect(details.cause).to.deep.equal(ctx.signal!.reason);
    expect(errors[0]!.error.message).to.equal(details.cause.message);
  });

  it('runs no handler for a call whose status listener ended the session', async () => {
    const { session } = await open(skillsOf(counterTool()));
    const ran: string[] = [];
    session.onStatus((status) => {
      if (status === 'waiting_tool_result') session.detach();
    });
    session.onTool('update_counter', () => void ran.push('handler'));
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    await nextTask();
    expect(ran).to.deep.equal([]);
    expect(submits()).to.deep.equal([]);
  });

  it('a timeoutMs beyond what a timer can hold (~24.8 days) does not abort ctx.signal at once', async () => {
    const { session } = await open(skillsOf(counterTool({ timeoutMs: 3_000_000_000 })));
    let ctx!: ToolCallContext;
    session.onTool('update_counter', (_args, c) => {
      ctx = c;
      void c.signal;
      return new Promise(() => {});
    });
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    await sleep(30);
    expect(ctx.deadline!).to.be.greaterThan(Date.now() + 2 ** 31);
    expect(ctx.signal!.aborted).to.equal(false);
  });

  it('aborts ctx.signal after a successful end(); a later result is not posted', async () => {
    const { session } = await open(skillsOf(counterTool()));
    let ctx!: ToolCallContext;
    let finish!: (v: unknown) => void;
    session.onTool('update_counter', (_args, c) => {
      ctx = c;
      return new Promise((resolve) => (finish = resolve));
    });
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    const ending = session.end();
    fake.respond({}, fake.last('end_session'));
    await ending;
    // Read lazily, after the end: already aborted.
    expect(ctx.signal!.aborted).to.equal(true);
    finish({ value: 1 });
    await nextTask();
    expect(submits()).to.deep.equal([]);
  });

  it('aborts ctx.signal when the bridge disconnects', async () => {
    const { session } = await open(skillsOf(counterTool()));
    const signals: AbortSignal[] = [];
    const contexts: ToolCallContext[] = [];
    session.onTool('update_counter', (_args, c) => {
      signals.push(c.signal!); // read before the disconnect
      return new Promise(() => {});
    });
    session.onTool('lazy', (_args, c) => {
      contexts.push(c); // read only afterwards
      return new Promise(() => {});
    });
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    toolCall('r2', 'lazy');
    expect(signals[0]!.aborted).to.equal(false);
    fake.disconnect();
    expect(signals[0]!.aborted).to.equal(true);
    expect(contexts[0]!.signal!.aborted).to.equal(true);
  });

  it("a fast handler's signal is not aborted later by its deadline timer", async () => {
    const { session } = await open(skillsOf(counterTool({ timeoutMs: 30 })));
    let signal!: AbortSignal;
    session.onTool('update_counter', (_args, c) => {
      signal = c.signal!;
      return 'done';
    });
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    expect(resultOf('r1')).to.equal('done');
    await sleep(60);
    // The timer is cleared when the call settles (tools-api.md "Dispatch speed").
    expect(signal.aborted).to.equal(false);
  });
});

describe('tool calls: transport errors', () => {
  // Each test here has a session with a user turn running, and reads what was submitted for a request.
  const open = openInTurn;
  const submitted = submits;

  // Mutation that survived: session.ts handleTransportError() aborting calls whatever `disconnected` says.
  it('a transport-wide error (not a disconnect) does not abort a running handler; its result is still submitted', async () => {
    const session = await open();
    let signal!: AbortSignal;
    let finish!: (v: unknown) => void;
    session.onTool('slow', (_args, ctx) => {
      signal = ctx.signal!;
      return new Promise((resolve) => (finish = resolve));
    });
    fake.event('s1', 'tool_call', { seq: 1, toolRequestId: 'r1', tool: 'slow', args: {} });
    await nextTask();
    fake.emit({ type: 'error', error: { code: 'NATIVE_HOST_UNAVAILABLE', message: 'hiccup' } });
    await nextTask();
    expect(session.getStatus()).to.equal('error');
    expect(signal.aborted, 'ctx.signal aborts only at the deadline, session end, disconnect or tool removal').to.equal(
      false,
    );
    finish({ ok: 1 });
    await fake.request('submit_tool_result', (m) => m.toolRequestId === 'r1');
    expect(submitted('r1').map((m) => m.result)).to.deep.equal([{ ok: 1 }]);
  });
});
