/**
 * The contract between the development Core and an agent (a "provider" as the page sees it).
 *
 * The server owns the protocol: seq numbers, status events, the tool manifest checks, timeouts and
 * routing. An agent only decides what to say and which tools to call, so a new agent (for example the
 * OpenAI-compatible one, `agents/openai.ts` and its `openai-*.ts` parts) is its own modules plus one
 * line in `agents/index.ts`.
 */
import type { JsonValue, WorkspaceRunResult } from 'pedelec-elements/core';
import type { SkillsManifest } from '../bridge/manifest.js';

export type { SkillsManifest, ToolManifest } from '../bridge/manifest.js';

/** What an agent knows about the session it serves. Fixed for the session's lifetime. */
export interface AgentSessionInfo {
  readonly sessionId: string;
  /** The session works in a workspace (TurnContext.workspace): with today's protocol, always. */
  readonly hasWorkspace?: boolean;
  /** The provider code the page asked for (e.g. `codex`), which may differ from the agent's own code. */
  readonly provider: string;
  readonly model: string | undefined;
  /** The page's origin, or `null` for a client that sent none (a non-browser tool). */
  readonly origin: string | null;
  /** The page's tool manifest as sent in `create_session` (already checked), or `undefined`. */
  readonly skills: SkillsManifest | undefined;
  /**
   * True when the page named the model (today's explicit mode); otherwise `model` is the agent's
   * default and an effort profile (`effortLevel`) chooses.
   */
  readonly explicitModel?: boolean;
  /**
   * `input.effortLevel` of `create_session` (profile mode): with today's protocol one of `default`,
   * `low`, `high` (`default` when the page gave none); with 0.1 passed through as it came.
   */
  readonly effortLevel?: string | undefined;
  /** `input.effort` of `create_session` (explicit mode, beside `model`): `low` … `max`; 0.1 passes it through. */
  readonly effort?: string | undefined;
}

/** What an artifact holds, as today's Core says it (from its Content-Type). */
export type ArtifactKind = 'image' | 'audio' | 'video' | 'file';

/** A file an agent published with {@link TurnContext.publishArtifact}: the `artifact` of `provider_artifact`. */
export type PublishedArtifact = {
  readonly id: string;
  /** The session's provider code (what the page asked for). */
  readonly provider: string;
  /** Where the page reads it: `create_asset_download` with this path (`/artifacts/<name>`). */
  readonly path: string;
  readonly name: string;
  readonly mimeType: string;
  readonly sizeBytes: number;
  /** `image/*` → `image`, `audio/*` → `audio`, `video/*` → `video`, anything else `file`. */
  readonly kind: ArtifactKind;
  /** Always `provider_artifact`: the agent published a file of its own (see artifacts.ts). */
  readonly source: 'provider_artifact';
};

/**
 * One turn's handle. Everything the agent does to the page goes through here, so the server can keep
 * the event sequence exact (status_changed → chat_delta … → waiting_tool_result → tool_call → …).
 */
export interface TurnContext {
  readonly session: AgentSessionInfo;
  /** `user` for `send_text`, `prepare` for `prepare_session` (the page drops chat text of a prepare turn). */
  readonly kind: 'user' | 'prepare';
  /** Aborted when the session ends (end_session, auto-end on disconnect, server stop). */
  readonly signal: AbortSignal;
  /**
   * Streams one piece of reply text to the page (one `chat_delta`). Empty strings are skipped. With
   * today's protocol the pieces also add up to the assistant message, sent whole as one `chat_message`
   * at the next tool call and at the end of the turn.
   */
  say(text: string): void;
  /**
   * Calls a tool of the page and resolves with its result — the page's JSON value, or an error result
   * `{ error: { code, message, details? } }` made by the page's SDK or by this Core (`TOOL_NOT_FOUND`,
   * `TOOL_ARGS_INVALID`, `TOOL_TIMEOUT`). It never rejects for tool failures, so an agent can hand any
   * result back to its model; it rejects only when the turn is over (session ended). Concurrent calls
   * are queued and reach the page one at a time, in call order. `timeoutMs` extends this one call.
   */
  callTool(name: string, args?: unknown, options?: { timeoutMs?: number }): Promise<JsonValue>;
  /**
   * Whether `result`, resolved by {@link callTool}, is this Core's refusal of the call (`TOOL_NOT_FOUND`,
   * `TOOL_ARGS_INVALID`): the page never received it, so it shows nothing of it. An agent talking to a
   * person says so in its reply (no event of the protocol carries it).
   */
  refused(result: JsonValue): boolean;
  /**
   * Publishes a file: writes `content` (UTF-8) to `/artifacts/<name>` in the session's asset folder —
   * readable by the page through `create_asset_download` — and, with today's protocol, tells the page
   * with a `provider_artifact` event. `name` is a plain file name (no `/`); `mimeType` defaults from
   * its extension (`text/plain` otherwise). Rejects with a `{ code, message }` error when the name,
   * type or size is refused or the session has ended. Queued with the turn's tool calls, in order.
   */
  /** Publishes a file: its text (UTF-8) or its bytes. */
  publishArtifact(name: string, content: string | Uint8Array, mimeType?: string): Promise<PublishedArtifact>;
  /** The session's workspace (null with the 0.1 protocol, which has none). */
  readonly workspace: AgentWorkspace | null;
}

/**
 * The session's workspace, as the agent works in it: paths are from its root and never leave it.
 * Every method rejects with a `{ code, message }` error (`WORKSPACE_*`, `DENO_*`) it can tell its model.
 */
export interface AgentWorkspace {
  /** The folder the page opened, or null for one made for the session. */
  readonly path: string | null;
  /** Every file, as paths from the root, sorted. */
  files(): Promise<string[]>;
  /** A file's text (UTF-8). */
  read(path: string): Promise<string>;
  /** Writes `text` (UTF-8) to `path`, making its folders; resolves the bytes written. */
  write(path: string, text: string): Promise<number>;
  /** Runs a Deno script in the folder, as a page's `workspace.run` does; the session's Deno modules import by name. */
  run(script: string, options?: { timeoutMs?: number }): Promise<WorkspaceRunResult>;
}

/** Per-session agent state (e.g. a conversation history). */
export interface AgentSession {
  /** Runs one user turn; resolves when the agent has finished answering. Throw an {@link AgentError} to fail it. */
  turn(text: string, ctx: TurnContext): Promise<void>;
  /** Warms up (the page's `prepare()`); resolves at once when absent. */
  prepare?(ctx: TurnContext): Promise<void>;
  /**
   * Called once when the session is over for good: ended and no longer reactivatable (forgotten, or
   * the server stops). An ended session keeps its agent session until then, so `reactivate_session`
   * continues the same conversation; its turns were already aborted through `TurnContext.signal`.
   */
  close?(): void;
}

export interface DevAgent {
  /** The provider code this agent is listed under (`scripted`, `operator`, `openai`). */
  readonly code: string;
  /** The human name shown in `list_providers`. */
  readonly name: string;
  /** The model reported in `get_settings` and used when the page names none. */
  readonly defaultModel: string;
  openSession(info: AgentSessionInfo): AgentSession;
  /** Called when the server stops. */
  close?(): void | Promise<void>;
}

/**
 * A failed turn. The server turns it into an `error` event with this `source` (and the session's
 * provider code), the way the real Core reports a provider failure (`PROVIDER_AUTH_FAILED`, …).
 */
export class AgentError extends Error {
  readonly code: string;
  readonly details: unknown;
  readonly source: 'provider' | 'core';

  constructor(code: string, message: string, options: { details?: unknown; source?: 'provider' | 'core' } = {}) {
    super(message);
    this.name = 'AgentError';
    this.code = code;
    this.details = options.details;
    this.source = options.source ?? 'provider';
  }
}
