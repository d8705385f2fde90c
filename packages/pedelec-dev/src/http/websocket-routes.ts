/**
 * Where a WebSocket upgrade goes: to the endpoint of the feature that declared its path (the bridge's
 * `/bridge`, MCP's `/tools`, the inspector's socket), a page of a refused origin to a socket closed at
 * once, anything else an HTTP refusal. Apart from server.ts, which composes the features and stops
 * them, and from http-routes.ts, since an upgrade is checked and refused in its own ways (an Origin
 * rule; no HTTP response a browser could read).
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { ORIGIN_REFUSED_CLOSE_CODE } from 'pedelec-elements/protocol';
import { closeSockets, type SocketRoute } from './feature.js';
import { watchPartialFrames } from './partial-frames.js';
import {
  checkOrigin,
  originRefusedReason,
  type EndpointPath,
  type HostAllowList,
  type OriginRules,
} from './security.js';

export type WebSocketRouteDeps = {
  hosts: HostAllowList;
  originRules: OriginRules;
  partialFrameTimeoutMs: number;
  /** Every feature's endpoints. */
  routes: readonly SocketRoute[];
};

/**
 * Refuses an upgrade with a plain HTTP answer (the socket has no WebSocket yet), then closes the
 * socket outright: `end()` alone leaves it half-open for as long as the client keeps its side open,
 * and such a socket is beyond `server.close()` — it would hold `close()` (and the process) forever.
 */
function refuseUpgrade(socket: Duplex, status: number, text: string): void {
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
}

/**
 * The answers to one incoming chunk of a page's frames go out in one write: a page that sends a
 * hundred requests at once got a hundred system calls, one per answer, on the thread every other page
 * waits for. The socket is corked before ws reads the chunk (so this listener goes first) and uncorked
 * once that chunk's synchronous work is done.
 */
function batchWrites(socket: Duplex): void {
  socket.prependListener('data', () => {
    socket.cork();
    process.nextTick(() => socket.uncork());
  });
}

export class WebSocketRoutes {
  // Sockets of refused origins: closed as soon as they open, and no frame they send is bigger than a close frame.
  private readonly refusedSockets = new WebSocketServer({ noServer: true, maxPayload: 125 });
  /** Set once the Core is stopping: a new upgrade is refused. */
  private closing = false;

  constructor(private readonly deps: WebSocketRouteDeps) {}

  /** The server's `upgrade` listener. */
  handle(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const { hosts, originRules, partialFrameTimeoutMs } = this.deps;
    socket.on('error', () => {});
    if (this.closing) return refuseUpgrade(socket, 503, 'pedelec-dev is stopping');
    if (!hosts.allows(req.headers.host)) return refuseUpgrade(socket, 403, 'Host not allowed');
    const path = (req.url ?? '').split('?')[0];
    const route = this.deps.routes.find((candidate) => candidate.path === path);
    if (!route) return refuseUpgrade(socket, 404, 'No WebSocket endpoint here');
    let origin: string | null = null;
    if (route.forPages) {
      const decision = checkOrigin(path as EndpointPath, req.headers, originRules);
      if (!decision.allowed) {
        // A browser cannot read an HTTP refusal of an upgrade: it would tell the user "not running".
        if (req.headers.origin !== undefined) return this.refuseOrigin(req, socket, head, req.headers.origin);
        return refuseUpgrade(socket, 403, decision.reason);
      }
      origin = decision.origin;
    }
    route.sockets.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      watchPartialFrames(ws, socket, partialFrameTimeoutMs);
      if (route.forPages) batchWrites(socket);
      route.accept(ws, req, origin);
    });
  }

  /**
   * Turns away a page whose origin is not allowed, in a way the page can tell from a Core that is not
   * running: the upgrade completes and the socket closes at once with {@link ORIGIN_REFUSED_CLOSE_CODE}
   * and a reason naming the flag to pass. No message is read (there is no listener; frames are capped at
   * close-frame size) and none is sent; what the page learns is that pedelec-dev runs on this port.
   * A page that does not answer the close is cut off after a second.
   */
  private refuseOrigin(req: IncomingMessage, socket: Duplex, head: Buffer, origin: string): void {
    this.refusedSockets.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      ws.on('error', () => {}); // a frame over the cap: ws closes the socket, after our close frame
      ws.close(ORIGIN_REFUSED_CLOSE_CODE, originRefusedReason(origin));
      const cutOff = setTimeout(() => ws.terminate(), 1000);
      ws.once('close', () => clearTimeout(cutOff));
    });
  }

  /** From now on every upgrade is refused (503): the Core is stopping. */
  refuseNew(): void {
    this.closing = true;
  }

  /** Cuts the refused origins' sockets still open (each feature closes its own endpoints' sockets). */
  close(): Promise<void> {
    return closeSockets([this.refusedSockets]);
  }
}
