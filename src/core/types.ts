/** Public types shared by the client, the session and the tools (names as in docs/design/sdk-api.md). */
import type { PedelecError } from './errors.js';
import type { PortFactory } from './bridge-port.js';

/** Known provider codes, widened so codes added by newer Desktop releases still type-check. */
export type ProviderCode = 'codex' | 'antigravity' | 'opencode' | 'cursor' | 'claude' | 'ollama' | (string & {});

/**
 * How hard a provider works, as Pedelec's effort profiles say (profile mode: no `model` given). An
 * omitted level is sent as `"default"`.
 */
export type EffortLevel = 'default' | 'low' | 'high';

/** The provider's own effort setting, given with an explicit `model`. */
export type Effort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/**
 * A provider Desktop knows. `isDefault`: whether it is the user's default (filled from the settings
 * when an older extension does not say).
 */
export type ProviderInfo = {
  name: string;
  code: ProviderCode;
  available: boolean;
  isDefault: boolean;
  error: string | null;
};

/** The user's defaults: the default provider, or null when none is set. */
export type PedelecSettings = { defaultProvider: ProviderCode | null };

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
  /** (ours) Opens the port; default: the Pedelec extension. Its messages arrive asynchronously (see `BridgePort`). */
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
  /**
   * (ours) Asks a person about each call of a consequential tool before its handler runs (the agent's
   * calls; `invoke()` needs none). Without it such a call fails at once with
   * `TOOL_APPROVAL_UNAVAILABLE`.
   */
  onApproval?: (request: ToolApprovalRequest) => ToolApprovalAnswer | Promise<ToolApprovalAnswer>;
};

/** (ours) A consequential tool's call, waiting for a person's approval. */
export type ToolApprovalRequest = {
  readonly tool: string;
  /** The arguments, already checked against the tool's schema. */
  readonly args: unknown;
  readonly via: ToolCallVia;
  /** Whether the person may change the arguments (`approvalEditable`): answer with `args` then. */
  readonly editable: boolean;
  /** Aborts when the wait is over without this answer (timed out, the call ended): withdraw the question. */
  readonly signal: AbortSignal;
  readonly context: ToolCallContext;
};

/**
 * (ours) A person's answer: `true` / `false`, or `{ approved, reason?, args? }` — `reason` goes to the
 * agent with a rejection; `args`, when the tool allows it, replaces the arguments (checked again).
 */
export type ToolApprovalAnswer = boolean | { approved: boolean; reason?: string; args?: unknown };

/** (ours) Who decided on a consequential tool's call; `browser-hint`: left to the browser's own confirmation. */
export type ToolApprovalDecider = 'page' | 'chat' | 'mcp-client' | 'operator' | 'browser-hint';

/** (ours) A decision on a consequential tool's call. */
export type ToolApprovalDecision = {
  readonly tool: string;
  /** The arguments the call runs with (edited ones, when the person edited them). */
  readonly args: unknown;
  readonly via: ToolCallVia;
  readonly decidedBy: ToolApprovalDecider;
  readonly approved: boolean;
  readonly reason?: string;
  /** Epoch ms of the decision. */
  readonly at: number;
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
  /** The session's effort level (profile mode); absent for a session with an explicit model. */
  effortLevel?: EffortLevel;
  /** (ours) The explicit model the session was created with, when it was. */
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

/** An assistant message, whole (`onChat`). */
export type ChatEventContext = PedelecEventContext & {
  type: 'chat_message';
  turnId: string;
  turnStartedAt: number;
  eventReceivedAt: number;
};

/** A fragment of an assistant message as the provider streamed it (`onChatDelta`). */
export type ChatDeltaEventContext = PedelecEventContext & {
  type: 'chat_delta';
  turnId: string;
  turnStartedAt: number;
  eventReceivedAt: number;
};

/** @deprecated Use {@link ChatEventContext}: `onChat` delivers whole messages, as `onChatMessage` did. */
export type ChatMessageEventContext = ChatEventContext;

/**
 * The session's token usage: always an object, its `totalTokens` set once Core reports it, and never
 * going down.
 */
export type PedelecSessionUsage = { totalTokens?: number };

/** @deprecated Use {@link PedelecSessionUsage}. */
export type UsageInfo = PedelecSessionUsage;

/** (ours) The context of `onUsage`. */
export type UsageEventContext = PedelecEventContext & { type: 'usage_updated'; eventReceivedAt: number };

/** What a provider artifact holds. */
export type ProviderArtifactKind = 'image' | 'audio' | 'video' | 'file';

/** How the provider produced an artifact. */
export type ProviderArtifactSource = 'image_generation' | 'tool_result' | 'provider_artifact';

/**
 * A file the provider produced during a turn, stored in the session's assets; read it with
 * `session.readAsset(artifact.path, 'file')`. `name` is the logical name; the stored path's last
 * segment may differ (Core makes it unique).
 */
export type ProviderArtifact = {
  id: string;
  provider: ProviderCode;
  path: AssetPath;
  name: string;
  mimeType: string;
  sizeBytes: number;
  kind: ProviderArtifactKind;
  source: ProviderArtifactSource;
  providerArtifactId?: string;
  toolCallId?: string;
};

/** The context of `onArtifact`: artifacts belong to user turns. */
export type ProviderArtifactEventContext = PedelecEventContext & {
  type: 'provider_artifact';
  turnId: string;
  turnStartedAt: number;
  turnKind: 'user';
  eventReceivedAt: number;
  source: 'core';
};

/** @deprecated Use {@link ProviderArtifactEventContext}. */
export type ArtifactEventContext = ProviderArtifactEventContext;

/** The listener `onArtifact` takes. */
export type ProviderArtifactHandler = (artifact: ProviderArtifact, ctx: ProviderArtifactEventContext) => void;

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

/** A path in the session's assets: always from their root, `/` first. */
export type AssetPath = `/${string}`;
/** A file in the session's assets. */
export type Asset = { name: string; path: AssetPath; sizeBytes: number; modifiedAt: number };
/** How a file is read: as text, as parsed JSON, or as a `File`. */
export type ReadFileType = 'text' | 'json' | 'file';
/** The same as {@link ReadFileType}, for assets. */
export type ReadAssetType = ReadFileType;
/** @deprecated Use {@link AssetPath}. */
export type SandboxAssetPath = AssetPath;
/** @deprecated Use {@link Asset}. */
export type SandboxAsset = Asset;
