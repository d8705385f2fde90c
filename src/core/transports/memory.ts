import { portEvent, type BridgePort, type PortFactory } from '../bridge-port.js';
import { extensionDisconnected } from '../errors.js';

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

/**
 * An in-memory port pair for tests and demos: `transport` goes to `new Pedelec({ transport })`,
 * `peer` plays the extension. Messages are delivered in order, each in its own microtask (a real
 * port never delivers synchronously), and by reference — no serialization.
 */
export function createMemoryPair(): { transport: PortFactory; peer: MemoryPeer } {
  const [toPage, emitToPage] = portEvent<unknown>();
  const [toPeer, emitToPeer] = portEvent<unknown>();
  const [pageDisconnect, emitPageDisconnect] = portEvent<unknown>();
  const [peerDisconnect, emitPeerDisconnect] = portEvent<void>();
  let connected = true;
  /** Delivers in a microtask, and only while still connected. */
  const later = (fn: () => void) => queueMicrotask(() => connected && fn());
  /** Disconnects once; the other side hears of it in a microtask. */
  const disconnect = (notify: () => void) => () => {
    if (!connected) return;
    connected = false;
    queueMicrotask(notify);
  };

  const port: BridgePort = {
    postMessage(message) {
      if (!connected) throw extensionDisconnected();
      later(() => emitToPeer(message));
    },
    onMessage: toPage,
    onDisconnect: pageDisconnect,
    disconnect: disconnect(() => emitPeerDisconnect()),
  };

  const peer: MemoryPeer = {
    postMessage(message) {
      if (connected) later(() => emitToPage(message));
    },
    onMessage: toPeer,
    onDisconnect: peerDisconnect,
    disconnect: disconnect(() => emitPageDisconnect(port)),
    get connected() {
      return connected;
    },
  };

  return { transport: () => port, peer };
}
