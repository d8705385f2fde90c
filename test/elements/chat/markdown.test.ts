/**
 * <pedelec-chat markdown>: the lazily loaded renderer (`pedelec-elements/markdown`), a page-supplied
 * `renderMarkdown`, throttled rendering, and an XSS corpus that must execute nothing and attempt no
 * load. This page is served with a *report-only* CSP (test/plugins/csp.mjs): nothing is blocked, so a
 * payload that slipped through would really run and set its flag, and every inline script or load it
 * attempts fires `securitypolicyviolation` — the test looks for attempts, not for successes.
 */
import { aTimeout, expect, fixture, html, nextFrame, waitUntil } from '@open-wc/testing';
import '../../../src/define.js';
import {
  PedelecChatDeltaEvent,
  PedelecStatusEvent,
  PedelecTurnEvent,
  type ChatDeltaEventContext,
  type PedelecChatElement,
  type PedelecSessionElement,
} from '../../../src/index.js';
import { installFakeChrome, uninstallFakeChrome } from '../../support/fake-chrome.js';
import { EVIL, FLAG, exfiltration, payloads, set } from './xss-corpus.js';

// The chat renders the events of its session; here the test is the session's agent.
let turns = 0;
function say(session: PedelecSessionElement, ...pieces: string[]): void {
  session.dispatchEvent(new PedelecTurnEvent({ turnId: `turn_${++turns}`, kind: 'user', text: `question ${turns}` }));
  for (const text of pieces)
    session.dispatchEvent(new PedelecChatDeltaEvent({ text, context: {} as ChatDeltaEventContext }));
  session.dispatchEvent(new PedelecStatusEvent({ status: 'idle', previousStatus: 'running' }));
}

async function mount(markdown = true): Promise<{ session: PedelecSessionElement; chat: PedelecChatElement }> {
  // No bridge is ever reached (a fake Chrome without the extension), so nothing touches the network.
  const session = await fixture<PedelecSessionElement>(
    html`<pedelec-session provider="codex" model="m"
      ><pedelec-chat ?markdown=${markdown}></pedelec-chat
    ></pedelec-session>`,
  );
  const chat = session.querySelector('pedelec-chat')!;
  await chat.updateComplete;
  return { session, chat };
}

const agentRows = (chat: PedelecChatElement) => [...chat.shadowRoot!.querySelectorAll<HTMLElement>('[part~=agent]')];
const markdownLoads = () =>
  performance
    .getEntriesByType('resource')
    .map((e) => e.name)
    .filter((name) => /\/src\/markdown\.ts|\/marked\/|\/dompurify\//.test(name));

/**
 * Renders once the lazily loaded renderer is there (the first reply may show as text until then). The
 * first load fetches and transforms marked and DOMPurify cold, which on a loaded machine can take
 * several seconds: that wait is given more time than later ones.
 */
async function rendered(
  chat: PedelecChatElement,
  row: () => HTMLElement | undefined,
  timeout = 5000,
): Promise<HTMLElement> {
  await waitUntil(
    () =>
      row()?.classList.contains('md') &&
      row()!.querySelector('p, ul, ol, pre, h1, h2, h3, blockquote, table, a, hr, code, strong, em'),
    'rendered Markdown',
    { timeout },
  );
  await chat.updateComplete;
  return row()!;
}

describe('<pedelec-chat markdown>', () => {
  beforeEach(() => installFakeChrome({ noConnect: true }));
  afterEach(() => uninstallFakeChrome());

  it('uses a page-supplied renderMarkdown, without loading the default renderer', async () => {
    const { session, chat } = await mount();
    const calls: string[] = [];
    chat.renderMarkdown = (markdown) => {
      calls.push(markdown);
      const strong = document.createElement('strong');
      strong.textContent = markdown.toUpperCase();
      return strong;
    };
    say(session, 'mine');
    await chat.updateComplete;
    expect(agentRows(chat)[0]!.querySelector('strong')!.textContent).to.equal('MINE');
    expect(calls).to.deep.equal(['mine']);
    expect(markdownLoads(), 'the default renderer stays unloaded').to.deep.equal([]);
  });

  it('loads the default renderer only in markdown mode, and renders a list and a code block', async function () {
    this.timeout(25_000);
    const plain = await mount(false);
    say(plain.session, '- not a list');
    await plain.chat.updateComplete;
    expect(agentRows(plain.chat)[0]!.textContent).to.equal('Agent: - not a list');
    expect(markdownLoads()).to.deep.equal([]);

    const { session, chat } = await mount();
    say(session, 'Steps:\n\n- one\n- **two**\n\n```js\nconst x = 1 < 2 && "<b>";\n```\n');
    const row = await rendered(chat, () => agentRows(chat)[0], 20_000);
    expect(markdownLoads().length, 'loaded now').to.be.greaterThan(0);
    expect([...row.querySelectorAll('ul > li')].map((li) => li.textContent)).to.deep.equal(['one', 'two']);
    expect(row.querySelector('li strong')!.textContent).to.equal('two');
    expect(row.querySelector('pre > code')!.textContent).to.equal('const x = 1 < 2 && "<b>";\n');
    expect(row.querySelector('b')).to.equal(null);
  });

  it('rules a table’s cells, so it reads as a table', async function () {
    this.timeout(25_000);
    const { session, chat } = await mount();
    say(session, '| tool | calls |\n|---|--:|\n| add_todo | 3 |');
    const row = await rendered(chat, () => agentRows(chat)[0], 20_000);
    const table = row.querySelector('table')!;
    expect(getComputedStyle(table).borderCollapse).to.equal('collapse');
    for (const cell of row.querySelectorAll('th, td')) {
      const style = getComputedStyle(cell);
      expect(style.borderTopStyle, cell.textContent!).to.equal('solid');
      expect(parseFloat(style.borderTopWidth), cell.textContent!).to.be.greaterThan(0);
    }
  });

  it('keeps what a list starts at and how a table column is aligned', async () => {
    const { renderMarkdown } = await import('../../../src/markdown.js');
    const list = renderMarkdown('3. three\n4. four');
    expect(list.querySelector('ol')!.getAttribute('start')).to.equal('3');
    const table = renderMarkdown('| a | b |\n|:-:|--:|\n| 1 | 2 |');
    expect([...table.querySelectorAll('th')].map((th) => th.getAttribute('align'))).to.deep.equal(['center', 'right']);
    // Still no URL through those attributes, nor any other attribute.
    const hostile = renderMarkdown('<ol start="javascript:alert(1)"><li>x</li></ol>');
    expect(hostile.querySelector('ol')).to.equal(null);
  });

  it('re-renders at most once per animation frame, however fast the deltas come', async () => {
    const { session, chat } = await mount();
    let renders = 0;
    chat.renderMarkdown = (markdown) => {
      renders++;
      return document.createTextNode(markdown);
    };
    await chat.updateComplete;
    session.dispatchEvent(new PedelecTurnEvent({ turnId: 'fast', kind: 'user', text: 'go' }));
    for (let i = 0; i < 50; i++)
      session.dispatchEvent(new PedelecChatDeltaEvent({ text: `${i} `, context: {} as ChatDeltaEventContext }));
    await chat.updateComplete;
    expect(renders, '50 deltas in one frame').to.equal(1);
    expect(agentRows(chat)[0]!.textContent).to.match(/^Agent: 0 1 2 .* 49 $/);
    // Over three frames: at most one render each.
    const before = renders;
    for (let frame = 0; frame < 3; frame++) {
      for (let i = 0; i < 10; i++)
        session.dispatchEvent(new PedelecChatDeltaEvent({ text: 'x', context: {} as ChatDeltaEventContext }));
      await nextFrame();
    }
    await chat.updateComplete;
    expect(renders - before).to.be.within(1, 3);
    expect(agentRows(chat)[0]!.textContent!.endsWith('x'.repeat(30))).to.equal(true);
  });

  it('a streamed reply shows exactly as its whole text rendered at once', async function () {
    this.timeout(20000);
    const { session, chat } = await mount();
    say(session, '**warm up**');
    await rendered(chat, () => agentRows(chat)[0]);
    const section = (n: number) =>
      `## Step ${n}\nThe agent read **part ${n}** and called \`get_counter\`.\n\n- one\n- two\n\n  more\n\n` +
      `\`\`\`js\nconst step = ${n};\n\`\`\`\n| a | b |\n|---|--:|\n| ${n} | 2 |\n\n> quoted\n\n---\n\n`;
    const text = Array.from({ length: 40 }, (_, n) => section(n)).join('');
    const pieces = Array.from({ length: Math.ceil(text.length / 200) }, (_, i) => text.slice(i * 200, i * 200 + 200));
    say(session, ...pieces);
    const row = await rendered(chat, () => agentRows(chat)[1]);
    expect(row.querySelectorAll('.blocks > div').length, 'finished blocks in groups').to.be.above(1);

    // The same text rendered whole, beside it: same place, same styles (busy, so never skipped while
    // out of view: its size is its own).
    const { renderMarkdown } = await import('../../../src/markdown.js');
    const whole = document.createElement('div');
    whole.setAttribute('part', 'message agent');
    whole.setAttribute('aria-busy', 'true');
    whole.className = 'md';
    whole.append(Object.assign(document.createElement('div'), { className: 'blocks' }));
    whole.lastElementChild!.append(renderMarkdown(text));
    row.after(whole);
    expect(row.getBoundingClientRect().height).to.equal(whole.getBoundingClientRect().height);
    expect(row.textContent).to.equal(`Agent: ${whole.textContent}`);
    whole.remove();
  });

  it('a long reply that arrives at once: the log still follows it to its end', async function () {
    this.timeout(20000);
    const { session, chat } = await mount();
    (chat as HTMLElement).style.height = '300px';
    say(session, '**warm up**');
    await rendered(chat, () => agentRows(chat)[0]);
    const text = Array.from(
      { length: 60 },
      (_, n) => `## Part ${n}\n\n${'A sentence of the reply. '.repeat(12)}\n\n- a\n- b\n\n`,
    ).join('');
    say(session, text);
    await rendered(chat, () => agentRows(chat)[1]);
    const log = chat.shadowRoot!.querySelector<HTMLElement>('[role=log]')!;
    // Rows shown for the first time may take their real size over the next frames.
    for (let frame = 0; frame < 5; frame++) await nextFrame();
    expect(log.scrollHeight - log.scrollTop - log.clientHeight, 'at the bottom').to.be.below(40);
    expect(agentRows(chat)[1]!.textContent).to.contain('Part 59');
  });

  // Found in review: a linked image (the usual badge) was split into an empty link and a link to the
  // image; a task list lost which items are done (its inputs are stripped).
  it('a linked image stays one link to its target, with the alt text', async () => {
    const { renderMarkdown } = await import('../../../src/markdown.js');
    const div = document.createElement('div');
    div.append(renderMarkdown('[![build status](https://img.example/badge.svg)](https://ci.example/run/1)'));
    expect([...div.querySelectorAll('a')].map((a) => [a.getAttribute('href'), a.textContent])).to.deep.equal([
      ['https://ci.example/run/1', 'build status'],
    ]);
  });

  it('a task list keeps which items are done, as text (no form controls)', async () => {
    const { renderMarkdown } = await import('../../../src/markdown.js');
    const div = document.createElement('div');
    div.append(renderMarkdown('- [x] done\n- [ ] todo'));
    expect([...div.querySelectorAll('li')].map((li) => li.textContent!.trim())).to.deep.equal(['☑ done', '☐ todo']);
    expect(div.querySelector('input')).to.equal(null);
  });

  describe('XSS corpus', () => {
    const FORBIDDEN =
      'img, picture, source, video, audio, iframe, frame, object, embed, form, input, button, style, link, meta, base, script, svg, math, noscript, marquee, details, image, body';

    /**
     * Proves the detectors before a corpus runs: a deliberate inline handler runs (report-only), sets
     * the flag and is reported; with `image`, a deliberate image load is reported and leaves a
     * resource-timing entry. Then forgets what the probes left.
     */
    async function proveDetectors(
      violations: SecurityPolicyViolationEvent[],
      { image }: { image: boolean },
    ): Promise<void> {
      const probe = document.createElement('div');
      probe.setAttribute('onclick', `window.${FLAG}='probe'`);
      document.body.append(probe);
      probe.click();
      probe.remove();
      const probeImage = `${location.origin}/package.json?probe=${Date.now()}`;
      if (image) new Image().src = probeImage;
      await waitUntil(
        () =>
          violations.some((v) => v.effectiveDirective.startsWith('script-src')) &&
          (!image || violations.some((v) => v.effectiveDirective === 'img-src')),
        'the deliberate violations',
      );
      if (image)
        await waitUntil(
          () => performance.getEntriesByName(probeImage).length > 0,
          'the probe image in resource timing',
        );
      expect((window as any)[FLAG]).to.equal('probe');
      delete (window as any)[FLAG];
      violations.length = 0;
    }

    it('executes nothing and attempts no load', async function () {
      this.timeout(20000);
      const violations: SecurityPolicyViolationEvent[] = [];
      const onViolation = (e: SecurityPolicyViolationEvent) => violations.push(e);
      document.addEventListener('securitypolicyviolation', onViolation);
      try {
        await proveDetectors(violations, { image: true });

        const { session, chat } = await mount();
        // The renderer is loaded before the snapshot, so any new resource entry is an attempt.
        say(session, '**warm up**');
        await rendered(chat, () => agentRows(chat)[0]);
        const resourcesBefore = performance.getEntriesByType('resource').length;

        const corpus = [...payloads, ...exfiltration];
        for (const payload of corpus) say(session, payload.slice(0, 7), payload.slice(7));
        await rendered(chat, () => agentRows(chat)[corpus.length]);
        const rows = agentRows(chat).slice(1);
        expect(rows.length).to.equal(corpus.length);

        // Interact the way a curious user would: click and focus everything that is not a real link.
        for (const el of chat.shadowRoot!.querySelectorAll<HTMLElement>('[part~=agent] *')) {
          if (el.closest('a[href]')) continue; // a real link would open a tab on a foreign host
          el.click();
          el.focus?.();
          el.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
        }
        await nextFrame();
        await aTimeout(300); // time is the subject: give any attempted load or handler the chance to fire

        expect((window as any)[FLAG], 'a payload ran').to.equal(undefined);
        expect(violations.map((v) => `${v.effectiveDirective} ${v.blockedURI}`)).to.deep.equal([]);
        expect(
          performance
            .getEntriesByType('resource')
            .slice(resourcesBefore)
            .map((e) => e.name),
        ).to.deep.equal([]);

        const found = chat.shadowRoot!.querySelectorAll(
          FORBIDDEN.split(', ')
            .map((tag) => `[part~=agent] ${tag}`)
            .join(),
        );
        expect(
          [...found].map((el) => el.localName),
          'forbidden elements',
        ).to.deep.equal([]);
        for (const el of chat.shadowRoot!.querySelectorAll('[part~=agent] *')) {
          const attrs = [...el.attributes]
            .map((a) => a.name)
            .filter((name) => !['href', 'title', 'start', 'align', 'rel', 'target', 'class'].includes(name));
          expect(attrs, `attributes of <${el.localName}>`).to.deep.equal([]);
        }
        for (const a of chat.shadowRoot!.querySelectorAll('a')) {
          if (!a.hasAttribute('href')) continue;
          expect(a.getAttribute('href')).to.match(/^(https?|mailto):/);
          expect(a.rel).to.equal('noopener noreferrer nofollow');
          expect(a.target).to.equal('_blank');
        }

        // Images became links (visible, only followed on a click); relative and javascript: links lost their href.
        const row = (source: string) => rows[corpus.indexOf(source)]!;
        const image = row(exfiltration[0]!).querySelector('a')!;
        expect(image.href).to.equal(`${EVIL}/img.png?d=secret`);
        expect(image.textContent).to.equal('secret');
        expect(row(exfiltration[1]!).querySelector('a')!.href).to.equal(`${EVIL}/ref.png?d=secret`);
        expect(row(exfiltration[11]!).querySelector('a')!.href).to.equal('mailto:someone@example.com');
        expect(row(exfiltration[12]!).querySelector('a')!.hasAttribute('href')).to.equal(false);
        expect(
          row(payloads.find((p) => p.startsWith(`[click](${EVIL}`))!).querySelector('a')!.title,
          'a title stays text',
        ).to.equal(`onmouseover=${set}`);
        for (const source of payloads.filter((p) => p.startsWith('[click](') && !p.includes(EVIL))) {
          const link = row(source).querySelector('a');
          if (link) expect(link.hasAttribute('href'), source).to.equal(false);
        }
        // Raw HTML is shown as text, not parsed.
        expect(row(payloads[1]!).textContent).to.contain('<img src=x onerror=');
        expect(row(payloads[0]!).textContent).to.contain('<script>');
      } finally {
        document.removeEventListener('securitypolicyviolation', onViolation);
        delete (window as any)[FLAG];
      }
    });

    it('text mode (the default): every payload is shown as its own text, executes nothing and attempts no load', async function () {
      this.timeout(20000);
      const violations: SecurityPolicyViolationEvent[] = [];
      const onViolation = (e: SecurityPolicyViolationEvent) => violations.push(e);
      document.addEventListener('securitypolicyviolation', onViolation);
      try {
        // The image detector is proven by the Markdown test above (same page, same policy).
        await proveDetectors(violations, { image: false });

        const { session, chat } = await mount(false);
        const resourcesBefore = performance.getEntriesByType('resource').length;
        const corpus = [...payloads, ...exfiltration];
        for (const payload of corpus) say(session, payload.slice(0, 7), payload.slice(7));
        await waitUntil(() => agentRows(chat).length === corpus.length, 'every reply');
        await chat.updateComplete;
        for (const el of agentRows(chat)) {
          el.click();
          el.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
        }
        await nextFrame();
        await aTimeout(300); // time is the subject: give any attempted load or handler the chance to fire

        const rows = agentRows(chat);
        // Text, exactly as the agent sent it: the only element in a row is the screen-reader label.
        rows.forEach((row, i) => {
          expect(row.textContent, `payload ${i}`).to.equal(`Agent: ${corpus[i]}`);
          expect(
            [...row.querySelectorAll('*')].map((el) => el.localName),
            `payload ${i}`,
          ).to.deep.equal(['span']);
        });
        expect((window as any)[FLAG], 'a payload ran').to.equal(undefined);
        expect(violations.map((v) => `${v.effectiveDirective} ${v.blockedURI}`)).to.deep.equal([]);
        // No load of any kind, the Markdown renderer included.
        expect(
          performance
            .getEntriesByType('resource')
            .slice(resourcesBefore)
            .map((e) => e.name),
        ).to.deep.equal([]);
      } finally {
        document.removeEventListener('securitypolicyviolation', onViolation);
        delete (window as any)[FLAG];
      }
    });
  });
});
