// Busy pages do not starve a well-behaved client (agents-2026 §4): 40 pages from three origins each
// publish the most tools a page may (512, each with a 1 KB description: 0.6 MB a list), again and again,
// and answer every call with 1 MiB while a busy MCP client calls them; meanwhile a well-behaved
// client calls a small page's tool over and over, and each of its calls is answered within a second.
// The Core runs in its own process and the busy side in a worker thread, so what is timed is the
// Core's fairness, not this thread's own load. Every loop here is bounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MAX_PAGE_TOOLS } from '../../src/mcp/page-link.js';
import { ADD, LinkPage, startCoreChild, untilAnswer } from '../helpers.js';

const PAGES = 40;
const REPUBLISH = 3;
const BUSY_CALLS_PER_ROUND = 10;
const CLIENT_CALLS = 30;
const ANSWERED_WITHIN_MS = 1000;

/**
 * The busy side, in a worker (CommonJS, `ws` only): the 40 pages, publishing their tool list
 * `republish` times and answering every call with 1 MiB; and a busy MCP client (2026-07-28 over
 * plain fetch) calling them. Posts `linked` once every page said hello, and `done` at the end.
 */
const BUSY_SIDE = `
const { parentPort, workerData } = require('node:worker_threads');
const { WebSocket } = require('ws');
const { toolsUrl, linkKey, mcpUrl, token, pages, tools, republish, busyCalls } = workerData;
const origins = ['http://localhost:5173', 'http://127.0.0.1:5173', 'http://localhost:5174'];
const description = 'A tool of a busy page. '.repeat(45);
const answer = JSON.stringify({ text: 'r'.repeat(1024 * 1024) });
const frames = Array.from({ length: pages }, (_, page) =>
  JSON.stringify({ type: 'tools', tools: Array.from({ length: tools }, (_, i) => ({
    name: 'busy_' + page + '_' + i, description,
    inputSchema: { type: 'object', properties: { a: { type: 'number' } } } })) }));
const open = (page) => new Promise((resolve, reject) => {
  const socket = new WebSocket(toolsUrl, { origin: origins[page % origins.length] });
  socket.on('open', () => {
    socket.send(JSON.stringify({ type: 'hello', version: 1, label: 'busy' + page, title: 'Busy', url: 'http://busy/', key: linkKey }));
    socket.send(frames[page]);
    resolve(socket);
  });
  socket.on('error', reject);
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data));
    if (frame.type === 'call') socket.send('{"type":"result","id":' + JSON.stringify(frame.id) + ',"ok":true,"result":' + answer + '}');
  });
});
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'busy', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
const call = (name, id) => fetch(mcpUrl, { method: 'POST',
  headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
    Authorization: 'Bearer ' + token, 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name },
  body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: { a: 1 }, _meta: meta } }) })
  .then((response) => response.text()).catch(() => null);
(async () => {
  const sockets = await Promise.all(Array.from({ length: pages }, (_, page) => open(page)));
  parentPort.postMessage('linked');
  await new Promise((resolve) => parentPort.once('message', resolve)); // go
  let id = 1;
  for (let round = 0; round < republish; round++) {
    sockets.forEach((socket, page) => socket.send(frames[page]));
    await Promise.all(Array.from({ length: busyCalls }, (_, page) => call('busy_' + page + '_0', id++)));
  }
  for (const socket of sockets) socket.close();
  parentPort.postMessage('done');
})().catch((error) => parentPort.postMessage('failed: ' + error.message));
`;

test(`${PAGES} busy pages: a well-behaved client's calls are each answered within ${ANSWERED_WITHIN_MS} ms`, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'link-load-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const tokenFile = join(dir, 'token');
  const core = await startCoreChild(t, { mcp: true, mcpTokenFile: tokenFile }, { heapMb: 512 });
  const token = (await readFile(tokenFile, 'utf8')).trim();
  const mcpUrl = `http://127.0.0.1:${core.port}/mcp`;

  const small = await LinkPage.open(t, core, { label: 'small', tools: [{ ...ADD, name: 'small_add' }] });
  const client = new Client({ name: 'load-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  t.after(() => client.close());

  const busy = new Worker(BUSY_SIDE, {
    eval: true,
    workerData: {
      toolsUrl: core.toolsUrl,
      linkKey: core.mcpLinkKey,
      mcpUrl,
      token,
      pages: PAGES,
      tools: MAX_PAGE_TOOLS,
      republish: REPUBLISH,
      busyCalls: BUSY_CALLS_PER_ROUND,
    },
  });
  t.after(() => busy.terminate());
  const said = (what: string) =>
    new Promise<void>((resolve, reject) =>
      busy.on('message', (message: string) =>
        message === what ? resolve() : message.startsWith('failed') ? reject(new Error(message)) : undefined,
      ),
    );
  await said('linked');
  await untilAnswer(
    async () => (await client.listTools()).tools.map((tool) => tool.name),
    (names) => names.includes('small_add') && names.includes(`busy_${PAGES - 1}_0`),
    'every page listed',
    { timeoutMs: 20_000, everyMs: 100 },
  );
  const done = said('done');
  busy.postMessage('go');

  const slowest = { ms: 0 };
  for (let i = 0; i < CLIENT_CALLS; i++) {
    const started = performance.now();
    const answer = (await client.callTool({ name: 'small_add', arguments: { a: i, b: 1 } })) as CallToolResult;
    slowest.ms = Math.max(slowest.ms, performance.now() - started);
    assert.deepEqual(answer.structuredContent, { sum: i + 1 });
  }
  await done;
  t.diagnostic(`the slowest of ${CLIENT_CALLS} calls: ${Math.round(slowest.ms)} ms`);
  assert.ok(slowest.ms < ANSWERED_WITHIN_MS, `the slowest call took ${Math.round(slowest.ms)} ms`);
  assert.equal(small.socket.readyState, small.socket.OPEN);
  assert.equal(core.exit, null, 'the Core still runs');
});
