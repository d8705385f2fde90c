/**
 * What one feature of the development Core (the bridge, the inspector, assets, MCP) hands the server
 * to compose: the plain HTTP paths it answers, the WebSocket endpoints it accepts, and how it stops.
 * The server (server.ts) only routes to these and closes them in order; a new route or endpoint is a
 * change inside its feature's folder.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebSocket, WebSocketServer } from 'ws';

/** A plain HTTP route: `path` exactly, or every path under it when it ends with `/`. */
export type HttpRoute = {
  path: string;
  handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> | void;
};

/** A WebSocket endpoint at `path`; the server has checked the Host of its upgrade. */
export type SocketRoute = {
  path: string;
  /**
   * A pages' endpoint (`/bridge`, `/tools`): the server applies the Origin rules of security.ts before
   * `accept`, and sends the answers to one incoming chunk of frames in one write.
   */
  forPages: boolean;
  /** The socket server the upgrade is completed on (its frame limit applies). */
  sockets: WebSocketServer;
  /** A socket that got through: `origin` is the checked Origin (`null`: none was sent and that is allowed). */
  accept(ws: WebSocket, req: IncomingMessage, origin: string | null): void;
};

export type DevFeature = {
  readonly routes: readonly HttpRoute[];
  readonly sockets: readonly SocketRoute[];
  /** Stops the feature; its sockets are closed by the server first (see server.ts's `close`). */
  close(): Promise<void>;
};

/** The route of `routes` that answers `path`, if any. */
export function routeFor<R extends { path: string }>(routes: readonly R[], path: string): R | undefined {
  return routes.find((route) => (route.path.endsWith('/') ? path.startsWith(route.path) : path === route.path));
}

/**
 * Closes every socket of `servers` with `code`, gives the close handshakes a moment (`graceMs`), cuts
 * whatever is left, and closes the servers: a client that never answers cannot hold the Core's `close`.
 */
export async function closeSockets(
  servers: readonly WebSocketServer[],
  code = 1001,
  reason = 'pedelec-dev is stopping',
  graceMs = 1000,
): Promise<void> {
  const open = servers.flatMap((server) => [...server.clients]);
  for (const ws of open) ws.close(code, reason);
  let grace: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(
      open.map(
        (ws) => new Promise((resolve) => (ws.readyState === ws.CLOSED ? resolve(null) : ws.once('close', resolve))),
      ),
    ),
    new Promise((resolve) => (grace = setTimeout(resolve, graceMs).unref())),
  ]);
  clearTimeout(grace);
  for (const ws of open) ws.terminate();
  for (const server of servers) server.close();
}
