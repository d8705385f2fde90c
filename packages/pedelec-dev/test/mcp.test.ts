// pedelec-dev --mcp: pages link their tools on /tools, MCP clients call them at /mcp (every-agent.md §4).
// Here the pages are scripted WebSocket clients speaking the link (docs/mcp.md), so each rule of the
// server is tested alone; test/node/mcp-demo.test.mjs (at the repository's root) drives the real kit in Chromium.
import { test, type TestContext } from 'node:test';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { WebSocket, type RawData } from 'ws';
import type { DevCore, DevCoreOptions } from '../src/index.js';
import { ADD, LinkPage, PAGE_ORIGIN, closeOf, rawHttp, startCore, untilAnswer, type Message } from './helpers.js';

const TOKEN = 'test-token-0123456789abcdef';

async function mcpClient(
  t: TestContext,
  core: DevCore,
  { token = TOKEN, name = 'test-client' }: { token?: string; name?: string } = {},
) {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(core.mcpUrl!), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  t.after(() => client.close());
  return client;
}

/** Resolves once `client` has listed tools `accept` accepts (pages link asynchronously). */
function toolsOnceThey(client: Client, accept: (tools: Tool[]) => boolean): Promise<Tool[]> {
  return untilAnswer(
    async () => (await client.listTools()).tools,
    accept,
    (tools) => `the tools to become as expected; listed: ${JSON.stringify(tools?.map((tool) => tool.name))}`,
    { timeoutMs: 5000, everyMs: 20 },
  );
}

/** A call's result, as the Core answers it (text content, maybe structured). */
const callTool = async (client: Client, ...args: Parameters<Client['callTool']>): Promise<CallToolResult> =>
  (await client.callTool(...args)) as CallToolResult;
/** The text of a result's first content item. */
const textOf = (result: CallToolResult) => {
  const [first] = result.content;
  assert.equal(first?.type, 'text');
  return first.type === 'text' ? first.text : '';
};

const mcpCore = (t: TestContext, options: DevCoreOptions = {}) =>
  startCore(t, { mcp: true, mcpToken: TOKEN, ...options });
const names = (tools: Tool[]) => tools.map((tool) => tool.name).sort();

test('a linked page’s tools are listed, with its origin, annotations, and pedelec_pages', async (t) => {
  const core = await mcpCore(t);
  await LinkPage.open(t, core, { title: 'Shop' });
  const client = await mcpClient(t, core);
  const tools = await toolsOnceThey(client, (list) => list.length === 2);
  assert.deepEqual(names(tools), ['add', 'pedelec_pages']);
  const add = tools.find((tool) => tool.name === 'add')!;
  assert.match(add.description ?? '', /^Adds two numbers \(runs in the web page “Shop” at http:\/\/localhost:5173\)$/);
  assert.deepEqual(add.inputSchema, ADD.inputSchema);
  assert.deepEqual(add.annotations, { readOnlyHint: true });
});

test('a call runs in the page and answers its result as text and structured content', async (t) => {
  const core = await mcpCore(t);
  const page = await LinkPage.open(t, core);
  const client = await mcpClient(t, core);
  await toolsOnceThey(client, (list) => list.length === 2);
  const result = await callTool(client, { name: 'add', arguments: { a: 2, b: 3 } });
  assert.deepEqual(result.structuredContent, { sum: 5 });
  assert.deepEqual(result.content, [{ type: 'text', text: '{"sum":5}' }]);
  assert.equal(result.isError, undefined);
  const call = await page.frame((f) => f.type === 'call');
  assert.deepEqual(call.args, { a: 2, b: 3 });
});

test('the page’s error is an isError result naming its code and message', async (t) => {
  const core = await mcpCore(t);
  const message = 'Invalid args at /a: expected number';
  await LinkPage.open(t, core, { answer: () => ({ ok: false, error: { code: 'TOOL_ARGS_INVALID', message } }) });
  const client = await mcpClient(t, core);
  await toolsOnceThey(client, (list) => list.length === 2);
  const result = await callTool(client, { name: 'add', arguments: { a: 'x' } });
  assert.equal(result.isError, true);
  assert.equal(textOf(result), `TOOL_ARGS_INVALID: ${message}`);
  // And whole, as structured content (WebMCP's answer has the text only).
  assert.deepEqual(result.structuredContent, { error: { code: 'TOOL_ARGS_INVALID', message } });
  await assert.rejects(callTool(client, { name: 'nope', arguments: {} }), /Unknown tool: nope/);
});

test('list_changed goes to the client when a page changes its tools, joins or leaves', async (t) => {
  const core = await mcpCore(t);
  const page = await LinkPage.open(t, core);
  const client = await mcpClient(t, core);
  await toolsOnceThey(client, (list) => list.length === 2);
  let changes = 0;
  let changed: (() => void) | undefined;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
    changed?.();
  });
  const nextChange = () => new Promise<void>((resolve) => (changed = resolve));
  // The GET stream that carries notifications opens after initialize: wait until a change gets through.
  let arrived = nextChange();
  page.publish([]);
  await arrived;
  assert.deepEqual(names((await client.listTools()).tools), ['pedelec_pages']);
  arrived = nextChange();
  page.socket.close();
  await arrived;
  assert.ok(changes >= 2);
});

test('cancelling a call sends the page a cancel for it', async (t) => {
  const core = await mcpCore(t);
  const page = await LinkPage.open(t, core, { answer: () => undefined }); // never answers
  const client = await mcpClient(t, core);
  await toolsOnceThey(client, (list) => list.length === 2);
  const controller = new AbortController();
  const call = callTool(client, { name: 'add', arguments: { a: 1, b: 1 } }, undefined, { signal: controller.signal });
  const sent = await page.frame((f) => f.type === 'call');
  controller.abort();
  await assert.rejects(call);
  const cancel = await page.frame((f) => f.type === 'cancel');
  assert.equal(cancel.id, sent.id);
});

test('a page that goes away during a call answers it "page gone"', async (t) => {
  const core = await mcpCore(t);
  const page = await LinkPage.open(t, core, { answer: () => undefined });
  const client = await mcpClient(t, core);
  await toolsOnceThey(client, (list) => list.length === 2);
  const call = callTool(client, { name: 'add', arguments: { a: 1, b: 1 } });
  await page.frame((f) => f.type === 'call');
  page.socket.close();
  const result = await call;
  assert.equal(result.isError, true);
  assert.match(textOf(result), /^PAGE_GONE: page gone/);
});

test('two pages with one tool name: <name>__<label>, numbered labels, and pedelec_pages lists both', async (t) => {
  const core = await mcpCore(t);
  await LinkPage.open(t, core, { label: 'shop', title: 'One' });
  await LinkPage.open(t, core, { label: 'shop', title: 'Two', tools: [ADD, { ...ADD, name: 'only.here' }] });
  const client = await mcpClient(t, core);
  const tools = await toolsOnceThey(client, (list) => list.length === 4);
  assert.deepEqual(names(tools), ['add__shop', 'add__shop_2', 'only_here', 'pedelec_pages']);
  const pages = (await callTool(client, { name: 'pedelec_pages', arguments: {} })).structuredContent!
    .pages as Message[];
  assert.deepEqual(
    pages.map((p) => [p.label, p.title, p.origin, p.tools]),
    [
      ['shop', 'One', PAGE_ORIGIN, ['add__shop']],
      ['shop_2', 'Two', PAGE_ORIGIN, ['add__shop_2', 'only_here']],
    ],
  );
  const result = await callTool(client, { name: 'add__shop_2', arguments: { a: 1, b: 2 } });
  assert.deepEqual(result.structuredContent, { sum: 3 });
});

test('a link of another version is closed with 4400 and a reason', async (t) => {
  const core = await mcpCore(t);
  const page = await LinkPage.open(t, core, { version: 2 });
  const closed = await closeOf(page.socket);
  assert.equal(closed.code, 4400);
  assert.match(closed.reason, /page link version 1, not 2/);
});

test('/mcp refuses a foreign Origin, a foreign Host, and a missing or wrong token — without OAuth metadata', async (t) => {
  const core = await mcpCore(t);
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  const headers = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    Authorization: `Bearer ${TOKEN}`,
  };
  // An undefined header is not sent (rawHttp leaves it out).
  const post = (extra: Record<string, string | undefined>) =>
    rawHttp(core, '/mcp', { method: 'POST', headers: { ...headers, ...extra }, body: initialize });
  const foreign = await post({ Origin: 'https://evil.example' });
  assert.equal(foreign.status, 403);
  assert.match(foreign.body, /Origin not allowed/);
  assert.equal((await post({ Host: 'evil.example' })).status, 403);
  for (const authorization of [undefined, 'Bearer wrong', `Basic ${TOKEN}`]) {
    const refused = await post({ Authorization: authorization });
    assert.equal(refused.status, 401, String(authorization));
    assert.equal(refused.headers['www-authenticate'], undefined);
  }
  assert.equal((await post({ Origin: PAGE_ORIGIN })).status, 200, 'an allowed Origin with the token');
  assert.equal((await post({})).status, 200, 'no Origin (a desktop client) with the token');
  await assert.rejects(mcpClient(t, core, { token: 'wrong' }));
});

test('the token file: written readable by the user only, reused at the next start', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-token-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'sub', '7717.token');
  const first = await startCore(t, { mcp: true, mcpTokenFile: file });
  assert.match(first.mcpToken ?? '', /^[0-9a-f]{32}$/);
  assert.equal(first.mcpTokenFile, file);
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  assert.equal((await readFile(file, 'utf8')).trim(), first.mcpToken);
  await first.close();
  const second = await startCore(t, { mcp: true, mcpTokenFile: (port) => (port > 0 ? file : 'unused') });
  assert.equal(second.mcpToken, first.mcpToken, 'reused');
  await writeFile(file, 'not a token');
  const third = await startCore(t, { mcp: true, mcpTokenFile: file });
  assert.notEqual(third.mcpToken, first.mcpToken, 'a file without a token gets a new one');
  assert.equal((await readFile(file, 'utf8')).trim(), third.mcpToken);
});

test('--mcp-approval prompt: a call waits for the operator in the inspector; a refusal is an isError result', async (t) => {
  const core = await mcpCore(t, { mcpApproval: 'prompt' });
  await LinkPage.open(t, core, { title: 'Shop' });
  const inspector = new WebSocket(
    `${core.url.replace(/^http/, 'ws')}/_pedelec/inspector/socket?token=${core.inspectorToken}`,
    {
      origin: core.url,
    },
  );
  t.after(() => inspector.close());
  const prompts: Message[] = [];
  const log: string[] = [];
  let prompted: (() => void) | undefined;
  inspector.on('message', (data: RawData) => {
    const message = JSON.parse(data.toString()) as Message;
    if (message.type === 'approval_requested') {
      prompts.push(message.prompt);
      prompted?.();
    }
    if (message.type === 'log') log.push(message.entry.text);
  });
  await new Promise((resolve) => inspector.once('open', resolve));
  const client = await mcpClient(t, core, { name: 'approval-test' });
  await toolsOnceThey(client, (list) => list.length === 2);
  const nextPrompt = () => new Promise<void>((resolve) => (prompted = resolve));

  let asked = nextPrompt();
  let settled = false;
  const approved = callTool(client, { name: 'add', arguments: { a: 1, b: 2 } }).finally(() => (settled = true));
  await asked;
  assert.deepEqual([prompts[0].call.client, prompts[0].call.tool], ['approval-test', 'add']);
  assert.match(prompts[0].call.page, /^Shop \(p[0-9a-f]{8}\)$/);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(settled, false, 'the call waits for the operator');
  inspector.send(JSON.stringify({ type: 'approve', id: prompts[0].id, approved: true }));
  assert.deepEqual((await approved).structuredContent, { sum: 3 });

  asked = nextPrompt();
  const refused = callTool(client, { name: 'add', arguments: { a: 1, b: 2 } });
  await asked;
  inspector.send(JSON.stringify({ type: 'approve', id: prompts[1].id, approved: false }));
  const result = await refused;
  assert.equal(result.isError, true);
  assert.equal(textOf(result), 'APPROVAL_REJECTED: The operator did not approve this call');
  // Every MCP call is in the inspector's log, with the client's name.
  const calls = log.filter((text) => text.startsWith('MCP call'));
  assert.equal(calls.length, 2, calls.join('\n'));
  assert.match(calls[0], /^MCP call add by approval-test: answered in \d+ ms$/);
  assert.match(calls[1], /^MCP call add by approval-test: error in \d+ ms$/);
});
