/**
 * The harness of the <pedelec-chat> tests (test/elements/chat/*.test.ts): the fake extension port of
 * test/support/fake-chrome.ts answered as the extension would (availability check, start, turns, Core
 * events), a chat mounted in its session, the chat's parts as a reader sees them, and the hooks each
 * file runs its tests under (`chatHooks()`): a fresh port per test; afterwards every session removed,
 * its end_session answered, and no shared client left open.
 */
import { expect, fixture, html } from '@open-wc/testing';
import type { PedelecChatElement, PedelecSessionElement } from '../../../src/index.js';
import { openClientCount } from '../../../src/elements/session/client-pool.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../../support/fake-chrome.js';
import { nextTask } from '../../support/waits.js';

export let fake: FakePort;
export const APPROVED = { installed: true, approved: true, origin: location.origin, appConnected: true };
export const SETTINGS = { defaultProvider: 'codex', defaultModels: { codex: 'm' } };

/** The chat's own availability check: approval status, then (approved) the settings. */
export async function available(
  status: Record<string, unknown> = APPROVED,
  settings: unknown = SETTINGS,
): Promise<void> {
  await fake.answer('get_approval_status', status);
  if (status.installed && status.approved) await fake.answer('get_settings', settings);
}

export async function start(session: PedelecSessionElement, sessionId = 's1'): Promise<void> {
  const started = session.start();
  await fake.answer('get_approval_status', APPROVED);
  await fake.answer('create_session', { sessionId });
  await started;
}

let seq = 0;
export function core(type: string, fields: Record<string, unknown> = {}, sessionId = 's1'): void {
  fake.event(sessionId, type, { seq: ++seq, ...fields });
}

/** A user turn started by page code; `done` settles when it ends. */
export async function pageTurn(session: PedelecSessionElement, text: string): Promise<{ done: Promise<unknown> }> {
  const done = session.sendText(text).catch((e) => e);
  await fake.answer('send_text');
  return { done };
}

export type Mounted = { session: PedelecSessionElement; chat: PedelecChatElement };
export async function mountChat(attrs = 'provider="codex" model="m"', chatAttrs = ''): Promise<Mounted> {
  const host = await fixture<HTMLDivElement>(html`<div></div>`);
  host.innerHTML = `<pedelec-session ${attrs}><pedelec-chat ${chatAttrs}></pedelec-chat></pedelec-session>`;
  const session = host.querySelector('pedelec-session')!;
  const chat = host.querySelector('pedelec-chat')!;
  await chat.updateComplete;
  return { session, chat };
}

export const shadow = (chat: Element) => (chat as PedelecChatElement).shadowRoot!;
export const rows = (chat: Element) => [
  ...shadow(chat).querySelectorAll<HTMLElement>('[part~=message],[part~=tool],[part~=error]'),
];
/** A row as a reader sees it: "user: hi", "agent: Hello", "tool: slow: running…", "error: …". */
export const read = (row: HTMLElement) =>
  `${row.getAttribute('part')!.split(' ').pop()}: ${row.textContent!.replace(/^(You|Agent): /, '')}`;
export const transcript = (chat: Element) => rows(chat).map(read);
export const input = (chat: Element) => shadow(chat).querySelector('textarea')!;
export const sendButton = (chat: Element) => shadow(chat).querySelector('button')!;
export const note = (chat: Element) => shadow(chat).querySelector<HTMLElement>('[part=availability]')!;
export const sendTexts = () => fake.posted.filter((m) => m.type === 'send_text').map((m) => m.text);

/** Lets the chat take in what happened (promise callbacks, one task) and render it. */
export async function update(chat: Element): Promise<void> {
  await nextTask();
  await (chat as PedelecChatElement).updateComplete;
}

export function enter(target: HTMLElement, init: KeyboardEventInit = {}): KeyboardEvent {
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
export const focused = (chat: Element) => shadow(chat).activeElement;

/**
 * A session holding the chat inside `<div class="a">`, with an empty `<div class="b">` beside it: for
 * moving the chat within its session.
 */
export async function mountChatInDivs(): Promise<{ session: PedelecSessionElement; chat: PedelecChatElement }> {
  const host = await fixture<HTMLDivElement>(html`<div></div>`);
  host.innerHTML =
    '<pedelec-session provider="codex" model="m"><div class="a"><pedelec-chat></pedelec-chat></div><div class="b"></div></pedelec-session>';
  const session = host.querySelector('pedelec-session')!;
  const chat = host.querySelector('pedelec-chat')!;
  await chat.updateComplete;
  return { session, chat };
}

/**
 * After a test: removes every session (teardown runs a microtask after removal and may post
 * end_session: answers what it posted), disconnects and removes `port`, and checks that no shared
 * client stayed open.
 */
export async function cleanUp(port: FakePort): Promise<void> {
  for (const el of Array.from(document.querySelectorAll('pedelec-session'))) el.remove();
  await nextTask();
  for (const req of port.posted.filter((m) => m.type === 'end_session' && !port.answered.has(m))) {
    port.answered.add(req);
    port.respond({}, req);
  }
  await nextTask();
  port.disconnect();
  await nextTask();
  uninstallFakeChrome();
  expect(openClientCount(), 'a shared client stayed open').to.equal(0);
}

/** Registers, in the calling `describe`, a fresh fake port (`fake`) before each test and {@link cleanUp} after it. */
export function chatHooks(): void {
  beforeEach(() => {
    fake = installFakeChrome();
  });
  afterEach(() => cleanUp(fake));
}
