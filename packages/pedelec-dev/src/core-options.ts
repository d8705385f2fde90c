/**
 * What `startDevCore` takes and gives (server.ts): the development Core's options, each with the flag
 * that sets it where it has one, and the running Core.
 */
import type { ScriptRules } from './agents/script.js';
import type { ProtocolName } from './bridge/protocol-profile.js';
import type { ApprovalMode } from './inspector/approval.js';
import type { McpOpen } from './mcp/mcp-endpoint.js';

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
  /**
   * A page's link on `/tools` needs no key (`--mcp-open-links`): any page from an allowed origin may
   * offer its tools to the MCP clients. For single-user machines; default `false`.
   */
  mcpOpenLinks?: boolean;
  /** `prompt`: MCP calls wait for the operator in the inspector (`--mcp-approval`; call-approval.ts). Default `auto`. */
  mcpApproval?: 'auto' | 'prompt';
  /**
   * Pages may open workspace folders inside this one, the folder itself too (`--workspace-root`;
   * default a folder under the user's data directory, made when first used).
   */
  workspaceRoot?: string;
  /**
   * The folder the user "picks" when a page opens a workspace without a path (`--workspace`), for
   * scripted runs. Without it the inspector asks the operator.
   */
  workspace?: string;
  /** What pages upload into workspaces, all together, in bytes (`--workspace-quota-mb`; default 1 GiB). */
  workspaceQuotaBytes?: number;
  /** The Deno that runs workspace scripts (`--deno`); default the packaged one, else one on PATH. */
  deno?: string;
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
  /**
   * The key a page's link needs (the session's `mcpKey`; pages this server serves are given it), when
   * MCP is on; it lasts as long as the token.
   */
  mcpLinkKey: string | null;
  /**
   * What MCP clients hold open now: 2025-era sessions and 2026-07-28 listen streams (both 0 while MCP
   * is off). A client that went away holds neither.
   */
  mcpOpen(): McpOpen;
  /** Where a page links its tools (`<pedelec-session mcp="…">`), when MCP is on. */
  toolsUrl: string | null;
  /** Ends every session, closes every socket, deletes the asset folders. Idempotent. */
  close(): Promise<void>;
};
