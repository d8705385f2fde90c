/**
 * <pedelec-session> lifecycle (spec/elements.md), found in review; each test failed before its fix: a
 * status listener that starts again at `ended` neither swallows pedelec-ended nor reorders statuses;
 * end() without a session still ends (sendText() rejects SESSION_ENDED); end() during restart() wins.
 * Self-contained harness in the style of session.test.ts (fake Chrome port, requests answered by type).
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../src/define.js';
import { PedelecSessionElement, type PedelecEndedEvent, type PedelecStatusEvent } from '../../src/index.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../support/fake-chrome.js';
import { nextTask } from '../support/waits.js';

let fake: FakePort;
const APPROVED = () => ({ installed: true, approved: true, origin: location.origin, appConnected: true });
const postedOf = (type: string) => fake.posted.filter((m) => m.type === type);

function coreEvent(sessionId: string, type: string, fields: Record<string, unknown> = {}): void {
  fake.emit({ channelId: fake.posted[fake.posted.length - 1]?.channelId, type, sessionId, ...fields });
}
async function started(el: PedelecSessionElement, sessionId = 's1') {
  const p = el.start();
  await fake.answer('get_approval_status', APPROVED());
  await fake.answer('create_session', { sessionId });
  return p;
}
function collect<T extends Event>(target: EventTarget, type: string): T[] {
  const seen: T[] = [];
  target.addEventListener(type, (e) => seen.push(e as T));
  return seen;
}
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

describe('<pedelec-session> end, restart and status listeners', () => {
  beforeEach(() => {
    fake = installFakeChrome();
    sessionStorage.clear();
  });
  afterEach(async () => {
    // Teardown runs a microtask after removal and may post end_session: answer what it posted.
    for (const el of Array.from(document.querySelectorAll('pedelec-session'))) el.remove();
    await nextTask();
    for (const req of postedOf('end_session').filter((m) => !fake.answered.has(m))) fake.respond({}, req);
    await nextTask();
    fake.disconnect();
    await nextTask();
    uninstallFakeChrome();
    sessionStorage.clear();
  });

  it('a pedelec-status listener that start()s again on "ended" must not swallow pedelec-ended, nor reorder pedelec-status', async () => {
    const el = await fixture<PedelecSessionElement>(
      html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
    );
    await started(el, 's1');
    // A page that starts a new session as soon as the old one ends (listener registered first)…
    el.addEventListener('pedelec-status', (e) => {
      if ((e as PedelecStatusEvent).detail.status === 'ended') el.start().catch(() => {});
    });
    // …and a second listener (a chat panel, analytics) that follows the status and the end.
    const seen = collect<PedelecStatusEvent>(el, 'pedelec-status');
    const ended = collect<PedelecEndedEvent>(el, 'pedelec-ended');

    coreEvent('s1', 'ended', { seq: 1 });

    expect(ended, 'pedelec-ended for the session Core ended').to.have.length(1);
    expect(seen.map((e) => `${e.detail.previousStatus}>${e.detail.status}`)).to.deep.equal([
      'idle>ended',
      'ended>starting',
    ]);
    expect(el.status).to.equal('starting');
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
    expect(el.status === 'ended' || el.status === 'inactive' || el.status === 'error', `status ${el.status}`).to.equal(
      true,
    );
  });
});
