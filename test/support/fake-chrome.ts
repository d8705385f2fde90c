/**
 * The fake Chrome runtime of docs/design/sdk-api.md "Testing": installs `globalThis.chrome.runtime.connect`
 * returning a port that records what the page posts and lets the test emit responses and events.
 * It is the tests' one way to answer the page's requests: `request(type)` waits for a request to be
 * posted (the promise settles when the page posts it, not after a count of microtasks), and
 * `answer` / `refuse` respond to it.
 */
import { installPageGlobals } from './page-globals.js';

type Listener = (message: unknown) => void;

export type Posted = Record<string, any>;

export interface FakePort {
  /**
   * Every request the page posted, in order, exactly as handed to postMessage. The handshake
   * messages of the current protocol (`sdk_hello`, `page_activity`), which are not requests (no
   * `requestId`), are in `handshake` instead.
   */
  posted: Posted[];
  /** The `sdk_hello` and `page_activity` messages the page posted, in order. */
  handshake: Posted[];
  /** The arguments `chrome.runtime.connect` was called with. */
  connectArgs: unknown[] | null;
  /** Delivers a message to the page (synchronously, like a listener call). */
  emit(message: unknown): void;
  /** Answers a posted request (default: the last one) with `result`. */
  respond(result?: unknown, request?: Posted): void;
  /** Refuses a posted request (default: the last one) with `error`. */
  fail(error: unknown, request?: Posted): void;
  /**
   * The first request of `type` (passing `where`) not answered yet through `answer`/`refuse`: at once
   * when it was posted already, else when the page posts it. Rejects after `timeoutMs` (default 2 000)
   * naming what was posted.
   */
  request(type: string, where?: (message: Posted) => boolean, timeoutMs?: number): Promise<Posted>;
  /** Waits for {@link FakePort.request} and answers it with `result`; resolves with the request. */
  answer(type: string, result?: unknown, where?: (message: Posted) => boolean): Promise<Posted>;
  /** Waits for {@link FakePort.request} and refuses it with `error`; resolves with the request. */
  refuse(type: string, error: unknown, where?: (message: Posted) => boolean): Promise<Posted>;
  /** Requests answered through `answer`/`refuse` (a test may add one it answered by hand). */
  answered: WeakSet<Posted>;
  /** Sends a session event on the channel of the page's first request. */
  event(sessionId: string, type: string, fields?: Record<string, unknown>): void;
  /** Fires onDisconnect of every port still open, optionally with chrome.runtime.lastError set. */
  disconnect(lastError?: unknown): void;
  /** Makes the next postMessage calls throw this value. */
  throwOnPost: unknown;
  last(type?: string): Posted;
  disconnectCalls: number;
  /** How many times the page connected (a new port each time, as `chrome.runtime.connect` gives). */
  connectCount: number;
  /** Makes the next `chrome.runtime.connect` calls throw (true) or succeed again (false). */
  connectThrows: boolean;
  /** Fires onDisconnect of the `index`-th port the page connected (0: the first), current or not. */
  disconnectPort(index: number): void;
}

/**
 * `legacy`: plays a 0.1.x extension, which refuses the current protocol's handshake messages
 * (`sdk_hello`, `page_activity`) with responses addressed to nobody (empty `requestId` and `channelId`),
 * a task after they are posted.
 */
export function installFakeChrome(
  opts: { connectThrows?: boolean; noConnect?: boolean; legacy?: boolean } = {},
): FakePort {
  installPageGlobals();
  const runtime: Record<string, unknown> = {};
  /** Tests waiting for a request to be posted. */
  const waiting = new Set<() => void>();
  const find = (type: string, where?: (message: Posted) => boolean) =>
    fake.posted.find((m) => m.type === type && !fake.answered.has(m) && (!where || where(m)));
  const fake: FakePort = {
    posted: [],
    handshake: [],
    connectArgs: null,
    throwOnPost: undefined,
    disconnectCalls: 0,
    connectCount: 0,
    connectThrows: !!opts.connectThrows,
    disconnectPort(index) {
      const which = ports[index]!;
      which.gone = true;
      which.listeners.slice().forEach((fn) => fn(which.port));
    },
    answered: new WeakSet(),
    emit(message) {
      // To every port still open, as each client's own port would hear what is addressed to its channel.
      for (const open of ports.filter((p) => !p.gone)) open.messages.slice().forEach((fn) => fn(message));
    },
    respond(result, request) {
      const req = request ?? fake.last();
      fake.emit({ channelId: req.channelId, type: 'response', requestId: req.requestId, ok: true, result });
    },
    fail(error, request) {
      const req = request ?? fake.last();
      fake.emit({ channelId: req.channelId, type: 'response', requestId: req.requestId, ok: false, error });
    },
    request(type, where, timeoutMs = 2000) {
      const found = find(type, where);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const check = () => {
          const posted = find(type, where);
          if (!posted) return;
          waiting.delete(check);
          clearTimeout(timer);
          resolve(posted);
        };
        const timer = setTimeout(() => {
          waiting.delete(check);
          reject(
            new Error(
              `no ${type} request was posted; posted: ${fake.posted.map((m) => m.type).join(', ') || 'nothing'}`,
            ),
          );
        }, timeoutMs);
        waiting.add(check);
      });
    },
    async answer(type, result = {}, where) {
      const req = await fake.request(type, where);
      fake.answered.add(req);
      fake.respond(result, req);
      return req;
    },
    async refuse(type, error, where) {
      const req = await fake.request(type, where);
      fake.answered.add(req);
      fake.fail(error, req);
      return req;
    },
    event(sessionId, type, fields = {}) {
      fake.emit({ channelId: fake.posted[0]?.channelId, type, sessionId, ...fields });
    },
    disconnect(lastError) {
      if (lastError !== undefined) runtime.lastError = lastError;
      // As an extension reload does: every port still open goes, each once.
      for (const open of ports.filter((p) => !p.gone)) {
        open.gone = true;
        open.listeners.slice().forEach((fn) => fn(open.port));
      }
      delete runtime.lastError;
    },
    last(type) {
      const list = type ? fake.posted.filter((m) => m.type === type) : fake.posted;
      const found = list[list.length - 1];
      if (!found) throw new Error(`nothing posted${type ? ` of type ${type}` : ''}`);
      return found;
    },
  };
  /** Every port the page connected, with its disconnect listeners. */
  const ports: { port: unknown; messages: Listener[]; listeners: Listener[]; gone: boolean }[] = [];
  /** A port of its own for each connection: what the page posts is recorded, what the test emits reaches its listeners. */
  const newPort = () => {
    const listeners = { message: [] as Listener[], disconnect: [] as Listener[] };
    const port = {
      name: 'pedelec-sdk-external',
      postMessage(message: Posted) {
        if (fake.throwOnPost !== undefined) throw fake.throwOnPost;
        const handshake = message?.type === 'sdk_hello' || message?.type === 'page_activity';
        (handshake ? fake.handshake : fake.posted).push(message);
        if (handshake && opts.legacy) {
          const refusal = { code: 'SDK_PROTOCOL_ERROR', message: 'requestId is required' };
          setTimeout(() => fake.emit({ channelId: '', type: 'response', requestId: '', ok: false, error: refusal }), 0);
        }
        if (!handshake) [...waiting].forEach((check) => check());
      },
      onMessage: { addListener: (fn: Listener) => listeners.message.push(fn) },
      onDisconnect: { addListener: (fn: Listener) => listeners.disconnect.push(fn) },
      disconnect() {
        fake.disconnectCalls++;
      },
    };
    ports.push({ port, messages: listeners.message, listeners: listeners.disconnect, gone: false });
    return port;
  };
  if (!opts.noConnect) {
    runtime.connect = (...args: unknown[]) => {
      fake.connectArgs = args;
      if (fake.connectThrows) throw new Error('Could not establish connection.');
      fake.connectCount++;
      return newPort();
    };
  }
  (globalThis as any).chrome = { runtime };
  return fake;
}

export function uninstallFakeChrome(): void {
  delete (globalThis as any).chrome;
}
