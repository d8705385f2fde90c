/**
 * `startDevCore(options)`: the development Core's HTTP + WebSocket server, composed of its features —
 * the bridge, MCP, the inspector and assets (each in its folder, each handing over its routes, its
 * sockets and `close()`) — over what they share: sessions, agents, approvals and the message log. It
 * listens first, so every feature is built with the URL, origins and token it needs as plain values;
 * the checks every request passes first are the Host allow-list and the Origin rules of security.ts.
 * Where each request goes is http-routes.ts's (plain HTTP) and websocket-routes.ts's (upgrades).
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_TOOL_TIMEOUT_MS } from 'pedelec-elements/protocol';
import { AgentDirectory, OperatorDesk } from './agents/index.js';
import { assetsFeature } from './assets/assets-feature.js';
import { AssetStore, DEFAULT_ASSET_QUOTA_BYTES, MAX_ASSET_BYTES } from './assets/asset-store.js';
import { bridgeFeature } from './bridge/bridge-feature.js';
import { DEFAULT_PATTERN_BUDGET_MS } from './bridge/pattern-check.js';
import { protocolProfile } from './bridge/protocol-profile.js';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, SessionRegistry } from './bridge/registry.js';
import { DevCoreError } from './errors.js';
import type { DevFeature } from './http/feature.js';
import { httpRoutes, plain, RESERVED_PREFIX } from './http/http-routes.js';
import { listen, type Listener } from './http/listener.js';
import { DEFAULT_PARTIAL_FRAME_TIMEOUT_MS } from './http/partial-frames.js';
import { DEFAULT_ORIGINS, HostAllowList, isLoopbackHost, OriginAllowList, type OriginRules } from './http/security.js';
import { WebSocketRoutes } from './http/websocket-routes.js';
import type { DevCore, DevCoreOptions } from './core-options.js';
import { Approvals } from './inspector/approval.js';
import { FolderPicks } from './inspector/folder-picks.js';
import { inspectorFeature } from './inspector/inspector-feature.js';
import { MessageLog } from './inspector/message-log.js';
import { mcpFeature, type McpFeature } from './mcp/mcp-feature.js';
import { linkKeyOf } from './mcp/link-key.js';
import { tokenFromFile } from './mcp/token-file.js';
import { kitRoot, packageVersion } from './package-files.js';
import { DenoModules } from './workspaces/deno-modules.js';
import { findDeno } from './workspaces/deno-runtime.js';
import { workspacesFeature } from './workspaces/workspaces-feature.js';
import { DEFAULT_WORKSPACE_QUOTA_BYTES, defaultWorkspaceRoot, WorkspaceStore } from './workspaces/workspace-store.js';

export type { DevCore, DevCoreOptions } from './core-options.js';

export const DEFAULT_PORT = 7717;
/** A frame above this closes the connection with 1009 (dev-core.md). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** What the features share: the sessions, the agents serving them, approvals and the message log. */
type Shared = {
  agents: AgentDirectory;
  /** The user's folder picks (`openWorkspace()` without a path): `--workspace`, else the inspector. */
  picks: FolderPicks;
  desk: OperatorDesk;
  approvals: Approvals;
  log: MessageLog;
  registry: SessionRegistry;
  reportBug: (error: unknown) => void;
};

/** Where to listen, refused before anything starts when it is not a port or not this machine. */
function checkedAddress(options: DevCoreOptions): { host: string; port: number } {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new DevCoreError('INVALID_OPTION', `--port ${port}: expected 0…65535`);
  if (!isLoopbackHost(host) && !options.allowRemote) {
    throw new DevCoreError(
      'REMOTE_HOST_REFUSED',
      `--host ${host} would expose pedelec-dev beyond this machine. It is a development tool with no authentication on the bridge; add --allow-remote if you really mean it.`,
    );
  }
  return { host, port };
}

function sharedState(options: DevCoreOptions): Shared {
  const desk = new OperatorDesk();
  // Before listening: an agent that cannot run (no API key for `openai`) leaves nothing running.
  const agents = new AgentDirectory(options.agent ?? 'scripted', {
    script: options.script,
    desk,
    env: options.env ?? process.env,
  });
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  return {
    agents,
    desk,
    approvals: new Approvals(options.approval ?? 'auto', options.approvalTimeoutMs ?? 60_000),
    picks: new FolderPicks(options.workspace ?? null),
    log: new MessageLog(),
    registry: new SessionRegistry({
      maxSessions,
      maxSessionsPerOrigin: options.maxSessionsPerOrigin ?? Math.max(1, Math.ceil(maxSessions / 10)),
      idleMs: options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS,
    }),
    reportBug: options.onBug ?? ((error: unknown) => console.error('pedelec-dev: internal error:', error)),
  };
}

/** The token `/mcp` requires when MCP is on: given, kept in its file, or random (128 bits) per start. */
function mcpTokenOf(options: DevCoreOptions, port: number): { token: string | null; file: string | null } {
  if (!options.mcp) return { token: null, file: null };
  if (options.mcpToken) return { token: options.mcpToken, file: null };
  const named = options.mcpTokenFile;
  const file = (typeof named === 'function' ? named(port) : named) ?? null;
  return { token: file ? tokenFromFile(file) : randomBytes(16).toString('hex'), file };
}

/** Where MCP clients and pages find MCP, and what they need to be let in; all `null` when it is off. */
function mcpAddresses(
  mcp: { token: string | null; file: string | null },
  baseUrl: string,
): Pick<DevCore, 'mcpUrl' | 'mcpToken' | 'mcpTokenFile' | 'mcpLinkKey' | 'toolsUrl'> {
  const on = mcp.token !== null;
  return {
    mcpUrl: on ? `${baseUrl}/mcp` : null,
    mcpToken: mcp.token,
    mcpTokenFile: mcp.file,
    mcpLinkKey: on ? linkKeyOf(mcp.token!) : null,
    toolsUrl: on ? `${baseUrl.replace(/^http/, 'ws')}/tools` : null,
  };
}

export async function startDevCore(options: DevCoreOptions = {}): Promise<DevCore> {
  const { host, port } = checkedAddress(options);
  const kitDir = kitRoot(); // before anything is set up: a kit that cannot be found leaves nothing running
  const shared = sharedState(options);
  let listener: Listener;
  try {
    listener = await listen(host, port, shared.reportBug);
  } catch (error) {
    await shared.agents.close();
    throw error;
  }
  try {
    // In the same turn as the listen completed: no request arrives before the features are in place.
    return compose(options, shared, listener, { host, kitDir });
  } catch (error) {
    await listener.close();
    await shared.agents.close();
    throw error;
  }
}

/** What the features are given besides the shared state, all known once the Core listens. */
type FeatureInputs = {
  assets: AssetStore;
  workspaces: WorkspaceStore;
  denoModules: DenoModules;
  originRules: OriginRules;
  mcpToken: string | null;
  inspectorToken: string;
  ownOrigins: ReadonlySet<string>;
  baseUrl: string;
};

/** The features, in the order they stop: MCP, the bridge, the inspector, assets, workspaces. */
function composeFeatures(
  options: DevCoreOptions,
  shared: Shared,
  inputs: FeatureInputs,
): [McpFeature, ...DevFeature[]] {
  const { agents, approvals, picks, log, registry, desk, reportBug } = shared;
  const strictProviders = options.strictProviders ?? false;
  const approval = options.approval ?? 'auto';
  const protocol = protocolProfile(options.protocol ?? 'current', {
    fragments: options.fragments,
    coreStatuses: options.coreStatuses,
  });
  const maxFrameBytes = options.maxFrameBytes ?? MAX_FRAME_BYTES;
  return [
    mcpFeature({
      token: inputs.mcpToken,
      originRules: inputs.originRules,
      ownOrigins: inputs.ownOrigins,
      openLinks: options.mcpOpenLinks ?? false,
      version: packageVersion(),
      approval: options.mcpApproval ?? 'auto',
      approvals,
      log,
      maxFrameBytes,
      reportBug,
    }),
    bridgeFeature({
      registry,
      agents,
      approvals,
      assets: inputs.assets,
      workspaces: inputs.workspaces,
      denoModules: inputs.denoModules,
      deno: findDeno(options.deno),
      log,
      strictProviders,
      protocol,
      defaultToolTimeoutMs: options.defaultToolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      reportBug,
      maxFrameBytes,
      patternBudgetMs: options.patternBudgetMs ?? DEFAULT_PATTERN_BUDGET_MS,
    }),
    inspectorFeature({
      token: inputs.inspectorToken,
      ownOrigins: inputs.ownOrigins,
      registry,
      approvals,
      picks,
      desk,
      log,
      info: {
        version: packageVersion(),
        agent: agents.selectedCode,
        approval,
        strictProviders,
        protocol: protocol.name,
        fragments: protocol.chatFragments,
        coreStatuses: protocol.coreStatuses,
        bridgeUrl: `${inputs.baseUrl.replace(/^http/, 'ws')}/bridge`,
      },
    }),
    assetsFeature(inputs.assets),
    workspacesFeature(inputs.workspaces, inputs.denoModules),
  ];
}

/** The workspaces and their Deno modules, as the options set them. */
function workspaceStores(options: DevCoreOptions, baseUrl: string, origins: OriginAllowList, picks: FolderPicks) {
  const originAllowed = (origin: string) => origins.allows(origin);
  const ttlMs = options.assetTokenTtlMs ?? 60_000;
  const workspaces = new WorkspaceStore({
    root: options.workspaceRoot ?? defaultWorkspaceRoot(options.env ?? process.env),
    pick: (origin) => picks.ask(origin),
    ttlMs,
    quotaBytes: options.workspaceQuotaBytes ?? DEFAULT_WORKSPACE_QUOTA_BYTES,
    baseUrl,
    originAllowed,
  });
  return { workspaces, denoModules: new DenoModules({ ttlMs, baseUrl, originAllowed }) };
}

/** The features over what they share, served by `listener`. */
function compose(
  options: DevCoreOptions,
  shared: Shared,
  listener: Listener,
  at: { host: string; kitDir: string },
): DevCore {
  const { baseUrl, ownOrigins } = listener;
  const origins = new OriginAllowList([...DEFAULT_ORIGINS, ...(options.allowOrigins ?? []), ...ownOrigins]);
  const originRules: OriginRules = { origins, allowNoOrigin: options.allowNoOrigin ?? false };
  const hosts = new HostAllowList(isLoopbackHost(at.host) ? [] : [at.host]);
  const mcp = mcpTokenOf(options, listener.port);
  const { registry } = shared;
  const assets = new AssetStore({
    ttlMs: options.assetTokenTtlMs ?? 60_000,
    maxBytes: options.maxAssetBytes ?? MAX_ASSET_BYTES,
    quotaBytes: options.assetQuotaBytes ?? DEFAULT_ASSET_QUOTA_BYTES,
    baseUrl,
    originAllowed: (origin) => origins.allows(origin),
    sessionAlive: (sessionId) => registry.get(sessionId) !== undefined,
  });
  registry.subscribe((event) => {
    if (event.type === 'session_ended') void assets.dropSession(event.sessionId);
  });
  const { workspaces, denoModules } = workspaceStores(options, baseUrl, origins, shared.picks);
  const inspectorToken = options.inspectorToken ?? randomBytes(16).toString('hex');
  const features = composeFeatures(options, shared, {
    assets,
    workspaces,
    denoModules,
    originRules,
    mcpToken: mcp.token,
    inspectorToken,
    ownOrigins,
    baseUrl,
  });
  const sockets = new WebSocketRoutes({
    hosts,
    originRules,
    partialFrameTimeoutMs: options.partialFrameTimeoutMs ?? DEFAULT_PARTIAL_FRAME_TIMEOUT_MS,
    routes: features.flatMap((feature) => feature.sockets),
  });
  const routes = features.flatMap((feature) => feature.routes);
  const onRequest = httpRoutes({ hosts, routes, kitDir: at.kitDir, serveDir: options.serveDir, baseUrl });
  listener.serve(
    (req, res) =>
      void onRequest(req, res).catch((error) => {
        shared.reportBug(error);
        if (!res.headersSent) plain(res, 500, 'Internal error');
        else res.destroy();
      }),
    (req, socket, head) => sockets.handle(req, socket, head),
  );

  let closed: Promise<void> | null = null;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      sockets.refuseNew();
      shared.approvals.dispose();
      shared.picks.dispose();
      // MCP, the bridge (sessions end before their pages' sockets close), the inspector, then assets.
      for (const feature of features) await feature.close();
      await sockets.close();
      await listener.close();
      await shared.agents.close();
    })());
  const wsUrl = baseUrl.replace(/^http/, 'ws');
  return {
    url: baseUrl,
    port: listener.port,
    host: at.host,
    bridgeUrl: `${wsUrl}/bridge`,
    inspectorUrl: `${baseUrl}${RESERVED_PREFIX}inspector#token=${inspectorToken}`,
    inspectorToken,
    ...mcpAddresses(mcp, baseUrl),
    mcpOpen: () => features[0].open(),
    close,
  };
}
