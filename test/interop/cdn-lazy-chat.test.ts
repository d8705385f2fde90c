/**
 * The CDN file defines `<pedelec-chat>` when the page first uses it: a page without a chat downloads
 * only the main file; a chat added after load, and a chat beside a session inside an open shadow root,
 * get a working chat; a session started at once waits for its chat; until then the chat keeps the place it will take; a chunk that cannot be
 * fetched throws nothing at the page. Each page is a frame of its own (a fresh realm: nothing defined
 * yet), loading only the shipped files.
 */
import { expect } from '@esm-bundle/chai';
import { until } from '../support/waits.js';

type Win = Window & typeof globalThis;

/**
 * Opens the page in a frame; under `prefix` (e.g. `/__failing/<name>`, test/plugins/fail-once.mjs) the
 * page and the kit's files come from there.
 */
async function openPage(prefix = ''): Promise<{ frame: HTMLIFrameElement; win: Win; errors: string[] }> {
  const frame = document.createElement('iframe');
  const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  frame.src = `${prefix}/test/interop/lazy-chat/page.html`;
  document.body.append(frame);
  await loaded;
  const win = frame.contentWindow as Win;
  const errors: string[] = [];
  win.addEventListener('error', (event) => errors.push(`error: ${event.message}`));
  win.addEventListener('unhandledrejection', (event) => errors.push(`unhandled: ${String(event.reason)}`));
  await win.customElements.whenDefined('pedelec-session');
  return { frame, win, errors };
}

/** The files the frame fetched from cdn/, by name. */
const cdnFiles = (win: Win) =>
  win.performance
    .getEntriesByType('resource')
    .map((entry) => entry.name.slice(entry.name.lastIndexOf('/') + 1))
    .filter((name) => name.startsWith('pedelec-elements'));

const CHAT_CHUNK = /^pedelec-elements-pedelec-chat-[\w-]+\.js$/;

describe('CDN file: <pedelec-chat> defined when first used', () => {
  let frame: HTMLIFrameElement | undefined;
  afterEach(() => frame?.remove());

  it('a page without a chat downloads only the main file', async () => {
    const page = await openPage();
    frame = page.frame;
    const session = page.win.document.createElement('pedelec-session');
    page.win.document.body.append(session);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(cdnFiles(page.win)).to.deep.equal(['pedelec-elements.js']);
    expect(page.win.customElements.get('pedelec-chat')).to.equal(undefined);
    expect(page.errors).to.deep.equal([]);
  });

  it('a chat added after load is defined then, works, and keeps its place until it is', async () => {
    const page = await openPage();
    frame = page.frame;
    const { document: doc, customElements: elements } = page.win;
    const session = doc.createElement('pedelec-session');
    const chat = doc.createElement('pedelec-chat');
    session.append(chat);
    doc.body.append(session);
    // Not defined yet (its chunk is on its way): a block of the chat's height, so nothing jumps.
    expect(elements.get('pedelec-chat')).to.equal(undefined);
    expect(page.win.getComputedStyle(chat).display).to.equal('block');
    expect(chat.getBoundingClientRect().height).to.be.greaterThan(300);
    await elements.whenDefined('pedelec-chat');
    await until(() => chat.shadowRoot?.querySelector('textarea'), 'the composer');
    expect(cdnFiles(page.win).filter((name) => CHAT_CHUNK.test(name))).to.have.length(1);
    expect(chat.getBoundingClientRect().height).to.be.greaterThan(300);
    // It is bound to its session: the session's turn shows in it.
    session.dispatchEvent(
      new page.win.CustomEvent('pedelec-turn', { detail: { turnId: 't', kind: 'user', text: 'hi' } }),
    );
    await until(() => chat.shadowRoot?.querySelector('[part~=user]'), 'the user row');
    expect(chat.shadowRoot!.querySelector('[part~=user]')!.textContent).to.equal('You: hi');
    expect(page.errors).to.deep.equal([]);
  });

  it('a session started at once waits for its chat to be defined: the chat hears every event', async () => {
    const page = await openPage();
    frame = page.frame;
    const { document: doc, customElements: elements } = page.win;
    const session = doc.createElement('pedelec-session') as HTMLElement & { start(): Promise<unknown> };
    session.setAttribute('provider', 'scripted');
    session.append(doc.createElement('pedelec-chat'));
    doc.body.append(session);
    // Where the session stood when it began to reach its bridge: the chat defined, or not yet.
    const chatDefinedAtStart = new Promise<boolean>((resolve) =>
      session.addEventListener('pedelec-status', (event) => {
        if ((event as CustomEvent).detail.status === 'starting') resolve(!!elements.get('pedelec-chat'));
      }),
    );
    // A page resuming a persisted session starts in its first script, before the chat's chunk is in.
    session.start().catch(() => {});
    expect(await chatDefinedAtStart).to.equal(true);
    expect(page.errors).to.deep.equal([]);
  });

  it('a chat beside a session inside an open shadow root is defined and works', async () => {
    const page = await openPage();
    frame = page.frame;
    const { document: doc, customElements: elements } = page.win;
    const host = doc.createElement('div');
    doc.body.append(host);
    const shadow = host.attachShadow({ mode: 'open' });
    const session = doc.createElement('pedelec-session');
    shadow.append(session);
    // Added later than its session, in the session's shadow root.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const chat = doc.createElement('pedelec-chat');
    session.append(chat);
    await elements.whenDefined('pedelec-chat');
    await until(() => chat.shadowRoot?.querySelector('textarea'), 'the composer');
    // Bound to that session: its turn shows in the chat.
    session.dispatchEvent(
      new page.win.CustomEvent('pedelec-turn', { detail: { turnId: 't', kind: 'user', text: 'hi' } }),
    );
    await until(() => chat.shadowRoot?.querySelector('[part~=user]'), 'the user row');
    expect(page.errors).to.deep.equal([]);
  });

  it('a chunk that cannot be fetched throws nothing at the page; the chat keeps its place', async () => {
    // A URL space of this test's own whose first request for the chat chunk fails.
    const page = await openPage(`/__failing/lazy-chat-${Math.random().toString(36).slice(2)}`);
    frame = page.frame;
    const { document: doc } = page.win;
    const session = doc.createElement('pedelec-session');
    const chat = doc.createElement('pedelec-chat');
    session.append(chat);
    doc.body.append(session);
    await until(() => cdnFiles(page.win).some((name) => CHAT_CHUNK.test(name)), 'the attempt to fetch the chunk');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(page.win.customElements.get('pedelec-chat')).to.equal(undefined);
    expect(chat.getBoundingClientRect().height).to.be.greaterThan(300);
    expect(page.errors).to.deep.equal([]);
  });
});
