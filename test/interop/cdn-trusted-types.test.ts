/**
 * The CDN file in a frame whose own <meta> policy is the README's strict CSP with Trusted Types, on
 * pages that bring their own Lit or DOMPurify (which create the same policy names: the README says to
 * add 'allow-duplicates' then), and with a dev bridge the policy blocks. No inline script in the frame:
 * the test drives it from this page; test/interop/csp-probe.js records every violation in the frame.
 */
import { expect } from '@esm-bundle/chai';
import { until } from '../support/waits.js';

type Violation = { directive: string; blocked: string; sample: string };
type Win = Window & typeof globalThis & { cspViolations: Violation[]; DOMPurify?: { sanitize(html: string): string } };

/** How `until` waits for a frame's chunks and renders: up to 3 s, looking every 20 ms. */
const IN_THE_FRAME = { timeoutMs: 3000, everyMs: 20 };

/** A same-origin frame of one of the pages in ./trusted-types/ (each a <meta> policy, no inline script). */
async function openFrame(
  page: 'plain' | 'own-lit' | 'own-dompurify' | 'own-dompurify-duplicates',
): Promise<{ frame: HTMLIFrameElement; win: Win }> {
  const frame = document.createElement('iframe');
  const loaded = new Promise((r) => frame.addEventListener('load', r, { once: true }));
  frame.src = `/test/interop/trusted-types/${page}.html`;
  document.body.append(frame);
  await loaded;
  const win = frame.contentWindow as Win;
  await win.customElements.whenDefined('pedelec-session');
  return { frame, win };
}

/** A session with a chat in the frame; `say` streams agent text into it (an event from its session). */
function mountChat(win: Win, markdown: boolean) {
  const session = win.document.createElement('pedelec-session');
  const chat = win.document.createElement('pedelec-chat');
  if (markdown) chat.setAttribute('markdown', '');
  session.append(chat);
  // The CDN file defines the chat when the page first uses it: this one is upgraded once its chunk is in.
  win.document.body.append(session);
  const errors: string[] = [];
  chat.addEventListener('pedelec-error', (e) => errors.push(e.detail.error.code));
  const say = (text: string) => session.dispatchEvent(new win.CustomEvent('pedelec-chat-delta', { detail: { text } }));
  return { chat, say, errors };
}

describe("the CDN file under the README strict CSP with Trusted Types, beside the page's own Lit and DOMPurify", () => {
  let frame: HTMLIFrameElement | undefined;
  afterEach(() => frame?.remove());

  it("the chat works on a page that uses Lit itself, with 'allow-duplicates' as the README says", async () => {
    const page = await openFrame('own-lit');
    frame = page.frame;
    const { chat, errors } = mountChat(page.win, false);
    const composer = await until(() => chat.shadowRoot?.querySelector('textarea'), 'the composer', IN_THE_FRAME);
    expect(
      page.win.cspViolations.map((v) => `${v.directive} ${v.sample}`),
      'violations',
    ).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
    expect(composer, 'the chat rendered its composer').to.be.ok;
  });

  for (const [name, how] of [
    ['own-dompurify', 'falls back to text without'],
    ['own-dompurify-duplicates', 'renders with'],
  ] as const) {
    it(`a Markdown reply on a page that uses DOMPurify itself is never blank: ${how} 'allow-duplicates'`, async () => {
      const page = await openFrame(name);
      frame = page.frame;
      page.win.DOMPurify!.sanitize('<b>the page sanitizes something of its own</b>');
      const { chat, say } = mountChat(page.win, true);
      await until(() => chat.shadowRoot?.querySelector('textarea'), 'the composer', IN_THE_FRAME);
      say('**bold** reply');
      // Plain text shows until the Markdown chunk is loaded; then the chat renders the reply with it.
      await until(
        () =>
          page.win.performance
            .getEntriesByType('resource')
            .some((e) => e.name.includes('/cdn/pedelec-elements-markdown-')),
        'the Markdown chunk to be fetched',
        IN_THE_FRAME,
      );
      await new Promise((r) => setTimeout(r, 500));
      const text = chat.shadowRoot?.querySelector('[part~=agent]')?.textContent?.replace('Agent: ', '');
      expect(text, 'the reply as Markdown or, failing that, as text').to.match(/bold\**\s+reply/);
      const strong = chat.shadowRoot?.querySelector('[part~=agent] strong');
      expect(!!strong, 'rendered as Markdown').to.equal(name === 'own-dompurify-duplicates');
    });
  }

  it('a dev bridge the policy blocks (connect-src) fails start() with BRIDGE_UNAVAILABLE, not a 30 s hang', async () => {
    const page = await openFrame('plain');
    frame = page.frame;
    const session = page.win.document.createElement('pedelec-session');
    session.setAttribute('bridge', 'ws://127.0.0.1:7717/bridge'); // `npx pedelec-dev` beside an app on another port
    session.setAttribute('provider', 'codex');
    page.win.document.body.append(session);
    const outcome = await Promise.race([
      session.start().then(
        () => 'started',
        (error: { code?: string }) => error.code,
      ),
      new Promise((r) => setTimeout(() => r('still pending after 4 s'), 4000)),
    ]);
    expect(outcome).to.equal('BRIDGE_UNAVAILABLE');
    expect(session.status).to.equal('error');
  });
});
