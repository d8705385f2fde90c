/**
 * What goes when a <pedelec-session> is removed or its session ends under running calls (docs/design/elements.md
 * "Teardown", reliability.md "Lifecycle", "Handler faults"): removal mid-turn, while starting or during
 * restart(), synchronous moves, removed tools, persist; and handlers that never answer, which are not
 * kept as running once their session is gone (their late result is reported, not lost).
 */
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../../src/define.js';
import type {
  PedelecEndedEvent,
  PedelecErrorEvent,
  PedelecStatusEvent,
  PedelecSessionElement,
  PedelecToolElement,
  PedelecError,
} from '../../../src/index.js';
import { openClientCount } from '../../../src/elements/session/client-pool.js';
import {
  fake,
  APPROVED,
  postedOf,
  coreEvent,
  started,
  openTurn,
  toolCallStarted,
  collect,
  makeTool,
  toolOf,
  persistKeyFor,
  sessionHooks,
  hangingKit,
} from './harness.js';
import { approvedStatus, twoSessions } from '../helpers.js';
import { nextTask } from '../../support/waits.js';
import { bookkeepingOf } from '../../../src/elements/session/pedelec-session.element.js';

async function startEl(el: PedelecSessionElement, sessionId: string): Promise<void> {
  const started = el.start();
  await fake.answer('get_approval_status', approvedStatus());
  await fake.answer('create_session', { sessionId });
  await started;
}

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

describe('<pedelec-session>', () => {
  sessionHooks();

  describe('teardown', () => {
    const withSlow = (persist = false) =>
      persist
        ? html`<pedelec-session id="chat" persist provider="codex" model="m"
            ><pedelec-tool name="slow" description="Slow."></pedelec-tool
          ></pedelec-session>`
        : html`<pedelec-session provider="codex" model="m"
            ><pedelec-tool name="slow" description="Slow."></pedelec-tool
          ></pedelec-session>`;

    function slowHandler(el: PedelecSessionElement): { signal?: AbortSignal; resolve?: (v: unknown) => void } {
      const state: { signal?: AbortSignal; resolve?: (v: unknown) => void } = {};
      toolOf(el, 'slow').handler = (_args, ctx) => {
        state.signal = ctx.signal;
        return new Promise((resolve) => (state.resolve = resolve));
      };
      return state;
    }

    it('removing the session mid-turn: after a microtask, handlers abort, the session ends, the turn rejects SESSION_ENDED', async () => {
      const el = await fixture<PedelecSessionElement>(withSlow());
      const slow = slowHandler(el);
      await started(el, 's1');
      const { outcome: turn } = await openTurn(el, 's1');
      await toolCallStarted(el, 's1', { toolRequestId: 'c1', tool: 'slow', args: {} });
      const ended = collect<PedelecEndedEvent>(el, 'pedelec-ended');
      // "After a microtask": before any task runs. A task queued now runs only after that.
      const aborted = new Promise((resolve) => slow.signal!.addEventListener('abort', resolve, { once: true }));
      let aTaskRan = false;
      setTimeout(() => (aTaskRan = true));

      el.remove();
      // (Whether running handlers may abort synchronously here is the subject of the move tests below.)
      expect(postedOf('end_session'), 'nothing ended synchronously').to.deep.equal([]);
      expect(el.status).to.equal('waiting_tool_result');
      await aborted;
      expect(aTaskRan, 'the handler aborted in a microtask, before the next task').to.equal(false);
      expect(slow.signal!.aborted).to.equal(true);
      const end = await fake.answer('end_session');
      expect(end.sessionId).to.equal('s1');
      const outcome: any = await turn;
      expect(outcome?.code).to.equal('SESSION_ENDED');
      await nextTask();
      expect(ended).to.have.length(1);
      expect(el.status).to.equal('inactive');
      expect(el.session).to.equal(null);
      expect(fake.disconnectCalls, 'the last holder closed the port').to.equal(1);
    });

    it('removed while starting and put back a task later (a framework re-rendering): the start in flight ends its session, start() begins afresh', async () => {
      const [stays, moves] = await twoSessions();
      const root = moves.parentElement!;
      await started(stays, 's1'); // keeps the shared client open
      const first = moves.start().then(
        (session) => session,
        (error: PedelecError) => error,
      );
      await fake.answer('get_approval_status', APPROVED());
      const create = await fake.request('create_session');
      moves.remove();
      await nextTask(); // teardown ran; then it is put back
      root.append(moves);
      const second = moves.start();
      fake.answered.add(create);
      fake.respond({ sessionId: 's2' }, create);
      expect(((await first) as PedelecError).code, 'the start of the removed element').to.equal('SESSION_ENDED');
      expect((await fake.answer('end_session')).sessionId, 'which ends what it created').to.equal('s2');
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's3' });
      expect((await second).sessionId, 'the element back in the page starts afresh').to.equal('s3');
      expect(moves.status).to.equal('idle');
    });

    it('with persist, removing the session posts no end_session and keeps the record', async () => {
      const el = await fixture<PedelecSessionElement>(withSlow(true));
      const slow = slowHandler(el);
      await started(el, 's1');
      await openTurn(el, 's1');
      await toolCallStarted(el, 's1', { toolRequestId: 'c1', tool: 'slow', args: {} });

      el.remove();
      await nextTask(); // teardown ran (a microtask after removal)
      expect(postedOf('end_session')).to.deep.equal([]);
      expect(slow.signal!.aborted).to.equal(true);
      expect(el.status).to.equal('inactive');
      expect(JSON.parse(sessionStorage.getItem(persistKeyFor('chat'))!).sessionId).to.equal('s1');
    });

    it('a synchronous move (remove + re-insert) tears nothing down', async () => {
      const root = await fixture<HTMLElement>(
        html`<div>
          <section></section>
          <pedelec-session provider="codex" model="m"></pedelec-session>
        </div>`,
      );
      const el = root.querySelector('pedelec-session') as PedelecSessionElement;
      const session = await started(el, 's1');
      const client = el.client;
      const statuses = collect<PedelecStatusEvent>(el, 'pedelec-status');

      el.remove();
      root.querySelector('section')!.append(el);
      root.insertBefore(el, null);
      await nextTask(); // a teardown would have run by now

      expect(postedOf('end_session')).to.deep.equal([]);
      expect(el.status).to.equal('idle');
      expect(statuses).to.deep.equal([]);
      expect(el.session).to.equal(session);
      expect(el.client).to.equal(client);
      expect(fake.disconnectCalls).to.equal(0);
      const { outcome: turn } = await openTurn(el, 's1');
      coreEvent('s1', 'done');
      expect(await turn).to.equal('done');
    });

    it('a synchronous move during a tool call does not abort the running handler', async () => {
      const root = await fixture<HTMLElement>(html`<div><section></section></div>`);
      const el = document.createElement('pedelec-session') as PedelecSessionElement;
      el.setAttribute('provider', 'codex');
      el.setAttribute('model', 'm');
      el.append(makeTool('slow', 'Slow.'));
      root.append(el);
      await el.updateComplete;
      const slow = slowHandler(el);
      await started(el, 's1');
      await openTurn(el, 's1');
      await toolCallStarted(el, 's1', { toolRequestId: 'c1', tool: 'slow', args: {} });

      root.querySelector('section')!.append(el);
      await nextTask(); // an abort would have happened by now
      expect(slow.signal!.aborted).to.equal(false);
      slow.resolve!({ finished: true });
      const submit = await fake.answer('submit_tool_result', {}, (m) => m.toolRequestId === 'c1');
      expect(submit.result).to.deep.equal({ finished: true });
    });

    it('a tool removed while its call runs: its ctx.signal aborts', async () => {
      const el = await fixture<PedelecSessionElement>(withSlow());
      const slow = slowHandler(el);
      await started(el, 's1');
      await openTurn(el, 's1');
      await toolCallStarted(el, 's1', { toolRequestId: 'c1', tool: 'slow', args: {} });
      expect(slow.signal!.aborted).to.equal(false);
      toolOf(el, 'slow').remove();
      await nextTask(); // the removal aborts the call a microtask later
      expect(slow.signal!.aborted).to.equal(true);
      expect(el.status, 'the session itself goes on').to.equal('waiting_tool_result');
    });

    it('removed during restart(): nothing is started for the removed element, and its client is released', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      const restarting = el.restart().then(
        () => 'resolved',
        (error: PedelecError) => error.code,
      );
      el.remove();
      await fake.answer('end_session');
      expect(await restarting).to.equal('SESSION_ENDED');
      await nextTask();
      expect(postedOf('get_approval_status')).to.have.length(1);
      expect(openClientCount()).to.equal(0);
    });

    it('put back (with autostart) while its old session is still being ended: starts a new one', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session autostart provider="codex" model="m"></pedelec-session>`,
      );
      const ready = oneEvent(el, 'pedelec-ready');
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's1' });
      await ready;
      expect(el.sessionId).to.equal('s1');
      const parent = el.parentElement!;
      el.remove();
      await nextTask(); // teardown ran: end_session s1 is pending
      const end = await fake.request('end_session');
      const readyAgain = oneEvent(el, 'pedelec-ready');
      parent.append(el);
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's2' });
      await readyAgain;
      expect(el.sessionId).to.equal('s2');
      // The old session's end settles afterwards and leaves the new one alone.
      fake.answered.add(end);
      fake.respond({}, end);
      await nextTask();
      expect(el.sessionId).to.equal('s2');
      expect(el.status).to.equal('idle');
    });
  });

  describe('handlers that never answer, on the element', () => {
    it('restart() with a handler that never answers: the old call is not kept as running', async () => {
      const el = await fixture<PedelecSessionElement>(hangingKit());
      let signal: AbortSignal | undefined;
      (el.querySelector('pedelec-tool') as PedelecToolElement).handler = (_a, ctx) => {
        signal = ctx.signal;
        return new Promise(() => {});
      };
      await withCall(el);
      expect(bookkeepingOf(el).running).to.equal(1);
      await restartTo(el, 's2');
      expect(signal?.aborted).to.equal(true);
      expect(bookkeepingOf(el).running, 'a call of the ended session s1 is still held').to.equal(0);
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
      expect(bookkeepingOf(el).running, 'a call of the ended session is still held').to.equal(0);
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
});
