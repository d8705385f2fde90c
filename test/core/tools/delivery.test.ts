/**
 * Delivering a result (docs/design/tools-api.md, reliability.md "Handler faults"): a submit that fails is
 * reported SUBMIT_TOOL_RESULT_FAILED through onError, never retried and never an unhandled rejection;
 * exactly one submit per toolRequestId, however often the agent repeats the call.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import { expect } from '../../support/expect.js';
import type { PedelecError } from '../../../src/core/index.js';
import {
  fake,
  open,
  startTurn,
  toolCall,
  submits,
  resultOf,
  submitted,
  collectErrors,
  counterTool,
  skillsOf,
  toolHooks,
} from './harness.js';
import { ANSWERED_WINDOW } from '../../../src/core/session-tool-calls.js';
import { watchUnhandled } from '../../support/unhandled.js';
import { nextTask } from '../../support/waits.js';

toolHooks();

describe('delivery failure → SUBMIT_TOOL_RESULT_FAILED', () => {
  let unhandled: ReturnType<typeof watchUnhandled>;
  beforeEach(() => (unhandled = watchUnhandled()));
  afterEach(() => unhandled.stop());

  it('(control) the watcher does see a deliberate unhandled rejection', async () => {
    void Promise.reject({ code: 'DELIBERATE', message: 'control: an expected unhandled rejection (tools.test.ts)' });
    await nextTask();
    expect(unhandled.events).to.deep.equal([
      { code: 'DELIBERATE', message: 'control: an expected unhandled rejection (tools.test.ts)' },
    ]);
  });

  it('when the submit response is ok:false: onError with the cause, never retried, no unhandled rejection', async () => {
    const { session } = await open(skillsOf(counterTool()));
    const errors = collectErrors(session);
    session.onTool('update_counter', () => ({ value: 1 }));
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    const cause = {
      code: 'TOOL_TIMEOUT',
      message: 'Core stopped waiting for update_counter',
      details: { waitedMs: 60000 },
    };
    fake.fail(cause, submits('r1')[0]);
    await nextTask();
    const failures = errors.filter((e) => e.error.code === 'SUBMIT_TOOL_RESULT_FAILED');
    expect(failures).to.have.length(1);
    expect(failures[0]!.error).to.deep.equal({
      code: 'SUBMIT_TOOL_RESULT_FAILED',
      message: 'Core stopped waiting for update_counter',
      details: { tool: 'update_counter', toolRequestId: 'r1', cause },
    });
    expect(failures[0]!.ctx.type).to.equal('sdk_error');
    expect(failures[0]!.ctx.source).to.equal('sdk');
    expect(submits('r1'), 'never retried').to.have.length(1);
    expect(unhandled.events).to.deep.equal([]);
  });

  it('when the bridge disconnected while the handler ran: cause EXTENSION_DISCONNECTED', async () => {
    const { session } = await open(skillsOf(counterTool()));
    const errors = collectErrors(session);
    let finish!: (v: unknown) => void;
    session.onTool('update_counter', () => new Promise((resolve) => (finish = resolve)));
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    fake.disconnect();
    finish({ value: 1 });
    await nextTask();
    const failures = errors.filter((e) => e.error.code === 'SUBMIT_TOOL_RESULT_FAILED');
    expect(failures).to.have.length(1);
    const { error } = failures[0]!;
    const details = error.details as { tool: string; toolRequestId: string; cause: PedelecError };
    expect(details.tool).to.equal('update_counter');
    expect(details.toolRequestId).to.equal('r1');
    expect(details.cause.code).to.equal('EXTENSION_DISCONNECTED');
    expect(error.message).to.equal(details.cause.message);
    expect(Object.keys(details).sort()).to.deep.equal(['cause', 'tool', 'toolRequestId']);
    expect(submits(), 'nothing posted on a dead port, never retried').to.have.length(0);
    expect(unhandled.events).to.deep.equal([]);
  });

  for (const [label, thrown, cause] of [
    ['an Error', new Error('Attempting to use a disconnected port object'), { code: 'EXTENSION_DISCONNECTED' }],
    [
      'a {code, message}',
      { code: 'PORT_CLOSED', message: 'The port is closed.' },
      { code: 'PORT_CLOSED', message: 'The port is closed.', details: undefined },
    ],
  ] as const) {
    it(`when postMessage throws (${label}): the failure reported with its cause, and the port taken as gone`, async () => {
      const { session } = await open();
      const errors = collectErrors(session);
      session.onTool('a_tool', () => 'result');
      startTurn(session);
      fake.throwOnPost = thrown;
      expect(() => toolCall('r1', 'a_tool')).not.to.throw();
      fake.throwOnPost = undefined;
      await nextTask();
      const failures = errors.filter((e) => e.error.code === 'SUBMIT_TOOL_RESULT_FAILED').map((e) => e.error);
      expect(failures).to.have.length(1);
      const details = failures[0]!.details as { tool: string; toolRequestId: string; cause: PedelecError };
      expect(details).to.deep.include({ tool: 'a_tool', toolRequestId: 'r1' });
      expect(details.cause).to.deep.include(cause);
      expect(failures[0]!.message).to.equal(details.cause.message);
      // A port that cannot take a message is gone: the session is detached with that error.
      expect(session.getStatus()).to.equal('error');
      expect(submits(), 'never retried').to.have.length(0);
      expect(unhandled.events).to.deep.equal([]);
    });
  }
});

describe('exactly one submit per toolRequestId', () => {
  it('ignores a repeated tool_call while the request is running', async () => {
    const { session } = await open(skillsOf(counterTool()));
    let runs = 0;
    let finish!: (v: unknown) => void;
    session.onTool('update_counter', () => {
      runs++;
      return new Promise((resolve) => (finish = resolve));
    });
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    toolCall('r1', 'update_counter', { delta: 1 });
    await nextTask();
    expect(runs).to.equal(1);
    finish('once');
    await submitted('r1');
    toolCall('r1', 'update_counter', { delta: 1 });
    await nextTask();
    expect(runs).to.equal(1);
    expect(submits('r1')).to.have.length(1);
    expect(resultOf('r1')).to.equal('once');
  });

  it('ignores a repeated tool_call once the request was answered', async () => {
    const { session } = await open(skillsOf(counterTool()));
    let runs = 0;
    session.onTool('update_counter', () => ++runs);
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    toolCall('r1', 'update_counter', { delta: 2 });
    fake.respond({}, submits('r1')[0]);
    await nextTask();
    toolCall('r1', 'update_counter', { delta: 3 });
    expect(runs).to.equal(1);
    expect(submits('r1')).to.have.length(1);
    // A different request id still runs.
    toolCall('r2', 'update_counter', { delta: 1 });
    expect(runs).to.equal(2);
  });

  it('remembers the last 1 024 answered ids, not every one: a repeat within them is ignored, an older id runs again', async () => {
    // Every answered id used to be kept until end(): 300 000 calls held 84 MB.
    const { session } = await open(skillsOf(counterTool()));
    const runs = new Map<string, number>();
    session.onTool('update_counter', (_args, ctx) => {
      runs.set(ctx.toolRequestId, (runs.get(ctx.toolRequestId) ?? 0) + 1);
      return null;
    });
    startTurn(session);
    // r0 … r1024: 1 025 answered calls, so r0 has left the window and r1 is its oldest id.
    for (let i = 0; i <= ANSWERED_WINDOW; i++) toolCall(`r${i}`, 'update_counter', { delta: 1 });
    expect(runs.size).to.equal(ANSWERED_WINDOW + 1);
    toolCall('r1', 'update_counter', { delta: 1 });
    toolCall(`r${ANSWERED_WINDOW}`, 'update_counter', { delta: 1 });
    expect([runs.get('r1'), runs.get(`r${ANSWERED_WINDOW}`)]).to.deep.equal([1, 1]);
    expect(submits('r1')).to.have.length(1);
    // Core never resends a call that old; if it did, it would run again (memory stays bounded).
    toolCall('r0', 'update_counter', { delta: 1 });
    expect(runs.get('r0')).to.equal(2);
    expect(submits('r0')).to.have.length(2);
  });

  it('ignores a repeat of a request answered with an SDK error (not found, invalid args)', async () => {
    const { session } = await open(skillsOf(counterTool()));
    startTurn(session);
    toolCall('r1', 'unknown_tool');
    toolCall('r2', 'update_counter', { delta: 'x' });
    let runs = 0;
    session.onTool(() => ++runs);
    toolCall('r1', 'unknown_tool');
    toolCall('r2', 'update_counter', { delta: 1 });
    expect(runs).to.equal(0);
    expect(submits('r1')).to.have.length(1);
    expect(submits('r2')).to.have.length(1);
  });
});
