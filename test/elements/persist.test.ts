/**
 * <pedelec-session> persist / resume / restart (spec/elements.md), found in review; each test failed
 * before its fix: restart() creates rather than resuming `session-id`; teardown while resuming keeps
 * the record; end()/restart() before any start end the recorded session; start() after a failed end()
 * makes the session usable again; the storage key names the bridge as given.
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../src/define.js';
import type { PedelecSessionElement, PedelecSession } from '../../src/index.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../support/fake-chrome.js';
import { nextTask } from '../support/waits.js';

let fake: FakePort;
const APPROVED = () => ({ installed: true, approved: true, origin: location.origin, appConnected: true });
const postedOf = (type: string) => fake.posted.filter((m) => m.type === type);
async function started(el: PedelecSessionElement, sessionId = 's1'): Promise<PedelecSession> {
  const p = el.start();
  await fake.answer('get_approval_status', APPROVED());
  await fake.answer('create_session', { sessionId });
  return p;
}

describe('<pedelec-session> persist, resume and restart', () => {
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

  it('restart() with session-id creates a fresh session (no resume of the old id), even when ending the old one failed', async () => {
    const el = await fixture<PedelecSessionElement>(
      html`<pedelec-session session-id="abc" provider="codex" model="m"></pedelec-session>`,
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

  const persisted = () =>
    html`<pedelec-session id="chat" persist provider="codex" model="m">
      <pedelec-tool name="double" description="Double n."></pedelec-tool>
    </pedelec-session>`;
  const KEY = 'pedelec-elements:v1:ext::chat';

  /** A first page that created s1 with persist and went away (its record stays), then a fresh bridge. */
  async function previousPage(): Promise<void> {
    const el1 = await fixture<PedelecSessionElement>(persisted());
    await started(el1, 's1');
    el1.remove();
    await nextTask(); // teardown ran (a microtask after removal)
    expect(postedOf('end_session')).to.deep.equal([]);
    fake.disconnect();
    uninstallFakeChrome();
    fake = installFakeChrome();
    expect(JSON.parse(sessionStorage.getItem(KEY)!).sessionId).to.equal('s1');
  }

  it('persist: removed while resuming its record keeps the record (teardown keeps persisted sessions)', async () => {
    await previousPage();
    const el = await fixture<PedelecSessionElement>(persisted());
    const starting = el.start().catch((e) => e);
    await fake.answer('get_approval_status', APPROVED());
    await fake.request('resume_session', (m) => m.sessionId === 's1');
    el.remove(); // e.g. a router unmounts the chat; it is the last holder of the client
    await nextTask(); // teardown ran (a microtask after removal)
    expect((await starting).code).to.equal('SESSION_ENDED');
    expect(postedOf('end_session')).to.deep.equal([]);
    expect(
      JSON.parse(sessionStorage.getItem(KEY) ?? 'null')?.sessionId,
      'the record of the persisted session',
    ).to.equal('s1');
  });

  it('persist: restart() on the next load, before any start, ends the recorded session instead of orphaning it', async () => {
    await previousPage();
    const el = await fixture<PedelecSessionElement>(persisted());
    const restarting = el.restart();
    await fake.answer('get_approval_status', APPROVED());
    await fake.answer('create_session', { sessionId: 's2' });
    await restarting;
    expect(el.sessionId).to.equal('s2');
    await fake.request('resume_session', (m) => m.sessionId === 's1');
    // The recorded session was created with autoEndOnDisconnect: false: nothing else will ever end it.
    const touched = fake.posted.filter((m) => m.sessionId === 's1').map((m) => m.type);
    expect(touched, 'the old persisted session s1 is ended (resume_session + end_session)').to.include(
      'resume_session',
    );
  });

  it('persist: the storage key names the bridge as given (pedelec-elements:v1:<bridge>:<id>)', async () => {
    // A WebSocket that answers like a development Core: approval, then create_session.
    const Real = window.WebSocket;
    class FakeCore extends EventTarget {
      readyState = 0;
      constructor(public url: string) {
        super();
        setTimeout(() => {
          this.readyState = 1;
          this.dispatchEvent(new Event('open'));
        });
      }
      send(frame: string) {
        const m = JSON.parse(frame);
        const result =
          m.type === 'get_approval_status' ? APPROVED() : m.type === 'create_session' ? { sessionId: 'w1' } : {};
        setTimeout(() =>
          this.dispatchEvent(
            new MessageEvent('message', {
              data: JSON.stringify({
                channelId: m.channelId,
                type: 'response',
                requestId: m.requestId,
                ok: true,
                result,
              }),
            }),
          ),
        );
      }
      close() {}
    }
    (window as any).WebSocket = FakeCore;
    try {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session
          id="chat"
          persist
          bridge="ws://localhost:7717"
          provider="codex"
          model="m"
        ></pedelec-session>`,
      );
      await el.start();
      expect(el.sessionId).to.equal('w1');
      const keys = Object.keys(sessionStorage);
      expect(keys).to.deep.equal(['pedelec-elements:v1:ws://localhost:7717:chat']);
    } finally {
      window.WebSocket = Real;
    }
  });
});
