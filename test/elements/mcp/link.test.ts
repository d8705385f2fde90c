/**
 * `<pedelec-session mcp>` against a real `pedelec-dev --mcp` (test/plugins/dev-core.mjs, the `mcp`
 * Core), in Chromium and Firefox: the session links its tools without a bridge or `start()`, an MCP
 * client (the official SDK, run by the plugin) lists and calls them, the calls run on the element's
 * path (`via: 'mcp'`, validation), private tools stay out, removing the element unlinks it; a Core
 * without MCP refuses the link (`MCP_LINK_REFUSED`, once), and markup may only name a loopback host.
 */
import { expect } from '@open-wc/testing';
import '../../../src/define.js';
import type { PedelecSessionElement, PedelecToolElement, PedelecToolStartEvent } from '../../../src/index.js';
import { devCores, type DevCores } from '../../support/dev-cores.js';
import { until } from '../../support/waits.js';
import { mount, record } from '../helpers.js';

let devCore: DevCores;

type McpTool = { name: string; description: string; annotations?: object };
type CallToolResult = { content: { text: string }[]; structuredContent?: any; isError?: boolean };

/** What the MCP client (in the test server) lists, or the result of its call. */
async function mcp(): Promise<McpTool[]>;
async function mcp(tool: string, args: unknown): Promise<CallToolResult>;
async function mcp(tool?: string, args?: unknown): Promise<McpTool[] | CallToolResult> {
  const query = tool ? `?tool=${encodeURIComponent(tool)}&args=${encodeURIComponent(JSON.stringify(args))}` : '';
  const answer = await (await fetch(`/__pedelec-dev/mcp${query}`)).json();
  return tool ? answer : answer.tools;
}

let pages = 0;
/**
 * A session linked to the `mcp` Core with its link key, under a label of its own (the Core is shared
 * by every test).
 */
async function linked(tools: string): Promise<{ session: PedelecSessionElement; label: string }> {
  const label = `t${++pages}`;
  const host = await mount(`<pedelec-session mcp-label="${label}" provider="scripted">${tools}</pedelec-session>`);
  const session = host.querySelector('pedelec-session')!;
  // The test server's pages are not pedelec-dev's own: they are given the key, as a developer would.
  session.mcpKey = devCore.mcp.linkKey;
  session.setAttribute('mcp', devCore.mcp.toolsUrl);
  return { session, label };
}

/** The names the client lists, once `check` accepts them (polled; rejects after 5 s). */
async function listedOnce(check: (names: string[]) => boolean): Promise<string[]> {
  let names: string[] = [];
  return until(
    async () => {
      names = (await mcp()).map((tool) => tool.name);
      return check(names) ? names : undefined;
    },
    () => `the tools listed to become as expected: ${names.join(', ')}`,
    { timeoutMs: 5000, everyMs: 50 },
  );
}

describe('<pedelec-session mcp>: the page link to pedelec-dev --mcp', () => {
  before(async () => {
    devCore = await devCores();
  });

  it('links the tools without a bridge or start(); MCP calls run on the element path, via mcp', async () => {
    const { session } = await linked(
      `<pedelec-tool name="link_add" description="Adds." read-only>
         <pedelec-arg name="a" type="integer" required></pedelec-arg>
       </pedelec-tool>
       <pedelec-tool name="link_secret" description="Private." private></pedelec-tool>`,
    );
    const tool = session.querySelector<PedelecToolElement>('pedelec-tool')!;
    let ran = 0;
    tool.handler = ({ a }: { a: number }) => (ran++, { twice: a * 2 });
    const starts = record<PedelecToolStartEvent>(session, 'pedelec-tool-start');
    const names = await listedOnce((list) => list.includes('link_add'));
    expect(names).not.to.include('link_secret');
    const listedNow = await mcp();
    expect(
      listedNow.map((t) => t.name),
      'listed',
    ).to.include('link_add');
    expect(listedNow.find((t) => t.name === 'link_add')!.annotations).to.deep.equal({ readOnlyHint: true });

    const result = await mcp('link_add', { a: 21 });
    expect(result.structuredContent).to.deep.equal({ twice: 42 });
    expect(starts.map((e) => e.detail.via)).to.deep.equal(['mcp']);
    expect(session.status).to.equal('inactive');

    const invalid = await mcp('link_add', { a: 'x' });
    expect(invalid.isError).to.equal(true);
    expect(invalid.content[0].text).to.match(/^TOOL_ARGS_INVALID: a: /);
    expect(ran).to.equal(1); // refused before the handler
  });

  it('publishes changes, and unlinks when the element leaves the page', async () => {
    const { session } = await linked(`<pedelec-tool name="link_first" description="First."></pedelec-tool>`);
    await listedOnce((list) => list.includes('link_first'));
    const second = document.createElement('pedelec-tool');
    second.setAttribute('name', 'link_second');
    second.setAttribute('description', 'Second.');
    session.append(second);
    await listedOnce((list) => list.includes('link_second'));
    session.remove();
    await listedOnce((list) => !list.includes('link_first') && !list.includes('link_second'));
  });

  it('the page\'s other WebMCP tools reach MCP clients only with webmcp="import forward" (Chromium)', async function () {
    const context = (document as any).modelContext;
    if (!context?.getTools || !context.executeTool) return this.skip(); // import needs Chromium's surface
    const theirs = new AbortController();
    await context.registerTool(
      { name: 'page_script_tool', description: 'Registered by another script.', execute: () => 'theirs' },
      { signal: theirs.signal },
    );
    try {
      const { session } = await linked('<pedelec-tool name="own_tool" description="Ours."></pedelec-tool>');
      session.setAttribute('webmcp', 'import');
      await until(() => session.manifest?.tools.some((t) => t.name === 'page_script_tool'), 'imported', 3000);
      const names = await listedOnce((all) => all.some((name) => name.startsWith('own_tool')));
      expect(
        names.some((name) => name.startsWith('page_script_tool')),
        'not forwarded',
      ).to.equal(false);
      session.setAttribute('webmcp', 'import forward');
      await listedOnce((all) => all.some((name) => name.startsWith('page_script_tool')));
    } finally {
      theirs.abort();
    }
  });

  it('a Core without --mcp refuses the link: one MCP_LINK_REFUSED naming the flag', async () => {
    const host = await mount('<div></div>');
    const warnings: string[] = [];
    host.addEventListener('pedelec-warning', (e) => warnings.push((e as CustomEvent).detail.warning.code));
    const reasons: string[] = [];
    host.addEventListener('pedelec-warning', (e) => reasons.push((e as CustomEvent).detail.warning.message));
    host.innerHTML = `<pedelec-session mcp="${devCore.bridgeUrl.replace(/\/bridge$/, '/tools')}"></pedelec-session>`;
    await until(() => warnings.length > 0, 'the refusal', 5000);
    expect(warnings).to.deep.equal(['MCP_LINK_REFUSED']);
    expect(reasons[0]).to.match(/--mcp/);
    // No retry: still one warning a while later.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(warnings).to.have.length(1);
  });

  it('another site’s page without the link key is refused (one MCP_LINK_REFUSED naming mcpKey); with it, it links', async () => {
    const host = await mount('<div></div>');
    const warnings: { code: string; message: string }[] = [];
    host.addEventListener('pedelec-warning', (e) => warnings.push((e as CustomEvent).detail.warning));
    host.innerHTML = `<pedelec-session mcp="${devCore.mcp.toolsUrl}" mcp-label="keyless">
        <pedelec-tool name="keyed_tool" description="Needs the key."></pedelec-tool>
      </pedelec-session>`;
    await until(() => warnings.length > 0, 'the refusal', 5000);
    expect(warnings.map((w) => w.code)).to.deep.equal(['MCP_LINK_REFUSED']);
    expect(warnings[0].message).to.match(/no link key; set mcpKey/);
    expect((await mcp()).map((tool) => tool.name)).not.to.include('keyed_tool');
    host.querySelector('pedelec-session')!.mcpKey = devCore.mcp.linkKey;
    await listedOnce((names) => names.includes('keyed_tool'));
    expect(warnings, 'no second warning').to.have.length(1);
  });

  it('a consequential tool is never approved by the page for an MCP client: listed destructive, refused without a person', async () => {
    const { session } = await linked(
      `<pedelec-tool name="link_clear" description="Clears everything." consequential></pedelec-tool>`,
    );
    let ran = 0;
    session.querySelector<PedelecToolElement>('pedelec-tool')!.handler = () => (ran++, 'cleared');
    const asked: Event[] = [];
    const approve = (event: Event) => (asked.push(event), (event as any).respondWith(true));
    document.addEventListener('pedelec-tool-approval', approve);
    try {
      await listedOnce((names) => names.includes('link_clear'));
      const listed = (await mcp()).find((tool) => tool.name === 'link_clear')!;
      expect(listed.annotations).to.deep.include({ destructiveHint: true });
      // The test server's client shows no forms, and this pedelec-dev has no operator prompt.
      const result = await mcp('link_clear', {});
      expect(result.isError).to.equal(true);
      expect(result.structuredContent.error.code).to.equal('TOOL_APPROVAL_UNAVAILABLE');
      expect(ran).to.equal(0);
      expect(asked, 'the page is never asked for an MCP client').to.deep.equal([]);
    } finally {
      document.removeEventListener('pedelec-tool-approval', approve);
    }
  });

  it('markup may only name a loopback host (INVALID_INPUT); nothing is linked', async () => {
    const host = await mount('<div></div>');
    const warnings: { code: string; message: string }[] = [];
    host.addEventListener('pedelec-warning', (e) => warnings.push((e as CustomEvent).detail.warning));
    host.innerHTML = '<pedelec-session mcp="ws://tools.example/tools"></pedelec-session>';
    await until(() => warnings.length > 0, 'the warning', 3000);
    expect(warnings.map((w) => w.code)).to.deep.equal(['INVALID_INPUT']);
    expect(warnings[0].message).to.match(/^mcp attribute may only name a loopback host/);
  });
});
