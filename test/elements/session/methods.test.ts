/**
 * <pedelec-session> methods (docs/design/elements.md "Methods"): end() and what sendText()/prepare() do after
 * it until start(), restart() (during a turn, twice at once, with resume-id, with a failed
 * end_session, overtaken by end()), and checkAvailability().
 */
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../../src/define.js';
import type { PedelecErrorEvent, PedelecToolsChangedEvent, PedelecSessionElement } from '../../../src/index.js';
import {
  fake,
  APPROVED,
  postedOf,
  started,
  ended,
  restarted,
  openTurn,
  soon,
  toolCallStarted,
  collect,
  toolOf,
  sessionHooks,
} from './harness.js';
import { nextTask } from '../../support/waits.js';

/** What a promise did by the next task: for answers that come at once, without a bridge round trip. */
async function outcomeOf(p: Promise<unknown>): Promise<string> {
  let out = 'pending';
  p.then(
    () => (out = 'resolved'),
    (e) => (out = e?.code ?? 'rejected'),
  );
  await nextTask();
  return out;
}

describe('<pedelec-session>', () => {
  sessionHooks();

  describe('end()', () => {
    it('end(): sendText() and prepare() then reject SESSION_ENDED until start()', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      const ended = oneEvent(el, 'pedelec-ended');
      const ending = el.end();
      const end = await fake.answer('end_session');
      await ending;
      await ended;
      expect(end.sessionId).to.equal('s1');
      expect(el.status).to.equal('ended');

      const before = fake.posted.length;
      expect((await soon(el.sendText('x'))).error?.code).to.equal('SESSION_ENDED');
      expect((await soon(el.prepare())).error?.code).to.equal('SESSION_ENDED');
      expect(fake.posted.length, 'nothing posted, no implicit restart').to.equal(before);

      await started(el, 's2');
      expect(el.sessionId).to.equal('s2');
      await openTurn(el, 's2');
    });

    it('end(): restart() also makes sendText() work again', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      await ended(el);
      await restarted(el, 's2');
      await openTurn(el, 's2');
    });

    it('end() on an element with no session (never started, or after a failed start): sendText() must reject SESSION_ENDED until start()', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const failedStart = el.start().catch((e) => e);
      await fake.answer('get_approval_status', APPROVED());
      await fake.refuse('create_session', { code: 'PROVIDER_UNAVAILABLE', message: 'codex is not available' });
      expect((await failedStart).code).to.equal('PROVIDER_UNAVAILABLE');
      expect(el.status).to.equal('error');

      await el.end();
      const before = fake.posted.length;
      const sent = el.sendText('hi');
      expect(await outcomeOf(sent)).to.equal('SESSION_ENDED');
      expect(
        fake.posted.slice(before).map((m) => m.type),
        'nothing is started after end()',
      ).to.deep.equal([]);
    });

    it('after an end() whose end_session failed, start() makes sendText() work again', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      const ending = el.end().catch((e) => e);
      await fake.refuse('end_session', { code: 'END_SESSION_FAILED', message: 'Core busy' });
      await ending;
      expect(el.session?.getStatus(), 'the session was not ended').to.equal('idle');

      const session = await el.start();
      expect(session.sessionId).to.equal('s1');
      const sent = el.sendText('hi').catch((e) => e);
      await fake.request('send_text');
      expect(postedOf('send_text'), 'spec: sendText rejects SESSION_ENDED only until start()').to.have.length(1);
      await fake.answer('send_text');
      fake.event('s1', 'status_changed', { seq: 1, status: 'idle' });
      expect(await sent).to.equal(undefined);
    });
  });

  describe('restart()', () => {
    const withSlowTool = () =>
      html`<pedelec-session provider="codex" model="m">
        <pedelec-tool name="slow" description="Slow."></pedelec-tool>
        <pedelec-tool name="quick" description="Quick."></pedelec-tool>
      </pedelec-session>`;

    it('restart() during a turn rejects it SESSION_ENDED, aborts handlers, ends the old session and applies changes', async () => {
      const el = await fixture<PedelecSessionElement>(withSlowTool());
      let signal: AbortSignal | undefined;
      toolOf(el, 'slow').handler = (_args, ctx) => {
        signal = ctx.signal;
        return new Promise(() => {});
      };
      await started(el, 's1');
      const { outcome: turn } = await openTurn(el, 's1');
      await toolCallStarted(el, 's1', { toolRequestId: 'c1', tool: 'slow', args: {} });
      expect(signal?.aborted).to.equal(false);

      const changed = oneEvent(el, 'pedelec-tools-changed');
      toolOf(el, 'quick').setAttribute('description', 'Quicker.');
      await changed;
      expect(el.toolsStale).to.equal(true);

      const changes = collect<PedelecToolsChangedEvent>(el, 'pedelec-tools-changed');
      const restarting = el.restart();
      const end = await fake.answer('end_session');
      expect(end.sessionId).to.equal('s1');
      const turnOutcome: any = await turn;
      expect(turnOutcome?.code).to.equal('SESSION_ENDED');
      expect(signal?.aborted).to.equal(true);

      await fake.answer('get_approval_status', APPROVED());
      const create = await fake.answer('create_session', { sessionId: 's2' });
      const session = await restarting;
      expect(session.sessionId).to.equal('s2');
      expect(el.sessionId).to.equal('s2');
      expect(el.toolsStale).to.equal(false);
      expect(create.input.skills.tools.map((t: any) => t.description)).to.deep.equal(['Slow.', 'Quicker.']);
      await nextTask();
      expect(changes).to.deep.equal([]);
      // The end_session for the old session went out before the new one was created.
      expect(fake.posted.indexOf(end)).to.be.lessThan(fake.posted.indexOf(create));
    });

    it('restart() twice at once (a double click) makes one new session and ends the old one', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      const first = el.restart();
      const second = el.restart();
      expect(second).to.equal(first);
      await fake.answer('end_session');
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's2' });
      expect((await first).sessionId).to.equal('s2');
      await nextTask();
      expect(postedOf('create_session')).to.have.length(2);
      expect(postedOf('end_session').map((m) => m.sessionId)).to.deep.equal(['s1']);
      expect(el.session?.sessionId).to.equal('s2');
    });

    it('a failed end_session on restart() is reported once', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const errors = collect<PedelecErrorEvent>(el, 'pedelec-error');
      await started(el, 's1');
      const restarting = el.restart();
      await fake.refuse('end_session', { code: 'SESSION_NOT_FOUND', message: 'gone' });
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's2' });
      await restarting;
      expect(errors.map((e) => e.detail.error.code)).to.deep.equal(['SESSION_NOT_FOUND']);
    });

    it('end() called after restart() (while restart ends the old session) is not undone by the restart', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      const restarting = el.restart().catch((e) => e);
      const ending = el.end();
      await fake.answer('end_session'); // the old session s1
      await ending;
      // Whatever the restart does now (what it asks for is answered; it may ask nothing and settle), the
      // page's last word was end().
      const settled = restarting.then(() => false);
      for (const [type, result] of [
        ['get_approval_status', APPROVED()],
        ['create_session', { sessionId: 's2' }],
      ] as const) {
        const asked = fake.request(type).then(
          () => true,
          () => false,
        );
        if (await Promise.race([asked, settled])) await fake.answer(type, result);
      }
      await restarting;
      await nextTask();
      expect(await outcomeOf(el.sendText('hi')), 'sendText() after end()').to.equal('SESSION_ENDED');
      expect(
        el.status === 'ended' || el.status === 'inactive' || el.status === 'error',
        `status ${el.status}`,
      ).to.equal(true);
    });

    it('restart() with resume-id creates a fresh session (no resume of the old id), even when ending the old one failed', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session resume-id="abc" provider="codex" model="m"></pedelec-session>`,
      );
      const p = el.start();
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('resume_session', { sessionId: 'abc' });
      await p;
      expect(el.sessionId).to.equal('abc');

      const before = fake.posted.length;
      const restarting = el.restart();
      restarting.catch(() => {}); // (settled below when the assertion passes)
      await fake.refuse('end_session', { code: 'END_SESSION_FAILED', message: 'no' });
      await fake.answer('get_approval_status', APPROVED());
      await fake.request('create_session'); // what restart() sends next: by then it has chosen create
      expect(
        fake.posted.slice(before).map((m) => m.type),
        'restart() creates; it must not resume the old session and its history',
      ).to.not.include('resume_session');
      await fake.answer('create_session', { sessionId: 's2' });
      expect((await restarting).sessionId).to.equal('s2');
    });
  });

  describe('checkAvailability()', () => {
    it('checkAvailability() passes the client answer through', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const ok = el.checkAvailability();
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('get_settings', { defaultProvider: 'codex', defaultModels: { codex: 'm' } });
      expect(await ok).to.deep.equal({
        available: true,
        extension: { available: true },
        approval: { approved: true, origin: location.origin },
        desktop: { available: true, launchAttempted: true },
      });
      const pending = el.checkAvailability();
      await fake.answer('get_approval_status', {
        installed: true,
        approved: false,
        origin: location.origin,
        appConnected: false,
      });
      expect(await pending).to.deep.equal({
        available: false,
        extension: { available: true },
        approval: { approved: false, origin: location.origin },
        desktop: { available: false, launchAttempted: true },
      });
      expect(el.status).to.equal('inactive');
      expect(postedOf('create_session')).to.deep.equal([]);
    });
  });
});
