/**
 * The WebMCP code and the form binding are lazy chunks (spec every-agent.md §2 "Size", §3): through the
 * CDN file, a page whose sessions never set `webmcp` and whose tools name no `form` downloads only the
 * main file and registers nothing; the first session that sets `webmcp` loads the foreign agents' entry
 * and the WebMCP chunk, each once, and the first `<pedelec-tool form>` the form binding, once. Each page is a frame of its own (a fresh
 * realm), loading only the shipped files (`npm run build` first, as `npm test` does).
 */
import { expect } from '@open-wc/testing';
import { until } from '../support/waits.js';

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

const WEBMCP_CHUNK = /^pedelec-elements-webmcp-[\w-]+\.js$/;
const FOREIGN_CHUNK = /^pedelec-elements-foreign-agents-[\w-]+\.js$/;
const FORM_CHUNK = /^pedelec-elements-form-binding-[\w-]+\.js$/;

describe('CDN file: the WebMCP code and the form binding are loaded only when a page uses them', () => {
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
    // The page is this test's frame: its sessions say their tools may be offered from one.
    for (const session of sessions) session.allowFramed = true;
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
    expect(cdnFiles(page.win).filter((name) => WEBMCP_CHUNK.test(name))).to.have.length(1);
    // The foreign agents' entry (what WebMCP and the MCP link share, and loads them), once too.
    expect(cdnFiles(page.win).filter((name) => FOREIGN_CHUNK.test(name))).to.have.length(1);
    expect(cdnFiles(page.win).filter((name) => !WEBMCP_CHUNK.test(name) && !FOREIGN_CHUNK.test(name))).to.deep.equal([
      'pedelec-elements.js',
    ]);
  });

  it('a <pedelec-tool form>: the form binding, once for every such tool, and no WebMCP code', async () => {
    const page = await openPage();
    frame = page.frame;
    const doc = page.win.document;
    doc.body.innerHTML = `<form id="a"><input name="x"></form><form id="b"><input name="y"></form>
      <pedelec-session>
        <pedelec-tool name="one" description="One." form="a"></pedelec-tool>
        <pedelec-tool name="two" description="Two." form="b"></pedelec-tool>
      </pedelec-session>`;
    const session = doc.querySelector('pedelec-session') as any;
    const args = () => session.manifest?.tools.map((t: any) => Object.keys(t.argsSchema.properties)).flat();
    await until(() => args()?.length === 2, 'both forms read', 3000);
    expect(args()).to.deep.equal(['x', 'y']);
    expect(cdnFiles(page.win).filter((name) => FORM_CHUNK.test(name))).to.have.length(1);
    expect(cdnFiles(page.win).filter((name) => !FORM_CHUNK.test(name))).to.deep.equal(['pedelec-elements.js']);
    expect(session.webmcpTools).to.deep.equal([]);
  });
});
