/**
 * The CDN build of <pedelec-chat> on a page that enforces a strict CSP with Trusted Types, exactly the
 * policy the README gives (test/plugins/csp.mjs serves it: `script-src 'self' 'nonce-…'`, no
 * 'unsafe-inline' or 'unsafe-eval', `require-trusted-types-for 'script'; trusted-types lit-html
 * dompurify pedelec-elements`). Only the shipped files run here — cdn/pedelec-elements.js and, when
 * `markdown` is set, the lazily imported chunk beside it — so the page has one copy of Lit (and of
 * its `lit-html` policy). No @open-wc/testing: it would bring a second Lit.
 */
import { expect } from '@esm-bundle/chai';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../support/fake-chrome.js';
import { until } from '../support/waits.js';

const violations: SecurityPolicyViolationEvent[] = [];
document.addEventListener('securitypolicyviolation', (e) => violations.push(e));
const seen = () => violations.map((v) => `${v.effectiveDirective} ${v.blockedURI} ${v.sample}`);

let fake: FakePort;

describe('<pedelec-chat> under a strict CSP with Trusted Types enforced (CDN build)', () => {
  before(() => (fake = installFakeChrome()));
  after(() => uninstallFakeChrome());

  it('the page really enforces Trusted Types (and reports, so the listener below works)', async () => {
    expect(() => {
      document.createElement('div').innerHTML = '<b>not trusted</b>';
    }).to.throw();
    await until(
      () => violations.some((v) => v.effectiveDirective === 'require-trusted-types-for'),
      'the deliberate violation',
    );
    violations.length = 0;
  });

  it('chats, keeps agent text as text, and renders Markdown from the lazily loaded chunk', async () => {
    const cdn = new URL('/cdn/pedelec-elements.js', location.href).href;
    await import(/* @vite-ignore */ cdn);
    const chunks = () =>
      performance
        .getEntriesByType('resource')
        .map((e) => e.name)
        .filter((name) => name.includes('/cdn/pedelec-elements') && !name.startsWith(cdn));
    expect(chunks(), 'only the main file so far').to.deep.equal([]);

    const session = document.createElement('pedelec-session') as any;
    session.setAttribute('provider', 'codex');
    session.setAttribute('model', 'm');
    const chat = document.createElement('pedelec-chat') as any;
    session.append(chat);
    document.body.append(session);
    // The chat (its templates and styles, with Lit's) is a chunk of its own, loaded when the page
    // first uses the tag; its definition upgrades the chat already in the page.
    await customElements.whenDefined('pedelec-chat');
    await chat.updateComplete;
    expect(
      chunks().filter((name) => /\/cdn\/pedelec-elements-pedelec-chat-[\w-]+\.js$/.test(name)),
      'the chat chunk',
    ).to.have.length(1);
    const shadow = () => chat.shadowRoot as ShadowRoot;
    await fake.answer('get_approval_status', {
      installed: true,
      approved: true,
      origin: location.origin,
      appConnected: true,
    });
    await fake.answer('get_settings', { defaultProvider: 'codex', defaultModels: { codex: 'm' } });

    // The user types and sends; the agent answers with markup that must stay text.
    const field = shadow().querySelector('textarea')!;
    field.value = 'hello';
    field.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true, cancelable: true }),
    );
    await fake.answer('get_approval_status', {
      installed: true,
      approved: true,
      origin: location.origin,
      appConnected: true,
    });
    await fake.answer('create_session', { sessionId: 's1' });
    await fake.answer('send_text');
    const hostile = '<img src=x onerror="window.__ttXss=1"><script>window.__ttXss=2</script>';
    fake.event('s1', 'chat_delta', { seq: 1, text: hostile });
    fake.event('s1', 'status_changed', { seq: 2, status: 'idle' });
    await until(() => shadow().querySelector('[part~=agent]')?.textContent?.includes('<script>'), 'the reply');
    expect(shadow().querySelector('[part~=user]')!.textContent).to.equal('You: hello');
    expect(shadow().querySelector('[part~=agent]')!.textContent).to.equal(`Agent: ${hostile}`);
    expect(shadow().querySelector('img, script')).to.equal(null);

    // Markdown mode: the chunk beside the main file is imported, and renders through the policies.
    chat.setAttribute('markdown', '');
    session.sendText('a list, please').catch(() => {});
    await fake.answer('send_text');
    fake.event('s1', 'chat_delta', {
      seq: 3,
      text: 'Here:\n\n- one\n- two\n\n```\ncode <b>\n```\n\n![x](https://evil.example/x.png) ',
    });
    fake.event('s1', 'chat_delta', { seq: 4, text: hostile });
    fake.event('s1', 'status_changed', { seq: 5, status: 'idle' });
    await until(() => shadow().querySelectorAll('[part~=agent]')[1]?.querySelector('ul'), 'the rendered Markdown');
    const reply = shadow().querySelectorAll('[part~=agent]')[1]!;
    expect([...reply.querySelectorAll('li')].map((li) => li.textContent)).to.deep.equal(['one', 'two']);
    expect(reply.querySelector('pre > code')!.textContent).to.equal('code <b>\n');
    expect(reply.querySelector('a')!.getAttribute('href')).to.equal('https://evil.example/x.png');
    expect(reply.querySelector('img, script, b')).to.equal(null);
    // The chat's own chunks (its view, the approval channel it shares) came first: the Markdown one is new.
    const markdownChunks = chunks().filter((name) => name.includes('-markdown-'));
    expect(markdownChunks.length, 'the Markdown chunk was loaded from cdn/').to.equal(1);
    expect(markdownChunks[0]).to.match(/\/cdn\/pedelec-elements-markdown-[\w-]+\.js$/);

    await new Promise((r) => setTimeout(r, 100));
    expect((window as any).__ttXss).to.equal(undefined);
    expect(seen()).to.deep.equal([]);
    session.remove();
  });
});
