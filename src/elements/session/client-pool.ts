import { Pedelec, extensionTransport, type PedelecAvailability, type PedelecOptions } from '../../core/index.js';
import { websocketTransport } from '../../core/transports/websocket.js';
import { bridgeKey, type BridgeConfig } from './bridge.js';

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
    transport: config.kind === 'websocket' ? websocketTransport(config.url) : extensionTransport(config.extensionId),
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
