/**
 * <pedelec-chat> in text mode: binding order, the transcript (user turns, streamed deltas, tool rows,
 * errors), the composer (Enter, Shift+Enter, IME, busy turns, focus, keyboard only), the availability
 * line in every state, agent text as text, accessibility, light and dark. Driven through the fake
 * extension port of test/support/fake-chrome.ts, exactly as the extension would drive it.
 */
import { aTimeout, expect, fixture, html, waitUntil } from '@open-wc/testing';
import { emulateMedia, sendKeys } from '@web/test-runner-commands';
import '../../src/define.js';
import { PedelecChatElement, type PedelecSessionElement, type PedelecToolElement } from '../../src/index.js';
import { openClientCount } from '../../src/elements/session/client-pool.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../support/fake-chrome.js';
import { nextTask } from '../support/waits.js';
import { uniqueTag } from './helpers.js';

// ───────────────────────────── harness ─────────────────────────────

let fake: FakePort;
const APPROVED = { installed: true, approved: true, origin: location.origin, appConnected: true };
const SETTINGS = { defaultProvider: 'codex', defaultModels: { codex: 'm' } };

/** The chat's own availability check: approval status, then (approved) the settings. */
async function available(status: Record<string, unknown> = APPROVED, settings: unknown = SETTINGS): Promise<void> {
  await fake.answer('get_approval_status', status);
  if (status.installed && status.approved) await fake.answer('get_settings', settings);
}

async function start(session: PedelecSessionElement, sessionId = 's1'): Promise<void> {
  const started = session.start();
  await fake.answer('get_approval_status', APPROVED);
  await fake.answer('create_session', { sessionId });
  await started;
}

let seq = 0;
function core(type: string, fields: Record<string, unknown> = {}, sessionId = 's1'): void {
  fake.event(sessionId, type, { seq: ++seq, ...fields });
}

/** A user turn started by page code; `done` settles when it ends. */
async function pageTurn(session: PedelecSessionElement, text: string): Promise<{ done: Promise<unknown> }> {
  const done = session.sendText(text).catch((e) => e);
  await fake.answer('send_text');
  return { done };
}

type Mounted = { session: PedelecSessionElement; chat: PedelecChatElement };
async function mountChat(attrs = 'provider="codex" model="m"', chatAttrs = ''): Promise<Mounted> {
  const host = await fixture<HTMLDivElement>(html`<div></div>`);
  host.innerHTML = `<pedelec-session ${attrs}><pedelec-chat ${chatAttrs}></pedelec-chat></pedelec-session>`;
  const session = host.querySelector('pedelec-session')!;
  const chat = host.querySelector('pedelec-chat')!;
  await chat.updateComplete;
  return { session, chat };
}

const shadow = (chat: Element) => (chat as PedelecChatElement).shadowRoot!;
const rows = (chat: Element) => [
  ...shadow(chat).querySelectorAll<HTMLElement>('[part~=message],[part~=tool],[part~=error]'),
];
/** A row as a reader sees it: "user: hi", "agent: Hello", "tool: slow: running…", "error: …". */
const read = (row: HTMLElement) =>
  `${row.getAttribute('part')!.split(' ').pop()}: ${row.textContent!.replace(/^(You|Agent): /, '')}`;
const transcript = (chat: Element) => rows(chat).map(read);
const input = (chat: Element) => shadow(chat).querySelector('textarea')!;
const sendButton = (chat: Element) => shadow(chat).querySelector('button')!;
const note = (chat: Element) => shadow(chat).querySelector<HTMLElement>('[part=availability]')!;
const sendTexts = () => fake.posted.filter((m) => m.type === 'send_text').map((m) => m.text);

/** Lets the chat take in what happened (promise callbacks, one task) and render it. */
async function update(chat: Element): Promise<void> {
  await nextTask();
  await (chat as PedelecChatElement).updateComplete;
}

function enter(target: HTMLElement, init: KeyboardEventInit = {}): KeyboardEvent {
  const event = new KeyboardEvent('keydown', {
    key: 'Enter',
    code: 'Enter',
    bubbles: true,
    composed: true,
    cancelable: true,
    ...init,
  });
  target.dispatchEvent(event);
  return event;
}

/** The element focused inside the chat's shadow root (null when focus left the chat). */
const focused = (chat: Element) => shadow(chat).activeElement;

// ───────────────────────────── tests ─────────────────────────────

describe('<pedelec-chat>', () => {
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
    expect(openClientCount(), 'a shared client stayed open').to.equal(0);
  });

  describe('creation and binding', () => {
    it('is created by markup, by document.createElement and by new', async () => {
      const { chat } = await mountChat();
      await available();
      expect(chat).to.be.instanceOf(PedelecChatElement);
      expect(document.createElement('pedelec-chat')).to.be.instanceOf(PedelecChatElement);
      const made = new PedelecChatElement();
      expect(made.localName).to.equal('pedelec-chat');
    });

    it('binds to its nearest session, also across a shadow root', async () => {
      const host = await fixture<HTMLDivElement>(html`<div></div>`);
      host.innerHTML = '<pedelec-session provider="codex" model="m"><div class="panel"></div></pedelec-session>';
      const session = host.querySelector('pedelec-session')!;
      const root = host.querySelector('.panel')!.attachShadow({ mode: 'open' });
      const chat = document.createElement('pedelec-chat');
      root.append(chat);
      await available();
      await start(session);
      await pageTurn(session, 'through the shadow root');
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: through the shadow root']);
    });

    it('renders only its own session: an inner session’s events do not reach the outer chat', async () => {
      const host = await fixture<HTMLDivElement>(html`<div></div>`);
      host.innerHTML = `
        <pedelec-session id="outer" provider="codex" model="m"><pedelec-chat id="outer-chat"></pedelec-chat>
          <pedelec-session id="inner" provider="codex" model="m"><pedelec-chat id="inner-chat"></pedelec-chat></pedelec-session>
        </pedelec-session>`;
      const inner = host.querySelector<PedelecSessionElement>('#inner')!;
      const outerChat = host.querySelector('#outer-chat')!;
      const innerChat = host.querySelector('#inner-chat')!;
      await available();
      await available();
      await start(inner, 'inner-1');
      await pageTurn(inner, 'to the inner agent');
      core('chat_delta', { text: 'inner reply' }, 'inner-1');
      await update(outerChat);
      await update(innerChat);
      expect(transcript(innerChat)).to.deep.equal(['user: to the inner agent', 'agent: inner reply']);
      expect(transcript(outerChat)).to.deep.equal([]);
    });

    it('binds to session="id" in its own root, also when that session appears later', async () => {
      const host = await fixture<HTMLDivElement>(html`<div></div>`);
      host.innerHTML = '<pedelec-chat session="later"></pedelec-chat>';
      const chat = host.querySelector('pedelec-chat')!;
      await update(chat);
      expect(fake.posted, 'nothing to talk to yet').to.deep.equal([]);
      const session = document.createElement('pedelec-session');
      session.id = 'later';
      session.setAttribute('provider', 'codex');
      session.setAttribute('model', 'm');
      host.append(session);
      await available();
      await start(session);
      await pageTurn(session, 'found you');
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: found you']);
    });

    it('prefers the sessionElement property over session="id" and the nearest session', async () => {
      const host = await fixture<HTMLDivElement>(html`<div></div>`);
      host.innerHTML = `
        <pedelec-session id="a" provider="codex" model="m"><pedelec-chat session="a"></pedelec-chat></pedelec-session>
        <pedelec-session id="b" provider="codex" model="m"></pedelec-session>`;
      const chat = host.querySelector('pedelec-chat')!;
      await available();
      const b = host.querySelector<PedelecSessionElement>('#b')!;
      chat.sessionElement = b;
      await available();
      await start(b, 'sb');
      await pageTurn(b, 'to b');
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: to b']);
    });

    it('works when defined after it is in the page', async () => {
      const tag = uniqueTag('late-chat');
      const host = await fixture<HTMLDivElement>(html`<div></div>`);
      host.innerHTML = `<pedelec-session provider="codex" model="m"><${tag}></${tag}></pedelec-session>`;
      const session = host.querySelector('pedelec-session')!;
      await start(session);
      customElements.define(tag, class extends PedelecChatElement {});
      const chat = host.querySelector(tag) as PedelecChatElement;
      await available();
      await pageTurn(session, 'late but here');
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: late but here']);
    });

    it('keeps its transcript when detached and reattached, and listens again', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const first = await pageTurn(session, 'one');
      core('status_changed', { status: 'idle' });
      await first.done;
      const parent = chat.parentNode!;
      chat.remove();
      parent.append(chat);
      await available();
      await pageTurn(session, 'two');
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: one', 'user: two']);
    });
  });

  describe('transcript', () => {
    it('keeps the events that arrive before its view is loaded, and shows them in order', async () => {
      // The view module is imported on the first update: events dispatched in the same task as the
      // chat's connection arrive before it, and must not be lost.
      const session = document.createElement('pedelec-session');
      const chat = document.createElement('pedelec-chat') as PedelecChatElement;
      session.append(chat);
      document.body.append(session);
      const fire = (type: string, detail: object) => session.dispatchEvent(new CustomEvent(type, { detail }));
      fire('pedelec-turn', { turnId: 't1', kind: 'user', text: 'early' });
      fire('pedelec-chat-delta', { text: 'first ' });
      fire('pedelec-chat-delta', { text: 'words' });
      expect(shadow(chat).querySelector('[role=log]'), 'not rendered yet').to.equal(null);
      await chat.updateComplete;
      expect(transcript(chat)).to.deep.equal(['user: early', 'agent: first words']);
    });

    it('appends deltas in order across a turn, busy until the turn ends', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const turn = await pageTurn(session, 'hi');
      for (const text of ['Hel', 'lo', ', ', 'wor', 'ld']) core('chat_delta', { text });
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: hi', 'agent: Hello, world']);
      const agent = shadow(chat).querySelector('[part~=agent]')!;
      expect(agent.getAttribute('aria-busy')).to.equal('true');
      core('chat_delta', { text: '!' });
      core('status_changed', { status: 'idle' });
      await turn.done;
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: hi', 'agent: Hello, world!']);
      expect(agent.getAttribute('aria-busy')).to.equal('false');
      // The next turn's reply is a new message.
      const next = await pageTurn(session, 'again');
      core('chat_delta', { text: 'Second' });
      core('status_changed', { status: 'idle' });
      await next.done;
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: hi', 'agent: Hello, world!', 'user: again', 'agent: Second']);
    });

    it('shows a user turn started by sendText() from page code', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      await pageTurn(session, 'typed by the page');
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: typed by the page']);
    });

    it('shows one row per tool call: running, then done with its duration, or failed', async () => {
      const host = await fixture<HTMLDivElement>(html`<div></div>`);
      host.innerHTML = `<pedelec-session provider="codex" model="m">
          <pedelec-tool name="slow" description="Takes a while."></pedelec-tool><pedelec-chat></pedelec-chat></pedelec-session>`;
      const session = host.querySelector('pedelec-session')!;
      const chat = host.querySelector('pedelec-chat')!;
      let release!: (value: unknown) => void;
      (host.querySelector('pedelec-tool') as PedelecToolElement).handler = () =>
        new Promise((resolve) => (release = resolve));
      await available();
      await start(session);
      const turn = await pageTurn(session, 'go');
      core('chat_delta', { text: 'Calling.' });
      core('tool_call', { toolRequestId: 't1', tool: 'slow', args: {} });
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: go', 'agent: Calling.', 'running: slow: running…']);
      expect(shadow(chat).querySelector('[part~=tool]')!.getAttribute('part')).to.equal('tool running');
      await aTimeout(15); // the duration is the subject here
      release({ ok: true });
      await fake.answer('submit_tool_result');
      await update(chat);
      const done = shadow(chat).querySelector('[part~=tool]')!;
      expect(done.getAttribute('part')).to.equal('tool done');
      const ms = Number(/^slow: done in (\d+) ms$/.exec(done.textContent!)?.[1]);
      expect(ms).to.be.at.least(10);
      // A call nothing answers fails (TOOL_HANDLER_NOT_FOUND), and the agent's text goes on below it.
      core('tool_call', { toolRequestId: 't2', tool: 'missing', args: {} });
      await fake.answer('submit_tool_result');
      core('chat_delta', { text: 'Done.' });
      core('status_changed', { status: 'idle' });
      await turn.done;
      await update(chat);
      const all = transcript(chat);
      expect(all.slice(0, 3)).to.deep.equal(['user: go', 'agent: Calling.', 'done: ' + done.textContent]);
      expect(all[3]).to.match(/^failed: missing: failed in \d+ ms$/);
      expect(all[4]).to.equal('agent: Done.');
    });

    it('shows errors', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const turn = await pageTurn(session, 'hi');
      core('error', { error: { code: 'PROVIDER_RATE_LIMITED', message: 'Slow down.' } });
      await turn.done;
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: hi', 'error: Slow down. (PROVIDER_RATE_LIMITED)']);
    });

    it('shows agent text as text: <img onerror> and <script> create no element and run nothing', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const turn = await pageTurn(session, 'hi');
      const payload = '<img src=x onerror="window.__chatXss=1"><script>window.__chatXss=2</script><b>bold?</b>';
      core('chat_delta', { text: payload.slice(0, 9) });
      core('chat_delta', { text: payload.slice(9) });
      core('status_changed', { status: 'idle' });
      await turn.done;
      await update(chat);
      const agent = shadow(chat).querySelector('[part~=agent]')!;
      expect(read(agent as HTMLElement)).to.equal(`agent: ${payload}`);
      expect(agent.querySelectorAll('*').length, 'only the "Agent:" label').to.equal(1);
      expect(shadow(chat).querySelector('img, script, b')).to.equal(null);
      await aTimeout(50); // an error event of a broken image would come about now
      expect((window as any).__chatXss).to.equal(undefined);
    });

    it('a page that never uses markdown never loads the Markdown renderer', async () => {
      const { chat } = await mountChat();
      await available();
      await update(chat);
      const loaded = performance.getEntriesByType('resource').map((e) => e.name);
      expect(loaded.filter((name) => /markdown|marked|dompurify/i.test(name))).to.deep.equal([]);
    });
  });

  describe('composer', () => {
    it('Enter sends and clears; Shift+Enter does not send', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const field = input(chat);
      field.focus();
      field.value = 'line one';
      expect(enter(field, { shiftKey: true }).defaultPrevented, 'Shift+Enter is left to the textarea').to.equal(false);
      await nextTask(); // nothing is sent
      expect(sendTexts()).to.deep.equal([]);
      expect(enter(field).defaultPrevented).to.equal(true);
      await fake.answer('send_text');
      expect(sendTexts()).to.deep.equal(['line one']);
      expect(field.value).to.equal('');
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: line one']);
      expect(focused(chat)).to.equal(field);
    });

    it('never sends on Enter during an IME composition (isComposing, keyCode 229)', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const field = input(chat);
      field.focus();
      field.value = 'にほんご';
      field.dispatchEvent(new CompositionEvent('compositionstart', { data: '' }));
      expect(enter(field, { isComposing: true }).defaultPrevented).to.equal(false);
      const legacy = enter(field, { keyCode: 229 } as KeyboardEventInit);
      expect(legacy.keyCode, 'this browser keeps keyCode from the init dict').to.equal(229);
      expect(legacy.defaultPrevented).to.equal(false);
      field.dispatchEvent(new CompositionEvent('compositionend', { data: 'にほんご' }));
      await nextTask(); // nothing is sent
      expect(sendTexts()).to.deep.equal([]);
      expect(field.value).to.equal('にほんご');
      // The same Enter after the composition ended sends.
      enter(field);
      await fake.answer('send_text');
      expect(sendTexts()).to.deep.equal(['にほんご']);
    });

    it('stays editable during a turn; only the send button is aria-disabled; Enter then keeps the text', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const field = input(chat);
      const button = sendButton(chat);
      expect(button.getAttribute('aria-disabled')).to.equal('false');
      const turn = await pageTurn(session, 'page turn');
      await update(chat);
      expect(button.getAttribute('aria-disabled')).to.equal('true');
      expect(button.disabled).to.equal(false);
      expect(field.disabled || field.readOnly).to.equal(false);
      field.focus();
      field.value = 'next question';
      enter(field);
      button.click();
      await update(chat);
      expect(sendTexts()).to.deep.equal(['page turn']);
      expect(field.value).to.equal('next question');
      expect(focused(chat)).to.equal(field);
      expect(transcript(chat)).to.deep.equal(['user: page turn']);
      core('status_changed', { status: 'idle' });
      await turn.done;
      await update(chat);
      expect(button.getAttribute('aria-disabled')).to.equal('false');
      enter(field);
      await fake.answer('send_text');
      expect(sendTexts()).to.deep.equal(['page turn', 'next question']);
    });

    it('handles SESSION_BUSY gracefully: the text stays, no error is shown', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const field = input(chat);
      field.value = 'mine';
      // Page code starts a turn in the same task the user presses Enter: the chat still sees `idle`.
      const page = session.sendText('page').catch((e) => e);
      enter(field);
      await fake.answer('send_text');
      await update(chat);
      expect(sendTexts()).to.deep.equal(['page']);
      expect(field.value).to.equal('mine');
      expect(transcript(chat)).to.deep.equal(['user: page']);
      core('status_changed', { status: 'idle' });
      await page;
    });

    it('sends with the keyboard only, and focus never leaves the composer', async () => {
      const host = await fixture<HTMLDivElement>(html`<div><button id="before">before</button></div>`);
      host.insertAdjacentHTML(
        'beforeend',
        '<pedelec-session provider="codex" model="m"><pedelec-chat></pedelec-chat></pedelec-session>',
      );
      const session = host.querySelector('pedelec-session')!;
      const chat = host.querySelector('pedelec-chat')!;
      await available();
      await start(session);
      host.querySelector<HTMLButtonElement>('#before')!.focus();
      await sendKeys({ press: 'Tab' }); // the transcript (a focusable, scrollable log)
      expect(focused(chat)?.getAttribute('role')).to.equal('log');
      await sendKeys({ press: 'Tab' });
      expect(focused(chat)).to.equal(input(chat));
      await sendKeys({ type: 'hello' });
      await sendKeys({ down: 'Shift' });
      await sendKeys({ press: 'Enter' });
      await sendKeys({ up: 'Shift' });
      await sendKeys({ type: 'there' });
      await sendKeys({ press: 'Enter' });
      await fake.answer('send_text');
      expect(sendTexts()).to.deep.equal(['hello\nthere']);
      expect(focused(chat)).to.equal(input(chat));
      core('status_changed', { status: 'idle' });
      await update(chat);
      // Now the send button, by keyboard: focus comes back to the text field.
      await sendKeys({ type: 'by button' });
      await sendKeys({ press: 'Tab' });
      expect(focused(chat)).to.equal(sendButton(chat));
      await sendKeys({ press: 'Enter' });
      await fake.answer('send_text');
      expect(sendTexts()).to.deep.equal(['hello\nthere', 'by button']);
      expect(focused(chat)).to.equal(input(chat));
      core('status_changed', { status: 'idle' });
    });
  });

  describe('robustness (found in review)', () => {
    it('a message that never became a turn (the start failed) is given back to the field', async () => {
      const { session, chat } = await mountChat();
      await available();
      input(chat).value = 'my long question';
      enter(input(chat));
      expect(input(chat).value, 'cleared while sending').to.equal('');
      await fake.answer('get_approval_status', APPROVED);
      await fake.refuse('create_session', {
        code: 'NATIVE_HOST_UNAVAILABLE',
        message: 'Pedelec Desktop is not running.',
      });
      await update(chat);
      expect(input(chat).value).to.equal('my long question');
      expect(session.status).to.equal('error');
    });

    it('a tool call still running when its turn ends shows as failed, not running for ever', async () => {
      const host = await fixture<HTMLDivElement>(html`<div></div>`);
      host.innerHTML = `<pedelec-session provider="codex" model="m">
          <pedelec-tool name="stuck" description="Never answers."></pedelec-tool><pedelec-chat></pedelec-chat></pedelec-session>`;
      const session = host.querySelector('pedelec-session')!;
      const chat = host.querySelector('pedelec-chat')!;
      (host.querySelector('pedelec-tool') as PedelecToolElement).handler = () => new Promise(() => {});
      await available();
      await start(session);
      const turn = await pageTurn(session, 'go');
      core('tool_call', { toolRequestId: 't1', tool: 'stuck', args: {} });
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: go', 'running: stuck: running…']);
      core('status_changed', { status: 'idle' });
      await turn.done;
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: go', 'failed: stuck: failed']);
    });

    it('reattached after its turn ended elsewhere: the message is no longer busy', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const turn = await pageTurn(session, 'one');
      core('chat_delta', { text: 'Hel' });
      await update(chat);
      expect(shadow(chat).querySelector('[part~=agent]')!.getAttribute('aria-busy')).to.equal('true');
      const parent = chat.parentNode!;
      chat.remove();
      core('status_changed', { status: 'idle' });
      await turn.done;
      parent.append(chat);
      await available();
      await update(chat);
      expect(shadow(chat).querySelector('[part~=agent]')!.getAttribute('aria-busy')).to.equal('false');
    });

    it('a chat bound by session="id" does not re-render for DOM changes elsewhere in the page', async () => {
      const host = await fixture<HTMLDivElement>(html`<div></div>`);
      host.innerHTML = `<pedelec-session id="main-session" provider="codex" model="m"></pedelec-session><p>x</p><pedelec-chat session="main-session"></pedelec-chat>`;
      const chat = host.querySelector('pedelec-chat') as PedelecChatElement;
      await available();
      await update(chat);
      let updates = 0;
      chat.addController({ hostUpdate: () => void updates++ });
      const p = host.querySelector('p')!;
      for (let i = 0; i < 20; i++) {
        p.textContent = `change ${i}`;
        p.append(document.createElement('span'));
        await nextTask(); // its mutation records were delivered
      }
      await update(chat);
      expect(updates).to.equal(0);
      expect(chat.boundSession).to.equal(host.querySelector('pedelec-session'));
    });

    it('streamed deltas do not read the log size per delta (no forced layout per piece)', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      await pageTurn(session, 'long');
      await update(chat);
      const log = shadow(chat).querySelector<HTMLElement>('[role=log]')!;
      const size = Object.getOwnPropertyDescriptor(Element.prototype, 'scrollHeight')!;
      let reads = 0;
      Object.defineProperty(log, 'scrollHeight', { configurable: true, get: () => (reads++, size.get!.call(log)) });
      // Faster than frames: each delta is rendered (its update), with no task in between.
      for (let i = 0; i < 60; i++) {
        core('chat_delta', { text: 'word ' });
        await (chat as PedelecChatElement).updateComplete;
      }
      await new Promise(requestAnimationFrame);
      expect(transcript(chat)[1]).to.equal(`agent: ${'word '.repeat(60)}`);
      expect(reads, 'at most one read per animation frame').to.be.below(15);
    });

    it('follows the conversation turn after turn: our own scroll never makes it stop following', async () => {
      const { session, chat } = await mountChat();
      (chat as HTMLElement).style.height = '200px';
      await available();
      await start(session);
      const log = shadow(chat).querySelector<HTMLElement>('[role=log]')!;
      const frame = () => new Promise(requestAnimationFrame);
      for (let i = 0; i < 6; i++) {
        const turn = await pageTurn(session, `question ${i}`);
        for (let j = 0; j < 5; j++) {
          // Each piece adds more than the 40 px that count as "at the bottom"; the scroll event of the
          // previous frame's scroll is dispatched only after it arrived.
          core('chat_delta', { text: `part ${j} of answer ${i}\nsecond line\nthird line\nfourth line\n` });
          await update(chat);
          await frame();
        }
        core('status_changed', { status: 'idle' });
        await turn.done;
        await update(chat);
        await frame();
        await frame();
        expect(log.scrollHeight - log.scrollTop - log.clientHeight, `at the bottom after turn ${i}`).to.be.below(40);
      }
      expect(log.scrollHeight).to.be.above(log.clientHeight * 2);
      // A user who scrolls up is left there.
      log.scrollTop = 0;
      await new Promise((resolve) => log.addEventListener('scroll', resolve, { once: true }));
      const turn = await pageTurn(session, 'more');
      core('chat_delta', { text: 'new text' });
      core('status_changed', { status: 'idle' });
      await turn.done;
      await update(chat);
      await frame();
      await frame();
      expect(log.scrollTop).to.equal(0);
    });

    it('a renderMarkdown that throws: that message shows as text, one pedelec-error, and the chat goes on', async () => {
      const { session, chat } = await mountChat('provider="codex" model="m"', 'markdown');
      (chat as PedelecChatElement).renderMarkdown = (text: string) => {
        if (text.includes('boom')) throw new Error('renderer bug');
        const strong = document.createElement('strong');
        strong.textContent = text;
        return strong;
      };
      const errors: string[] = [];
      chat.addEventListener('pedelec-error', (e) => errors.push(e.detail.error.code));
      await available();
      await start(session);
      const first = await pageTurn(session, 'one');
      core('chat_delta', { text: 'boom' });
      core('status_changed', { status: 'idle' });
      await first.done;
      await update(chat);
      await new Promise(requestAnimationFrame);
      await update(chat);
      const second = await pageTurn(session, 'two');
      core('chat_delta', { text: 'fine' });
      core('status_changed', { status: 'idle' });
      await second.done;
      await update(chat);
      await new Promise(requestAnimationFrame);
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: one', 'agent: boom', 'user: two', 'agent: fine']);
      expect(shadow(chat).querySelectorAll('strong')).to.have.length(1);
      expect(errors).to.deep.equal(['MARKDOWN_RENDER_FAILED']);
    });
  });

  describe('availability line', () => {
    it('is hidden when everything is ready', async () => {
      const { chat } = await mountChat();
      await available();
      await update(chat);
      expect(note(chat).textContent).to.equal('');
      expect(note(chat).getAttribute('role')).to.equal('status');
    });

    it('extension missing → install the extension', async () => {
      uninstallFakeChrome(); // no chrome.runtime at all: no extension
      fake = installFakeChrome({ noConnect: true });
      const { chat } = await mountChat();
      await waitUntil(() => note(chat).textContent !== '', 'a note');
      expect(note(chat).textContent).to.equal('Install the Pedelec browser extension, then reload this page.');
    });

    it('origin not approved → approve it in the extension’s popup; while pending → approve in the popup now', async () => {
      const { session, chat } = await mountChat();
      await available({ installed: true, approved: false, origin: location.origin, appConnected: true });
      await update(chat);
      expect(note(chat).textContent).to.equal(
        "This site needs your approval: send a message, then approve it in the Pedelec extension's popup.",
      );
      const started = session.start();
      await fake.answer('get_approval_status', {
        installed: true,
        approved: false,
        origin: location.origin,
        appConnected: true,
      });
      await waitUntil(() => session.getAttribute('approval') === 'pending');
      await update(chat);
      expect(note(chat).textContent).to.equal("Approve this site in the Pedelec extension's popup to continue.");
      await fake.answer('create_session', { sessionId: 's1' });
      await started;
      await update(chat);
      expect(note(chat).textContent, 'approved: nothing left to do').to.equal('');
    });

    it('Desktop unavailable → open the Desktop app', async () => {
      const { chat } = await mountChat();
      await fake.answer('get_approval_status', APPROVED);
      await fake.refuse('get_settings', {
        code: 'NATIVE_HOST_UNAVAILABLE',
        message: 'Pedelec Desktop is not running.',
      });
      await update(chat);
      expect(note(chat).textContent).to.equal('Open the Pedelec Desktop app, then send your message again.');
    });

    it('no provider → choose one (found by the check, and when a start fails for it)', async () => {
      const noProvider = { defaultProvider: null, defaultModels: {} };
      const { chat } = await mountChat('');
      await available(APPROVED, noProvider);
      await fake.answer('get_settings', noProvider); // the chat asks: no provider named on the session
      await update(chat);
      const say = "Choose an AI provider in Pedelec's settings, then send your message again.";
      expect(note(chat).textContent).to.equal(say);

      // The same from a failed start, when the check had nothing to say.
      const other = await mountChat('');
      await available(APPROVED, noProvider);
      await fake.answer('get_settings', SETTINGS);
      await update(other.chat);
      expect(note(other.chat).textContent).to.equal('');
      other.session.sendText('hi').catch(() => {});
      await fake.answer('get_approval_status', APPROVED);
      await fake.answer('get_settings', noProvider);
      await update(other.chat);
      expect(note(other.chat).textContent).to.equal(say);
      expect(transcript(other.chat)).to.deep.equal([
        'error: No default provider is set in Pedelec. (DEFAULT_PROVIDER_NOT_SET)',
      ]);
    });

    it('dev Core unreachable → start pedelec-dev', async () => {
      const { chat } = await mountChat('provider="scripted" bridge="ws://127.0.0.1:1/bridge"');
      await waitUntil(() => note(chat).textContent !== '', 'a note', { timeout: 5000 });
      expect(note(chat).textContent).to.equal(
        "The development Core is not reachable: start it (npm start in the kit's repository, or pedelec-dev), then send your message again.",
      );
    });

    it('checks again when page code sets the session’s bridge after connection', async () => {
      uninstallFakeChrome();
      fake = installFakeChrome({ noConnect: true });
      const { session, chat } = await mountChat('provider="scripted"');
      await waitUntil(() => note(chat).textContent !== '', 'a note');
      expect(note(chat).textContent).to.equal('Install the Pedelec browser extension, then reload this page.');
      session.bridge = 'ws://127.0.0.1:1/bridge';
      await waitUntil(() => note(chat).textContent!.includes('pedelec-dev'), 'the dev Core note', { timeout: 5000 });
    });

    it('a bridge refused by the rules → its reason', async () => {
      const { chat } = await mountChat('provider="scripted" bridge="ws://example.com/bridge"');
      await waitUntil(() => note(chat).textContent !== '', 'a note');
      expect(note(chat).textContent).to.match(/^bridge attribute may only name a loopback host/);
    });
  });

  describe('accessibility and theming', () => {
    it('is accessible, with a labelled log, field and button', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const turn = await pageTurn(session, 'hi');
      core('chat_delta', { text: 'Hello' });
      core('tool_call', { toolRequestId: 't1', tool: 'missing', args: {} });
      await fake.answer('submit_tool_result');
      core('status_changed', { status: 'idle' });
      await turn.done;
      await update(chat);
      const log = shadow(chat).querySelector('[part=log]')!;
      expect(log.getAttribute('role')).to.equal('log');
      expect(log.getAttribute('aria-label')).to.equal('Conversation');
      expect(input(chat).getAttribute('aria-label')).to.equal('Message');
      expect(sendButton(chat).textContent!.trim()).to.equal('Send');
      await expect(chat).to.be.accessible();
    });

    it('follows prefers-color-scheme, light and dark', async () => {
      const { chat } = await mountChat();
      await available();
      const LIGHT = 'rgb(255, 255, 255)';
      const DARK = 'rgb(27, 28, 31)';
      const background = () => getComputedStyle(chat).backgroundColor;
      // By default the user's preference decides (`color-scheme: light dark` + light-dark()).
      expect(background()).to.equal(matchMedia('(prefers-color-scheme: dark)').matches ? DARK : LIGHT);
      // Firefox over WebDriver BiDi cannot emulate media features: not asked there (the failed command
      // would print its stack trace in a green run).
      let emulated = !navigator.userAgent.includes('Firefox');
      try {
        if (emulated) await emulateMedia({ colorScheme: 'dark' });
      } catch {
        emulated = false;
      }
      if (emulated) {
        try {
          expect(matchMedia('(prefers-color-scheme: dark)').matches).to.equal(true);
          expect(background()).to.equal(DARK);
          await emulateMedia({ colorScheme: 'light' });
          expect(background()).to.equal(LIGHT);
        } finally {
          await emulateMedia({ colorScheme: 'light' });
        }
      }
      // A page can force a scheme, or override the colour itself.
      chat.style.colorScheme = 'dark';
      expect(background()).to.equal(DARK);
      chat.style.colorScheme = 'light';
      expect(background()).to.equal(LIGHT);
      chat.style.setProperty('--pedelec-chat-background', 'rgb(1, 2, 3)');
      expect(background()).to.equal('rgb(1, 2, 3)');
    });
  });
});
