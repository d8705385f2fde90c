/**
 * <pedelec-chat> when its view (chat-view.ts, a lazily imported chunk) cannot be loaded: one
 * pedelec-error CHAT_VIEW_UNAVAILABLE, no unhandled rejection, no update left pending for ever, the
 * panel keeps its size, and the events that arrived meanwhile are not lost. A page of its own: the
 * view must not have been loaded before (the test server fails its first request, on purpose).
 */
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import '../../src/define.js';
import type { PedelecChatElement, PedelecErrorEvent, PedelecSessionElement } from '../../src/index.js';
import { installFakeChrome, uninstallFakeChrome } from '../support/fake-chrome.js';

const unhandled: unknown[] = [];
const onUnhandled = (event: PromiseRejectionEvent) => {
  unhandled.push(event.reason);
  event.preventDefault();
};

describe('<pedelec-chat> whose view cannot be loaded', () => {
  before(async () => {
    window.addEventListener('unhandledrejection', onUnhandled);
    installFakeChrome();
    const armed = await fetch('/__fail-once?path=/chat/chat-view.ts', { method: 'POST' });
    expect(armed.status, 'the test server armed the failure').to.equal(204);
  });
  after(() => {
    window.removeEventListener('unhandledrejection', onUnhandled);
    uninstallFakeChrome();
  });

  it('reports CHAT_VIEW_UNAVAILABLE once, completes its update, keeps its size and its events', async function () {
    this.timeout(15000);
    const errors: PedelecErrorEvent[] = [];
    document.addEventListener('pedelec-error', (e) => errors.push(e as PedelecErrorEvent));
    const session = await fixture<PedelecSessionElement>(
      html`<pedelec-session provider="codex" model="m"><pedelec-chat></pedelec-chat></pedelec-session>`,
    );
    const chat = session.querySelector('pedelec-chat') as PedelecChatElement;
    await waitUntil(() => errors.length > 0, 'the pedelec-error');
    await chat.updateComplete;
    expect(errors.map((e) => [e.detail.error.code, e.target === chat])).to.deep.equal([
      ['CHAT_VIEW_UNAVAILABLE', true],
    ]);
    expect(chat.isUpdatePending, 'no update left pending').to.equal(false);
    expect(chat.getBoundingClientRect().height, 'the panel keeps its size without its view').to.be.greaterThan(100);
    // Events keep arriving; they are kept, and more updates run without another report.
    session.dispatchEvent(new CustomEvent('pedelec-turn', { detail: { turnId: 't', kind: 'user', text: 'kept' } }));
    await chat.updateComplete;
    expect(chat.isUpdatePending).to.equal(false);
    expect(errors).to.have.length(1);
    expect(unhandled, 'no unhandled rejection').to.deep.equal([]);
    // The failure was the server's, once: after a pause the chat imports again by itself — no event
    // needed (a blank panel has no composer to type into). Firefox keeps a failed dynamic import for
    // the life of the document, so only Chromium can show the view loading.
    if (navigator.userAgent.includes('Firefox')) {
      await new Promise((resolve) => setTimeout(resolve, 3500)); // time is the subject: the retry pause
      expect(errors, 'still one report').to.have.length(1);
      expect(unhandled, 'no unhandled rejection on retry').to.deep.equal([]);
      return;
    }
    await waitUntil(() => chat.shadowRoot!.querySelector('[role=log]'), 'the view, loaded by itself', {
      timeout: 8000,
    });
    session.dispatchEvent(new CustomEvent('pedelec-chat-delta', { detail: { text: 'and shown' } }));
    await chat.updateComplete;
    const rows = [...chat.shadowRoot!.querySelectorAll('[part~=message]')].map((row) => row.textContent);
    expect(rows, 'the events kept while the view was missing').to.deep.equal(['You: kept', 'Agent: and shown']);
  });
});
