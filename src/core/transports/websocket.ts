import { extensionDisconnected, pedelecError } from '../errors.js';
import { portEvent, type BridgePort, type PortFactory } from '../bridge-port.js';

type SocketLike = {
  readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  // The listener takes the socket's own event, whatever its class: the browser's and the `ws`
  // package's (which declare no `data` on most) fit alike.
  addEventListener(type: string, listener: (event: unknown) => void): void;
};
type SocketConstructor = new (url: string) => SocketLike;

/**
 * The close code with which the development Core turns away a page whose origin it does not allow. A
 * browser cannot read why an upgrade failed, so the Core completes it and closes at once with this code
 * (reading and sending nothing): the page can tell "refused" from "not running" and say which flag to pass.
 */
export const ORIGIN_REFUSED_CLOSE_CODE = 4003;

/**
 * A port over a WebSocket to the development Core (`pedelec-dev`), which speaks the page-level
 * protocol as JSON text frames. Messages posted before the socket opens are queued; a socket that
 * never opens disconnects the port with `BRIDGE_UNAVAILABLE`, so pending work fails with a clear
 * reason instead of timing out; a Core that refuses the page's origin, with `BRIDGE_ORIGIN_REFUSED`
 * (details: `url` and the Core's `reason`, which names the flag to pass). `WebSocketImpl` lets Node
 * (which may lack a global one) pass `ws`.
 */
export function websocketTransport(url: string, WebSocketImpl?: SocketConstructor): PortFactory {
  return () => {
    const Impl = WebSocketImpl ?? (globalThis as { WebSocket?: SocketConstructor }).WebSocket;
    if (!Impl) throw new Error('WebSocket is unavailable');
    let socket: SocketLike;
    try {
      socket = new Impl(url);
    } catch {
      // Firefox refuses a URL the page's CSP (connect-src) blocks in the constructor: a socket that
      // never opens, so the port reports BRIDGE_UNAVAILABLE as for any Core it cannot reach.
      socket = {
        readyState: 3,
        send() {},
        close() {},
        addEventListener: (type, listener) => type === 'close' && queueMicrotask(() => listener({})),
      };
    }
    // Every socket's event is an object, which holds these fields when its type does (a close event's
    // `reason` is text).
    const on = (type: string, listener: (event: { data?: unknown; code?: unknown; reason?: string }) => void) =>
      socket.addEventListener(type, listener as (event: unknown) => void);
    const [onMessage, emitMessage] = portEvent<unknown>();
    const [onDisconnect, emitDisconnect] = portEvent<unknown>();
    /** Frames posted before the socket opened; null once it opened or closed. */
    let queue: string[] | null = [];
    let opened = false;
    let closed = false;

    const port: BridgePort = {
      postMessage(message) {
        if (closed) throw port.error ?? extensionDisconnected();
        const frame = JSON.stringify(message);
        if (queue) queue.push(frame);
        else socket.send(frame);
      },
      onMessage,
      onDisconnect,
      disconnect() {
        if (closed) return;
        closed = true;
        queue = null;
        socket.close(1000, 'client closed');
      },
    };

    on('open', () => {
      opened = true;
      const pending = queue ?? [];
      queue = null;
      if (!closed) pending.forEach((frame) => socket.send(frame));
    });
    on('message', ({ data }) => {
      if (closed || typeof data !== 'string') return;
      let message: unknown;
      try {
        message = JSON.parse(data);
      } catch {
        return; // A frame that is not JSON is not a message; the protocol layer never sees it.
      }
      emitMessage(message);
    });
    const onClose = ({ code, reason }: { code?: unknown; reason?: string }) => {
      if (closed) return;
      closed = true;
      queue = null;
      port.error =
        code === ORIGIN_REFUSED_CLOSE_CODE
          ? pedelecError('BRIDGE_ORIGIN_REFUSED', `Development Core at ${url}: ${reason}`, { url, reason })
          : opened
            ? pedelecError('EXTENSION_DISCONNECTED', `Development Core at ${url} disconnected.`)
            : pedelecError('BRIDGE_UNAVAILABLE', `Development Core not reachable at ${url}`, { url });
      emitDisconnect(port);
    };
    on('close', onClose);
    // 'error' is followed by 'close' — except where the page's CSP (connect-src) blocks the socket:
    // Chromium then fires only 'error', with the socket already CLOSED. (A listener also keeps some
    // environments from reporting the event as unhandled.)
    on('error', () => {
      if (socket.readyState === 3) onClose({});
    });
    return port;
  };
}
