/**
 * The page ⇄ extension wire contract (docs/design/bridge-protocol.md): names, ids and the shape of a port.
 */
import type { BridgeRequestType } from './bridge-messages.js';
import type { PedelecError } from './errors.js';

/** The production Pedelec extension. Dev builds of the extension have other ids. */
export const PEDELEC_EXTENSION_ID = 'ogccgaminlphbkeghldidiiimajfdpag';

/** The name every SDK port is opened with. */
export const PORT_NAME = 'pedelec-sdk-external';

/**
 * The version of the Pedelec protocol this kit implements, sent in the `sdk_hello` handshake (an
 * extension that hears none, or an older major.minor than its own, flags the page as outdated).
 */
export const PEDELEC_PROTOCOL_VERSION = '0.4.6';

/** Requests the extension may hold while its popup asks the user to approve the origin. */
export const APPROVAL_HELD_REQUESTS: ReadonlySet<string> = new Set<BridgeRequestType>([
  'get_settings',
  'list_providers',
  'create_session',
  'resume_session',
  'prepare_session',
  'list_assets',
  'create_asset_upload',
  'create_asset_download',
]);

/** A Chrome-style event: what a port's `onMessage` / `onDisconnect` look like. */
export interface PortEvent<TListener> {
  addListener(listener: TListener): void;
  removeListener?(listener: TListener): void;
}

/**
 * Anything shaped like a Chrome runtime port carries the protocol: the extension port, a WebSocket
 * to the development Core, an in-memory pair. `error` (ours) lets a non-Chrome transport say why it
 * disconnected, where Chrome would set `chrome.runtime.lastError`. Messages and the disconnection
 * arrive asynchronously, as on Chrome's ports: never from inside `postMessage` or `addListener` (a
 * client hears its port only once it is constructed).
 */
export interface BridgePort {
  postMessage(message: unknown): void;
  onMessage: PortEvent<(message: unknown) => void>;
  onDisconnect: PortEvent<(port?: unknown) => void>;
  disconnect?(): void;
  error?: PedelecError;
}

/** Opens a port. Called once, when a client is constructed; throwing means "unavailable". */
export type PortFactory = () => BridgePort;

/** @internal A listener set and the Chrome-style event that fills it (the transports' ports). */
export function portEvent<T>(): [event: Required<PortEvent<(value: T) => void>>, emit: (value: T) => void] {
  const set = new Set<(value: T) => void>();
  return [
    { addListener: (fn) => void set.add(fn), removeListener: (fn) => void set.delete(fn) },
    (value) => set.forEach((fn) => fn(value)),
  ];
}

/**
 * Delivers items one at a time, in order: an item raised while one is being delivered (a listener
 * that changes the status again) waits until that delivery is over, so every listener sees the same order.
 */
export function inOrder<T>(deliver: (item: T) => void): (item: T) => void {
  let queue: T[] | null = null;
  return (item) => {
    if (queue) return void queue.push(item);
    queue = [item];
    try {
      for (let next; (next = queue.shift()) !== undefined;) deliver(next);
    } finally {
      queue = null;
    }
  };
}

/** setTimeout's ceiling: a longer delay overflows and fires at once, so longer waits re-arm at this. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** How long Core waits for a tool's result when the tool names no `timeoutMs` (bridge-protocol.md §3). */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/** `<prefix>_<Date.now()>_<random>`; crypto.randomUUID when the platform has it. */
export const randomId = (prefix: string): string =>
  `${prefix}_${Date.now()}_${globalThis.crypto?.randomUUID?.() ?? Math.random().toString(36).slice(2)}`;

/** @internal Milliseconds on a monotonic clock: deadlines and durations survive the system clock being set back. */
export const monotonic = (): number => globalThis.performance?.now() ?? Date.now();
