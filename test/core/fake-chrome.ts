/**
 * The fake Chrome runtime of spec/sdk-api.md "Testing": installs `globalThis.chrome.runtime.connect`
 * returning a port that records what the page posts and lets the test emit responses and events.
 */
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
  /** Answers the n-th (default: last) posted request. */
  respond(result?: unknown, request?: Posted): void;
  fail(error: unknown, request?: Posted): void;
  /** Sends a session event with this client's channel id. */
  event(sessionId: string, type: string, fields?: Record<string, unknown>): void;
  /** Fires onDisconnect, optionally with chrome.runtime.lastError set. */
  disconnect(lastError?: unknown): void;
  /** Makes the next postMessage calls throw this value. */
  throwOnPost: unknown;
  last(type?: string): Posted;
  disconnectCalls: number;
}

export function installFakeChrome(opts: { connectThrows?: boolean; noConnect?: boolean } = {}): FakePort {
  const messageListeners: Listener[] = [];
  const disconnectListeners: Listener[] = [];
  const runtime: Record<string, unknown> = {};
  const fake: FakePort = {
    posted: [],
    handshake: [],
    connectArgs: null,
    throwOnPost: undefined,
    disconnectCalls: 0,
    emit(message) {
      messageListeners.slice().forEach((fn) => fn(message));
    },
    respond(result, request) {
      const req = request ?? fake.last();
      fake.emit({ channelId: req.channelId, type: 'response', requestId: req.requestId, ok: true, result });
    },
    fail(error, request) {
      const req = request ?? fake.last();
      fake.emit({ channelId: req.channelId, type: 'response', requestId: req.requestId, ok: false, error });
    },
    event(sessionId, type, fields = {}) {
      fake.emit({ channelId: fake.posted[0]?.channelId, type, sessionId, ...fields });
    },
    disconnect(lastError) {
      if (lastError !== undefined) runtime.lastError = lastError;
      disconnectListeners.slice().forEach((fn) => fn(port));
      delete runtime.lastError;
    },
    last(type) {
      const list = type ? fake.posted.filter((m) => m.type === type) : fake.posted;
      const found = list[list.length - 1];
      if (!found) throw new Error(`nothing posted${type ? ` of type ${type}` : ''}`);
      return found;
    },
  };
  const port = {
    name: 'pedelec-sdk-external',
    postMessage(message: Posted) {
      if (fake.throwOnPost !== undefined) throw fake.throwOnPost;
      const handshake = message?.type === 'sdk_hello' || message?.type === 'page_activity';
      (handshake ? fake.handshake : fake.posted).push(message);
    },
    onMessage: { addListener: (fn: Listener) => messageListeners.push(fn) },
    onDisconnect: { addListener: (fn: Listener) => disconnectListeners.push(fn) },
    disconnect() {
      fake.disconnectCalls++;
    },
  };
  if (!opts.noConnect) {
    runtime.connect = (...args: unknown[]) => {
      fake.connectArgs = args;
      if (opts.connectThrows) throw new Error('Could not establish connection.');
      return port;
    };
  }
  (globalThis as any).chrome = { runtime };
  return fake;
}

export function uninstallFakeChrome(): void {
  delete (globalThis as any).chrome;
}

/** Lets pending promise callbacks run (several microtask hops). */
export async function flush(times = 5): Promise<void> {
  for (let i = 0; i < times; i++) await Promise.resolve();
}
