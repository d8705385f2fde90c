// The demo as a desktop MCP client sees it (spec every-agent.md §5), in both MCP eras: `pedelec-dev
// --mcp` serves the demo, headless Chromium opens it (its session links its tools on /tools), and the
// official MCP SDK clients — the 2.x client on 2026-07-28 and the 1.x client on the 2025 era — over
// Streamable HTTP with the bearer token, list and call them: a call changes the page, an invalid one
// is an isError result with TOOL_ARGS_INVALID and the path, a removed tool is announced (through
// `subscriptions/listen`, or `list_changed` on the session), a cancelled call aborts the handler's
// signal, and a page that goes away answers "page gone". Chromium only; skipped when it is not
// installed, unless REQUIRE_BROWSERS names it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipBrowser, webmcpChromiumArgs } from '../../scripts/browsers.mjs';
import { eventually, launchBrowser, recordProblems } from '../support/browser.mjs';
import { addWaitingTool, DEMO_TOOLS } from '../support/demo.mjs';
import { connectMcp, ERAS } from '../support/mcp-client.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
/**
 * pedelec-dev --mcp serving the demo, Chromium with the demo open, and a connected SDK client; with
 * `webmcp`, Chromium has WebMCP on, so the demo's session also imports the page's `<form toolname>`.
 */
async function demoOverMcp(t, { webmcp = false, era = 'modern' } = {}) {
  assert.ok(existsSync(`${root}packages/pedelec-dev/dist/server.js`), 'dist/ is missing: npm test builds it first');
  const { startDevCore } = await import('pedelec-dev');
  const core = await startDevCore({ port: 0, serveDir: `${root}demo`, mcp: true });
  t.after(() => core.close());
  const browser = await launchBrowser('chromium', { t, args: webmcp ? webmcpChromiumArgs : [] });
  const page = await browser.newPage();
  const problems = recordProblems(page);
  await page.goto(`${core.url}/`, { waitUntil: 'load' });
  const client = await connectMcp(t, era, { url: core.mcpUrl, token: core.mcpToken }, 'demo-test');
  const names = async () => (await client.listTools()).tools.map((tool) => tool.name).sort();
  await eventually(async () => ((await names()).length > 1 ? true : undefined), 'the demo linked');
  return { core, page, client, names, problems };
}

for (const era of ERAS)
  test(
    `${era}: the demo's tools through the MCP SDK client: list, call, an invalid call, a removal announced`,
    { skip: skipBrowser('chromium'), timeout: 120_000 },
    async (t) => {
      const { page, client, names, problems } = await demoOverMcp(t, { era });
      assert.deepEqual(await names(), [...DEMO_TOOLS, 'pedelec_pages'].sort());
      const { tools } = await client.listTools();
      const update = tools.find((tool) => tool.name === 'update_counter');
      assert.match(update.description, /^Web page http:\/\/127\.0\.0\.1:\d+ “.+”: .*counter/);
      assert.equal(update.inputSchema.properties.delta.type, 'integer');
      assert.deepEqual(tools.find((tool) => tool.name === 'get_counter').annotations, { readOnlyHint: true });

      const called = await client.callTool({ name: 'update_counter', arguments: { delta: 3 } });
      assert.deepEqual(called.structuredContent, { value: 3 });
      assert.equal(await page.$eval('#counter', (output) => output.value), '3');
      assert.match(await page.$eval('#activity', (log) => log.textContent), /update_counter \[mcp\] → done/);

      const invalid = await client.callTool({ name: 'update_counter', arguments: { delta: 'three' } });
      assert.equal(invalid.isError, true);
      assert.equal(invalid.content[0].text, 'TOOL_ARGS_INVALID: delta: must be an integer');
      // Every failing argument, with the WebMCP drafts' triple, as for every agent.
      assert.deepEqual(invalid.structuredContent.error.details.errors, [
        {
          path: 'delta',
          message: 'delta: must be an integer',
          pointer: '/delta',
          reason: 'type',
          schemaPath: '/type',
        },
      ]);
      assert.equal(await page.$eval('#counter', (output) => output.value), '3');

      const pages = (await client.callTool({ name: 'pedelec_pages', arguments: {} })).structuredContent.pages;
      assert.deepEqual(
        pages.map((p) => [p.label, p.tools.length]),
        [['demo-session', DEMO_TOOLS.length]],
      );

      let changed;
      await client.watchTools(() => changed?.());
      const removal = new Promise((resolve) => (changed = resolve));
      await page.evaluate(() => document.querySelector('pedelec-tool[name="get_current_page"]').remove());
      await removal;
      assert.deepEqual(
        await names(),
        [...DEMO_TOOLS.filter((name) => name !== 'get_current_page'), 'pedelec_pages'].sort(),
      );
      assert.deepEqual(problems, []);
    },
  );

test(
  "a tool the page imports from WebMCP (the demo's <form toolname>) reaches MCP clients on the same path",
  { skip: skipBrowser('chromium'), timeout: 120_000 },
  async (t) => {
    const { page, client, names, problems } = await demoOverMcp(t, { webmcp: true });
    await eventually(async () => ((await names()).includes('send_feedback') ? true : undefined), 'the form listed');
    const { tools } = await client.listTools();
    const feedback = tools.find((tool) => tool.name === 'send_feedback');
    assert.deepEqual(feedback.inputSchema.required, ['note']);

    const sent = await client.callTool({ name: 'send_feedback', arguments: { note: 'Nice demo', rating: 'good' } });
    assert.equal(sent.isError, undefined, JSON.stringify(sent));
    assert.deepEqual(sent.structuredContent, { received: true, note: 'Nice demo', rating: 'good' });
    assert.equal(await page.$eval('#feedback-sent', (p) => p.textContent), 'Thanks: "Nice demo" (good).');
    assert.match(await page.$eval('#activity', (log) => log.textContent), /send_feedback \[mcp\] → done/);

    // The browser's own checks still hold on this path: the form's required note.
    const empty = await client.callTool({ name: 'send_feedback', arguments: { rating: 'poor' } });
    assert.equal(empty.isError, true);
    assert.match(empty.content[0].text, /^TOOL_ARGS_INVALID: /);
    assert.deepEqual(problems, []);
  },
);

for (const era of ERAS)
  test(
    `${era}: a cancelled MCP call aborts the handler’s signal; a page that goes away answers "page gone"`,
    { skip: skipBrowser('chromium'), timeout: 120_000 },
    async (t) => {
      const { page, client } = await demoOverMcp(t, { era });
      await addWaitingTool(page);
      await eventually(
        async () =>
          (await client.listTools()).tools.some((tool) => tool.name === 'wait_for_cancel') ? true : undefined,
        'the new tool listed',
      );
      const controller = new AbortController();
      const call = client.callTool({ name: 'wait_for_cancel', arguments: {} }, controller.signal);
      call.catch(() => {});
      await eventually(
        () =>
          page.evaluate(() => document.querySelector('#activity').textContent.includes('wait_for_cancel') || undefined),
        'the call running in the page',
      );
      controller.abort();
      await assert.rejects(call);
      assert.equal(await eventually(() => page.evaluate(() => window.cancelled), 'the handler aborted'), 'ABORTED');

      const pending = client.callTool({ name: 'wait_for_cancel', arguments: {} });
      await eventually(
        () => page.evaluate(() => document.querySelectorAll('#activity li').length >= 2 || undefined),
        'the second call running',
      );
      await page.close();
      const gone = await pending;
      assert.equal(gone.isError, true);
      assert.match(gone.content[0].text, /^PAGE_GONE: page gone/);
    },
  );

test(
  "docs/mcp.md's example page: its tool listed and called by the MCP SDK client",
  { skip: skipBrowser('chromium'), timeout: 120_000 },
  async (t) => {
    const guide = readFileSync(`${root}docs/mcp.md`, 'utf8');
    const example = /<!-- runnable: [^>]*-->\s*```html\n([\s\S]*?)\n\s*```/.exec(guide);
    assert.ok(example, 'docs/mcp.md has its runnable example');
    const kit = '/_pedelec/cdn/pedelec-elements.js';
    const link = 'ws://127.0.0.1:7717/tools';
    assert.ok(
      example[1].includes(`src="${kit}"`) && example[1].includes(link),
      'the example loads the kit from pedelec-dev and links',
    );
    const { startDevCore } = await import('pedelec-dev');
    const site = mkdtempSync(join(tmpdir(), 'mcp-example-'));
    t.after(() => rmSync(site, { recursive: true, force: true }));
    const core = await startDevCore({ port: 0, serveDir: site, mcp: true });
    t.after(() => core.close());
    // Served by pedelec-dev, as the guide says (it serves the kit's cdn/ folder); linked to this Core's port.
    const page = example[1].replace(link, core.toolsUrl);
    writeFileSync(join(site, 'index.html'), page);
    const browser = await launchBrowser('chromium', { t });
    const tab = await browser.newPage();
    await tab.goto(`${core.url}/`, { waitUntil: 'load' });
    const client = await connectMcp(t, 'legacy', { url: core.mcpUrl, token: core.mcpToken }, 'docs-test');
    const tools = await eventually(async () => {
      const { tools: listed } = await client.listTools();
      return listed.length === 2 ? listed : undefined;
    }, 'the example linked');
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['add_to_basket', 'pedelec_pages']);
    const result = await client.callTool({ name: 'add_to_basket', arguments: { count: 2 } });
    assert.deepEqual(result.structuredContent, { items: 2 });
    assert.equal(await tab.$eval('#basket', (output) => output.value), '2');
    const refused = await client.callTool({ name: 'add_to_basket', arguments: { count: 11 } });
    assert.equal(refused.content[0].text, 'TOOL_ARGS_INVALID: count: must be ≤ 10');
  },
);
