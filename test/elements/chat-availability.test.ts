/**
 * <pedelec-chat> against elements.md / README, found in an accessibility and availability review;
 * each test failed before its fix: the availability line says only what is still true (a late or
 * stale check never speaks, a working reply clears it, an unavailable default provider is named),
 * its live region exists before its text, and the visually hidden prefixes stay inside the panel.
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../src/define.js';
import type { PedelecChatElement, PedelecSessionElement } from '../../src/index.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../support/fake-chrome.js';
import { nextTask } from '../support/waits.js';

let fake: FakePort;
const APPROVED = { installed: true, approved: true, origin: location.origin, appConnected: true };
const SETTINGS = { defaultProvider: 'codex', defaultModels: { codex: 'm' } };

let seq = 0;
function core(type: string, fields: Record<string, unknown> = {}, sessionId = 's1'): void {
  fake.event(sessionId, type, { seq: ++seq, ...fields });
}
async function mountChat(
  attrs = 'provider="codex" model="m"',
): Promise<{ session: PedelecSessionElement; chat: PedelecChatElement }> {
  const host = await fixture<HTMLDivElement>(html`<div></div>`);
  host.innerHTML = `<pedelec-session ${attrs}><pedelec-chat></pedelec-chat></pedelec-session>`;
  const chat = host.querySelector('pedelec-chat')!;
  await chat.updateComplete;
  return { session: host.querySelector('pedelec-session')!, chat };
}
const shadow = (chat: Element) => (chat as PedelecChatElement).shadowRoot!;
const note = (chat: Element) => shadow(chat).querySelector<HTMLElement>('[part=availability]')!;
const input = (chat: Element) => shadow(chat).querySelector('textarea')!;
/** Lets the chat take in what happened (promise callbacks, one task) and render it. */
const update = async (chat: Element) => {
  await nextTask();
  await (chat as PedelecChatElement).updateComplete;
};

describe('<pedelec-chat> availability line and accessibility', () => {
  beforeEach(() => {
    fake = installFakeChrome();
  });
  afterEach(async () => {
    // Teardown runs a microtask after removal and may post end_session: answer what it posted.
    for (const el of Array.from(document.querySelectorAll('pedelec-session'))) el.remove();
    await nextTask();
    for (const req of fake.posted.filter((m) => m.type === 'end_session' && !fake.answered.has(m))) {
      fake.answered.add(req);
      fake.respond({}, req);
    }
    await nextTask();
    fake.disconnect();
    await nextTask();
    uninstallFakeChrome();
  });

  it('a check that answers after the session became ready does not put back a stale "open Desktop" line', async () => {
    const { session, chat } = await mountChat();
    await fake.answer('get_approval_status', APPROVED); // the chat's check…
    await fake.request('get_settings'); // …whose get_settings probe is still out
    const started = session.start(); // the user sends / autostart: Desktop is up by now
    await fake.answer('get_approval_status', APPROVED);
    await fake.answer('create_session', { sessionId: 's1' });
    await started;
    await update(chat);
    expect(note(chat).textContent, 'ready: nothing to do').to.equal('');
    // The earlier probe times out only now.
    await fake.refuse('get_settings', { code: 'NATIVE_HOST_UNAVAILABLE', message: 'Pedelec Desktop is not running.' });
    await update(chat);
    expect(note(chat).textContent, 'the session is live').to.equal('');
  });

  it('a turn that works clears an "open Desktop" line left by a bridge error', async () => {
    const { session, chat } = await mountChat();
    await fake.answer('get_approval_status', APPROVED);
    await fake.answer('get_settings', SETTINGS);
    const started = session.start();
    await fake.answer('get_approval_status', APPROVED);
    await fake.answer('create_session', { sessionId: 's1' });
    await started;
    // Desktop went away: a transport-wide error; the chat checks and says what to do.
    fake.emit({
      channelId: fake.posted[0]!.channelId,
      type: 'error',
      error: { code: 'NATIVE_HOST_UNAVAILABLE', message: 'Pedelec Desktop is not running.' },
    });
    await fake.answer('get_approval_status', APPROVED);
    await fake.refuse('get_settings', { code: 'NATIVE_HOST_UNAVAILABLE', message: 'Pedelec Desktop is not running.' });
    await update(chat);
    expect(note(chat).textContent).to.equal('Open the Pedelec Desktop app, then send your message again.');
    // Desktop is back (the extension relaunched it); the user sends again, as the line said, and it works.
    input(chat).value = 'again';
    input(chat).dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    await fake.answer('send_text');
    core('chat_delta', { text: 'Here you go' });
    core('status_changed', { status: 'idle' });
    await update(chat);
    expect(note(chat).textContent, 'the agent answered: nothing left to do').to.equal('');
  });

  it('a re-check on focus does not clear "choose a provider" while the default provider is still unavailable', async () => {
    const providers = [{ name: 'Codex', code: 'codex', available: false, error: 'not signed in' }];
    /** Answers every pending check request the way Pedelec is set up: default provider set, but unavailable. */
    const pedelec = async () => {
      for (let i = 0; i < 20; i++) {
        const out = fake.posted.find(
          (m) => ['get_approval_status', 'get_settings', 'list_providers'].includes(m.type) && !fake.answered.has(m),
        );
        if (out)
          await fake.answer(
            out.type,
            out.type === 'get_approval_status' ? APPROVED : out.type === 'get_settings' ? SETTINGS : providers,
          );
        else await nextTask();
      }
    };
    const { session, chat } = await mountChat(''); // no provider: the user's default
    await pedelec();
    const started = session.start().catch((e) => e);
    await pedelec();
    expect((await started).code).to.equal('DEFAULT_PROVIDER_UNAVAILABLE');
    await update(chat);
    const say = "Choose an AI provider in Pedelec's settings, then send your message again.";
    expect(note(chat).textContent).to.equal(say);
    // The user comes back to the field; nothing was changed in Pedelec.
    input(chat).focus();
    await pedelec();
    await update(chat);
    expect(note(chat).textContent, 'the default provider is still unavailable').to.equal(say);
  });

  it('the availability live region is in the accessibility tree before its text arrives', async () => {
    const { chat } = await mountChat();
    await update(chat);
    const line = note(chat);
    // Still empty (the check is out): a polite status region is announced only if it was rendered
    // before its content changed.
    const before = getComputedStyle(line).display;
    await fake.answer('get_approval_status', {
      installed: true,
      approved: false,
      origin: location.origin,
      appConnected: true,
    });
    await update(chat);
    expect(line.textContent).to.contain('approve');
    expect(before, 'role=status was display:none (hidden) until the text was put in').to.not.equal('none');
  });

  it('the visually hidden "You:"/"Agent:" prefixes do not make the page scroll', async () => {
    const { session, chat } = await mountChat();
    await fake.answer('get_approval_status', APPROVED);
    await fake.answer('get_settings', SETTINGS);
    const started = session.start();
    await fake.answer('get_approval_status', APPROVED);
    await fake.answer('create_session', { sessionId: 's1' });
    await started;
    const page = document.scrollingElement!;
    await update(chat);
    const height = page.scrollHeight;
    for (let i = 0; i < 60; i++) {
      const turn = session.sendText(`question ${i}`).catch((e) => e);
      await fake.answer('send_text');
      core('chat_delta', { text: `answer ${i}` });
      core('status_changed', { status: 'idle' });
      await turn;
    }
    await update(chat);
    await new Promise(requestAnimationFrame);
    const log = shadow(chat).querySelector<HTMLElement>('[part=log]')!;
    expect(log.scrollHeight, 'the log itself scrolls').to.be.greaterThan(log.clientHeight * 3);
    expect(page.scrollHeight, 'the page grew with the hidden prefixes of the whole transcript').to.be.at.most(
      height + 2,
    );
  });
});
