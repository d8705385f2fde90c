/**
 * `startDevCore(options)`: the development Core's HTTP + WebSocket server. It wires the pieces
 * together — bridge connections, sessions, agents, approvals, assets, the inspector and static files —
 * sets up the checks every request passes first (Host allow-list; the Origin rules of security.ts),
 * listens, and stops it all again in order. Where each request goes is http-routes.ts's (plain HTTP)
 * and websocket-routes.ts's (upgrades).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_TOOL_TIMEOUT_MS } from 'pedelec-elements/protocol';
import { AgentDirectory, OperatorDesk } from './agents/index.js';
import type { ScriptRules } from './agents/script.js';
import { Approvals, type ApprovalMode } from './inspector/approval.js';
import { AssetStore, DEFAULT_ASSET_QUOTA_BYTES, MAX_ASSET_BYTES } from './assets/asset-store.js';
import { DevCoreError } from './errors.js';
import { httpRoutes, plain, RESERVED_PREFIX } from './http/http-routes.js';
import { InspectorHub } from './inspector/inspector.js';
import { McpEndpoint } from './mcp/mcp-endpoint.js';
import { PageDirectory } from './mcp/page-directory.js';
import { tokenFromFile } from './mcp/token-file.js';
import { MessageLog } from './inspector/message-log.js';
import { kitRoot, packageVersion } from './package-files.js';
import { DEFAULT_PARTIAL_FRAME_TIMEOUT_MS } from './http/partial-frames.js';
import { DEFAULT_PATTERN_BUDGET_MS, PatternChecks } from './bridge/pattern-check.js';
import { protocolProfile, type ProtocolName } from './bridge/protocol-profile.js';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, SessionRegistry } from './bridge/registry.js';
import { DEFAULT_ORIGINS, HostAllowList, isLoopbackHost, OriginAllowList } from './http/security.js';
import { WebSocketRoutes } from './http/websocket-routes.js';
import type { PageLink } from './mcp/page-link.js';

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
  /**
   * Snapshots in today's Core's spelling (`--core-statuses`): status `waitingToolResult`, and
   * `pendingToolRequest` as `{ requestId, threadId, operationId, toolName, args, createdAt, timeoutMs }`.
   * Default `false`: `waiting_tool_result` and `{ toolRequestId, tool, args, operationId }`. Needs the
   * `current` protocol (0.1 sends no snapshots).
   */
  coreStatuses?: boolean;
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
  /**
   * MCP on (`--mcp`): pages link their tools on `/tools` (`<pedelec-session mcp>`) and MCP clients
   * call them at `/mcp`, with the bearer token.
   */
  mcp?: boolean;
  /** The bearer token `/mcp` requires. Default: from `mcpTokenFile`, else random (128 bits) per start. */
  mcpToken?: string;
  /**
   * A file that keeps the token across restarts (reused when it holds one, else written, readable by
   * the user only), or a function naming it by the port the server listens on. The CLI's default is
   * `~/.pedelec-dev/<port>.token`; here, no file.
   */
  mcpTokenFile?: string | ((port: number) => string);
  /** `prompt`: every MCP call waits for the operator's approval in the inspector (`--mcp-approval`). Default `auto`. */
  mcpApproval?: 'auto' | 'prompt';
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
  /** `http://…/mcp` when MCP is on, else `null`. */
  mcpUrl: string | null;
  /** The bearer token `/mcp` requires, when MCP is on. */
  mcpToken: string | null;
  /** Where that token is kept, if anywhere. */
  mcpTokenFile: string | null;
  /** Where a page links its tools (`<pedelec-session mcp="…">`), when MCP is on. */
  toolsUrl: string | null;
  /** Ends every session, closes every socket, deletes the asset folders. Idempotent. */
  close(): Promise<void>;
};

export const DEFAULT_PORT = 7717;
/** A frame above this closes the connection with 1009 (dev-core.md). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

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
  const kitDir = kitRoot(); // before anything is set up: a kit that cannot be found leaves nothing running
  const origins = new OriginAllowList([...DEFAULT_ORIGINS, ...(options.allowOrigins ?? [])]);
  const originRules = { origins, allowNoOrigin: options.allowNoOrigin ?? false };
  const partialFrameTimeoutMs = options.partialFrameTimeoutMs ?? DEFAULT_PARTIAL_FRAME_TIMEOUT_MS;
  const hosts = new HostAllowList(remote ? [host] : []);
  const approval = options.approval ?? 'auto';
  const strictProviders = options.strictProviders ?? false;
  const protocol = protocolProfile(options.protocol ?? 'current', {
    fragments: options.fragments,
    coreStatuses: options.coreStatuses,
  });
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
      coreStatuses: protocol.coreStatuses,
      bridgeUrl: `${baseUrl.replace(/^http/, 'ws')}/bridge`,
    }),
  });

  const directory = options.mcp ? new PageDirectory() : null;
  let mcpToken: string | null = null;
  let mcpTokenFile: string | null = null;
  const mcp =
    directory &&
    new McpEndpoint({
      token: () => mcpToken!,
      originRules,
      directory,
      version: packageVersion(),
      approve:
        options.mcpApproval === 'prompt'
          ? ({ client, tool, page }) =>
              approvals.askCall(page?.origin ?? null, {
                client,
                tool,
                page: page ? `${page.title || page.url} (${page.label})` : '?',
              })
          : undefined,
      onCall: ({ client, tool, ok, ms }) =>
        log.record('info', 'mcp', null, `MCP call ${tool} by ${client}: ${ok ? 'answered' : 'error'} in ${ms} ms`),
      reportBug,
    });
  const pageLinks = directory && {
    joined(link: PageLink) {
      const { title, url } = link.identity!;
      log.record('info', link.id, link.identity!.origin, `MCP page link from ${url}${title ? ` (${title})` : ''}`);
      directory.joined(link);
    },
    toolsChanged: (link: PageLink) => directory.toolsChanged(link),
    left(link: PageLink) {
      if (link.identity) log.record('info', link.id, link.identity.origin, 'MCP page link closed');
      directory.left(link);
    },
  };

  const sockets = new WebSocketRoutes({
    hosts,
    originRules,
    maxFrameBytes: options.maxFrameBytes ?? MAX_FRAME_BYTES,
    partialFrameTimeoutMs,
    bridgeDeps,
    hub,
    pageLinks,
  });
  const onRequest = httpRoutes({ hosts, assets, kitDir, serveDir: options.serveDir, baseUrl: () => baseUrl, mcp });

  const server = createServer((req, res) => {
    onRequest(req, res).catch((error) => {
      reportBug(error);
      if (!res.headersSent) plain(res, 500, 'Internal error');
      else res.destroy();
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  server.on('upgrade', (req, socket, head) => sockets.handle(req, socket, head));

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
  if (options.mcp) {
    const named = options.mcpTokenFile;
    mcpTokenFile = options.mcpToken ? null : ((typeof named === 'function' ? named(actualPort) : named) ?? null);
    try {
      mcpToken = options.mcpToken ?? (mcpTokenFile ? tokenFromFile(mcpTokenFile) : randomBytes(16).toString('hex'));
    } catch (error) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await agents.close();
      throw error;
    }
  }

  let closed: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      sockets.refuseNew();
      approvals.dispose();
      await mcp?.close();
      registry.endAll(); // pages get `ended` before their socket closes
      for (const ws of sockets.bridgeSockets.clients) ws.close(1001, 'pedelec-dev is stopping');
      hub.closeAll(1001, 'pedelec-dev is stopping');
      // Give close handshakes a moment, then cut whatever is left.
      const open = sockets.openSockets();
      await Promise.race([
        Promise.all(
          open.map(
            (ws) => new Promise((resolve) => (ws.readyState === ws.CLOSED ? resolve(null) : ws.once('close', resolve))),
          ),
        ),
        new Promise((resolve) => setTimeout(resolve, 1000).unref()),
      ]);
      for (const ws of open) ws.terminate();
      sockets.closeServers();
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
    mcpUrl: mcp ? `${baseUrl}/mcp` : null,
    mcpToken,
    mcpTokenFile,
    toolsUrl: mcp ? `${baseUrl.replace(/^http/, 'ws')}/tools` : null,
    close,
  };
}
