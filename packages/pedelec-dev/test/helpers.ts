// Shared by the test files here: start the development Core in process on a free loopback port,
// and talk to it the way a page's client does (JSON text frames over `ws`). Every wait is bounded.
// Everything runs the TypeScript sources (../src/) through tsx, the processes the tests start too
// (`nodeTs`): nothing needs a build.
import { execFile, spawn } from 'node:child_process';
import http, { type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { WebSocket, type ClientOptions, type RawData } from 'ws';
import { until, type UntilOptions } from '../../../test/support/waits.js';
import type { SkillsManifest, ToolManifest } from '../src/agents/types.js';
import { startDevCore, type DevCore, type DevCoreOptions } from '../src/index.js';

export const PAGE_ORIGIN = 'http://localhost:5173';
const WAIT_MS = 3000;

/** A frame off the wire (bridge, link or inspector): untyped JSON, read where it is used. */
export type Message = Record<string, any>;

/** The tsconfig whose `paths` send `pedelec-elements/*` to the kit's src/, for tsx in the processes started here. */
const TSX_TSCONFIG_PATH = fileURLToPath(new URL('../../../test/tsconfig.json', import.meta.url));

/** The command's source: what `pedelec-dev` runs, started through {@link nodeTs}. */
export const CLI_SOURCE = new URL('../src/cli.ts', import.meta.url);

/** `node` running a TypeScript file, as `spawn` and the MCP SDK's stdio transport take it. */
export type NodeCommand = { command: string; args: string[]; env: NodeJS.ProcessEnv };

/**
 * `node` running `file` (a .ts of these tests or of src/) with `args`, through tsx: `flags` (such as
 * `--expose-gc`) go first, then tsx's `--import`, then the `preloads` (imported after tsx, so they may
 * be TypeScript too). `env` (default `process.env`) gets TSX_TSCONFIG_PATH, so the sources' kit imports
 * resolve to the kit's src/ from whatever folder the process starts in.
 */
export function nodeTs(
  file: URL | string,
  args: readonly string[] = [],
  {
    flags = [],
    preloads = [],
    env = process.env,
  }: { flags?: readonly string[]; preloads?: readonly (URL | string)[]; env?: NodeJS.ProcessEnv } = {},
): NodeCommand {
  return {
    command: process.execPath,
    args: [
      ...flags,
      ...TSX_IMPORT,
      ...preloads.flatMap((preload) => ['--import', pathOf(preload)]),
      pathOf(file),
      ...args,
    ],
    env: { ...env, TSX_TSCONFIG_PATH },
  };
}

/** What makes node compile TypeScript on the fly (given first: later preloads may be TypeScript). */
const TSX_IMPORT = ['--import', 'tsx'];
const pathOf = (place: URL | string) => (place instanceof URL ? fileURLToPath(place) : place);

/**
 * What tsx's loader itself costs a process, in MiB of RSS: an idle `node` with it against one without,
 * both with `flags`. For a bound on a whole process's memory set for the built package, which a
 * process running the sources exceeds by this much before it does anything.
 */
export async function tsxRssMb(flags: readonly string[] = []): Promise<number> {
  const idleRssMb = (nodeArgs: readonly string[]) =>
    new Promise<number>((resolve, reject) =>
      execFile(
        process.execPath,
        [...flags, ...nodeArgs, '-e', 'setTimeout(() => console.log(process.memoryUsage().rss), 300)'],
        { env: { ...process.env, TSX_TSCONFIG_PATH } },
        (error, stdout) => (error ? reject(error) : resolve(Number(stdout) / 2 ** 20)),
      ),
    );
  return (await idleRssMb(TSX_IMPORT)) - (await idleRssMb([]));
}

/** Starts a Core for one test and stops it in that test's teardown. */
export async function startCore(t: TestContext, options: DevCoreOptions = {}): Promise<DevCore> {
  const core = await startDevCore({
    port: 0,
    onBug: (error) => t.diagnostic(`bug: ${(error as Error)?.stack ?? error}`),
    ...options,
  });
  t.after(() => core.close());
  return core;
}

/** A page-like client: requests with ids, every other message kept in order for `until`. */
export class BridgeClient {
  readonly socket: WebSocket;
  readonly channelId: string | null;
  /** Every message received, in order. */
  readonly messages: Message[] = [];
  /** Resolves with the close code and reason once the socket is closed. */
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly waiters = new Set<() => boolean>();
  private counter = 0;

  static async open(
    t: TestContext,
    core: Pick<DevCore, 'bridgeUrl'>,
    {
      origin = PAGE_ORIGIN,
      channelId = `pedelec_test_${Math.random().toString(36).slice(2)}`,
    }: { origin?: string | null; channelId?: string } = {},
  ): Promise<BridgeClient> {
    const socket = new WebSocket(core.bridgeUrl, origin === null ? {} : { origin });
    const client = new BridgeClient(socket, channelId);
    t.after(() => client.close());
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    return client;
  }

  /** `channelId` null: a client that sends no requests (the inspector's socket). */
  constructor(socket: WebSocket, channelId: string | null) {
    this.socket = socket;
    this.channelId = channelId;
    this.closed = new Promise((resolve) =>
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    socket.on('error', () => {});
    socket.on('message', (data: RawData) => {
      this.messages.push(JSON.parse(data.toString()) as Message);
      for (const waiter of [...this.waiters]) waiter();
    });
  }

  /** Sends a raw frame (string or object). */
  sendRaw(frame: string | object): void {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** Sends a request and resolves with its whole response message. */
  request(type: string, payload: Message = {}): Promise<Message> {
    const requestId = `sdk_${Date.now()}_${++this.counter}`;
    this.sendRaw({ channelId: this.channelId, type, requestId, ...payload });
    return this.until((m) => m.type === 'response' && m.requestId === requestId, { from: 0 });
  }

  /** Like `request`, but fails the test unless ok, and resolves with the result. */
  async ok(type: string, payload?: Message): Promise<any> {
    const response = await this.request(type, payload);
    if (!response.ok) throw new Error(`${type} failed: ${JSON.stringify(response.error)}`);
    return response.result;
  }

  /** Index to start a later `until` or `since` from. */
  mark(): number {
    return this.messages.length;
  }

  since(from: number): Message[] {
    return this.messages.slice(from);
  }

  /** Resolves with the first message at index ≥ `from` matching `predicate`; rejects after `timeout` ms. */
  until(
    predicate: (message: Message) => unknown,
    { from = 0, timeout = WAIT_MS }: { from?: number; timeout?: number } = {},
  ): Promise<Message> {
    return new Promise((resolve, reject) => {
      const check = () => {
        for (let i = from; i < this.messages.length; i++) {
          if (predicate(this.messages[i]!)) {
            this.waiters.delete(check);
            clearTimeout(timer);
            resolve(this.messages[i]!);
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
  async turnEnd(sessionId: string, from: number): Promise<Message[]> {
    await this.until((m) => m.sessionId === sessionId && endsTurn(m), { from });
    return this.since(from).filter((m) => m.type !== 'response');
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    this.socket.close();
    await Promise.race([this.closed, delay(1000)]);
    this.socket.terminate();
  }
}

/** The last event of a turn, in either protocol (see `turnEnd`). */
export function endsTurn(m: Message): boolean {
  if (m.type === 'operation_completed') return true;
  return m.operationId === undefined && ((m.type === 'status_changed' && m.status === 'idle') || m.type === 'error');
}

/** The chat text of a list of events, from its `chat_delta` fragments. */
export const chatText = (events: readonly Message[]): string =>
  events
    .filter((m) => m.type === 'chat_delta')
    .map((m) => m.text)
    .join('');

/** The chat text of a list of events, from its whole `chat_message`s (today's protocol). */
export const messageText = (events: readonly Message[]): string =>
  events
    .filter((m) => m.type === 'chat_message')
    .map((m) => m.text)
    .join('');

/** Event types in order, a status change shown as its status. */
export const shapeOf = (events: readonly Message[]): string[] =>
  events.map((m) => (m.type === 'status_changed' ? m.status : m.type));

/** A skills manifest with a counter tool (and any extra tools). */
export function skills(...extra: ToolManifest[]): SkillsManifest {
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

/** Creates a session (scripted, the counter's skills, auto-ended) with `input` over those; resolves its id. */
export async function createSession(client: BridgeClient, input: Message = {}): Promise<string> {
  const result = await client.ok('create_session', {
    input: { provider: 'scripted', model: undefined, skills: skills(), autoEndOnDisconnect: true, ...input },
  });
  return result.sessionId;
}

/**
 * Polls `ask` (one call at a time, through `until`) until `accept` takes what it resolved, and resolves
 * with that: for state only a request can read (a listing, a refusal). `what` may describe the last answer.
 */
export async function untilAnswer<T>(
  ask: () => Promise<T>,
  accept: (answer: T) => boolean,
  what: string | ((last: T | undefined) => string),
  options: number | UntilOptions = {},
): Promise<T> {
  let asking = false;
  let last: T | undefined;
  let found: { answer: T } | undefined;
  let failed: { error: unknown } | undefined;
  const result = await until(
    () => {
      if (failed) throw failed.error;
      if (!found && !asking) {
        asking = true;
        ask().then(
          (answer) => {
            last = answer;
            if (accept(answer)) found = { answer };
            asking = false;
          },
          (error: unknown) => (failed = { error }),
        );
      }
      return found;
    },
    typeof what === 'function' ? () => what(last) : what,
    options,
  );
  return result.answer;
}

// A page on the MCP tool link (`/tools`, docs/mcp.md), scripted, for the MCP tests.
/** A tool as a page publishes it on the link. */
export type LinkTool = {
  name: string;
  description: string;
  inputSchema: object;
  readOnly?: boolean;
  /** A person must approve each call: pedelec-dev asks before it sends the call, and says who approved. */
  consequential?: boolean;
};
/** How a `LinkPage` settles a call: `{ ok, result }` or `{ ok: false, error }`; `undefined` never answers. */
export type LinkAnswer = (call: Message) => Message | undefined | Promise<Message | undefined>;

/** A tool a `LinkPage` offers unless told otherwise. */
export const ADD: LinkTool = {
  name: 'add',
  description: 'Adds two numbers',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  readOnly: true,
};

/** A page on the link: says hello, publishes `tools`, answers each call with `answer(call)` (a promise or value). */
export class LinkPage {
  readonly socket: WebSocket;
  /** Every frame received, in order. */
  readonly frames: Message[] = [];
  private readonly waiters = new Set<() => void>();

  static async open(
    t: TestContext,
    core: Pick<DevCore, 'toolsUrl' | 'mcpLinkKey'>,
    {
      label,
      key = core.mcpLinkKey,
      title = 'A page',
      tools = [ADD],
      answer,
      version = 1,
      origin = PAGE_ORIGIN,
    }: {
      label?: string;
      title?: string;
      tools?: LinkTool[];
      answer?: LinkAnswer;
      version?: number;
      origin?: string;
      /** The link key its hello carries (default: the Core's; `null`: none). */
      key?: string | null;
    } = {},
  ): Promise<LinkPage> {
    if (!core.toolsUrl) throw new Error('the Core has no /tools: start it with mcp: true');
    const socket = new WebSocket(core.toolsUrl, { origin });
    const page = new LinkPage(socket, answer ?? ((call) => ({ ok: true, result: { sum: call.args.a + call.args.b } })));
    t.after(() => socket.close());
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const hello = { type: 'hello', version, label, title, url: `${PAGE_ORIGIN}/shop/`, ...(key !== null && { key }) };
    socket.send(JSON.stringify(hello));
    if (version === 1) page.publish(tools);
    return page;
  }

  constructor(socket: WebSocket, answer: LinkAnswer) {
    this.socket = socket;
    socket.on('message', async (data: RawData) => {
      const frame = JSON.parse(data.toString()) as Message;
      this.frames.push(frame);
      for (const waiter of [...this.waiters]) waiter();
      if (frame.type !== 'call') return;
      const settled = await answer(frame);
      if (settled !== undefined) socket.send(JSON.stringify({ type: 'result', id: frame.id, ...settled }));
    });
  }

  publish(tools: LinkTool[]): void {
    this.socket.send(JSON.stringify({ type: 'tools', tools }));
  }

  /** The first frame (received so far or later) that `match` accepts; rejects after a bounded wait. */
  frame(match: (frame: Message) => unknown): Promise<Message> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.frames.find(match);
        if (!found) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting for a link frame; got: ${JSON.stringify(this.frames).slice(0, 2000)}`));
      }, WAIT_MS);
      this.waiters.add(check);
      check();
    });
  }
}

/** What `rawHttp` got back. */
export type RawResponse = { status: number; headers: IncomingHttpHeaders; body: string };

/**
 * A raw HTTP request (no URL normalization, any Host header; `Host: null` sends none, an `undefined`
 * header none of that name): resolves { status, headers, body }.
 */
export function rawHttp(
  core: Pick<DevCore, 'port'>,
  path: string,
  {
    method = 'GET',
    headers = {},
    body,
  }: { method?: string; headers?: Record<string, string | null | undefined>; body?: string } = {},
): Promise<RawResponse> {
  const setHost = headers.Host !== null;
  const sent: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (value !== null && value !== undefined) sent[name] = value;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: core.port, path, method, headers: sent, setHost, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.setTimeout(WAIT_MS, () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/** What `tryUpgrade` got: the open socket, or the refusal's HTTP status (`timeout`, `error` otherwise). */
export type UpgradeAttempt = { opened: boolean; status?: number | 'timeout' | 'error'; socket?: WebSocket };

/** Tries a WebSocket upgrade; resolves { opened, status?, socket? }. */
export function tryUpgrade(url: string, options: ClientOptions = {}): Promise<UpgradeAttempt> {
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
      resolve({ opened: false, status: res.statusCode ?? 0 });
      socket.terminate();
    });
    socket.once('error', () => {
      clearTimeout(timer);
      resolve({ opened: false, status: 'error' });
    });
  });
}

/** Resolves the close { code, reason } of a socket, bounded (code `timeout`, reason '' if it stays open). */
export function closeOf(socket: WebSocket): Promise<{ code: number | 'timeout'; reason: string }> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ code: 'timeout', reason: '' }), WAIT_MS);
    socket.once('close', (code, reason) => {
      clearTimeout(timer);
      resolve({ code, reason: reason.toString() });
    });
  });
}

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The TCP socket under a `ws` WebSocket (its private `_socket`): to send what no well-behaved client would. */
export const netSocketOf = (socket: WebSocket): Socket => (socket as unknown as { _socket: Socket })._socket;

/** A client frame (masked, as RFC 6455 requires of clients): `declared` may claim more payload than is given. */
export function clientFrame(
  payload: string,
  { fin = true, opcode = 1, declared = payload.length }: { fin?: boolean; opcode?: number; declared?: number } = {},
): Buffer {
  const lengthBytes = declared < 126 ? [declared] : [126, declared >> 8, declared & 0xff];
  const mask = [1, 2, 3, 4];
  const body = Buffer.from(payload).map((byte, i) => byte ^ mask[i % 4]!);
  return Buffer.concat([
    Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | lengthBytes[0]!, ...lengthBytes.slice(1), ...mask]),
    body,
  ]);
}

/** A Core with two pages on it, each with a session of its own: for tests of what one may see of the other. */
export async function twoPages(t: TestContext) {
  const core = await startCore(t);
  const a = await BridgeClient.open(t, core);
  const b = await BridgeClient.open(t, core);
  return { core, a, b, sessionA: await createSession(a), sessionB: await createSession(b) };
}

/** One line core-child.ts prints every 100 ms. */
export type CoreReport = { heapUsed: number; rss: number; loopDelayMs: number; at: number };

/** A Core in a process of its own (see `startCoreChild`). */
export type CoreChild = Pick<DevCore, 'url' | 'bridgeUrl' | 'toolsUrl' | 'mcpLinkKey' | 'port'> & {
  /** The largest heap and RSS it reported so far, in MiB. */
  memory(): { maxHeapMb: number; maxRssMb: number };
  /** The longest stretch the Core's thread was busy (its event loop's delay), in ms. */
  maxLoopDelayMs(): number;
  /** Every report so far. */
  reports(): CoreReport[];
  stderr: Readable;
  kill(signal?: NodeJS.Signals): boolean;
  /** Null while it runs, else its exit code or signal and its stderr. */
  readonly exit: { code: number | null; signal: NodeJS.Signals | null; stderr: string } | null;
};

/**
 * Starts a Core in a child process with a small heap (`--max-old-space-size=heapMb`), for tests that
 * try to exhaust it or watch it grow: such a test must not take the test runner down with it. Resolves
 * with the Core's `url`, `bridgeUrl`, `toolsUrl` and `mcpLinkKey` (null unless `mcp`) and `port`, `memory()` (the
 * largest heap and RSS it reported so far, in MiB), `maxLoopDelayMs()` (the longest its thread was
 * busy at a stretch), `reports()`, `stderr` (its stream), `kill(signal)` and `exit` (null while it
 * runs, else its exit code or signal and its stderr). `flags` go to node (e.g. `--expose-gc`),
 * `preloads` are imported before the script (e.g. a probe). Stopped in teardown.
 */
export async function startCoreChild(
  t: TestContext,
  options: DevCoreOptions = {},
  {
    heapMb = 64,
    flags = [],
    preloads = [],
  }: { heapMb?: number; flags?: readonly string[]; preloads?: readonly (URL | string)[] } = {},
): Promise<CoreChild> {
  const { command, args, env } = nodeTs(new URL('./core-child.ts', import.meta.url), [JSON.stringify(options)], {
    flags: [`--max-old-space-size=${heapMb}`, ...flags],
    preloads,
  });
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  const state = {
    exit: null as CoreChild['exit'],
    stderr: '',
    maxHeapMb: 0,
    maxRssMb: 0,
    maxLoopDelayMs: 0,
    reports: [] as CoreReport[],
  };
  child.stderr.on('data', (chunk: Buffer) => (state.stderr = (state.stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) =>
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
  const address = await new Promise<Pick<DevCore, 'url' | 'bridgeUrl' | 'toolsUrl' | 'mcpLinkKey' | 'port'>>(
    (resolve, reject) => {
      let buffered = '';
      // Generous: the child compiles the sources (tsx) before the Core starts.
      const timer = setTimeout(() => reject(new Error(`the Core did not start: ${state.stderr}`)), 20_000);
      void exited.then(() => reject(new Error(`the Core exited before it started: ${state.stderr}`)));
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        let newline;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = JSON.parse(buffered.slice(0, newline)) as Message;
          buffered = buffered.slice(newline + 1);
          if (line.url) {
            clearTimeout(timer);
            resolve(line as Pick<DevCore, 'url' | 'bridgeUrl' | 'toolsUrl' | 'mcpLinkKey' | 'port'>);
          } else {
            const report = line as CoreReport;
            state.maxHeapMb = Math.max(state.maxHeapMb, report.heapUsed / 2 ** 20);
            state.maxRssMb = Math.max(state.maxRssMb, report.rss / 2 ** 20);
            state.maxLoopDelayMs = Math.max(state.maxLoopDelayMs, report.loopDelayMs);
            state.reports.push(report);
          }
        }
      });
    },
  );
  return {
    ...address,
    memory: () => ({ maxHeapMb: state.maxHeapMb, maxRssMb: state.maxRssMb }),
    maxLoopDelayMs: () => state.maxLoopDelayMs,
    reports: () => state.reports,
    stderr: child.stderr,
    kill: (signal) => child.kill(signal),
    get exit() {
      return state.exit;
    },
  };
}
