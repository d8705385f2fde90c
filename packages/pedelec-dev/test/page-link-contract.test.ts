// The MCP page link's contract is one, and both ends speak it: the kit's link client (PageLinkClient,
// from pedelec-elements/protocol — the kit's src/ here) against a real pedelec-dev over `ws`, an MCP
// client calling the tool it publishes. Were the link version, a frame or a close code to differ between
// the two packages, the link would not carry the call. And the contract has one definition: pedelec-dev's
// page-link module has none of its own. The client's own logic (retry, refusal, cancel) is tested with
// a fake socket in test/core/page-link-client.test.ts.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { WebSocket } from 'ws';
import {
  isLinkRefusal,
  LINK_REFUSED_CLOSE_CODE,
  PAGE_LINK_VERSION,
  PageLinkClient,
  type CallAnswer,
  type PageLinkHandler,
  type PageTool,
} from 'pedelec-elements/protocol';
import type { PedelecError } from 'pedelec-elements/core';
import * as pageLinkModule from '../src/mcp/page-link.js';
import type { DevCore } from '../src/index.js';
import { closeOf, PAGE_ORIGIN, startCore, untilAnswer } from './helpers.js';

const TOKEN = 'test-token-0123456789abcdef';

const ADD: PageTool = {
  name: 'add',
  description: 'Adds two numbers',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  readOnly: true,
};
const STUCK: PageTool = { name: 'stuck', description: 'Runs until cancelled', inputSchema: { type: 'object' } };
const INVALID = {
  code: 'TOOL_ARGS_INVALID',
  message: 'a: must be a number',
  details: [{ path: 'a', message: 'must be a number' }],
};

type Call = { tool: string; args: unknown; signal: AbortSignal };

/**
 * The kit's link client, linked to `url` over `ws` as a page of PAGE_ORIGIN with the link key `key`:
 * its calls and refusals kept.
 */
function kitLink(t: TestContext, url: string, key: string | null, call?: PageLinkHandler['call']) {
  const calls: Call[] = [];
  let refused: (error: PedelecError) => void = () => {};
  const refusal = new Promise<PedelecError>((resolve) => (refused = resolve));
  const client = new PageLinkClient(
    {
      hello: () => ({ label: 'contract', title: 'Contract', url: `${PAGE_ORIGIN}/contract/`, ...(key && { key }) }),
      tools: () => [ADD, STUCK],
      call(tool, args, signal) {
        calls.push({ tool, args, signal });
        if (call) return call(tool, args, signal);
        const { a, b } = args as { a: number; b: number };
        return Promise.resolve(
          typeof a === 'number' ? { ok: true, result: { sum: a + b } } : { ok: false, error: INVALID },
        );
      },
      refused: (error) => refused(error),
    },
    (socketUrl) => new WebSocket(socketUrl, { origin: PAGE_ORIGIN }),
  );
  t.after(() => client.close());
  client.connect(url);
  return { client, calls, refusal };
}

async function mcpClient(t: TestContext, core: DevCore): Promise<Client> {
  const client = new Client({ name: 'contract-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(core.mcpUrl!), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    }),
  );
  t.after(() => client.close());
  return client;
}

/** The tools the client lists, once the page's are among them (the page links asynchronously). */
const listedOnce = (client: Client, name: string): Promise<Tool[]> =>
  untilAnswer(
    async () => (await client.listTools()).tools,
    (tools) => tools.some((tool) => tool.name === name),
    (tools) => `${name} to be listed; listed: ${JSON.stringify(tools?.map((tool) => tool.name))}`,
    { timeoutMs: 5000, everyMs: 20 },
  );

test('the kit’s link client publishes to pedelec-dev, and an MCP call runs in it and comes back', async (t) => {
  const core = await startCore(t, { mcp: true, mcpToken: TOKEN });
  const link = kitLink(t, core.toolsUrl!, core.mcpLinkKey);
  const client = await mcpClient(t, core);
  const tools = await listedOnce(client, 'add');
  const add = tools.find((tool) => tool.name === 'add')!;
  assert.deepEqual(add.inputSchema, ADD.inputSchema);
  assert.deepEqual(add.annotations, { readOnlyHint: true });
  assert.match(add.description ?? '', /^Web page http:\/\/localhost:5173 “Contract”: Adds two numbers$/);

  const result = (await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })) as CallToolResult;
  assert.deepEqual(result.structuredContent, { sum: 5 });
  assert.deepEqual(result.content, [{ type: 'text', text: '{"sum":5}' }]);
  assert.deepEqual(
    link.calls.map(({ tool, args }) => [tool, args]),
    [['add', { a: 2, b: 3 }]],
  );

  // The page's error, whole: its code and message as text, and its details.
  const failed = (await client.callTool({ name: 'add', arguments: { a: 'x', b: 1 } })) as CallToolResult;
  assert.equal(failed.isError, true);
  assert.deepEqual(failed.content, [{ type: 'text', text: `${INVALID.code}: ${INVALID.message}` }]);
  assert.deepEqual(failed.structuredContent, { error: { ...INVALID, source: 'page' } });

  // Who the page said it is, in its hello.
  const pages = (await client.callTool({ name: 'pedelec_pages', arguments: {} })) as CallToolResult;
  assert.deepEqual(pages.structuredContent, {
    pages: [
      {
        label: 'contract',
        origin: PAGE_ORIGIN,
        title: 'Contract',
        url: `${PAGE_ORIGIN}/contract/`,
        tools: ['add', 'stuck'],
      },
    ],
  });
});

test('an MCP client’s cancel reaches the kit’s link client: the call’s signal aborts', async (t) => {
  const core = await startCore(t, { mcp: true, mcpToken: TOKEN });
  let started: (call: Call) => void = () => {};
  const running = new Promise<Call>((resolve) => (started = resolve));
  let aborted: (reason: unknown) => void = () => {};
  const abort = new Promise<unknown>((resolve) => (aborted = resolve));
  kitLink(t, core.toolsUrl!, core.mcpLinkKey, (tool, args, signal) => {
    started({ tool, args, signal });
    signal.addEventListener('abort', () => aborted(signal.reason));
    return new Promise<CallAnswer>(() => {});
  });
  const client = await mcpClient(t, core);
  await listedOnce(client, 'stuck');
  const controller = new AbortController();
  const call = client.callTool({ name: 'stuck', arguments: {} }, undefined, { signal: controller.signal });
  assert.equal((await running).tool, 'stuck');
  controller.abort();
  await assert.rejects(call);
  assert.deepEqual(await abort, { code: 'ABORTED', message: 'The MCP client cancelled the call' });
});

test('pedelec-dev without --mcp refuses the kit’s link with the shared close code: one MCP_LINK_REFUSED', async (t) => {
  const core = await startCore(t);
  const url = core.bridgeUrl.replace(/\/bridge$/, '/tools');
  const link = kitLink(t, url, null);
  const error = await link.refusal;
  assert.equal(error.code, 'MCP_LINK_REFUSED');
  assert.match(error.message, /--mcp/);
  assert.deepEqual(error.details, {
    url,
    reason: 'pedelec-dev: start it with --mcp to link pages on /tools',
    code: LINK_REFUSED_CLOSE_CODE,
  });
  assert.equal(link.client.url, null, 'not tried again');
});

test('a link without the link key, or with a wrong one, is refused: one MCP_LINK_REFUSED naming the fix', async (t) => {
  const core = await startCore(t, { mcp: true, mcpToken: TOKEN });
  for (const key of [null, 'f'.repeat(32)]) {
    const link = kitLink(t, core.toolsUrl!, key);
    const error = await link.refusal;
    assert.equal(error.code, 'MCP_LINK_REFUSED');
    const missing = key === null ? 'no link key' : 'wrong link key';
    assert.equal(
      (error.details as { reason: string }).reason,
      `pedelec-dev: ${missing}; set mcpKey to the key pedelec-dev printed, or start it with --mcp-open-links`,
    );
    assert.equal(link.client.url, null, 'not tried again');
  }
  const client = await mcpClient(t, core);
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((tool) => tool.name),
    ['pedelec_pages'],
    'no page tool was offered',
  );
});

test('the link key is derived from the token: it outlives a restart with the same token, and reveals nothing of it', async (t) => {
  const first = await startCore(t, { mcp: true, mcpToken: TOKEN });
  const second = await startCore(t, { mcp: true, mcpToken: TOKEN });
  const other = await startCore(t, { mcp: true, mcpToken: 'b'.repeat(32) });
  assert.match(first.mcpLinkKey!, /^[0-9a-f]{32}$/);
  assert.equal(second.mcpLinkKey, first.mcpLinkKey);
  assert.notEqual(other.mcpLinkKey, first.mcpLinkKey);
  assert.notEqual(first.mcpLinkKey, TOKEN);
});

test('with --mcp-open-links a page links its tools without a key', async (t) => {
  const core = await startCore(t, { mcp: true, mcpToken: TOKEN, mcpOpenLinks: true });
  kitLink(t, core.toolsUrl!, null);
  const client = await mcpClient(t, core);
  await listedOnce(client, 'add');
});

test('pedelec-dev refuses another link version with the shared close code, which the page reads as a refusal', async (t) => {
  const core = await startCore(t, { mcp: true, mcpToken: TOKEN });
  const socket = new WebSocket(core.toolsUrl!, { origin: PAGE_ORIGIN });
  t.after(() => socket.close());
  const closed = closeOf(socket);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const other = PAGE_LINK_VERSION + 1;
  socket.send(JSON.stringify({ type: 'hello', version: other, title: 'Old', url: `${PAGE_ORIGIN}/` }));
  const { code, reason } = await closed;
  assert.equal(code, LINK_REFUSED_CLOSE_CODE);
  assert.ok(isLinkRefusal(code));
  assert.equal(reason, `pedelec-dev speaks page link version ${PAGE_LINK_VERSION}, not ${other}`);
});

test('the contract has one definition: pedelec-dev’s page link module and the kit’s element define none of it', () => {
  for (const name of ['PAGE_LINK_VERSION', 'LINK_REFUSED_CLOSE_CODE'])
    assert.equal(name in pageLinkModule, false, `page-link.ts exports no ${name} of its own`);
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const sources = ['src', 'packages/pedelec-dev/src'].flatMap((folder) =>
    readdirSync(`${root}${folder}`, { recursive: true })
      .map((name) => `${folder}/${String(name).split('\\').join('/')}`)
      .filter((path) => path.endsWith('.ts')),
  );
  const definitions = sources.flatMap((path) =>
    [
      ...readFileSync(`${root}${path}`, 'utf8').matchAll(
        // A declaration (`= …`, `: …`, `<…>`, `{ … }` follow its name), not an import of it.
        /\b(?:const|let|var|type|interface)\s+(PAGE_LINK_VERSION|LINK_REFUSED_CLOSE_CODE|PageTool|CallAnswer)\s*[=:<{]/g,
      ),
    ].map((match) => `${match[1]} in ${path}`),
  );
  assert.deepEqual(definitions.sort(), [
    'CallAnswer in src/core/page-link-contract.ts',
    'LINK_REFUSED_CLOSE_CODE in src/core/page-link-contract.ts',
    'PAGE_LINK_VERSION in src/core/page-link-contract.ts',
    'PageTool in src/core/page-link-contract.ts',
  ]);
});
