/**
 * The WebMCP code is a lazy chunk (spec every-agent.md §2 "Size"): through the CDN file, a page whose
 * sessions never set `webmcp` downloads only the main file and registers nothing; the first session
 * that sets it loads the chunk, once, beside the main file. Each page is a frame of its own (a fresh
 * realm), loading only the shipped files (`npm run build` first, as `npm test` does).
 */
import { expect } from '@open-wc/testing';
import { until } from '../../support/waits.js';

type Win = Window & typeof globalThis & { document: Document & { modelContext?: any }; navigator: any };

async function openPage(): Promise<{ frame: HTMLIFrameElement; win: Win }> {
  const frame = document.createElement('iframe');
  const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  frame.src = '/test/interop/lazy-chat/page.html';
  document.body.append(frame);
  await loaded;
  const win = frame.contentWindow as Win;
  await win.customElements.whenDefined('pedelec-session');
  return { frame, win };
}

const cdnFiles = (win: Win) =>
  win.performance
    .getEntriesByType('resource')
    .map((entry) => entry.name.slice(entry.name.lastIndexOf('/') + 1))
    .filter((name) => name.startsWith('pedelec-elements'));

const WEBMCP_CHUNK = /^pedelec-elements-(webmcp-exposure|foreign-tools)-[\w-]+\.js$/;

describe('CDN file: the WebMCP code is loaded only when a session sets webmcp', () => {
  let frame: HTMLIFrameElement | undefined;
  afterEach(() => frame?.remove());

  it('without webmcp: only the main file, nothing registered', async () => {
    const page = await openPage();
    frame = page.frame;
    const doc = page.win.document;
    doc.body.innerHTML = '<pedelec-session><pedelec-tool name="t" description="T."></pedelec-tool></pedelec-session>';
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(cdnFiles(page.win)).to.deep.equal(['pedelec-elements.js']);
    expect((doc.querySelector('pedelec-session') as any).webmcpTools).to.deep.equal([]);
  });

  it('with webmcp: the chunk, once, for every session of the page; the tools registered', async () => {
    const page = await openPage();
    frame = page.frame;
    const doc = page.win.document;
    const warnings: string[] = [];
    doc.addEventListener('pedelec-warning', (e) => {
      const { code, message } = (e as CustomEvent).detail.warning;
      warnings.push(`${code}: ${message}`);
    });
    doc.body.innerHTML = `<pedelec-session webmcp><pedelec-tool name="one" description="One."></pedelec-tool></pedelec-session>
      <pedelec-session webmcp><pedelec-tool name="two" description="Two."></pedelec-tool></pedelec-session>`;
    const sessions = [...doc.querySelectorAll('pedelec-session')] as any[];
    // Chromium registers a frame's tools; Firefox's older API refuses every frame but the top window
    // (NotAllowedError), which each session says once.
    const registered = () => sessions.every((s) => s.webmcpTools.length === 1);
    await until(() => registered() || warnings.length === 2, 'registration, or the warnings', 3000);
    if (page.win.document.modelContext) {
      expect(sessions.map((s) => s.webmcpTools)).to.deep.equal([['one'], ['two']]);
      expect(warnings).to.deep.equal([]);
    } else {
      expect(warnings).to.have.length(2);
      for (const warning of warnings) expect(warning).to.match(/^WEBMCP_UNAVAILABLE: .*NotAllowedError/);
    }
    // The exposure, and what it shares with the MCP page link.
    expect(cdnFiles(page.win).filter((name) => WEBMCP_CHUNK.test(name))).to.have.length(2);
    expect(cdnFiles(page.win).filter((name) => !WEBMCP_CHUNK.test(name))).to.deep.equal(['pedelec-elements.js']);
  });
});
