/** Public types shared by the client, the session and the tools (names as in spec/sdk-api.md). */
import type { PedelecError } from './errors.js';
import type { PortFactory } from './protocol.js';

/** Known provider codes, widened so codes added by newer Desktop releases still type-check. */
export type ProviderCode = 'codex' | 'antigravity' | 'opencode' | 'cursor' | 'claude' | 'ollama' | (string & {});

export type ProviderInfo = { name: string; code: ProviderCode; available: boolean; error: string | null };

/**
 * The user's defaults. Current extensions send no per-provider models (Desktop's effort profiles
 * choose): `defaultModels` is then `{}`.
 */
export type PedelecSettings = { defaultProvider: ProviderCode | null; defaultModels: { [code: string]: string } };

export type ApprovalStatus = { installed: boolean; approved: boolean; origin: string | null; appConnected: boolean };

export type PedelecAvailability = {
  available: boolean;
  extension: { available: boolean };
  approval: { approved: boolean; origin: string | null };
  desktop: { available: boolean; launchAttempted: boolean };
  error?: PedelecError;
};

export type PedelecSessionStatus = 'idle' | 'running' | 'waiting_tool_result' | 'ended' | 'error';

export type PedelecOptions = {
  /** How long a request may go unanswered (default 30 000 ms; values below 1 become 1). */
  bridgeTimeoutMs?: number;
  /** (ours) Another build of the extension. */
  extensionId?: string;
  /** (ours) Opens the port; default: the Pedelec extension. */
  transport?: PortFactory;
  /** (ours) Check the agent's arguments against each tool's schema before a handler runs (default true). */
  validateArgs?: boolean;
  /**
   * (ours) How long requests the extension holds for approval may wait; unset: `bridgeTimeoutMs`.
   * It only lengthens their wait: a value below `bridgeTimeoutMs` leaves them at `bridgeTimeoutMs`.
   */
  approvalTimeoutMs?: number;
  /** (ours) Non-fatal problems, e.g. a schema keyword outside the subset. */
  onWarning?: (warning: PedelecError) => void;
  /** (ours) Log to the console; otherwise the SDK never writes to it. */
  debug?: boolean;
};

export type TurnKind = 'user' | 'prepare';

/**
 * (ours) Who called a tool: the agent through Pedelec (`pedelec`), the page itself
 * (`<pedelec-session>.invoke()`: `local`), the browser's agent through WebMCP (`webmcp`), or an MCP
 * client through the development Core (`mcp`). Every one of them takes the same path.
 */
export type ToolCallVia = 'pedelec' | 'local' | 'webmcp' | 'mcp';

export type PedelecEventContext = {
  sessionId: string;
  provider: string;
  model?: string;
  sessionCreatedAt: number;
  eventEmittedAt: number;
  eventReceivedAt?: number;
  turnId?: string;
  turnStartedAt?: number;
  turnKind?: TurnKind;
  source: 'core' | 'sdk';
  type?:
    | 'chat_delta'
    | 'chat_message'
    | 'tool_call'
    | 'status_changed'
    | 'sdk_status_changed'
    | 'error'
    | 'sdk_error'
    | 'ended'
    | 'sdk_ended'
    | 'usage_updated'
    | 'provider_artifact';
};

export type ChatEventContext = PedelecEventContext & {
  type: 'chat_delta';
  turnId: string;
  turnStartedAt: number;
  eventReceivedAt: number;
};

/** (ours) A whole assistant message (`onChatMessage`). */
export type ChatMessageEventContext = PedelecEventContext & {
  type: 'chat_message';
  turnId: string;
  turnStartedAt: number;
  eventReceivedAt: number;
};

/** (ours) The session's token usage, as Core reports it. */
export type UsageInfo = { totalTokens: number };

export type UsageEventContext = PedelecEventContext & { type: 'usage_updated'; eventReceivedAt: number };

/**
 * (ours) A file the provider produced in the session's sandbox; read it with
 * `session.readAsset(artifact.path, 'file')`. Fields other than `path` are kept when Core sends them.
 */
export type ProviderArtifact = {
  path: `/${string}`;
  id?: string;
  provider?: string;
  name?: string;
  mimeType?: string;
  sizeBytes?: number;
  kind?: string;
  source?: string;
};

export type ArtifactEventContext = PedelecEventContext & { type: 'provider_artifact'; eventReceivedAt: number };

export type ToolCallContext = PedelecEventContext & {
  type: 'tool_call';
  toolRequestId: string;
  tool: string;
  turnId: string;
  turnStartedAt: number;
  eventReceivedAt: number;
  /**
   * (ours) Aborts at the deadline, when the session ends or the bridge disconnects. A getter on the
   * context's prototype, made on first read: `{ ...ctx }` does not copy it. The kit always provides
   * it; optional in the type so that a context built by hand (a handler's unit test, as with the
   * public SDK) type-checks: read it as `ctx.signal?.…`.
   */
  readonly signal?: AbortSignal;
  /** (ours) Epoch ms when Core is expected to stop waiting for this call's result; always provided by the kit. */
  deadline?: number;
  /** (ours) Who called the tool; see {@link ToolCallVia}. */
  via?: ToolCallVia;
};

export type StatusEventContext = PedelecEventContext & {
  type: 'status_changed' | 'sdk_status_changed';
  status: PedelecSessionStatus;
  previousStatus: PedelecSessionStatus;
};

export type ErrorEventContext = PedelecEventContext & { type: 'error' | 'sdk_error' };

export type EndedEventContext = PedelecEventContext & { type: 'ended' | 'sdk_ended' };

/** (ours) A turn starting, whoever started it. */
export type TurnEvent = { turnId: string; kind: TurnKind; text?: string };

export type SandboxAssetPath = `/${string}`;
export type SandboxAsset = { name: string; path: SandboxAssetPath; sizeBytes: number; modifiedAt: number };
export type ReadAssetType = 'text' | 'json' | 'file';
