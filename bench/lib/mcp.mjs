// `mcp`: the latency a desktop agent sees, in each MCP era. An official MCP SDK client calls the
// demo's `get_counter` through `pedelec-dev --mcp` (its own process) and the demo page open in
// headless Chromium, which runs the call on the kit's path and answers: `calls` sequential calls per
// run, after a warm-up, each timed from the client's request to its result. The modern era is the 2.x
// client pinned to 2026-07-28; the legacy era the 1.x client with a session. Beside each, the peer: the
// same client against a bare SDK server of that era in this process that answers the same tool at
// once — what MCP over loopback HTTP costs by itself.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server as LegacyServer } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { createMcpHandler, Server as ModernServer } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { startDevCoreProcess } from './devcore.mjs';
import { quantile } from './stats.mjs';

export const MCP_ERAS = ['modern', 'legacy'];
const WARMUP_CALLS = 50;

/**
 * An SDK client of `era` as pedelec-dev's stdio relay makes one: with the fetch that gives each request
 * a signal of its own, so that the transport's one signal does not gather a listener per call (and
 * this process does not print MaxListenersExceededWarning after 1 500 calls).
 */
async function connect(era, url, headers = {}) {
  const { fetchWithSignalPerRequest } = await import('../../packages/pedelec-dev/dist/mcp/signal-per-request.js');
  const options = { requestInit: { headers }, fetch: fetchWithSignalPerRequest() };
  const client =
    era === 'modern'
      ? new ModernClient({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
      : new LegacyClient({ name: 'bench', version: '1.0.0' });
  await client.connect(new (era === 'modern' ? ModernHttp : LegacyHttp)(new URL(url), options));
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

const PEER_TOOL = { name: 'get_counter', description: 'Reads 0.', inputSchema: { type: 'object' } };
const PEER_RESULT = { content: [{ type: 'text', text: '{"value":0}' }], structuredContent: { value: 0 } };

/** A bare 2025-era SDK server (1.x, sessions) with one tool that answers at once. */
function legacyPeer() {
  const sessions = new Map();
  const handle = async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      const server = new LegacyServer({ name: 'bare', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [PEER_TOOL] }));
      server.setRequestHandler(CallToolRequestSchema, () => PEER_RESULT);
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      await server.connect(transport);
    }
    await transport.handleRequest(req, res);
  };
  return { handle, close: async () => Promise.all([...sessions.values()].map((t) => t.close())) };
}

/** A bare 2026-07-28 SDK server (2.x, stateless, on the SDK's Node adapter) with one tool that answers at once. */
function modernPeer() {
  const handler = createMcpHandler(
    () => {
      const server = new ModernServer({ name: 'bare', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler('tools/list', () => ({ tools: [PEER_TOOL] }));
      server.setRequestHandler('tools/call', () => PEER_RESULT);
      return server;
    },
    { legacy: 'reject' },
  );
  return { handle: toNodeHandler(handler), close: () => handler.close() };
}

/** A bare SDK server of `era` on loopback: the peer. */
async function barePeer(era) {
  const peer = era === 'modern' ? modernPeer() : legacyPeer();
  const http = createServer((req, res) => void peer.handle(req, res));
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${http.address().port}/mcp`,
    close: async () => {
      await peer.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/**
 * Resolves `{ calls, eras: { modern, legacy } }`, each era `{ kit: { p50Ms, p99Ms, toPageMs, pageMs,
 * backMs }, bare: { p50Ms, p99Ms } }`, each a list of one figure per run.
 */
export async function runMcp(browser, root, { calls, runs }) {
  const dir = await mkdtemp(join(tmpdir(), 'pedelec-bench-mcp-'));
  const tokenFile = join(dir, 'token');
  const core = await startDevCoreProcess(root, ['--mcp', '--mcp-token-file', tokenFile, '--serve', join(root, 'demo')]);
  const peers = [];
  const clients = [];
  const page = await browser.newPage();
  try {
    await page.goto(core.pagesUrl, { waitUntil: 'load' });
    await page.evaluate(recordPageCalls);
    const token = (await readFile(tokenFile, 'utf8')).trim();
    const subjects = [];
    for (const era of MCP_ERAS) {
      const peer = await barePeer(era);
      peers.push(peer);
      const kit = await connect(era, new URL('/mcp', core.pagesUrl).href, { Authorization: `Bearer ${token}` });
      const bare = await connect(era, peer.url);
      clients.push(kit, bare);
      subjects.push([era, 'kit', kit], [era, 'bare', bare]);
    }
    const [, , first] = subjects[0];
    for (let i = 0; i < 200 && !(await first.listTools()).tools.some((t) => t.name === 'get_counter'); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const result = { calls, eras: {} };
    for (const era of MCP_ERAS) {
      result.eras[era] = {
        kit: { p50Ms: [], p99Ms: [], toPageMs: [], pageMs: [], backMs: [] },
        bare: { p50Ms: [], p99Ms: [] },
      };
    }
    // Interleaved, so that a busy moment of the machine hits all alike.
    for (let run = 0; run < runs; run++) {
      for (const [era, id, client] of subjects) {
        const timing = await timeCalls(client, 'get_counter', calls, id === 'kit' ? page : undefined);
        for (const [key, value] of Object.entries(timing)) result.eras[era][id][key].push(value);
      }
    }
    return result;
  } finally {
    for (const client of clients) await client.close();
    await page.close();
    for (const peer of peers) await peer.close();
    await core.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
