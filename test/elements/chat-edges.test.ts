// <pedelec-chat> edge cases found in review, each a test that failed before its fix (harness as in
// chat.test.ts): a failed send or prepare must not leave the chat stuck (sdk-api.md: the status stays,
// the turn ends), a chat detached and put back mid-reply keeps its reply, an old conversation's failure
// stays out of the new one, and a message that never became a turn is never lost.
import { expect, fixture, html } from '@open-wc/testing';
import '../../src/define.js';
import type { PedelecChatElement, PedelecSessionElement } from '../../src/index.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../support/fake-chrome.js';
import { nextTask } from '../support/waits.js';

let fake: FakePort;
const APPROVED = { installed: true, approved: true, origin: location.origin, appConnected: true };
const SETTINGS = { defaultProvider: 'codex', defaultModels: { codex: 'm' } };

async function available(): Promise<void> {
  await fake.answer('get_approval_status', APPROVED);
  await fake.answer('get_settings', SETTINGS);
}
async function start(session: PedelecSessionElement, sessionId = 's1'): Promise<void> {
  const started = session.start();
  await fake.answer('get_approval_status', APPROVED);
  await fake.answer('create_session', { sessionId });
  await started;
}
let seq = 0;
const core = (type: string, fields: Record<string, unknown> = {}, sessionId = 's1') =>
  fake.event(sessionId, type, { seq: ++seq, ...fields });
const shadow = (chat: Element) => (chat as PedelecChatElement).shadowRoot!;
const read = (row: HTMLElement) =>
  `${row.getAttribute('part')!.split(' ').pop()}: ${row.textContent!.replace(/^(You|Agent): /, '')}`;
const transcript = (chat: Element) =>
  [...shadow(chat).querySelectorAll<HTMLElement>('[part~=message],[part~=tool],[part~=error]')].map(read);
const input = (chat: Element) => shadow(chat).querySelector('textarea')!;
const sendButton = (chat: Element) => shadow(chat).querySelector('button')!;
const sendTexts = () => fake.posted.filter((m) => m.type === 'send_text').map((m) => m.text);
/** Lets the chat take in what happened (promise callbacks, one task) and render it. */
const update = async (chat: Element) => {
  await nextTask();
  await (chat as PedelecChatElement).updateComplete;
};
function enter(target: HTMLElement): void {
  target.dispatchEvent(
    new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', bubbles: true, composed: true, cancelable: true }),
  );
}
async function mountChat(): Promise<{ session: PedelecSessionElement; chat: PedelecChatElement }> {
  const host = await fixture<HTMLDivElement>(html`<div></div>`);
  host.innerHTML =
    '<pedelec-session provider="codex" model="m"><div class="a"><pedelec-chat></pedelec-chat></div><div class="b"></div></pedelec-session>';
  const session = host.querySelector('pedelec-session')!;
  const chat = host.querySelector('pedelec-chat')!;
  await chat.updateComplete;
  return { session, chat };
}

describe('<pedelec-chat> edges', () => {
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

  it('detached and put back in the same task mid-reply (remove() + append(), as portals and Angular detach/insert do): one busy message, a running tool stays running', async () => {
    const { session, chat } = await mountChat();
    const tool = document.createElement('pedelec-tool') as HTMLElement & { handler: unknown };
    tool.setAttribute('name', 'slow');
    tool.setAttribute('description', 'Takes a while.');
    tool.handler = () => new Promise(() => {});
    session.prepend(tool);
    await available();
    await start(session);
    const turn = session.sendText('hi').catch((e) => e);
    await fake.answer('send_text');
    core('chat_delta', { text: 'Hel' });
    await update(chat);
    chat.remove();
    session.querySelector('.b')!.append(chat); // same task, same session: no event was missed
    await update(chat);
    core('chat_delta', { text: 'lo' });
    await update(chat);
    expect(transcript(chat), 'the reply is one message').to.deep.equal(['user: hi', 'agent: Hello']);
    expect(shadow(chat).querySelector('[part~=agent]')!.getAttribute('aria-busy'), 'its turn has not ended').to.equal(
      'true',
    );
    core('tool_call', { toolRequestId: 't1', tool: 'slow', args: {} });
    await update(chat);
    chat.remove();
    session.querySelector('.a')!.append(chat);
    await update(chat);
    expect(transcript(chat)[2], 'the call is still running').to.equal('running: slow: running…');
    core('status_changed', { status: 'idle' });
    await turn;
  });

  it('a tool row settled as failed when its turn ended stays failed when the handler answers late', async () => {
    const { session, chat } = await mountChat();
    const tool = document.createElement('pedelec-tool') as HTMLElement & { handler: unknown };
    tool.setAttribute('name', 'slow');
    tool.setAttribute('description', 'Takes a while.');
    let finish!: (value: unknown) => void;
    tool.handler = () => new Promise((resolve) => (finish = resolve));
    session.prepend(tool);
    await available();
    await start(session);
    const turn = session.sendText('go').catch((e) => e);
    await fake.answer('send_text');
    core('tool_call', { toolRequestId: 't1', tool: 'slow', args: {} });
    await update(chat);
    // Core gave up on the call (TOOL_TIMEOUT to the agent) and the turn ended.
    core('status_changed', { status: 'idle' });
    await turn;
    await update(chat);
    expect(transcript(chat)).to.deep.equal(['user: go', 'failed: slow: failed']);
    finish({ late: true });
    await update(chat);
    expect(transcript(chat)[1], 'the late result never reached the agent').to.equal('failed: slow: failed');
  });

  it('after a send_text request fails (the SDK leaves the status at running, as sdk-api.md says), the user can send again', async () => {
    const { session, chat } = await mountChat();
    await available();
    await start(session);
    const field = input(chat);
    field.value = 'first';
    enter(field);
    await fake.refuse('send_text', { code: 'SESSION_NOT_FOUND', message: 'Core does not know this session.' });
    await update(chat);
    expect(transcript(chat)).to.deep.equal([
      'user: first',
      'error: Core does not know this session. (SESSION_NOT_FOUND)',
    ]);
    // The turn is over (the SDK cleared it; sendText() from page code would be accepted now), but the
    // status stays "running", which is all the chat looks at: aria-disabled, and Enter does nothing, for good.
    expect(session.status, 'what the chat gates on').to.equal('running');
    expect(sendButton(chat).getAttribute('aria-disabled'), 'send button').to.equal('false');
    field.value = 'second';
    enter(field);
    await fake.request('send_text'); // Enter sent it
    expect(sendTexts()).to.deep.equal(['first', 'second']);
  });

  it('after a page prepare() fails (status left at running), the chat is not stuck', async () => {
    const { session, chat } = await mountChat();
    await available();
    await start(session);
    const prepared = session.prepare().catch((e) => e);
    await fake.refuse('prepare_session', { code: 'PREPARE_FAILED', message: 'Could not warm up.' });
    await prepared;
    await update(chat);
    const field = input(chat);
    field.value = 'hello';
    enter(field);
    await fake.request('send_text'); // Enter sent it
    expect(sendTexts()).to.deep.equal(['hello']);
  });

  it("switched to another session while its turn runs: the old session's failure does not land in the new conversation", async () => {
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    host.innerHTML =
      '<pedelec-session id="a" provider="codex" model="m"></pedelec-session><pedelec-session id="b" provider="codex" model="m"></pedelec-session><pedelec-chat session="a"></pedelec-chat>';
    const a = host.querySelector<PedelecSessionElement>('#a')!;
    const b = host.querySelector<PedelecSessionElement>('#b')!;
    const chat = host.querySelector('pedelec-chat')!;
    await chat.updateComplete;
    await available();
    await start(a, 'sa');
    const field = input(chat);
    field.value = 'question for a';
    enter(field);
    await fake.answer('send_text');
    await update(chat);
    expect(transcript(chat)).to.deep.equal(['user: question for a']);
    // "New conversation": the page points the chat at another session.
    chat.sessionElement = b;
    await update(chat);
    await available();
    await update(chat);
    expect(transcript(chat), 'a new conversation').to.deep.equal([]);
    // Session a's turn fails afterwards (or a is ended by the page: SESSION_ENDED, the same).
    core('error', { error: { code: 'PROVIDER_RATE_LIMITED', message: 'Slow down.' } }, 'sa');
    await update(chat);
    expect(transcript(chat), "b's conversation shows only b").to.deep.equal([]);
    expect(field.value, 'a message that was sent to a is not put back').to.equal('');
  });

  it('a message that never became a turn is not lost when the user typed the next one meanwhile (approval popup open)', async () => {
    const { chat } = await mountChat();
    await available();
    const field = input(chat);
    field.value = 'my long first question';
    enter(field);
    // The origin is not approved yet: the extension holds the create request while its popup is open.
    await fake.answer('get_approval_status', {
      installed: true,
      approved: false,
      origin: location.origin,
      appConnected: true,
    });
    await fake.request('create_session');
    expect(field.value, 'cleared while sending').to.equal('');
    field.value = 'and a follow-up'; // the textarea stays editable: the user goes on typing
    await fake.refuse('create_session', {
      code: 'ORIGIN_NOT_APPROVED',
      message: 'The user did not approve this site.',
    });
    await update(chat);
    const shown = [...transcript(chat), field.value].join('\n');
    expect(shown, 'the first question is somewhere the user can get it back').to.include('my long first question');
  });
});
