/**
 * Handlers that never answer, seen from the element (reliability.md "Handler faults": "never settles
 * (… nothing kept alive once the session ends)"; tools-api.md: a failed delivery is reported through
 * `onError` / `pedelec-error`; elements.md: invoke() "never rejects"). Each test failed before its fix.
 */
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../src/define.js';
import type { PedelecErrorEvent, PedelecSessionElement, PedelecToolElement } from '../../src/index.js';
import { approvedStatus, installFakeChrome, nextTask, uninstallFakeChrome, type FakePort } from './helpers.js';

let fake: FakePort;
beforeEach(() => {
  fake = installFakeChrome();
});
afterEach(() => {
  fake.disconnect(); // a shared client left open by a failing test is dead for the next one
  uninstallFakeChrome();
});

async function startEl(el: PedelecSessionElement, sessionId: string): Promise<void> {
  const started = el.start();
  await fake.answer('get_approval_status', approvedStatus());
  await fake.answer('create_session', { sessionId });
  await started;
}

const hangingKit = () =>
  html`<pedelec-session provider="codex" model="m">
    <pedelec-tool name="hang" description="Never answers." timeout-ms="100"></pedelec-tool>
  </pedelec-session>`;

/** Starts the element as s1 and has the agent call `hang`; resolves once its handler runs. */
async function withCall(el: PedelecSessionElement): Promise<void> {
  await startEl(el, 's1');
  el.sendText('hi').catch(() => {});
  await fake.answer('send_text');
  const started = oneEvent(el, 'pedelec-tool-start');
  fake.event('s1', 'tool_call', { seq: 1, toolRequestId: 'c1', tool: 'hang', args: {} });
  await started;
}

async function restartTo(el: PedelecSessionElement, id: string): Promise<void> {
  const restarting = el.restart();
  await fake.answer('end_session');
  await fake.answer('get_approval_status', approvedStatus());
  await fake.answer('create_session', { sessionId: id });
  await restarting;
}

async function endEl(el: PedelecSessionElement): Promise<void> {
  const ending = el.end();
  await fake.answer('end_session');
  await ending;
}

describe('handlers that never answer, on the element', () => {
  it('invoke() whose signal aborted a handler that never answers still settles at the deadline (TOOL_TIMEOUT)', async () => {
    const el = await fixture<PedelecSessionElement>(hangingKit());
    (el.querySelector('pedelec-tool') as PedelecToolElement).handler = () => new Promise(() => {});
    const controller = new AbortController();
    const started = oneEvent(el, 'pedelec-tool-start');
    const result = el.invoke('hang', {}, { signal: controller.signal });
    await started; // the handler runs
    controller.abort();
    const outcome = await Promise.race([result, new Promise<'never'>((r) => setTimeout(() => r('never'), 1000))]);
    expect(outcome, 'invoke() never settled').to.not.equal('never');
    expect((outcome as any).error?.code).to.equal('TOOL_TIMEOUT');
    expect(el.bookkeeping.running, 'the timed-out local call is not kept').to.equal(0);
  });

  it('restart() with a handler that never answers: the old call is not kept as running', async () => {
    const el = await fixture<PedelecSessionElement>(hangingKit());
    let signal: AbortSignal | undefined;
    (el.querySelector('pedelec-tool') as PedelecToolElement).handler = (_a, ctx) => {
      signal = ctx.signal;
      return new Promise(() => {});
    };
    await withCall(el);
    expect(el.bookkeeping.running).to.equal(1);
    await restartTo(el, 's2');
    expect(signal?.aborted).to.equal(true);
    expect(el.bookkeeping.running, 'a call of the ended session s1 is still held').to.equal(0);
    await endEl(el);
  });

  it('Core ends the session while a handler never answers: the call is not kept as running', async () => {
    const el = await fixture<PedelecSessionElement>(hangingKit());
    (el.querySelector('pedelec-tool') as PedelecToolElement).handler = () => new Promise(() => {});
    await withCall(el);
    const ended = oneEvent(el, 'pedelec-ended');
    fake.event('s1', 'ended', { seq: 2 });
    await ended;
    expect(el.status).to.equal('ended');
    expect(el.bookkeeping.running, 'a call of the ended session is still held').to.equal(0);
  });

  it('restart() while a handler runs: its late result is reported as pedelec-error SUBMIT_TOOL_RESULT_FAILED, not lost', async () => {
    const el = await fixture<PedelecSessionElement>(hangingKit());
    let finish!: (value: unknown) => void;
    (el.querySelector('pedelec-tool') as PedelecToolElement).handler = () =>
      new Promise((resolve) => (finish = resolve));
    await withCall(el);
    await restartTo(el, 's2');
    const errors: PedelecErrorEvent[] = [];
    el.addEventListener('pedelec-error', (e) => errors.push(e as PedelecErrorEvent));
    const reported = oneEvent(el, 'pedelec-error');
    finish({ done: true });
    await reported;
    await nextTask(); // nothing more follows: no second error, no submit
    expect(
      fake.posted.filter((m) => m.type === 'submit_tool_result'),
      'not posted for an ended session',
    ).to.have.length(0);
    expect(
      errors.map((e) => e.detail.error.code),
      'the dropped result is said',
    ).to.deep.equal(['SUBMIT_TOOL_RESULT_FAILED']);
    expect(errors[0]!.detail.context?.sessionId, 'its context names the old session').to.equal('s1');
    await endEl(el);
  });
});
