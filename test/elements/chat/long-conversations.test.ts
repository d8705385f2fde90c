/**
 * <pedelec-chat> over a long conversation: every row stays in the DOM, finished rows skipped by layout while
 * out of view (`content-visibility: auto`); `max-messages` trims the oldest rows, and only when set.
 * And over a long reply in text mode: appended to, earlier text never touched again, reading as one.
 * (That a tool call costs the same at 10 000 rows as at 100 is timed in test/perf/chat-growth.test.ts.)
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/define.js';
import {
  PedelecChatDeltaEvent,
  PedelecTurnEvent,
  type ChatDeltaEventContext,
  type PedelecSessionElement,
} from '../../../src/index.js';
import { installFakeChrome, uninstallFakeChrome } from '../../support/fake-chrome.js';
import { log, mount, rows, said, turn } from './conversation.js';

describe('<pedelec-chat> over a long conversation', () => {
  beforeEach(() => installFakeChrome({ noConnect: true }));
  afterEach(() => uninstallFakeChrome());

  it('keeps every row in the DOM; finished rows and pages are skipped while out of view', async () => {
    const { session, chat } = await mount();
    for (let i = 0; i < 20; i++) turn(session, i);
    session.dispatchEvent(new PedelecTurnEvent({ turnId: 'last', kind: 'user', text: 'one more' }));
    session.dispatchEvent(new PedelecChatDeltaEvent({ text: 'Streaming…', context: {} as ChatDeltaEventContext }));
    await chat.updateComplete;
    const all = rows(chat);
    expect(all).to.have.length(82);
    expect(said(chat).slice(0, 2)).to.deep.equal(['question 0', 'Looking at item 0.']);
    const skippable = (el: Element) => getComputedStyle(el).contentVisibility;
    expect(all.slice(0, -1).map(skippable), 'finished rows').to.deep.equal(all.slice(0, -1).map(() => 'auto'));
    expect(skippable(all.at(-1)!), 'the streaming message').to.equal('visible');
    const pages = [...log(chat).children];
    expect(pages.length).to.be.above(1);
    expect(pages.map(skippable), 'pages: all but the last').to.deep.equal([
      ...pages.slice(0, -1).map(() => 'auto'),
      'visible',
    ]);
  });

  it('max-messages keeps the newest rows, trimming the oldest; without it every row stays', async () => {
    const { session, chat } = await mount('max-messages="6"');
    for (let i = 0; i < 5; i++) turn(session, i);
    await chat.updateComplete;
    expect(said(chat)).to.deep.equal([
      'lookup: done in 3 ms',
      'Item 3 is fine.',
      'question 4',
      'Looking at item 4.',
      'lookup: done in 3 ms',
      'Item 4 is fine.',
    ]);
    chat.maxMessages = 2;
    await chat.updateComplete;
    expect(said(chat)).to.deep.equal(['lookup: done in 3 ms', 'Item 4 is fine.']);
    chat.removeAttribute('max-messages');
    for (let i = 5; i < 40; i++) turn(session, i);
    await chat.updateComplete;
    expect(rows(chat)).to.have.length(2 + 35 * 4);
    // Not a positive number: no limit.
    chat.setAttribute('max-messages', '0');
    turn(session, 40);
    await chat.updateComplete;
    expect(rows(chat)).to.have.length(2 + 36 * 4);
  });

  it('a long reply in text mode is appended to: earlier text is never touched again, and it reads as one text', async () => {
    const { session, chat } = await mount();
    session.dispatchEvent(new PedelecTurnEvent({ turnId: 'long', kind: 'user', text: 'tell me' }));
    const text = Array.from({ length: 300 }, (_, i) => `line ${i}: ${'word '.repeat(i % 13)}`).join('\n');
    const touched: Node[] = [];
    const observer = new MutationObserver((records) => records.forEach((r) => touched.push(r.target)));
    observer.observe(chat.shadowRoot!, { characterData: true, subtree: true });
    for (let at = 0; at < text.length; at += 97) {
      session.dispatchEvent(
        new PedelecChatDeltaEvent({ text: text.slice(at, at + 97), context: {} as ChatDeltaEventContext }),
      );
      await chat.updateComplete;
    }
    observer.disconnect();
    const row = chat.shadowRoot!.querySelector<HTMLElement>('[part~=agent]')!;
    expect(row.textContent).to.equal(`Agent: ${text}`);
    // Appended to: each text node changes while it is the last one, never after a later one did.
    const order = [...new Set(touched)];
    expect(order.length, 'in blocks').to.be.above(5);
    const last = touched.map((node) => order.indexOf(node));
    expect(last, 'text nodes changed in order').to.deep.equal([...last].sort((a, b) => a - b));
    // Reads as one text: the same size as the text in one piece, and (outside the shadow root, where
    // every browser selects) the same text selected and copied.
    const whole = document.createElement('div');
    whole.setAttribute('part', 'message agent');
    whole.append(text);
    log(chat).append(whole);
    expect(row.getBoundingClientRect().height).to.equal(whole.getBoundingClientRect().height);
    whole.remove();
    const selected = (nodes: Node[]) => {
      const box = document.createElement('div');
      box.style.whiteSpace = 'pre-wrap';
      box.append(...nodes);
      document.body.append(box);
      const range = document.createRange();
      range.selectNodeContents(box);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(range);
      const copied = getSelection()!.toString();
      box.remove();
      return copied;
    };
    const shown = [...row.childNodes].filter((node) => !(node instanceof Element && node.matches('.sr')));
    expect(selected(shown.map((node) => node.cloneNode(true)))).to.equal(selected([document.createTextNode(text)]));
  });

  it("moved to another session: shows that conversation's rows, never the last one's", async () => {
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    host.innerHTML =
      '<pedelec-session provider="codex" model="m"><pedelec-chat></pedelec-chat></pedelec-session><pedelec-session provider="codex" model="m"></pedelec-session>';
    const [first, second] = host.querySelectorAll('pedelec-session');
    const chat = host.querySelector('pedelec-chat')!;
    const ask = (session: PedelecSessionElement, text: string) =>
      session.dispatchEvent(new PedelecTurnEvent({ turnId: text, kind: 'user', text }));
    await chat.updateComplete;
    for (const text of ['a1', 'a2', 'a3']) ask(first!, text);
    await chat.updateComplete;
    expect(said(chat)).to.deep.equal(['a1', 'a2', 'a3']);
    // As many rows, in the same task as the move: the new conversation's first page must not pass for the old one's.
    second!.append(chat);
    for (const text of ['b1', 'b2', 'b3']) ask(second!, text);
    await chat.updateComplete;
    expect(said(chat)).to.deep.equal(['b1', 'b2', 'b3']);
  });
});
