// `mcp`: the latency a desktop agent sees. The official MCP SDK client calls the demo's `get_counter`
// through `pedelec-dev --mcp` (its own process) and the demo page open in headless Chromium, which
// runs the call on the kit's path and answers: `calls` sequential calls per run, after a warm-up,
// each timed from the client's request to its result. Beside it, the peer: the same client against a
// bare SDK server in this process that answers the same tool at once — what MCP over loopback HTTP
// costs by itself.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
// `Server` is marked deprecated in favour of `McpServer`; the peer mirrors what pedelec-dev uses.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startDevCoreProcess } from './devcore.mjs';
import { quantile } from './stats.mjs';

const WARMUP_CALLS = 50;

/**
 * An SDK client as pedelec-dev's stdio relay makes one: with the fetch that gives each request a
 * signal of its own, so that the transport's one signal does not gather a listener per call (and
 * this process does not print MaxListenersExceededWarning after 1 500 calls).
 */
async function connect(url, headers = {}) {
  const { fetchWithSignalPerRequest } = await import('../../packages/pedelec-dev/dist/mcp/signal-per-request.js');
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const fetch = fetchWithSignalPerRequest();
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, fetch }));
  return client;
}

const now = () => performance.timeOrigin + performance.now();

/**
 * p50 and p99 ms of `calls` sequential calls of `tool`, after a warm-up. With `page` (the kit's path),
 * also where a call's time goes, each a p50 over the calls: from the client to the page taking the
 * call (`toPageMs`: the HTTP request, pedelec-dev, the page link), the page's work (`pageMs`: from
 * `pedelec-tool-start` to the end of `pedelec-tool-result`), and from there back to the client
 * (`backMs`) — one clock for all (the same machine's, by `performance.timeOrigin`).
 */
async function timeCalls(client, tool, calls, page) {
  for (let i = 0; i < WARMUP_CALLS; i++) await client.callTool({ name: tool, arguments: {} });
  await page?.evaluate(() => (window.__benchCalls.length = 0));
  const ms = [];
  const sent = [];
  for (let i = 0; i < calls; i++) {
    const t0 = now();
    const result = await client.callTool({ name: tool, arguments: {} });
    const t5 = now();
    ms.push(t5 - t0);
    sent.push([t0, t5]);
    if (result.isError) throw new Error(`bench: ${tool} failed: ${result.content[0]?.text}`);
  }
  const timing = { p50Ms: quantile(ms, 0.5), p99Ms: quantile(ms, 0.99) };
  if (!page) return timing;
  const seen = await page.evaluate(() => window.__benchCalls.splice(0));
  if (seen.length !== calls) throw new Error(`bench: the page saw ${seen.length} of ${calls} calls`);
  const p50 = (part) => quantile(part, 0.5);
  return {
    ...timing,
    toPageMs: p50(seen.map(([start], i) => start - sent[i][0])),
    pageMs: p50(seen.map(([start, end]) => end - start)),
    backMs: p50(seen.map(([, end], i) => sent[i][1] - end)),
  };
}

/** Records, in the page, when each call starts and when its result event is done, on the page's clock. */
function recordPageCalls() {
  const at = () => performance.timeOrigin + performance.now();
  const session = document.querySelector('pedelec-session');
  window.__benchCalls = [];
  session.addEventListener('pedelec-tool-start', () => window.__benchCalls.push([at(), 0]));
  session.addEventListener('pedelec-tool-result', () => (window.__benchCalls.at(-1)[1] = at()));
}

/** A bare SDK server on loopback with one tool that answers at once: the peer. */
async function barePeer() {
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      const server = new Server({ name: 'bare', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [{ name: 'get_counter', description: 'Reads 0.', inputSchema: { type: 'object' } }],
      }));
      server.setRequestHandler(CallToolRequestSchema, () => ({
        content: [{ type: 'text', text: '{"value":0}' }],
        structuredContent: { value: 0 },
      }));
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      await server.connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${http.address().port}/mcp`,
    close: async () => {
      for (const transport of sessions.values()) await transport.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/**
 * Resolves `{ calls, kit: { p50Ms, p99Ms, toPageMs, pageMs, backMs }, bare: { p50Ms, p99Ms } }`, each a
 * list of one figure per run.
 */
export async function runMcp(browser, root, { calls, runs }) {
  const dir = await mkdtemp(join(tmpdir(), 'pedelec-bench-mcp-'));
  const tokenFile = join(dir, 'token');
  const core = await startDevCoreProcess(root, ['--mcp', '--mcp-token-file', tokenFile, '--serve', join(root, 'demo')]);
  const peer = await barePeer();
  const page = await browser.newPage();
  const clients = [];
  try {
    await page.goto(core.pagesUrl, { waitUntil: 'load' });
    await page.evaluate(recordPageCalls);
    const token = (await readFile(tokenFile, 'utf8')).trim();
    const kit = await connect(new URL('/mcp', core.pagesUrl).href, { Authorization: `Bearer ${token}` });
    const bare = await connect(peer.url);
    clients.push(kit, bare);
    for (let i = 0; i < 200 && !(await kit.listTools()).tools.some((t) => t.name === 'get_counter'); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const result = {
      calls,
      kit: { p50Ms: [], p99Ms: [], toPageMs: [], pageMs: [], backMs: [] },
      bare: { p50Ms: [], p99Ms: [] },
    };
    // Interleaved, so that a busy moment of the machine hits both alike.
    for (let run = 0; run < runs; run++) {
      for (const [id, client] of [
        ['kit', kit],
        ['bare', bare],
      ]) {
        const timing = await timeCalls(client, 'get_counter', calls, id === 'kit' ? page : undefined);
        for (const [key, value] of Object.entries(timing)) result[id][key].push(value);
      }
    }
    return result;
  } finally {
    for (const client of clients) await client.close();
    await page.close();
    await peer.close();
    await core.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
