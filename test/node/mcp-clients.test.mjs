// MCP clients as developers set them up (every-agent.md §4–5): `pedelec-dev --mcp` started from its
// CLI serves the demo, open twice in headless Chromium; the official SDK clients of both eras over
// stdio (`pedelec-dev mcp`, which reads the token file) list and call the tools of both tabs, each
// name qualified by its page's label, and hear of a removed tool; `pedelec_pages` lists both pages;
// and the Inspector CLI (2025 era, as it runs by default) lists and calls the demo's tools with the
// line the server printed (stdio) and over HTTP with the token. Chromium only; skipped when it is not
// installed, unless REQUIRE_BROWSERS names it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipBrowser } from '../../scripts/browsers.mjs';
import { eventually, launchBrowser } from '../support/browser.mjs';
import { addWaitingTool, DEMO_TOOLS } from '../support/demo.mjs';
import { CLI, root, startDevCommand } from '../support/dev-command.mjs';
import { connectMcp, ERAS } from '../support/mcp-client.mjs';

/** `pedelec-dev --mcp` from its CLI on a free port, with a token file of the test's own; resolves its printed lines. */
async function startCli(t, extra = []) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-clients-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const tokenFile = join(dir, 'token');
  const server = await startDevCommand(
    process.execPath,
    [CLI, '--port', '0', '--mcp', '--mcp-token-file', tokenFile, '--serve', join(root, 'demo'), ...extra],
    { t },
  );
  return {
    out: server.output,
    url: `${server.url}/`,
    port: String(server.port),
    tokenFile,
    dir,
    mcpUrl: `${server.url}/mcp`,
  };
}

/** Headless Chromium with `url` open in `tabs` tabs. */
async function openTabs(t, url, tabs) {
  const browser = await launchBrowser('chromium', { t });
  for (let i = 0; i < tabs; i++) await (await browser.newPage()).goto(url, { waitUntil: 'load' });
  return browser;
}

for (const era of ERAS)
  test(
    `${era} over stdio: two tabs of the demo, each tool named by its page; pedelec_pages lists both; calls reach each tab; a removal is heard; a cancel reaches the handler`,
    { skip: skipBrowser('chromium'), timeout: 120_000 },
    async (t) => {
      const server = await startCli(t);
      const browser = await openTabs(t, server.url, 2);
      const args = [CLI, 'mcp', '--port', server.port, '--mcp-token-file', server.tokenFile];
      const client = await connectMcp(t, era, { command: process.execPath, args }, 'stdio-test');
      const names = await eventually(async () => {
        const listed = (await client.listTools()).tools.map((tool) => tool.name).sort();
        return listed.length === 2 * DEMO_TOOLS.length + 1 ? listed : undefined;
      }, 'both tabs linked');
      assert.deepEqual(
        names,
        [...DEMO_TOOLS.flatMap((name) => [`${name}__demo-session`, `${name}__demo-session_2`]), 'pedelec_pages'].sort(),
      );
      const pages = (await client.callTool({ name: 'pedelec_pages', arguments: {} })).structuredContent.pages;
      assert.deepEqual(
        pages.map((page) => [page.label, page.url, page.tools.length]),
        [
          ['demo-session', `${server.url}`, DEMO_TOOLS.length],
          ['demo-session_2', `${server.url}`, DEMO_TOOLS.length],
        ],
      );
      const second = await client.callTool({ name: 'update_counter__demo-session_2', arguments: { delta: 5 } });
      assert.deepEqual(second.structuredContent, { value: 5 });
      const counters = await Promise.all(
        (await browser.pages()).filter((p) => p.url() === server.url).map((p) => p.$eval('#counter', (o) => o.value)),
      );
      assert.deepEqual(counters.sort(), ['0', '5'], 'only the second tab changed');

      let heard;
      const removed = new Promise((resolve) => (heard = resolve));
      await client.watchTools(() => heard());
      const [first] = (await browser.pages()).filter((p) => p.url() === server.url);
      await first.evaluate(() => document.querySelector('pedelec-tool[name="get_current_page"]').remove());
      await removed;
      const after = (await client.listTools()).tools.map((tool) => tool.name);
      assert.equal(after.length, 2 * DEMO_TOOLS.length, 'one tool fewer');

      // A cancelled call, relayed: the handler's signal aborts in the page.
      await addWaitingTool(first);
      await eventually(
        async () => (await client.listTools()).tools.some((tool) => tool.name === 'wait_for_cancel') || undefined,
        'the waiting tool listed',
      );
      const controller = new AbortController();
      const call = client.callTool({ name: 'wait_for_cancel', arguments: {} }, controller.signal);
      call.catch(() => {});
      await eventually(
        () =>
          first.evaluate(
            () => document.querySelector('#activity').textContent.includes('wait_for_cancel') || undefined,
          ),
        'the call running in the page',
      );
      controller.abort();
      await assert.rejects(call);
      assert.equal(await eventually(() => first.evaluate(() => window.cancelled), 'the handler aborted'), 'ABORTED');
    },
  );

test(
  "the printed Inspector CLI line (stdio) runs verbatim and lists the demo's tools",
  { skip: skipBrowser('chromium'), timeout: 120_000 },
  async (t) => {
    const server = await startCli(t);
    await openTabs(t, server.url, 1);
    const line = /Inspector CLI: (.+)$/m.exec(server.out)?.[1];
    assert.ok(line, `an Inspector CLI line in:\n${server.out}`);
    assert.match(line, /^npx @modelcontextprotocol\/inspector --cli node \S+\/cli\.js mcp --port \d+ /);
    // The line as printed, through a shell, from the repository (where the inspector is a devDependency).
    // MCP_CATALOG_PATH: the inspector keeps its server catalog there, not under ~.
    const run = () =>
      new Promise((resolve) =>
        execFile(
          '/bin/sh',
          ['-c', line],
          { cwd: root, env: { ...process.env, MCP_CATALOG_PATH: join(server.dir, 'catalog.json') }, timeout: 60_000 },
          (error, stdout, stderr) => resolve({ error, stdout, stderr }),
        ),
      );
    const listed = await eventually(async () => {
      const { error, stdout, stderr } = await run();
      assert.equal(error, null, `${line}\n${stderr}`);
      const tools = JSON.parse(stdout).tools.map((tool) => tool.name);
      return tools.length > 1 ? tools.sort() : undefined;
    }, 'the demo linked');
    assert.deepEqual(listed, [...DEMO_TOOLS, 'pedelec_pages'].sort());
  },
);

test(
  'the printed Inspector CLI line over HTTP (2025 era, with the token) lists the tools; with a call added, it runs it in the page',
  { skip: skipBrowser('chromium'), timeout: 120_000 },
  async (t) => {
    const server = await startCli(t);
    const browser = await openTabs(t, server.url, 1);
    const [, line] = [...server.out.matchAll(/Inspector CLI: (.+)$/gm)].map((match) => match[1]);
    assert.ok(line, `a second Inspector CLI line (HTTP) in:\n${server.out}`);
    assert.match(
      line,
      /^npx @modelcontextprotocol\/inspector --cli http:\/\/\S+\/mcp --transport http --header "Authorization: Bearer [0-9a-f]{32}" --method tools\/list$/,
    );
    // As printed, through a shell, from the repository (where the inspector is a devDependency).
    const inspector = (extra = '') =>
      new Promise((resolve, reject) =>
        execFile(
          '/bin/sh',
          ['-c', `${line}${extra}`],
          { cwd: root, env: { ...process.env, MCP_CATALOG_PATH: join(server.dir, 'catalog.json') }, timeout: 60_000 },
          (error, stdout, stderr) =>
            error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
        ),
      );
    const listed = await eventually(async () => {
      const { tools } = await inspector();
      return tools.length > 1 ? tools.map((tool) => tool.name).sort() : undefined;
    }, 'the demo linked');
    assert.deepEqual(listed, [...DEMO_TOOLS, 'pedelec_pages'].sort());
    // A later --method wins: the same line calls a tool.
    const called = await inspector(' --method tools/call --tool-name update_counter --tool-arg delta=2');
    assert.deepEqual(called.structuredContent, { value: 2 });
    const [tab] = (await browser.pages()).filter((p) => p.url() === server.url);
    assert.equal(await tab.$eval('#counter', (o) => o.value), '2');
  },
);

test('pedelec-dev mcp with no server on the port: one line on stderr, exit 1', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-none-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const result = await new Promise((resolve) =>
    execFile(
      process.execPath,
      [CLI, 'mcp', '--port', '9', '--mcp-token-file', join(dir, 'none')],
      { timeout: 20_000 },
      (error, stdout, stderr) => resolve({ code: error?.code ?? 0, stdout, stderr }),
    ),
  );
  assert.equal(result.code, 1);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, /^pedelec-dev: no pedelec-dev --mcp on port 9 \(no token in .+\); start one first/);
  assert.equal(result.stderr.trim().split('\n').length, 1);
});

test('pedelec-dev mcp refuses a token file others may read: one line on stderr, exit 1, nothing sent', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-open-token-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'token');
  writeFileSync(file, `${'d'.repeat(32)}\n`, { mode: 0o644 });
  chmodSync(file, 0o644);
  const result = await new Promise((resolve) =>
    execFile(
      process.execPath,
      [CLI, 'mcp', '--port', '9', '--mcp-token-file', file],
      { timeout: 20_000 },
      (error, stdout, stderr) => resolve({ code: error?.code ?? 0, stdout, stderr }),
    ),
  );
  assert.equal(result.code, 1);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, /^pedelec-dev: The MCP token file .+ is not safe to use: others may read or write it/);
});
