import {
  Pedelec,
  extensionTransport,
  type PedelecAvailability,
  type PedelecError,
  type PedelecOptions,
} from '../../core/index.js';
import { lazyModule } from '../../core/lazy-module.js';
import { deferredTransport } from '../../core/transports/deferred.js';
import { bridgeKey, type BridgeConfig } from '../bridge-url.js';

/** The development Core's socket code: only pages that name a `ws:` bridge download it. */
const loadWebsocket = lazyModule(
  () => import('../../core/transports/websocket.js'),
  "the development Core's connection",
);

type Entry = { client: Pedelec; holders: Set<object> };

/**
 * Session elements with the same bridge configuration share one client, so one page opens one port
 * (or one socket) however many sessions it declares. The connection closes when its last holder
 * releases it.
 */
const pool = new Map<string, Entry>();

function keyOf(config: BridgeConfig, bridgeTimeoutMs: number | undefined): string {
  return `${bridgeKey(config)}|${bridgeTimeoutMs ?? ''}`;
}

function create(config: BridgeConfig, bridgeTimeoutMs: number | undefined): Pedelec {
  const options: PedelecOptions = {
    transport:
      config.kind === 'websocket'
        ? deferredTransport(() => loadWebsocket().then(({ websocketTransport }) => websocketTransport(config.url)))
        : extensionTransport(config.extensionId),
  };
  if (bridgeTimeoutMs !== undefined) options.bridgeTimeoutMs = bridgeTimeoutMs;
  return new Pedelec(options);
}

/**
 * The shared client for a configuration. One whose connection is gone is not handed out again: a new
 * holder (an element starting, or restarting — the explicit reconnect) gets a new client; holders of
 * the old one keep it until they restart too. Nothing reconnects on its own.
 */
export function acquireClient(holder: object, config: BridgeConfig, bridgeTimeoutMs: number | undefined): Pedelec {
  const key = keyOf(config, bridgeTimeoutMs);
  let entry = pool.get(key);
  if (entry?.client.unavailableReason) {
    pool.delete(key);
    entry = undefined;
  }
  if (!entry) {
    entry = { client: create(config, bridgeTimeoutMs), holders: new Set() };
    pool.set(key, entry);
  }
  entry.holders.add(holder);
  return entry.client;
}

/**
 * Asks a connection of its own, closed again after: for a bridge whose shared client went away, which
 * stays down until a holder restarts (nothing reconnects on its own), to learn whether it is back.
 */
export function probeAvailability(
  config: BridgeConfig,
  bridgeTimeoutMs: number | undefined,
): Promise<PedelecAvailability> {
  const client = create(config, bridgeTimeoutMs);
  return client.checkAvailability().finally(() => client.disconnect());
}

/** Gives a client back; the last holder closes its connection. */
export function releaseClient(holder: object, client: Pedelec): void {
  for (const [key, entry] of pool) {
    if (entry.client !== client) continue;
    entry.holders.delete(holder);
    if (entry.holders.size === 0) {
      pool.delete(key);
      client.disconnect();
    }
    return;
  }
  // A replaced (dead) client is no longer pooled: nothing left to close.
}

/** @internal For leak tests: how many shared clients are open. */
export function openClientCount(): number {
  return pool.size;
}

/**
 * The client one session element holds: taken from the pool for the bridge as configured, and given
 * back when the element lets it go. A new configuration means another client (the old one is given
 * back first).
 */
export class ClientLease {
  #client: Pedelec | null = null;
  #key: string | null = null;

  constructor(private readonly holder: object) {}

  get client(): Pedelec | null {
    return this.#client;
  }

  /** The client for `config`: the one held, when it was taken for the same configuration. */
  take(config: BridgeConfig, bridgeTimeoutMs: number | undefined): Pedelec {
    const key = keyOf(config, bridgeTimeoutMs);
    if (this.#client && this.#key === key) return this.#client;
    this.release();
    this.#client = acquireClient(this.holder, config, bridgeTimeoutMs);
    this.#key = key;
    return this.#client;
  }

  release(): void {
    if (this.#client) releaseClient(this.holder, this.#client);
    this.#client = null;
    this.#key = null;
  }

  /**
   * The client for a start, a check or a cleanup. While a session runs on the held client it stays
   * (`keepHeld`): a changed bridge makes that session stale and restart() applies it — switching here
   * would cut it off.
   */
  clientFor(
    bridge: BridgeConfig | PedelecError,
    bridgeTimeoutMs: number | undefined,
    keepHeld: boolean,
  ): Pedelec | PedelecError {
    if (this.#client && keepHeld) return this.#client;
    return 'code' in bridge ? bridge : this.take(bridge, bridgeTimeoutMs);
  }

  /**
   * The bridge's availability (never rejects). A client whose bridge went away stays down until
   * restart(), the explicit reconnect; with no session on it (`keepHeld` false), a connection of its own
   * asks whether the bridge is back (a dev Core restarted, say). `done` runs after a check on the held client.
   */
  checkAvailability(
    bridge: BridgeConfig | PedelecError,
    bridgeTimeoutMs: number | undefined,
    keepHeld: boolean,
    done: () => void,
  ): Promise<PedelecAvailability> {
    const client = this.clientFor(bridge, bridgeTimeoutMs, keepHeld);
    if ('code' in client) {
      return Promise.resolve({
        available: false,
        extension: { available: false },
        approval: { approved: false, origin: globalThis.location?.origin ?? null },
        desktop: { available: false, launchAttempted: false },
        error: client,
      });
    }
    if (client.unavailableReason && !keepHeld && !('code' in bridge)) return probeAvailability(bridge, bridgeTimeoutMs);
    return client.checkAvailability().finally(done);
  }

  /** The explicit reconnect: a client whose bridge went away is given back, so the next take() makes a new one. */
  releaseIfDown(): void {
    if (this.#client?.unavailableReason) this.release();
  }
}
