/**
 * `startDevCore(options)`: the development Core's HTTP + WebSocket server. It wires the pieces
 * together — bridge connections, sessions, agents, approvals, assets, the inspector and static files —
 * and owns the checks every request passes first (Host allow-list; the Origin rules of security.ts).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';
import { DEFAULT_TOOL_TIMEOUT_MS } from '../core/protocol.js';
import { AgentDirectory, OperatorDesk } from './agents/index.js';
import type { ScriptRules } from './agents/script.js';
import { Approvals, type ApprovalMode } from './approval.js';
import { AssetStore, DEFAULT_ASSET_QUOTA_BYTES, MAX_ASSET_BYTES } from './assets.js';
import { BridgeConnection } from './bridge.js';
import { DevCoreError } from './errors.js';
import { InspectorHub } from './inspector.js';
import { MessageLog } from './message-log.js';
import { DEFAULT_PARTIAL_FRAME_TIMEOUT_MS, watchPartialFrames } from './partial-frames.js';
import { DEFAULT_PATTERN_BUDGET_MS, PatternChecks } from './pattern-check.js';
import { protocolProfile, type ProtocolName } from './protocol.js';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, SessionRegistry } from './registry.js';
import { ORIGIN_REFUSED_CLOSE_CODE } from '../core/transports/websocket.js';
import {
  checkOrigin,
  DEFAULT_ORIGINS,
  HostAllowList,
  isLoopbackHost,
  OriginAllowList,
  originRefusedReason,
} from './security.js';
import { staticHandler, type StaticHandler } from './static.js';

export type DevCoreOptions = {
  /** 7717 by default; 0 picks a free port. */
  port?: number;
  /** `127.0.0.1` by default. A non-loopback host needs `allowRemote`. */
  host?: string;
  allowRemote?: boolean;
  /** Origins allowed on the bridge besides the defaults (`http://localhost:*`, `http://127.0.0.1:*`, its own). */
  allowOrigins?: readonly string[];
  /**
   * Accept `/bridge` (and `/tools`) clients that send no `Origin`: local scripts such as the core SDK
   * in Node with `ws` (`--allow-no-origin`). Browsers always send one; without this, none is refused.
   */
  allowNoOrigin?: boolean;
  /** The agent serving sessions: `scripted` (default), `operator`, `openai`. */
  agent?: string;
  /** Rules for the scripted agent (see `loadScriptFile`). */
  script?: ScriptRules;
  /** A folder served at `/`, every path but the endpoints and `/_pedelec/…` (the demo pages for `npm start`). */
  serveDir?: string;
  approval?: ApprovalMode;
  strictProviders?: boolean;
  /** The Pedelec protocol spoken on the bridge: today's (`current`, the default) or SDK 0.1's (`0.1`). */
  protocol?: ProtocolName;
  /**
   * `false` simulates a provider that does not stream: no `chat_delta`, each assistant message only as
   * one `chat_message`. Default `true`. Needs the `current` protocol (0.1 pages would see no reply).
   */
  fragments?: boolean;
  /** Where agents read their configuration (API keys stay on the server). Defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Live sessions in all (`--max-sessions`, default 200); more are refused `SESSION_LIMIT_REACHED`. */
  maxSessions?: number;
  /** Live sessions of one origin; default a tenth of `maxSessions`, rounded up (20). */
  maxSessionsPerOrigin?: number;
  /**
   * A session left with no connection (made with `autoEndOnDisconnect: false`) is ended after this
   * long, and can be resumed until then (`--session-idle-ms`, default 600 000).
   */
  sessionIdleMs?: number;
  /** Told about unexpected exceptions (bugs); the page only ever sees `INTERNAL_ERROR`. */
  onBug?: (error: unknown) => void;

  // Tuning, mostly for tests.
  inspectorToken?: string;
  assetTokenTtlMs?: number;
  maxAssetBytes?: number;
  /** All sessions' assets together, in bytes (`--asset-quota-mb`; default 1 GiB). */
  assetQuotaBytes?: number;
  approvalTimeoutMs?: number;
  defaultToolTimeoutMs?: number;
  maxFrameBytes?: number;
  /** A WebSocket message not complete this long after it began closes its connection (30 000 ms). */
  partialFrameTimeoutMs?: number;
  /** How long checking one call's args against a schema with a `pattern` may take (1 000 ms). */
  patternBudgetMs?: number;
};

export type DevCore = {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  port: number;
  host: string;
  bridgeUrl: string;
  /** Includes `#token=…`: the only way into the inspector. */
  inspectorUrl: string;
  inspectorToken: string;
  /** Ends every session, closes every socket, deletes the asset folders. Idempotent. */
  close(): Promise<void>;
};

export const DEFAULT_PORT = 7717;
/**
 * Everything pedelec-dev serves besides its three endpoints (`/bridge`, `/tools`, `/mcp`) is under
 * this prefix — the kit (`cdn/`, `dist/`), the inspector, the asset URLs — so that every other path is
 * the developer's own, from `--serve DIR`, whole: a Vite `dist/` with its `assets/` serves as built.
 */
export const RESERVED_PREFIX = '/_pedelec/';
/** A frame above this closes the connection with 1009 (dev-core.md). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

const packageRoot = fileURLToPath(new URL('../../', import.meta.url));
const inspectorPage = fileURLToPath(new URL('./inspector-page/', import.meta.url));

export function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(`${packageRoot}package.json`, 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

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

/** `::1` → `[::1]`; the wildcard addresses are reached through loopback. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function listenError(error: NodeJS.ErrnoException, host: string, port: number): DevCoreError {
  if (error.code === 'EADDRINUSE') {
    return new DevCoreError(
      'PORT_IN_USE',
      `Port ${port} on ${host} is already in use. Stop what is using it, or choose another with --port (--port 0 picks a free one).`,
    );
  }
  if (error.code === 'EACCES')
    return new DevCoreError(
      'PORT_NOT_ALLOWED',
      `Not allowed to listen on port ${port} of ${host}; choose another with --port.`,
    );
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND')
    return new DevCoreError('HOST_UNAVAILABLE', `Cannot listen on ${host}: no such address on this machine.`);
  return new DevCoreError('LISTEN_FAILED', `Cannot listen on ${host}:${port}: ${error.message}`);
}

export async function startDevCore(options: DevCoreOptions = {}): Promise<DevCore> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new DevCoreError('INVALID_OPTION', `--port ${port}: expected 0…65535`);
  const remote = !isLoopbackHost(host);
  if (remote && !options.allowRemote) {
    throw new DevCoreError(
      'REMOTE_HOST_REFUSED',
      `--host ${host} would expose pedelec-dev beyond this machine. It is a development tool with no authentication on the bridge; add --allow-remote if you really mean it.`,
    );
  }
  const origins = new OriginAllowList([...DEFAULT_ORIGINS, ...(options.allowOrigins ?? [])]);
  const originRules = { origins, allowNoOrigin: options.allowNoOrigin ?? false };
  const partialFrameTimeoutMs = options.partialFrameTimeoutMs ?? DEFAULT_PARTIAL_FRAME_TIMEOUT_MS;
  const hosts = new HostAllowList(remote ? [host] : []);
  const approval = options.approval ?? 'auto';
  const strictProviders = options.strictProviders ?? false;
  const protocol = protocolProfile(options.protocol ?? 'current', { fragments: options.fragments });
  const reportBug = options.onBug ?? ((error: unknown) => console.error('pedelec-dev: internal error:', error));

  const desk = new OperatorDesk();
  const agents = new AgentDirectory(options.agent ?? 'scripted', {
    script: options.script,
    desk,
    env: options.env ?? process.env,
  });
  const approvals = new Approvals(approval, options.approvalTimeoutMs ?? 60_000);
  const log = new MessageLog();
  let baseUrl = '';
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const registry = new SessionRegistry((sessionId) => void assets.dropSession(sessionId), {
    maxSessions,
    maxSessionsPerOrigin: options.maxSessionsPerOrigin ?? Math.max(1, Math.ceil(maxSessions / 10)),
    idleMs: options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS,
  });
  const assets = new AssetStore({
    ttlMs: options.assetTokenTtlMs ?? 60_000,
    maxBytes: options.maxAssetBytes ?? MAX_ASSET_BYTES,
    quotaBytes: options.assetQuotaBytes ?? DEFAULT_ASSET_QUOTA_BYTES,
    baseUrl: () => baseUrl,
    originAllowed: (origin) => origins.allows(origin),
    sessionAlive: (sessionId) => registry.get(sessionId) !== undefined,
  });
  const inspectorToken = options.inspectorToken ?? randomBytes(16).toString('hex');
  const ownOrigins = new Set<string>();
  const patterns = new PatternChecks(options.patternBudgetMs ?? DEFAULT_PATTERN_BUDGET_MS);
  const bridgeDeps = {
    registry,
    agents,
    approvals,
    assets,
    log,
    patterns,
    strictProviders,
    protocol,
    defaultToolTimeoutMs: options.defaultToolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    reportBug,
    // Two of the largest frames a page may send: room for any one reply, not for a page that stopped reading.
    maxBufferedBytes: 2 * (options.maxFrameBytes ?? MAX_FRAME_BYTES),
  };
  const hub = new InspectorHub({
    token: inspectorToken,
    ownOrigins: () => ownOrigins,
    registry,
    approvals,
    desk,
    log,
    info: () => ({
      version: packageVersion(),
      agent: agents.selectedCode,
      approval,
      strictProviders,
      protocol: protocol.name,
      fragments: protocol.chatFragments,
      bridgeUrl: `${baseUrl.replace(/^http/, 'ws')}/bridge`,
    }),
  });

  const bridgeSockets = new WebSocketServer({ noServer: true, maxPayload: options.maxFrameBytes ?? MAX_FRAME_BYTES });
  // Sockets of refused origins: closed as soon as they open, and no frame they send is bigger than a close frame.
  const refusedSockets = new WebSocketServer({ noServer: true, maxPayload: 125 });

  /**
   * Turns away a page whose origin is not allowed, in a way the page can tell from a Core that is not
   * running: the upgrade completes and the socket closes at once with {@link ORIGIN_REFUSED_CLOSE_CODE}
   * and a reason naming the flag to pass. No message is read (there is no listener; frames are capped at
   * close-frame size) and none is sent; what the page learns is that pedelec-dev runs on this port.
   * A page that does not answer the close is cut off after a second.
   */
  function refuseOrigin(req: IncomingMessage, socket: Duplex, head: Buffer, origin: string): void {
    refusedSockets.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      ws.on('error', () => {}); // a frame over the cap: ws closes the socket, after our close frame
      ws.close(ORIGIN_REFUSED_CLOSE_CODE, originRefusedReason(origin));
      const cutOff = setTimeout(() => ws.terminate(), 1000);
      ws.once('close', () => clearTimeout(cutOff));
    });
  }
  const inspectorSockets = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });

  // The kit's own files, under the reserved prefix; the developer's site (--serve DIR) gets every other path.
  const kitMounts: Array<[prefix: string, handler: StaticHandler]> = [
    ['/cdn/', staticHandler(`${packageRoot}cdn`)],
    ['/dist/', staticHandler(`${packageRoot}dist`)],
  ];
  const site = options.serveDir === undefined ? null : staticHandler(options.serveDir);
  const inspectorFiles = staticHandler(inspectorPage, { 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'no-referrer' });

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hosts.allows(req.headers.host))
      return plain(res, 403, 'Host not allowed: pedelec-dev answers only to this machine’s own names.');
    const raw = req.url ?? '/';
    if (!raw.startsWith('/')) return plain(res, 400, 'Bad request');
    const q = raw.indexOf('?');
    const path = q < 0 ? raw : raw.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));

    // The three endpoints (dev-core.md): /bridge and /tools answer only WebSocket upgrades.
    if (path === '/bridge' || path === '/tools') return plain(res, 426, 'This is a WebSocket endpoint.');
    if (path === '/mcp') return plain(res, 404, 'pedelec-dev serves no MCP endpoint yet: /mcp is reserved for it.');
    if (path === '/_pedelec' || path.startsWith(RESERVED_PREFIX)) return onReserved(req, res, path, query);
    if (site) return site(req, res, path, '/');
    if (path === '/') {
      return plain(
        res,
        200,
        `pedelec-dev ${packageVersion()} is running.\nBridge: ${baseUrl.replace(/^http/, 'ws')}/bridge\n` +
          `Kit: ${baseUrl}${RESERVED_PREFIX}cdn/pedelec-elements.js\n` +
          'Open the inspector through the URL printed in the terminal. Pass --serve DIR to serve your pages here.\n',
      );
    }
    return plain(res, 404, 'Not found');
  }

  /** What pedelec-dev serves itself, under `/_pedelec/`: assets, the inspector, the kit's files. */
  async function onReserved(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: URLSearchParams,
  ): Promise<void> {
    const sub = path.slice(RESERVED_PREFIX.length - 1); // `/_pedelec/cdn/x.js` → `/cdn/x.js`
    if (sub.startsWith('/assets/')) return assets.handle(req, res, path, query);
    if (sub === '/inspector/socket') return plain(res, 426, 'This is a WebSocket endpoint.');
    if (sub === '/inspector' || sub.startsWith('/inspector/')) {
      // The page and its script come from this origin only; the socket goes back to the same host.
      res.setHeader(
        'Content-Security-Policy',
        `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self' ws://${req.headers.host}; ` +
          `base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      );
      const file = sub === '/inspector' || sub === '/inspector/' ? '/index.html' : sub.slice('/inspector'.length);
      return inspectorFiles(req, res, file, `${RESERVED_PREFIX}inspector/`);
    }
    for (const [prefix, handler] of kitMounts) {
      if (sub.startsWith(prefix))
        return handler(req, res, sub.slice(prefix.length - 1), `${RESERVED_PREFIX}${prefix.slice(1)}`);
    }
    return plain(res, 404, 'Not found');
  }

  const server = createServer((req, res) => {
    onRequest(req, res).catch((error) => {
      reportBug(error);
      if (!res.headersSent) plain(res, 500, 'Internal error');
      else res.destroy();
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  let closing = false;
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    if (closing) return refuseUpgrade(socket, 503, 'pedelec-dev is stopping');
    if (!hosts.allows(req.headers.host)) return refuseUpgrade(socket, 403, 'Host not allowed');
    const path = (req.url ?? '').split('?')[0];
    if (path === '/bridge' || path === '/tools') {
      const decision = checkOrigin(path, req.headers, originRules);
      if (!decision.allowed) {
        // A browser cannot read an HTTP refusal of an upgrade: it would tell the user "not running".
        if (req.headers.origin !== undefined) return refuseOrigin(req, socket, head, req.headers.origin);
        return refuseUpgrade(socket, 403, decision.reason);
      }
      bridgeSockets.handleUpgrade(req, socket, head, (ws: WebSocket) => {
        watchPartialFrames(ws, socket, partialFrameTimeoutMs);
        batchWrites(socket);
        // Reserved for the MCP page link (every-agent.md §4), which this version does not have yet.
        if (path === '/tools') return ws.close(1008, 'pedelec-dev: /tools (the MCP page link) is not enabled');
        void new BridgeConnection(ws, decision.origin, bridgeDeps);
      });
      return;
    }
    if (path === `${RESERVED_PREFIX}inspector/socket`) {
      inspectorSockets.handleUpgrade(req, socket, head, (ws: WebSocket) => {
        watchPartialFrames(ws, socket, partialFrameTimeoutMs);
        hub.accept(ws, req);
      });
      return;
    }
    refuseUpgrade(socket, 404, 'No WebSocket endpoint here');
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await agents.close();
    throw listenError(error as NodeJS.ErrnoException, host, port);
  }
  server.on('error', reportBug);

  const actualPort = (server.address() as AddressInfo).port;
  baseUrl = `http://${urlHost(host)}:${actualPort}`;
  for (const name of remote ? [urlHost(host)] : ['127.0.0.1', 'localhost', '[::1]', urlHost(host)]) {
    ownOrigins.add(`http://${name}:${actualPort}`);
  }
  for (const own of ownOrigins) origins.add(own);

  let closed: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      closing = true;
      approvals.dispose();
      registry.endAll(); // pages get `ended` before their socket closes
      for (const ws of bridgeSockets.clients) ws.close(1001, 'pedelec-dev is stopping');
      hub.closeAll(1001, 'pedelec-dev is stopping');
      // Give close handshakes a moment, then cut whatever is left.
      const sockets = [...bridgeSockets.clients, ...inspectorSockets.clients, ...refusedSockets.clients];
      await Promise.race([
        Promise.all(
          sockets.map(
            (ws) => new Promise((resolve) => (ws.readyState === ws.CLOSED ? resolve(null) : ws.once('close', resolve))),
          ),
        ),
        new Promise((resolve) => setTimeout(resolve, 1000).unref()),
      ]);
      for (const ws of sockets) ws.terminate();
      bridgeSockets.close();
      inspectorSockets.close();
      refusedSockets.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await agents.close();
      await patterns.close();
      await assets.dispose();
    })();
    return closed;
  };

  return {
    url: baseUrl,
    port: actualPort,
    host,
    bridgeUrl: `${baseUrl.replace(/^http/, 'ws')}/bridge`,
    inspectorUrl: `${baseUrl}${RESERVED_PREFIX}inspector#token=${inspectorToken}`,
    inspectorToken,
    close,
  };
}
