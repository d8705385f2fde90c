// Pages at their bounds do not starve a well-behaved client (agents-2026 §4): 40 pages from three
// origins each publish the most tools a page may (512, long descriptions), again and again, and answer
// every call with a large result, while an MCP client calls a small page's tool over and over; each of
// its calls is answered within a second. The Core runs in its own process, so the client's clock is not
// the server's. Every loop here is bounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MAX_PAGE_TOOLS } from '../../src/mcp/page-link.js';
import { ADD, LinkPage, startCoreChild, untilAnswer, type LinkTool } from '../helpers.js';

const PAGES = 40;
const ORIGINS = ['http://localhost:5173', 'http://127.0.0.1:5173', 'http://localhost:5174'];
/** How often each busy page publishes its whole tool list again. */
const REPUBLISH = 3;
const CLIENT_CALLS = 30;
const ANSWERED_WITHIN_MS = 1000;

test(`${PAGES} pages at their bounds: a well-behaved client's calls are each answered within ${ANSWERED_WITHIN_MS} ms`, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'link-load-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const tokenFile = join(dir, 'token');
  const core = await startCoreChild(t, { mcp: true, mcpTokenFile: tokenFile }, { heapMb: 512 });
  const token = (await readFile(tokenFile, 'utf8')).trim();

  const small = await LinkPage.open(t, core, { label: 'small', tools: [{ ...ADD, name: 'small_add' }] });
  const client = new Client({ name: 'load-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${core.port}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  t.after(() => client.close());
  await untilAnswer(
    async () => (await client.listTools()).tools,
    (tools) => tools.some((tool) => tool.name === 'small_add'),
    'the small page listed',
    { timeoutMs: 5000, everyMs: 20 },
  );

  const description = 'A tool of a page at its bounds. '.repeat(60); // about 2 KB
  const busyTools = (page: number): LinkTool[] =>
    Array.from({ length: MAX_PAGE_TOOLS }, (_, i) => ({ ...ADD, name: `busy_${page}_${i}`, description }));
  const result = { ok: true, result: { text: 'r'.repeat(1024 * 1024) } };
  const busy = await Promise.all(
    Array.from({ length: PAGES }, (_, page) =>
      LinkPage.open(t, core, {
        label: `busy${page}`,
        origin: ORIGINS[page % ORIGINS.length],
        tools: busyTools(page),
        answer: () => result,
      }),
    ),
  );
  // Each page's frame made once: the pages' side of the load is sending it, not building it.
  const frames = busy.map((_, page) => JSON.stringify({ type: 'tools', tools: busyTools(page) }));
  const load = (async () => {
    for (let round = 0; round < REPUBLISH; round++) {
      for (const [page, link] of busy.entries()) link.socket.send(frames[page]);
      // Each busy page's tool called with a 1 MiB answer, in parallel with the client below.
      await Promise.all(
        busy
          .slice(0, 10)
          .map((_, page) => client.callTool({ name: `busy_${page}_0`, arguments: { a: 1, b: 1 } }).catch(() => null)),
      );
    }
  })();

  const slowest = { ms: 0 };
  for (let i = 0; i < CLIENT_CALLS; i++) {
    const started = performance.now();
    const answer = (await client.callTool({ name: 'small_add', arguments: { a: i, b: 1 } })) as CallToolResult;
    slowest.ms = Math.max(slowest.ms, performance.now() - started);
    assert.deepEqual(answer.structuredContent, { sum: i + 1 });
  }
  await load;
  t.diagnostic(`the slowest of ${CLIENT_CALLS} calls: ${Math.round(slowest.ms)} ms`);
  assert.ok(slowest.ms < ANSWERED_WITHIN_MS, `the slowest call took ${Math.round(slowest.ms)} ms`);
  assert.equal(small.socket.readyState, small.socket.OPEN);
  assert.equal(core.exit, null, 'the Core still runs');
});
