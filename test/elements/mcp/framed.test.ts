/**
 * Frames (agents-2026 §4): a session in a frame offers its tools to no foreign agent — no MCP page
 * link, no WebMCP registration — unless its `allowFramed` property says so, and says why once. With
 * it, the link's `hello` says the page is framed and, when the page may read it, the top page's
 * origin; `pedelec_pages` shows both, so two same-origin pages can be told apart. Against the real
 * `pedelec-dev --mcp` of test/plugins/dev-core.mjs, in Chromium and Firefox.
 */
import { expect } from '@open-wc/testing';
import type { PedelecSessionElement } from '../../../src/index.js';
import { devCores, type DevCores } from '../../support/dev-cores.js';
import { until } from '../../support/waits.js';

let devCore: DevCores;

type Page = { label: string; framed?: { topOrigin: string | null } };

/** `pedelec_pages` as the MCP client of the test server gets it. */
async function pages(): Promise<Page[]> {
  const query = `?tool=pedelec_pages&args=${encodeURIComponent('{}')}`;
  const answer = await (await fetch(`/__pedelec-dev/mcp${query}`)).json();
  return answer.structuredContent.pages;
}

/**
 * A same-origin frame with the kit and `markup`; the warnings its sessions fire are recorded from the
 * start (`window.warnings` in the frame).
 */
async function framedPage(markup: string): Promise<{ frame: HTMLIFrameElement; win: any }> {
  const frame = document.createElement('iframe');
  frame.srcdoc = `<!doctype html><title>Framed</title>
    <script>window.warnings = []; addEventListener('pedelec-warning', (e) => warnings.push(e.detail.warning), true);</script>
    <script type="module">import '/src/define.ts';</script>${markup}`;
  const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  document.body.append(frame);
  await loaded;
  const win = frame.contentWindow as any;
  await win.customElements.whenDefined('pedelec-session');
  return { frame, win };
}

describe('<pedelec-session> in a frame: foreign agents only with allowFramed', () => {
  before(async () => {
    devCore = await devCores();
  });
  let frame: HTMLIFrameElement | undefined;
  afterEach(() => frame?.remove());

  it('links nothing and says why; with allowFramed it links, saying it is framed and the top page’s origin', async () => {
    const label = `framed${Date.now()}`;
    const page = await framedPage(
      `<pedelec-session mcp="${devCore.mcp.toolsUrl}" mcp-label="${label}">
         <pedelec-tool name="framed_tool" description="In a frame."></pedelec-tool>
       </pedelec-session>`,
    );
    frame = page.frame;
    await until(() => page.win.warnings.length > 0, 'the warning');
    expect(page.win.warnings.map((w: any) => [w.code, w.details.reason])).to.deep.equal([
      ['MCP_LINK_REFUSED', 'framed'],
    ]);
    // Give a link the time it would take, then check none came.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await pages()).some((p) => p.label === label)).to.equal(false);

    const session = page.win.document.querySelector('pedelec-session') as PedelecSessionElement;
    session.mcpKey = devCore.mcp.linkKey;
    session.allowFramed = true;
    const linked = await until(async () => (await pages()).find((p) => p.label === label), 'the framed page linked', {
      timeoutMs: 5000,
      everyMs: 50,
    });
    expect(linked!.framed).to.deep.equal({ topOrigin: location.origin });
    expect(page.win.warnings).to.have.length(1, 'said once');
  });

  it('registers nothing with WebMCP from a frame unless allowed (Chromium)', async function () {
    const context = (document as any).modelContext;
    if (!context) return this.skip(); // Firefox's WebMCP is the top window's only
    const page = await framedPage(
      `<pedelec-session webmcp><pedelec-tool name="framed_webmcp" description="In a frame."></pedelec-tool></pedelec-session>`,
    );
    frame = page.frame;
    await until(() => page.win.warnings.length > 0, 'the warning');
    expect(page.win.warnings.map((w: any) => [w.code, w.details.reason])).to.deep.equal([
      ['WEBMCP_UNAVAILABLE', 'framed'],
    ]);
    const listed = async () => ((await context.getTools()) as any[]).some((t) => t.name === 'framed_webmcp');
    expect(await listed()).to.equal(false);
    (page.win.document.querySelector('pedelec-session') as PedelecSessionElement).allowFramed = true;
    await until(listed, 'the framed tool registered', { timeoutMs: 3000, everyMs: 50 });
    frame.remove();
    frame = undefined;
    await until(async () => !(await listed()), 'the frame’s tool gone with it', { timeoutMs: 3000, everyMs: 50 });
  });
});
