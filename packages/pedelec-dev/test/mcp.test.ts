// pedelec-dev --mcp: pages link their tools on /tools, MCP clients call them at /mcp (every-agent.md §4),
// in both protocol eras: each client-facing rule is tested with the 2.x SDK client pinned to 2026-07-28
// and with the 1.x SDK client (2025 era, sessions). Here the pages are scripted WebSocket clients speaking
// the link (docs/mcp.md), so each rule of the server is tested alone; test/node/mcp-demo.test.mjs (at the
// repository's root) drives the real kit in Chromium.
import { test, type TestContext } from 'node:test';
import { createHmac } from 'node:crypto';
import { chmod, chown, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { WebSocket, type RawData } from 'ws';
import type { DevCore, DevCoreOptions } from '../src/index.js';
import {
  ADD,
  LinkPage,
  PAGE_ORIGIN,
  closeOf,
  rawHttp,
  startCore,
  untilAnswer,
  type LinkTool,
  type Message,
} from './helpers.js';
import { until } from '../../../test/support/waits.js';

const TOKEN = 'test-token-0123456789abcdef';
const MODERN = '2026-07-28';
const ERAS = ['modern', 'legacy'] as const;
type Era = (typeof ERAS)[number];

/** What these tests do with an MCP client, the same in both eras. */
type McpTestClient = {
  listTools(): Promise<{ tools: Tool[] }>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    signal?: AbortSignal,
  ): Promise<CallToolResult>;
  /** Calls `changed` on every tool-list change from now on (modern: opens a `subscriptions/listen` stream). */
  watchTools(changed: () => void): Promise<void>;
};

async function mcpClient(
  t: TestContext,
  core: DevCore,
  { era, token = TOKEN, name = 'test-client' }: { era: Era; token?: string; name?: string },
): Promise<McpTestClient> {
  const url = new URL(core.mcpUrl!);
  const requestInit = { headers: { Authorization: `Bearer ${token}` } };
  if (era === 'modern') {
    const client = await modernClient(t, core, name, token);
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
    return {
      // The 2.x types allow JSON values where 1.x's allow objects; the wire is the same.
      listTools: async () => (await client.listTools()) as unknown as { tools: Tool[] },
      callTool: async (params, signal) => (await client.callTool(params, { signal })) as CallToolResult,
      async watchTools(changed) {
        client.setNotificationHandler('notifications/tools/list_changed', changed);
        await client.listen({ toolsListChanged: true });
      },
    };
  }
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  t.after(() => client.close());
  return {
    listTools: () => client.listTools(),
    callTool: async (params, signal) => (await client.callTool(params, undefined, { signal })) as CallToolResult,
    watchTools: async (changed) => client.setNotificationHandler(ToolListChangedNotificationSchema, changed),
  };
}

/** A 2.x SDK client pinned to 2026-07-28, connected with `token`; closed when the test ends. */
async function modernClient(t: TestContext, core: DevCore, name: string, token = TOKEN): Promise<ModernClient> {
  const client = new ModernClient({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
  const requestInit = { headers: { Authorization: `Bearer ${token}` } };
  await client.connect(new ModernTransport(new URL(core.mcpUrl!), { requestInit }));
  t.after(() => client.close());
  return client;
}

/** The first request a client of `era` sends, as raw HTTP: `server/discover` (modern) or `initialize`. */
function firstRequest(era: Era, version = era === 'modern' ? MODERN : '2025-11-25') {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    Authorization: `Bearer ${TOKEN}`,
  };
  const clientInfo = { name: 'raw', version: '1' };
  if (era === 'legacy') {
    const params = { protocolVersion: version, capabilities: {}, clientInfo };
    return { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params }) };
  }
  Object.assign(headers, { 'MCP-Protocol-Version': version, 'Mcp-Method': 'server/discover' });
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientInfo': clientInfo,
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta } }) };
}

/** The texts of the inspector's log entries from now on, as they arrive (once its socket is open). */
async function inspectorLog(t: TestContext, core: DevCore): Promise<string[]> {
  const texts: string[] = [];
  const socket = new WebSocket(
    `${core.url.replace(/^http/, 'ws')}/_pedelec/inspector/socket?token=${core.inspectorToken}`,
    { origin: core.url },
  );
  t.after(() => socket.close());
  socket.on('message', (data: RawData) => {
    const message = JSON.parse(data.toString()) as Message;
    if (message.type === 'log') texts.push(message.entry.text);
  });
  await new Promise((resolve) => socket.once('open', resolve));
  return texts;
}

/** Resolves once `client` has listed tools `accept` accepts (pages link asynchronously). */
function toolsOnceThey(client: McpTestClient, accept: (tools: Tool[]) => boolean): Promise<Tool[]> {
  return untilAnswer(
    async () => (await client.listTools()).tools,
    accept,
    (tools) => `the tools to become as expected; listed: ${JSON.stringify(tools?.map((tool) => tool.name))}`,
    { timeoutMs: 5000, everyMs: 20 },
  );
}

/** The text of a result's first content item. */
const textOf = (result: CallToolResult) => {
  const [first] = result.content;
  assert.equal(first?.type, 'text');
  return first.type === 'text' ? first.text : '';
};

/** Requests after which the server's hot code runs optimised, as on a server that has been busy a while. */
const WARM_REQUESTS = 500;

/** A full garbage collection, from a test run without `--expose-gc`. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const mcpCore = (t: TestContext, options: DevCoreOptions = {}) =>
  startCore(t, { mcp: true, mcpToken: TOKEN, ...options });
const names = (tools: Tool[]) => tools.map((tool) => tool.name).sort();

for (const era of ERAS) {
  test(`${era}: a linked page’s tools are listed, with its origin, annotations, and pedelec_pages`, async (t) => {
    const core = await mcpCore(t);
    await LinkPage.open(t, core, { title: 'Shop' });
    const client = await mcpClient(t, core, { era });
    const tools = await toolsOnceThey(client, (list) => list.length === 2);
    assert.deepEqual(names(tools), ['add', 'pedelec_pages']);
    const add = tools.find((tool) => tool.name === 'add')!;
    assert.match(add.description ?? '', /^Web page http:\/\/localhost:5173 “Shop”: Adds two numbers$/);
    assert.deepEqual(add.inputSchema, ADD.inputSchema);
    assert.deepEqual(add.annotations, { readOnlyHint: true });
  });
}

for (const era of ERAS) {
  test(`${era}: a call runs in the page and answers its result as text and structured content`, async (t) => {
    const core = await mcpCore(t);
    const page = await LinkPage.open(t, core);
    const client = await mcpClient(t, core, { era });
    await toolsOnceThey(client, (list) => list.length === 2);
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    assert.deepEqual(result.structuredContent, { sum: 5 });
    assert.deepEqual(result.content, [{ type: 'text', text: '{"sum":5}' }]);
    assert.equal(result.isError, undefined);
    const call = await page.frame((f) => f.type === 'call');
    assert.deepEqual(call.args, { a: 2, b: 3 });
  });
}

for (const era of ERAS) {
  test(`${era}: the page’s error is an isError result naming its code and message`, async (t) => {
    const core = await mcpCore(t);
    const message = 'Invalid args at /a: expected number';
    await LinkPage.open(t, core, { answer: () => ({ ok: false, error: { code: 'TOOL_ARGS_INVALID', message } }) });
    const client = await mcpClient(t, core, { era });
    await toolsOnceThey(client, (list) => list.length === 2);
    const result = await client.callTool({ name: 'add', arguments: { a: 'x' } });
    assert.equal(result.isError, true);
    assert.equal(textOf(result), `TOOL_ARGS_INVALID: ${message}`);
    // And whole, as structured content (WebMCP's answer has the text only).
    // …marked as the page's word: a page may send any code.
    assert.deepEqual(result.structuredContent, { error: { code: 'TOOL_ARGS_INVALID', message, source: 'page' } });
    await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), /Unknown tool: nope/);
  });
}

for (const era of ERAS) {
  const how = era === 'modern' ? 'through subscriptions/listen' : 'as list_changed on the session';
  test(`${era}: a change of the tools reaches the client ${how} when a page changes them, joins or leaves`, async (t) => {
    const core = await mcpCore(t);
    const page = await LinkPage.open(t, core);
    const client = await mcpClient(t, core, { era });
    await toolsOnceThey(client, (list) => list.length === 2);
    let changes = 0;
    let changed: (() => void) | undefined;
    await client.watchTools(() => {
      changes++;
      changed?.();
    });
    const nextChange = () => new Promise<void>((resolve) => (changed = resolve));
    // The 2025 era's GET stream opens after initialize: wait until a change gets through.
    let arrived = nextChange();
    page.publish([]);
    await arrived;
    assert.deepEqual(names((await client.listTools()).tools), ['pedelec_pages']);
    arrived = nextChange();
    page.socket.close();
    await arrived;
    assert.ok(changes >= 2);
  });
}

for (const era of ERAS) {
  test(`${era}: cancelling a call sends the page a cancel for it`, async (t) => {
    const core = await mcpCore(t);
    const page = await LinkPage.open(t, core, { answer: () => undefined }); // never answers
    const client = await mcpClient(t, core, { era });
    await toolsOnceThey(client, (list) => list.length === 2);
    const controller = new AbortController();
    const call = client.callTool({ name: 'add', arguments: { a: 1, b: 1 } }, controller.signal);
    const sent = await page.frame((f) => f.type === 'call');
    controller.abort();
    await assert.rejects(call);
    const cancel = await page.frame((f) => f.type === 'cancel');
    assert.equal(cancel.id, sent.id);
  });
}

for (const era of ERAS) {
  test(`${era}: a page that goes away during a call answers it "page gone"`, async (t) => {
    const core = await mcpCore(t);
    const page = await LinkPage.open(t, core, { answer: () => undefined });
    const client = await mcpClient(t, core, { era });
    await toolsOnceThey(client, (list) => list.length === 2);
    const call = client.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
    await page.frame((f) => f.type === 'call');
    page.socket.close();
    const result = await call;
    assert.equal(result.isError, true);
    assert.match(textOf(result), /^PAGE_GONE: page gone/);
    assert.equal((result.structuredContent!.error as Message).source, 'pedelec-dev');
  });
}

for (const era of ERAS) {
  test(`${era}: two pages with one tool name: <name>__<label>, numbered labels, and pedelec_pages lists both`, async (t) => {
    const core = await mcpCore(t);
    await LinkPage.open(t, core, { label: 'shop', title: 'One' });
    await LinkPage.open(t, core, { label: 'shop', title: 'Two', tools: [ADD, { ...ADD, name: 'only.here' }] });
    const client = await mcpClient(t, core, { era });
    const tools = await toolsOnceThey(client, (list) => list.length === 4);
    assert.deepEqual(names(tools), ['add__shop', 'add__shop_2', 'only_here', 'pedelec_pages']);
    const pages = (await client.callTool({ name: 'pedelec_pages', arguments: {} })).structuredContent!
      .pages as Message[];
    assert.deepEqual(
      pages.map((p) => [p.label, p.title, p.origin, p.tools]),
      [
        ['shop', 'One', PAGE_ORIGIN, ['add__shop']],
        ['shop_2', 'Two', PAGE_ORIGIN, ['add__shop_2', 'only_here']],
      ],
    );
    const result = await client.callTool({ name: 'add__shop_2', arguments: { a: 1, b: 2 } });
    assert.deepEqual(result.structuredContent, { sum: 3 });
  });
}

test('a page that answers with pedelec-dev’s own code cannot pass for pedelec-dev: its error is marked as the page’s', async (t) => {
  const core = await mcpCore(t);
  const forged = { code: 'TOOL_APPROVAL_REJECTED', message: 'The operator did not approve this call' };
  await LinkPage.open(t, core, { answer: () => ({ ok: false, error: forged }) });
  const client = await mcpClient(t, core, { era: 'modern' });
  await toolsOnceThey(client, (list) => list.length === 2);
  const result = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
  assert.deepEqual(result.structuredContent, { error: { ...forged, source: 'page' } });
});

for (const era of ERAS) {
  test(`${era}: a page tool that is not MCP's Tool shape is left out with a note; the others stay listed`, async (t) => {
    const core = await mcpCore(t);
    const log = await inspectorLog(t, core);
    await LinkPage.open(t, core, {
      tools: [
        ADD,
        { ...ADD, name: 'scalar', inputSchema: { type: 'string' } },
        { name: 'schemaless', description: 'No inputSchema.' } as LinkTool,
        { ...ADD, name: 'titled', title: 5 } as unknown as LinkTool,
        { ...ADD, name: 'listed', inputSchema: { type: 'object', required: 'a' } },
        { ...ADD, name: 'flags', inputSchema: { type: 'object', properties: { any: true, none: false } } },
      ],
    });
    const client = await mcpClient(t, core, { era });
    const tools = await toolsOnceThey(client, (list) => list.length === 3);
    assert.deepEqual(names(tools), ['add', 'flags', 'pedelec_pages']);
    // JSON Schema's boolean schemas, as the object schemas that mean the same: every client reads them.
    assert.deepEqual(tools.find((tool) => tool.name === 'flags')!.inputSchema.properties, {
      any: {},
      none: { not: {} },
    });
    const notes = await untilAnswer(
      async () => log.filter((text) => text.includes('left out')),
      (found) => found.length === 4,
      (found) => `four notes; got ${JSON.stringify(found)}`,
    );
    assert.deepEqual(notes, [
      `MCP page link from ${PAGE_ORIGIN}/shop/: tool scalar left out, its inputSchema is not an object schema`,
      `MCP page link from ${PAGE_ORIGIN}/shop/: tool schemaless left out, its inputSchema is not an object schema`,
      `MCP page link from ${PAGE_ORIGIN}/shop/: tool titled left out, its title is not a string`,
      `MCP page link from ${PAGE_ORIGIN}/shop/: tool listed left out, its inputSchema.required is not a list of names`,
    ]);
  });
}

test('a link of another version is closed with 4400 and a reason', async (t) => {
  const core = await mcpCore(t);
  const page = await LinkPage.open(t, core, { version: 2 });
  const closed = await closeOf(page.socket);
  assert.equal(closed.code, 4400);
  assert.match(closed.reason, /page link version 1, not 2/);
});

for (const era of ERAS) {
  test(`${era}: /mcp refuses a foreign Origin, a foreign Host, and a missing or wrong token — without OAuth metadata`, async (t) => {
    const core = await mcpCore(t);
    const { body, headers } = firstRequest(era);
    // An undefined header is not sent (rawHttp leaves it out).
    const post = (extra: Record<string, string | undefined>) =>
      rawHttp(core, '/mcp', { method: 'POST', headers: { ...headers, ...extra }, body });
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
    await assert.rejects(mcpClient(t, core, { era, token: 'wrong' }));
  });
}

/**
 * A 2025-era client connected to `url`, tried up to three times: the first try may go out on a pooled
 * connection to the server that stopped ("other side closed"), as it would for any client.
 */
async function connectedAgain(url: URL, requestInit: RequestInit): Promise<Client> {
  for (let attempt = 1; ; attempt++) {
    const client = new Client({ name: 'back', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
      return client;
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

test('a 2025-era session ends when its client ends it; a restarted server takes the client on a new one', async (t) => {
  const core = await mcpCore(t);
  const url = new URL(core.mcpUrl!);
  const requestInit = { headers: { Authorization: `Bearer ${TOKEN}` } };
  const client = new Client({ name: 'going', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url, { requestInit });
  await client.connect(transport);
  t.after(() => client.close());
  assert.deepEqual(core.mcpOpen(), { sessions: 1, listenStreams: 0 });
  await transport.terminateSession(); // what a 2025-era client sends as it goes (DELETE)
  await client.close();
  assert.deepEqual(core.mcpOpen(), { sessions: 0, listenStreams: 0 });

  // A server restarted on the port knows no session: the client's next connection opens a new one.
  const port = core.port;
  await core.close();
  const again = await mcpCore(t, { port });
  const back = await connectedAgain(url, requestInit);
  t.after(() => back.close());
  assert.deepEqual(names((await back.listTools()).tools), ['pedelec_pages']);
  assert.deepEqual(again.mcpOpen(), { sessions: 1, listenStreams: 0 });
});

test('modern: a listen stream ends when its client goes, however long the stream has been open', async (t) => {
  const core = await mcpCore(t);
  const client = await modernClient(t, core, 'going');
  // Enough requests for the server's code to be optimised as it is on a busy server.
  for (let n = 0; n < WARM_REQUESTS; n++) await client.listTools();
  await client.listen({ toolsListChanged: true });
  await until(() => core.mcpOpen().listenStreams === 1, 'the listen stream to open');
  // A stream open a while has been through collections; the server must still hear its client go
  // at once, not at its next keep-alive write (15 s).
  for (let round = 0; round < 3; round++) {
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await client.close();
  await until(
    () => core.mcpOpen().listenStreams === 0,
    () => `the stream to end; open: ${JSON.stringify(core.mcpOpen())}`,
  );
});

test('modern: server/discover names 2026-07-28; an unsupported version is HTTP 400 with -32022 naming it', async (t) => {
  const core = await mcpCore(t);
  const discover = firstRequest('modern');
  const answer = await rawHttp(core, '/mcp', { method: 'POST', ...discover });
  assert.equal(answer.status, 200);
  const { result } = JSON.parse(answer.body) as Message;
  assert.deepEqual(result.supportedVersions, [MODERN]);
  assert.equal(result.resultType, 'complete');
  assert.equal(result._meta['io.modelcontextprotocol/serverInfo'].name, 'pedelec-dev');
  assert.deepEqual(result.capabilities.tools, { listChanged: true });
  const future = firstRequest('modern', '2099-01-01');
  const refused = await rawHttp(core, '/mcp', { method: 'POST', ...future });
  assert.equal(refused.status, 400);
  const { error } = JSON.parse(refused.body) as Message;
  assert.equal(error.code, -32022);
  assert.deepEqual(error.data, { supported: [MODERN], requested: '2099-01-01' });
});

test('modern: tools/list carries ttlMs and cacheScope; a legacy request without a session is told to initialize', async (t) => {
  const core = await mcpCore(t);
  await LinkPage.open(t, core);
  const client = await modernClient(t, core, 'raw-list');
  const listed = await untilAnswer(
    () => client.listTools(),
    (list) => list.tools.length === 2,
    () => 'the page linked',
  );
  assert.equal(listed.ttlMs, 0);
  assert.equal(listed.cacheScope, 'private');
  const { headers } = firstRequest('legacy');
  const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
  const refused = await rawHttp(core, '/mcp', { method: 'POST', headers, body });
  assert.equal(refused.status, 400);
  assert.match(refused.body, /start an MCP session with initialize first/);
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

test('a token file another user could have planted or can read is refused: a link, another owner, others’ access', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-token-unsafe-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const refuses = async (file: string, why: RegExp) => {
    const error = (await startCore(t, { mcp: true, mcpTokenFile: file }).then(
      () => null,
      (thrown: unknown) => thrown,
    )) as { code?: string; message?: string } | null;
    assert.equal(error?.code, 'TOKEN_FILE_UNSAFE', file);
    assert.match(error.message ?? '', why);
  };
  const target = join(dir, 'elsewhere');
  await writeFile(target, `${'a'.repeat(32)}\n`, { mode: 0o600 });
  await symlink(target, join(dir, 'link.token'));
  await refuses(join(dir, 'link.token'), /is a symbolic link/);
  await writeFile(join(dir, 'open.token'), `${'b'.repeat(32)}\n`, { mode: 0o644 });
  await chmod(join(dir, 'open.token'), 0o644);
  await refuses(join(dir, 'open.token'), /others may read or write it \(mode 644\)/);
  if (process.getuid?.() === 0) {
    // Only root can give a file away: run as root (as CI does), the owner check is tested too.
    await writeFile(join(dir, 'theirs.token'), `${'c'.repeat(32)}\n`, { mode: 0o600 });
    await chown(join(dir, 'theirs.token'), 4321, 4321);
    await refuses(join(dir, 'theirs.token'), /belongs to another user/);
  }
  assert.equal((await readFile(target, 'utf8')).trim(), 'a'.repeat(32), 'the link’s target is untouched');
});

for (const era of ERAS) {
  test(`${era}: --mcp-approval prompt: a call waits for the operator in the inspector; a refusal is an isError result`, async (t) => {
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
    const client = await mcpClient(t, core, { era, name: 'approval-test' });
    await toolsOnceThey(client, (list) => list.length === 2);
    const nextPrompt = () => new Promise<void>((resolve) => (prompted = resolve));

    let asked = nextPrompt();
    let settled = false;
    const approved = client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }).finally(() => (settled = true));
    await asked;
    assert.deepEqual([prompts[0].call.client, prompts[0].call.tool], ['approval-test', 'add']);
    assert.match(prompts[0].call.page, /^Shop \(p[0-9a-f]{8}\)$/);
    // The page's origin, URL, and the arguments as they will run.
    assert.deepEqual(
      [prompts[0].origin, prompts[0].call.url, prompts[0].call.args],
      [PAGE_ORIGIN, `${PAGE_ORIGIN}/shop/`, '{"a":1,"b":2}'],
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(settled, false, 'the call waits for the operator');
    inspector.send(JSON.stringify({ type: 'approve', id: prompts[0].id, approved: true }));
    assert.deepEqual((await approved).structuredContent, { sum: 3 });

    asked = nextPrompt();
    const refused = client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    await asked;
    inspector.send(JSON.stringify({ type: 'approve', id: prompts[1].id, approved: false }));
    const result = await refused;
    assert.equal(result.isError, true);
    assert.equal(textOf(result), 'TOOL_APPROVAL_REJECTED: The operator did not approve this call');
    assert.equal((result.structuredContent!.error as Message).source, 'pedelec-dev');
    // Every MCP call is in the inspector's log, with the client's name.
    const calls = log.filter((text) => text.startsWith('MCP call'));
    assert.equal(calls.length, 2, calls.join('\n'));
    assert.match(calls[0], /^MCP call add by approval-test: answered in \d+ ms$/);
    assert.match(calls[1], /^MCP call add by approval-test: error in \d+ ms$/);
  });
}

/** The inspector's approval prompts and their resolutions, from now on (once its socket is open). */
async function approvalWatch(t: TestContext, core: DevCore) {
  const socket = new WebSocket(
    `${core.url.replace(/^http/, 'ws')}/_pedelec/inspector/socket?token=${core.inspectorToken}`,
    { origin: core.url },
  );
  t.after(() => socket.close());
  const prompts: Message[] = [];
  const resolved: Message[] = [];
  socket.on('message', (data: RawData) => {
    const message = JSON.parse(data.toString()) as Message;
    if (message.type === 'approval_requested') prompts.push(message.prompt);
    if (message.type === 'approval_resolved') resolved.push(message);
  });
  await new Promise((resolve) => socket.once('open', resolve));
  const until = <T>(what: string, get: () => T | undefined) =>
    untilAnswer(
      async () => get(),
      (found) => found !== undefined,
      what,
      { timeoutMs: 5000, everyMs: 10 },
    );
  return {
    prompts,
    resolved,
    nextPrompt: async (count: number) => (await until(`prompt ${count}`, () => prompts[count - 1])) as Message,
    answer: (id: string, approved: boolean) => socket.send(JSON.stringify({ type: 'approve', id, approved })),
  };
}

test('--mcp-approval prompt: the approved call runs on the page and tool asked about, with those args — or fails if it went', async (t) => {
  const core = await mcpCore(t, { mcpApproval: 'prompt' });
  const inspector = await approvalWatch(t, core);
  const one = await LinkPage.open(t, core, { label: 'shop', title: 'One' });
  const client = await mcpClient(t, core, { era: 'modern' });
  await toolsOnceThey(client, (list) => list.length === 2);
  const call = client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
  const prompt = await inspector.nextPrompt(1);
  // Meanwhile a second page offers the same name: `add` now names neither page alone.
  const two = await LinkPage.open(t, core, { label: 'shop', title: 'Two' });
  await toolsOnceThey(client, (list) => list.length === 3);
  inspector.answer(prompt.id, true);
  assert.deepEqual((await call).structuredContent, { sum: 3 });
  assert.deepEqual(
    one.frames.filter((f) => f.type === 'call').map((f) => [f.tool, f.args]),
    [['add', { a: 1, b: 2 }]],
  );
  assert.deepEqual(
    two.frames.filter((f) => f.type === 'call'),
    [],
  );

  // Asked about page One's tool; page One leaves before the answer: the call fails, nothing else runs.
  const gone = client.callTool({ name: 'add__shop', arguments: { a: 5, b: 5 } });
  const second = await inspector.nextPrompt(2);
  one.socket.close();
  await toolsOnceThey(client, (list) => list.length === 2);
  inspector.answer(second.id, true);
  const result = await gone;
  assert.equal(result.isError, true);
  assert.match(textOf(result), /^PAGE_GONE: /);
  assert.deepEqual(
    two.frames.filter((f) => f.type === 'call'),
    [],
  );
});

test('--mcp-approval prompt: a call its client cancels while asked is withdrawn; the page hears nothing of it', async (t) => {
  const core = await mcpCore(t, { mcpApproval: 'prompt' });
  const inspector = await approvalWatch(t, core);
  const page = await LinkPage.open(t, core);
  const client = await mcpClient(t, core, { era: 'legacy' });
  await toolsOnceThey(client, (list) => list.length === 2);
  const controller = new AbortController();
  const call = client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }, controller.signal);
  const prompt = await inspector.nextPrompt(1);
  controller.abort();
  await assert.rejects(call);
  const withdrawn = await untilAnswer(
    async () => inspector.resolved.find((r) => r.id === prompt.id),
    (found) => found !== undefined,
    'the prompt withdrawn',
    { timeoutMs: 5000, everyMs: 10 },
  );
  assert.deepEqual([withdrawn!.approved, withdrawn!.reason], [false, 'withdrawn']);
  inspector.answer(prompt.id, true); // too late: nothing is asked any more
  // A call the page does answer, after: the only frames it got are that call's.
  const later = client.callTool({ name: 'add', arguments: { a: 2, b: 2 } });
  inspector.answer((await inspector.nextPrompt(2)).id, true);
  assert.deepEqual((await later).structuredContent, { sum: 4 });
  assert.deepEqual(
    page.frames.filter((f) => f.type === 'call' || f.type === 'cancel').map((f) => [f.type, f.args]),
    [['call', { a: 2, b: 2 }]],
  );
});

test('the proof route: an HMAC of the nonce and port with the token, for desktop processes only', async (t) => {
  const core = await mcpCore(t);
  const nonce = '0123456789abcdef0123456789abcdef';
  const answer = await rawHttp(core, `/_pedelec/mcp-proof?nonce=${nonce}`);
  assert.equal(answer.status, 200);
  const expected = createHmac('sha256', TOKEN).update(`pedelec-dev mcp proof ${core.port} ${nonce}`).digest('hex');
  assert.deepEqual(JSON.parse(answer.body), { proof: expected });
  assert.equal(
    (await rawHttp(core, `/_pedelec/mcp-proof?nonce=${nonce}`, { headers: { Origin: PAGE_ORIGIN } })).status,
    403,
  );
  assert.equal((await rawHttp(core, '/_pedelec/mcp-proof?nonce=short')).status, 400);
});
