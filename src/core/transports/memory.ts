import type { BridgePort, PortFactory } from '../protocol.js';

type Listener<T> = (value: T) => void;

/** The far end of a memory pair: what a test or an in-page fake Core holds. */
export interface MemoryPeer {
  /** Sends a message to the page side (delivered asynchronously, like a real port). */
  postMessage(message: unknown): void;
  /** Called for every message the page side posts. */
  onMessage: { addListener(fn: Listener<unknown>): void; removeListener(fn: Listener<unknown>): void };
  /** Called when the page side disconnects. */
  onDisconnect: { addListener(fn: Listener<void>): void; removeListener(fn: Listener<void>): void };
  /** Disconnects the page side, as an extension reload would. */
  disconnect(): void;
  readonly connected: boolean;
}

function listenerSet<T>() {
  const set = new Set<Listener<T>>();
  return {
    set,
    event: { addListener: (fn: Listener<T>) => void set.add(fn), removeListener: (fn: Listener<T>) => void set.delete(fn) },
    emit: (value: T) => set.forEach((fn) => fn(value)),
  };
}

/**
 * An in-memory port pair for tests and demos: `transport` goes to `new Pedelec({ transport })`,
 * `peer` plays the extension. Messages are delivered in order, each in its own microtask (a real
 * port never delivers synchronously), and by reference — no serialization.
 */
export function createMemoryPair(): { transport: PortFactory; peer: MemoryPeer } {
  const toPage = listenerSet<unknown>();
  const toPeer = listenerSet<unknown>();
  const pageDisconnect = listenerSet<unknown>();
  const peerDisconnect = listenerSet<void>();
  let connected = true;

  const port: BridgePort = {
    postMessage(message) {
      if (!connected) throw { code: 'EXTENSION_DISCONNECTED', message: 'Pedelec extension disconnected.' };
      queueMicrotask(() => connected && toPeer.emit(message));
    },
    onMessage: toPage.event,
    onDisconnect: pageDisconnect.event,
    disconnect() {
      if (!connected) return;
      connected = false;
      queueMicrotask(() => peerDisconnect.emit());
    },
  };

  const peer: MemoryPeer = {
    postMessage(message) {
      if (connected) queueMicrotask(() => connected && toPage.emit(message));
    },
    onMessage: toPeer.event,
    onDisconnect: peerDisconnect.event,
    disconnect() {
      if (!connected) return;
      connected = false;
      queueMicrotask(() => pageDisconnect.emit(port));
    },
    get connected() {
      return connected;
    },
  };

  return { transport: () => port, peer };
}
