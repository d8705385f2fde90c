// The MCP page link's bounds (docs/mcp.md, "The page link"; agents-2026 §4): links at once in all and
// per origin, a tool's description, title and schema, a call's answer, an error's message and
// details — each a named constant, and past it a clear reason, never a stalled or broken server.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { DevCore } from '../src/index.js';
import {
  LINKS_FULL_CLOSE_CODE,
  MAX_ANSWER_BYTES,
  MAX_DESCRIPTION_CHARS,
  MAX_ERROR_DETAILS_BYTES,
  MAX_ERROR_MESSAGE_CHARS,
  MAX_LINKS_PER_ORIGIN,
  MAX_SCHEMA_BYTES,
  MAX_TITLE_CHARS,
} from '../src/mcp/page-link.js';
import { ADD, LinkPage, closeOf, startCore, untilAnswer, type LinkAnswer, type LinkTool } from './helpers.js';

const TOKEN = 'bounds-token-0123456789abcdef';

async function client(t: TestContext, core: DevCore): Promise<Client> {
  const mcp = new Client({ name: 'bounds-test', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(core.mcpUrl!), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    }),
  );
  t.after(() => mcp.close());
  return mcp;
}

const listedOnce = (mcp: Client, count: number): Promise<Tool[]> =>
  untilAnswer(
    async () => (await mcp.listTools()).tools,
    (tools) => tools.length === count,
    (tools) => `${count} tools; listed ${JSON.stringify(tools?.map((tool) => tool.name))}`,
    { timeoutMs: 5000, everyMs: 20 },
  );

test(`links from one origin past ${MAX_LINKS_PER_ORIGIN} are refused with a reason; another origin still links`, async (t) => {
  const core = await startCore(t, { mcp: true, mcpToken: TOKEN });
  const pages: LinkPage[] = [];
  for (let i = 0; i < MAX_LINKS_PER_ORIGIN; i++) pages.push(await LinkPage.open(t, core, { label: `p${i}` }));
  const extra = await LinkPage.open(t, core, { label: 'one-too-many' });
  const closed = await closeOf(extra.socket);
  assert.equal(closed.code, LINKS_FULL_CLOSE_CODE);
  assert.match(closed.reason, /^pedelec-dev: 16 page links from http:\/\/localhost:5173 are open; close a page first$/);
  const elsewhere = await LinkPage.open(t, core, { label: 'other', origin: 'http://127.0.0.1:5173' });
  const mcp = await client(t, core);
  await listedOnce(mcp, MAX_LINKS_PER_ORIGIN + 2); // every page's add, named by label, and pedelec_pages
  // A place freed is a place taken again.
  pages[0].socket.close();
  await closeOf(pages[0].socket);
  const again = await LinkPage.open(t, core, { label: 'again' });
  await listedOnce(mcp, MAX_LINKS_PER_ORIGIN + 2);
  assert.equal(again.socket.readyState, again.socket.OPEN);
  assert.equal(elsewhere.socket.readyState, elsewhere.socket.OPEN);
});

test('a tool past its description, title or schema bound is left out; the others stay', async (t) => {
  const core = await startCore(t, { mcp: true, mcpToken: TOKEN });
  const big = (n: number) => 'x'.repeat(n);
  const tools = [
    ADD,
    { ...ADD, name: 'wordy', description: big(MAX_DESCRIPTION_CHARS + 1) },
    { ...ADD, name: 'titled', title: big(MAX_TITLE_CHARS + 1) } as LinkTool,
    {
      ...ADD,
      name: 'huge',
      inputSchema: { type: 'object', properties: { a: { type: 'string', description: big(MAX_SCHEMA_BYTES) } } },
    },
    { ...ADD, name: 'at_the_bound', description: big(MAX_DESCRIPTION_CHARS) },
  ];
  await LinkPage.open(t, core, { tools });
  const listed = await listedOnce(await client(t, core), 3);
  assert.deepEqual(listed.map((tool) => tool.name).sort(), ['add', 'at_the_bound', 'pedelec_pages']);
});

test('an answer past its bound is refused; a long error message is cut, large details left out', async (t) => {
  const core = await startCore(t, { mcp: true, mcpToken: TOKEN });
  const answers: Record<string, ReturnType<LinkAnswer>> = {
    large: { ok: true, result: { text: 'y'.repeat(MAX_ANSWER_BYTES) } },
    long_message: {
      ok: false,
      error: { code: 'TOOL_HANDLER_ERROR', message: 'z'.repeat(MAX_ERROR_MESSAGE_CHARS + 10) },
    },
    big_details: {
      ok: false,
      error: { code: 'TOOL_HANDLER_ERROR', message: 'failed', details: { dump: 'd'.repeat(MAX_ERROR_DETAILS_BYTES) } },
    },
  };
  await LinkPage.open(t, core, {
    tools: Object.keys(answers).map((name) => ({ ...ADD, name })),
    answer: (call) => answers[call.tool as string],
  });
  const mcp = await client(t, core);
  await listedOnce(mcp, 4);
  const call = async (name: string) => (await mcp.callTool({ name, arguments: {} })) as CallToolResult;

  const large = await call('large');
  assert.equal(large.isError, true);
  assert.match((large.content[0] as { text: string }).text, /^PAGE_ANSWER_TOO_LARGE: The page's answer is \d+ bytes/);
  assert.equal((large.structuredContent!.error as { source: string }).source, 'pedelec-dev');

  const cut = (await call('long_message')).structuredContent!.error as { message: string };
  assert.equal(cut.message, `${'z'.repeat(MAX_ERROR_MESSAGE_CHARS)}…`);

  const left = (await call('big_details')).structuredContent!.error as { message: string; details?: unknown };
  assert.equal(left.details, undefined);
  assert.equal(left.message, `failed (its details were longer than ${MAX_ERROR_DETAILS_BYTES} bytes, and left out)`);
});
