// Shared by the test files here: start the development Core in process on a free loopback port,
// and talk to it the way a page's client does (JSON text frames over `ws`). Every wait is bounded.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { startDevCore } from '../dist/index.js';

export const PAGE_ORIGIN = 'http://localhost:5173';
const WAIT_MS = 3000;

/** Starts a Core for one test and stops it in that test's teardown. */
export async function startCore(t, options = {}) {
  const core = await startDevCore({
    port: 0,
    onBug: (error) => t.diagnostic(`bug: ${error?.stack ?? error}`),
    ...options,
  });
  t.after(() => core.close());
  return core;
}

/** A page-like client: requests with ids, every other message kept in order for `until`. */
export class BridgeClient {
  static async open(
    t,
    core,
    { origin = PAGE_ORIGIN, channelId = `pedelec_test_${Math.random().toString(36).slice(2)}` } = {},
  ) {
    const socket = new WebSocket(core.bridgeUrl, origin === null ? {} : { origin });
    const client = new BridgeClient(socket, channelId);
    t.after(() => client.close());
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    return client;
  }

  constructor(socket, channelId) {
    this.socket = socket;
    this.channelId = channelId;
    this.messages = [];
    this.waiters = new Set();
    this.counter = 0;
    this.closed = new Promise((resolve) =>
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    socket.on('error', () => {});
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      this.messages.push(message);
      for (const waiter of [...this.waiters]) waiter();
    });
  }

  /** Sends a raw frame (string or object). */
  sendRaw(frame) {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** Sends a request and resolves with its whole response message. */
  request(type, payload = {}) {
    const requestId = `sdk_${Date.now()}_${++this.counter}`;
    this.sendRaw({ channelId: this.channelId, type, requestId, ...payload });
    return this.until((m) => m.type === 'response' && m.requestId === requestId, { from: 0 });
  }

  /** Like `request`, but fails the test unless ok, and resolves with the result. */
  async ok(type, payload) {
    const response = await this.request(type, payload);
    if (!response.ok) throw new Error(`${type} failed: ${JSON.stringify(response.error)}`);
    return response.result;
  }

  /** Index to start a later `until` or `since` from. */
  mark() {
    return this.messages.length;
  }

  since(from) {
    return this.messages.slice(from);
  }

  /** Resolves with the first message at index ≥ `from` matching `predicate`; rejects after `timeout` ms. */
  until(predicate, { from = 0, timeout = WAIT_MS } = {}) {
    return new Promise((resolve, reject) => {
      const check = () => {
        for (let i = from; i < this.messages.length; i++) {
          if (predicate(this.messages[i])) {
            this.waiters.delete(check);
            clearTimeout(timer);
            resolve(this.messages[i]);
            return true;
          }
        }
        return false;
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `timed out waiting for a message; got: ${JSON.stringify(this.messages.slice(from)).slice(0, 2000)}`,
          ),
        );
      }, timeout);
      if (!check()) this.waiters.add(check);
    });
  }

  /**
   * Waits for the end of a turn of `sessionId` after `from`, and returns the turn's events: with today's
   * protocol the turn's `operation_completed` (which follows `idle`, or the `error` event), with 0.1
   * (events without operationId) its `idle` or `error`.
   */
  async turnEnd(sessionId, from) {
    await this.until((m) => m.sessionId === sessionId && endsTurn(m), { from });
    return this.since(from).filter((m) => m.type !== 'response');
  }

  async close() {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    this.socket.close();
    await Promise.race([this.closed, new Promise((resolve) => setTimeout(resolve, 1000))]);
    this.socket.terminate();
  }
}

/** The last event of a turn, in either protocol (see `turnEnd`). */
export function endsTurn(m) {
  if (m.type === 'operation_completed') return true;
  return m.operationId === undefined && ((m.type === 'status_changed' && m.status === 'idle') || m.type === 'error');
}

/** The chat text of a list of events, from its `chat_delta` fragments. */
export const chatText = (events) =>
  events
    .filter((m) => m.type === 'chat_delta')
    .map((m) => m.text)
    .join('');

/** The chat text of a list of events, from its whole `chat_message`s (today's protocol). */
export const messageText = (events) =>
  events
    .filter((m) => m.type === 'chat_message')
    .map((m) => m.text)
    .join('');

/** Event types in order, a status change shown as its status. */
export const shapeOf = (events) => events.map((m) => (m.type === 'status_changed' ? m.status : m.type));

/** A skills manifest with a counter tool (and any extra tools). */
export function skills(...extra) {
  return {
    guidance: 'A counter page.',
    tools: [
      {
        name: 'update_counter',
        description: 'Change the counter by delta.',
        argsSchema: {
          type: 'object',
          properties: { delta: { type: 'integer', minimum: -100, maximum: 100 } },
          required: ['delta'],
        },
      },
      ...extra,
    ],
  };
}

export async function createSession(client, input = {}) {
  const result = await client.ok('create_session', {
    input: { provider: 'scripted', model: undefined, skills: skills(), autoEndOnDisconnect: true, ...input },
  });
  return result.sessionId;
}

// A page on the MCP tool link (`/tools`, docs/mcp.md), scripted, for the MCP tests.
/** A tool a `LinkPage` offers unless told otherwise. */
export const ADD = {
  name: 'add',
  description: 'Adds two numbers',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  readOnly: true,
};

/** A page on the link: says hello, publishes `tools`, answers each call with `answer(call)` (a promise or value). */
export class LinkPage {
  static async open(
    t,
    core,
    { label, title = 'A page', tools = [ADD], answer, version = 1, origin = PAGE_ORIGIN } = {},
  ) {
    const socket = new WebSocket(core.toolsUrl, { origin });
    const page = new LinkPage(socket, answer ?? ((call) => ({ ok: true, result: { sum: call.args.a + call.args.b } })));
    t.after(() => socket.close());
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    socket.send(JSON.stringify({ type: 'hello', version, label, title, url: `${PAGE_ORIGIN}/shop/` }));
    if (version === 1) page.publish(tools);
    return page;
  }

  constructor(socket, answer) {
    this.socket = socket;
    this.frames = [];
    this.waiters = [];
    socket.on('message', async (data) => {
      const frame = JSON.parse(data.toString());
      this.frames.push(frame);
      for (const waiter of this.waiters.splice(0)) waiter();
      if (frame.type !== 'call') return;
      const settled = await answer(frame);
      if (settled !== undefined) socket.send(JSON.stringify({ type: 'result', id: frame.id, ...settled }));
    });
  }

  publish(tools) {
    this.socket.send(JSON.stringify({ type: 'tools', tools }));
  }

  /** The first frame (received so far or later) that `match` accepts. */
  async frame(match) {
    for (;;) {
      const found = this.frames.find(match);
      if (found) return found;
      await new Promise((resolve) => this.waiters.push(resolve));
    }
  }
}

/**
 * A raw HTTP request (no URL normalization, any Host header; `Host: null` sends none):
 * resolves { status, headers, body }.
 */
export function rawHttp(core, path, { method = 'GET', headers = {}, body } = {}) {
  const setHost = headers.Host !== null;
  if (!setHost) headers = Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'Host'));
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: core.port, path, method, headers, setHost, agent: false },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.setTimeout(WAIT_MS, () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/** Tries a WebSocket upgrade; resolves { opened, status?, socket? }. */
export function tryUpgrade(url, options = {}) {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, options);
    const timer = setTimeout(() => {
      socket.terminate();
      resolve({ opened: false, status: 'timeout' });
    }, WAIT_MS);
    socket.once('open', () => {
      clearTimeout(timer);
      resolve({ opened: true, socket });
    });
    socket.once('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      res.resume();
      resolve({ opened: false, status: res.statusCode });
      socket.terminate();
    });
    socket.once('error', () => {
      clearTimeout(timer);
      resolve({ opened: false, status: 'error' });
    });
  });
}

/** Resolves the close { code, reason } of a socket, bounded. */
export function closeOf(socket) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ code: 'timeout' }), WAIT_MS);
    socket.once('close', (code, reason) => {
      clearTimeout(timer);
      resolve({ code, reason: reason.toString() });
    });
  });
}

export const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A Core with two pages on it, each with a session of its own: for tests of what one may see of the other. */
export async function twoPages(t) {
  const core = await startCore(t);
  const a = await BridgeClient.open(t, core);
  const b = await BridgeClient.open(t, core);
  return { core, a, b, sessionA: await createSession(a), sessionB: await createSession(b) };
}

/**
 * Starts a Core in a child process with a small heap (`--max-old-space-size=heapMb`), for tests that
 * try to exhaust it or watch it grow: such a test must not take the test runner down with it. Resolves
 * with the Core's `url`, `bridgeUrl`, `toolsUrl` (null unless `mcp`) and `port`, `memory()` (the
 * largest heap and RSS it reported so far, in MiB), `maxLoopDelayMs()` (the longest its thread was
 * busy at a stretch), `reports()`, `stderr` (its stream), `kill(signal)` and `exit` (null while it
 * runs, else its exit code or signal and its stderr). `nodeArgs` go to node before the script (e.g.
 * `--import` a probe). Stopped in teardown.
 */
export async function startCoreChild(t, options = {}, { heapMb = 64, nodeArgs = [] } = {}) {
  const child = spawn(
    process.execPath,
    [
      `--max-old-space-size=${heapMb}`,
      ...nodeArgs,
      fileURLToPath(new URL('./core-child.mjs', import.meta.url)),
      JSON.stringify(options),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const state = { exit: null, stderr: '', maxHeapMb: 0, maxRssMb: 0, maxLoopDelayMs: 0, reports: [] };
  child.stderr.on('data', (chunk) => (state.stderr = (state.stderr + chunk).slice(-4000)));
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      state.exit = { code, signal, stderr: state.stderr };
      resolve();
    }),
  );
  t.after(async () => {
    if (state.exit) return;
    child.kill('SIGTERM');
    await Promise.race([exited, delay(3000)]);
    if (!state.exit) child.kill('SIGKILL');
  });
  const address = await new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`the Core did not start: ${state.stderr}`)), 10_000);
    exited.then(() => reject(new Error(`the Core exited before it started: ${state.stderr}`)));
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = JSON.parse(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
        if (line.url) {
          clearTimeout(timer);
          resolve(line);
        } else {
          state.maxHeapMb = Math.max(state.maxHeapMb, line.heapUsed / 2 ** 20);
          state.maxRssMb = Math.max(state.maxRssMb, line.rss / 2 ** 20);
          state.maxLoopDelayMs = Math.max(state.maxLoopDelayMs, line.loopDelayMs);
          state.reports.push(line);
        }
      }
    });
  });
  return {
    ...address,
    memory: () => ({ maxHeapMb: state.maxHeapMb, maxRssMb: state.maxRssMb }),
    /** The longest stretch the Core's thread was busy (its event loop's delay), in ms. */
    maxLoopDelayMs: () => state.maxLoopDelayMs,
    /** Every report so far: `{ heapUsed, rss, loopDelayMs, at }`. */
    reports: () => state.reports,
    stderr: child.stderr,
    kill: (signal) => child.kill(signal),
    get exit() {
      return state.exit;
    },
  };
}
