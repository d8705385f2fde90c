/**
 * `PortConnection`: the connection over a bridge port (docs/design/bridge-protocol.md, sdk-0.4.md) — opened with
 * today's handshake, requests and their answers, which Pedelec the port reaches, and what happens when
 * it goes away. `Pedelec` (client.ts) is one, with sessions, workspaces and information on top.
 */
import type { EventMeta } from './call-context.js';
import {
  extensionDisconnected,
  isPedelecError,
  keepError,
  normalizeError,
  pedelecError,
  type PedelecError,
} from './errors.js';
import { isObject } from './json.js';
import { watchPageActivity, type PageActivity } from './page-activity.js';
import { PendingRequests } from './pending-requests.js';
import { APPROVAL_HELD_REQUESTS, PEDELEC_PROTOCOL_VERSION, randomId, type BridgePort } from './bridge-port.js';
import type { BridgeInboundType, BridgeNotificationType, BridgeRequestType } from './bridge-messages.js';
import { chromeRuntime, extensionTransport } from './transports/extension.js';
import type { PedelecOptions } from './types.js';

const DEFAULT_BRIDGE_TIMEOUT_MS = 30_000;
const UNAVAILABLE = (message = 'Pedelec extension is unavailable.') => pedelecError('EXTENSION_UNAVAILABLE', message);

/**
 * Which Pedelec the port reaches, as learned from its answers: a 0.1.x extension refuses the
 * `sdk_hello` handshake (a response with an empty `requestId`), and that refusal arrives before the
 * answer to any later request; today's extension takes the handshake silently.
 */
type Era = 'unknown' | '0.1' | 'current';

/**
 * A message from the bridge, read defensively where it is used; its `type` typed so that comparing it
 * with a name the protocol does not have fails the type check.
 */
export type InboundMessage = { type?: BridgeInboundType; [key: string]: unknown };

/**
 * The connection to the bridge. It connects at once, and again on the next request after the
 * connection went away. What arrives for this channel that is not an answer goes to `receive`;
 * `lost` hears that the port went away, before the requests waiting on it are rejected.
 */
export class PortConnection {
  /** (ours) Messages are routed by this id; other clients on the same port are ignored. */
  readonly channelId = randomId('pedelec');
  #options: PedelecOptions;
  #bridgeTimeoutMs: number;
  /** Opens a port; null where none can ever be opened (no page context and no transport). */
  #openPort: (() => BridgePort) | null = null;
  #port: BridgePort | null = null;
  /** The ports whose messages and disconnection this connection listens to. */
  #heard = new WeakSet<BridgePort>();
  /** Why no port is open: the last connection failed or went away (until a new one opens). */
  #failure: PedelecError | null = null;
  /** (ours) `disconnect()` was called: the connection stays closed. */
  #closed = false;
  #era: Era = 'unknown';
  #requestCount = 0;
  #pending = new PendingRequests();
  #activity: PageActivity = { announce() {}, stop() {} };

  constructor(options: PedelecOptions) {
    this.#options = options;
    this.#bridgeTimeoutMs =
      Math.max(1, Number(options.bridgeTimeoutMs ?? DEFAULT_BRIDGE_TIMEOUT_MS)) || DEFAULT_BRIDGE_TIMEOUT_MS;
    // A page context is required, unless (ours) a transport is given: Node tools may then connect.
    if ((globalThis as { window?: unknown }).window === undefined && !options.transport) {
      this.#failure = UNAVAILABLE('Pedelec SDK must run in a browser page context.');
      return;
    }
    this.#openPort = options.transport ?? extensionTransport(options.extensionId);
    this.#activity = watchPageActivity((active) => this.#post({ type: 'page_activity', active }));
    try {
      this.#connect();
    } catch {
      // Recorded in #failure: the next request tries again.
    }
  }

  /**
   * The open port, or a new one: with today's handshake — without it, an extension flags the page's
   * SDK as outdated and may open its popup — then the page's activity. Throws when none can be opened.
   */
  #connect(): BridgePort {
    if (this.#port) return this.#port;
    if (!this.#openPort || this.#closed) throw this.#failure ?? UNAVAILABLE();
    let port: BridgePort;
    try {
      port = this.#openPort();
    } catch (thrown) {
      this.#failure = isPedelecError(thrown)
        ? thrown
        : normalizeError(thrown, 'EXTENSION_UNAVAILABLE', 'Pedelec extension is unavailable.');
      throw this.#failure;
    }
    this.#port = port;
    this.#failure = null;
    this.#era = 'unknown';
    // A transport may hand out the same port again (the memory pair does): listened to once.
    if (!this.#heard.has(port)) {
      this.#heard.add(port);
      port.onMessage.addListener((message) => {
        if (port === this.#port) this.#handleMessage(message);
      });
      port.onDisconnect.addListener(() => this.#handleDisconnect(port));
    }
    this.#post({ type: 'sdk_hello', sdkVersion: PEDELEC_PROTOCOL_VERSION });
    this.#activity.announce();
    return port;
  }

  /** Posts a message that is not a request (no answer expected), on the open port only. */
  #post(message: { type: BridgeNotificationType; [key: string]: unknown }): void {
    try {
      this.#port?.postMessage(message);
    } catch {
      // Said by the first request posted after it.
    }
  }

  /** (ours) Why requests cannot reach Pedelec now (no port is open), or null while one is. */
  get unavailableReason(): PedelecError | null {
    return this.#port ? null : (this.#failure ?? UNAVAILABLE());
  }

  /** @internal Whether the extension is a 0.1.x one (it refused the handshake). */
  get legacyExtension(): boolean {
    return this.#era === '0.1';
  }

  /**
   * Low-level request: posted synchronously, answered by the matching response, rejected on
   * failure, on timeout (`SDK_BRIDGE_TIMEOUT`) or when the bridge goes away.
   */
  request<T = unknown>(type: string, payload: Record<string, unknown> = {}): Promise<T> {
    // Any type goes out as it is (a newer Pedelec may know more); the kit's own requests are typed below.
    return this.send<T>(type as BridgeRequestType, payload);
  }

  /**
   * A request of a type the protocol names (a misspelled one fails the type check), which may wait
   * longer than the bridge timeout (`waitMs`): one held for the user's approval.
   */
  protected send<T>(type: BridgeRequestType, payload: Record<string, unknown> = {}, waitMs?: number): Promise<T> {
    let port: BridgePort;
    try {
      port = this.#connect();
    } catch (error) {
      return Promise.reject(error);
    }
    const requestId = `sdk_${Date.now()}_${++this.#requestCount}`;
    // The envelope last: a payload cannot re-address the request (its answer would never match).
    const message = { ...payload, channelId: this.channelId, type, requestId };
    const held = waitMs ?? (APPROVAL_HELD_REQUESTS.has(type) ? this.#options.approvalTimeoutMs : undefined);
    // Never shorter than the bridge timeout; a held wait that is not a number does not count.
    const wait = (held as number) > this.#bridgeTimeoutMs ? (held as number) : this.#bridgeTimeoutMs;
    const response = this.#pending.add<T>(requestId, type, wait);
    try {
      port.postMessage(message);
    } catch (thrown) {
      const error = keepError(thrown, extensionDisconnected());
      this.#pending.reject(requestId, error);
      this.#handleDisconnect(port, error);
    }
    return response;
  }

  /** @internal For leak tests: how many requests are waiting for their response. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  #handleMessage(message: unknown): void {
    if (!isObject(message)) return;
    const { channelId, type, ok, error, requestId }: InboundMessage = message;
    // A 0.1.x extension refuses the handshake with a response addressed to nobody.
    if (type === 'response' && !requestId && ok === false) {
      if (this.#era === 'unknown') this.#era = '0.1';
      return;
    }
    if (channelId !== undefined && channelId !== this.channelId) return;
    if (type === 'response') {
      // An answer to a request, with no refusal of the handshake before it: today's extension.
      if (this.#era === 'unknown') this.#era = 'current';
      const { result } = message;
      if (ok === true) this.#pending.resolve(requestId, result === undefined ? {} : result);
      else {
        const fallback = pedelecError('SDK_TRANSPORT_ERROR', 'SDK transport request failed', error);
        this.#pending.reject(requestId, keepError(error, fallback));
      }
      // Every message routed from the bridge is Core's.
    } else this.receive(message, { source: 'core', eventReceivedAt: Date.now() });
  }

  /** A message for this channel that is not an answer to a request. */
  protected receive(_message: InboundMessage, _meta: EventMeta): void {}

  /**
   * The port went away (or could not take a message): `lost` hears it first, then every request
   * waiting on that port is rejected. Nothing is sent again; the next request opens a new port.
   */
  #handleDisconnect(port: BridgePort, error?: PedelecError): void {
    if (port !== this.#port) return;
    const lastError = port.error ?? chromeRuntime()?.lastError;
    const failure = error ?? keepError(lastError, extensionDisconnected(lastError));
    this.#port = null;
    this.#failure = failure;
    this.lost(failure);
    this.#pending.rejectAll(failure);
  }

  /** The port went away with `failure`. */
  protected lost(_failure: PedelecError): void {}

  /**
   * (ours) Closes the connection for good: pending requests and what the port routed to (a client's
   * live sessions) see a disconnect, and later requests fail. Used by elements releasing a shared client; the public SDK has no such method.
   */
  disconnect(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#activity.stop();
    const port = this.#port;
    if (!port) return;
    try {
      port.disconnect?.();
    } finally {
      this.#handleDisconnect(port);
    }
  }
}
