/**
 * One agent session inside the development Core: one turn at a time, and what its pages are told of
 * it, when. Kept apart: handing each event to every page with its `seq` (session-routes.ts), checking,
 * timing and settling tool calls (tool-call-relay.ts), and storing published files (artifacts.ts).
 *
 * The event order is the real Core's (dev-core.md): `running`, deltas, and for each tool call
 * `waiting_tool_result` then `tool_call`, `running` again once the result is in, and finally `idle`.
 * No `done` is ever sent: the page's SDK finishes a turn on either, so sending both would let a stale
 * one finish the page's *next* turn early.
 *
 * With today's protocol (current-pedelec.md, `ProtocolProfile.operations`) a turn is an operation:
 * every event of the turn carries its `operationId`; each assistant message also goes out whole as a
 * `chat_message` (before a tool call's `waiting_tool_result`, and at the end); the end is
 * `usage_updated`, then `idle` immediately followed by `operation_completed` — or, for a failed turn,
 * the `error` event then `operation_completed` with `success: false`. A page that subscribes (create or
 * resume) gets a `session_snapshot` of where the session stands, so a reloaded page can answer a tool
 * call that was sent to the page it replaced.
 *
 * An ended session can be reactivated (`reactivate_session`): it keeps its id, workspace, manifest,
 * usage, `seq` count and its agent session (the conversation so far), and starts again idle. Only
 * its asset files are gone: they go when it ends, so ended sessions hold no share of the asset quota.
 */
import { randomUUID } from 'node:crypto';
import type { JsonValue, PedelecError } from 'pedelec-elements/core';
import type { AgentSession, AgentSessionInfo, DevAgent, PublishedArtifact, TurnContext } from '../agents/types.js';
import { storeArtifact, type AssetWriter } from '../assets/artifacts.js';
import { DevCoreError, toWireError } from '../errors.js';
import type { CheckedTool, SkillsManifest } from './manifest.js';
import { protocolProfile, type ProtocolProfile } from './protocol-profile.js';
import { SessionRoutes, type EventSink } from './session-routes.js';
import { ToolCallRelay } from './tool-call-relay.js';

export type SessionStatus = 'idle' | 'running' | 'waiting_tool_result' | 'error' | 'ended';

/** A session's status as today's Core spells it in snapshots (`--core-statuses`); the others are the same. */
const CORE_SPELLING: Partial<Record<SessionStatus, string>> = { waiting_tool_result: 'waitingToolResult' };

/** A Desktop-managed workspace (no folder of the user's): `path` is always null here. */
export type ManagedWorkspace = { workspaceId: string; path: null };

export type SessionSummary = {
  sessionId: string;
  origin: string | null;
  provider: string;
  agent: string;
  model: string | undefined;
  /** The page named the model (explicit mode); otherwise `model` is the agent's default. */
  explicitModel: boolean;
  /** What the page asked for in `create_session` (absent when it gave none). */
  effortLevel?: string | undefined;
  effort?: string | undefined;
  /** The session's managed workspace, with today's protocol. */
  workspaceId?: string | undefined;
  autoEndOnDisconnect: boolean;
  status: SessionStatus;
  routes: number;
  createdAt: number;
  /** Absent in updates (see DevSession.summary): keep the one from `session_created` or `hello`. */
  skills?: SkillsManifest | undefined;
};

export type SessionParams = {
  origin: string | null;
  provider: string;
  model: string | undefined;
  /** The page named `model` (explicit mode); false or absent: `model` is the agent's default. */
  explicitModel?: boolean;
  /** `create_session`'s `input.effortLevel` / `input.effort`, handed to the agent as read (bridge-requests.ts). */
  effortLevel?: string | undefined;
  effort?: string | undefined;
  agent: DevAgent;
  autoEndOnDisconnect: boolean;
  skills: { manifest: SkillsManifest | undefined; tools: Map<string, CheckedTool> };
  defaultToolTimeoutMs: number;
  /** The protocol spoken to the session's pages; today's when absent. */
  protocol?: ProtocolProfile;
  /** Stores a published artifact in the session's asset folder; without it, publishing fails. */
  writeAsset?: AssetWriter;
};

type OperationKind = 'user' | 'prepare';

type Turn = {
  kind: OperationKind;
  /** The page's id for this turn (or one made by the Core); `undefined` when the protocol has no operations. */
  operationId: string | undefined;
  /** When the turn was claimed, for the snapshot's `activeOperation.startedAt`. */
  startedAt: string;
  /**
   * The session's stop signal when the turn began: aborted when the session ends. A session that is
   * reactivated gets a new one, so an agent still finishing a turn of before the end stays silent.
   */
  signal: AbortSignal;
  done: boolean;
  /** Tool calls and artifact writes of the turn, one after another; the turn ends once they are all done. */
  queue: Promise<void>;
  /** The assistant message so far: the text said since the last `chat_message`. */
  message: string;
};

type CompletedOperation = {
  operationId: string;
  operationKind: OperationKind;
  success: boolean;
  error?: PedelecError;
  completedAt: string;
};

const noop = () => {};

/** The length of a value's JSON text, for the token estimate; 0 for what cannot be serialized (too deep). */
function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return 0;
  }
}

export class DevSession {
  readonly id = `session_${randomUUID()}`;
  readonly createdAt = Date.now();
  readonly origin: string | null;
  readonly provider: string;
  readonly model: string | undefined;
  readonly agentCode: string;
  readonly info: AgentSessionInfo;
  /** Its Desktop-managed workspace, the same for the session's whole life; null with the 0.1 protocol. */
  readonly workspace: ManagedWorkspace | null;

  private status: SessionStatus = 'idle';
  private ended = false;
  private autoEnd: boolean;
  private turn: Turn | null = null;
  private lastCompleted: CompletedOperation | null = null;
  /**
   * Characters of the conversation so far, for the token estimate of `usage_updated`: the user's texts,
   * the assistant's text, and the JSON of every tool call's args and of every result the agent got back
   * from the page (or its timeout). Tokens are estimated as ceil(characters / 4) (UTF-16 code units): a
   * deterministic running figure, not any real tokenizer's.
   */
  private conversationChars = 0;
  /** The last `usage_updated` total; `undefined` until the first turn has ended. */
  private totalTokens: number | undefined = undefined;
  private readonly routes = new SessionRoutes(this.id);
  private readonly toolCalls: ToolCallRelay<Turn>;
  private readonly protocol: ProtocolProfile;
  private readonly writeAsset: SessionParams['writeAsset'];
  /** Aborts the running turn's agent when the session ends; replaced when it is reactivated. */
  private stop = new AbortController();
  private readonly agentSession: AgentSession;

  constructor(
    params: SessionParams,
    private readonly hooks: { changed(session: DevSession): void; ended(session: DevSession): void },
  ) {
    this.origin = params.origin;
    this.provider = params.provider;
    this.model = params.model;
    this.agentCode = params.agent.code;
    this.autoEnd = params.autoEndOnDisconnect;
    this.toolCalls = new ToolCallRelay<Turn>(params.skills.tools, params.defaultToolTimeoutMs, {
      over: (turn) => (this.isOver(turn) ? this.endedReason() : undefined),
      sent: (turn, { toolRequestId, tool, args }) => {
        this.conversationChars += jsonLength(args);
        // The message said before the call is complete: the page gets it whole before the call.
        this.sendMessage(turn);
        this.setStatus(turn, 'waiting_tool_result');
        this.turnEvent(turn, 'tool_call', { toolRequestId, tool, args });
      },
      settled: (turn, result) => {
        this.conversationChars += jsonLength(result);
        if (!this.ended) this.setStatus(turn, 'running');
      },
    });
    this.protocol = params.protocol ?? protocolProfile('current');
    this.writeAsset = params.writeAsset;
    this.workspace = this.protocol.sessionWorkspaces
      ? Object.freeze({ workspaceId: `workspace_${randomUUID()}`, path: null })
      : null;
    this.info = Object.freeze({
      sessionId: this.id,
      provider: this.provider,
      model: this.model,
      explicitModel: params.explicitModel ?? false,
      origin: this.origin,
      skills: params.skills.manifest,
      effortLevel: params.effortLevel,
      effort: params.effort,
    });
    this.agentSession = params.agent.openSession(this.info);
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Whether the session ends when its last page goes (`create_session`'s flag, or `reactivate_session`'s). */
  get autoEndOnDisconnect(): boolean {
    return this.autoEnd;
  }

  /** A turn's events and calls stop once it is done, or once the session it began in has ended. */
  private isOver(turn: Turn): boolean {
    return turn.done || turn.signal.aborted || this.ended;
  }

  /**
   * What the inspector shows of the session. `withSkills: false` for updates: the manifest (which a
   * page may make many MiB large) never changes after creation, and sending it again with every status
   * change let a few tiny frames make the Core send gigabytes to an inspector.
   */
  summary(withSkills = true): SessionSummary {
    return {
      sessionId: this.id,
      origin: this.origin,
      provider: this.provider,
      agent: this.agentCode,
      model: this.model,
      explicitModel: this.info.explicitModel ?? false,
      effortLevel: this.info.effortLevel,
      effort: this.info.effort,
      workspaceId: this.workspace?.workspaceId,
      autoEndOnDisconnect: this.autoEnd,
      status: this.status,
      routes: this.routes.size,
      createdAt: this.createdAt,
      ...(withSkills && { skills: this.info.skills }),
    };
  }

  // ───────────────────────────── routes ─────────────────────────────

  addRoute(sink: EventSink, channelId: string): void {
    this.routes.add(sink, channelId);
    this.hooks.changed(this);
  }

  hasRoute(sink: EventSink, channelId: string): boolean {
    return this.routes.has(sink, channelId);
  }

  /** Drops every route of a closed connection; true when that left the session with none. */
  dropConnection(sink: EventSink): boolean {
    const dropped = this.routes.dropConnection(sink);
    if (dropped) this.hooks.changed(this);
    return dropped && this.routes.size === 0;
  }

  // ───────────────────────────── events ─────────────────────────────

  private emit(type: string, fields: Record<string, unknown>): void {
    if (this.ended) return;
    this.routes.send(type, fields);
  }

  /** An event of a turn: it carries the turn's operationId when the protocol has operations. */
  private turnEvent(turn: Turn, type: string, fields: Record<string, unknown>): void {
    this.emit(type, turn.operationId === undefined ? fields : { operationId: turn.operationId, ...fields });
  }

  private setStatus(turn: Turn, status: SessionStatus): void {
    this.status = status;
    this.turnEvent(turn, 'status_changed', { status });
    this.hooks.changed(this);
  }

  /**
   * Sends one route (a page that just created or resumed the session, after its response) where the
   * session stands. It takes the next seq like any event — the page drops events whose seq is not above
   * the last it saw, so a snapshot that reused the next event's seq would cost the page that event.
   */
  sendSnapshot(sink: EventSink, channelId: string): void {
    if (!this.protocol.operations || this.ended || !this.hasRoute(sink, channelId)) return;
    const { coreStatuses } = this.protocol;
    // `threadId`: SDK 0.4.6 ignores a snapshot that does not name its thread (the session, here).
    const snapshot: Record<string, unknown> = {
      threadId: this.id,
      status: (coreStatuses && CORE_SPELLING[this.status]) || this.status,
      latestSeq: this.routes.latestSeq,
    };
    if (this.totalTokens !== undefined) snapshot.usage = { totalTokens: this.totalTokens };
    const { turn } = this;
    if (turn?.operationId !== undefined) {
      snapshot.activeOperation = {
        operationId: turn.operationId,
        operationKind: turn.kind,
        startedAt: turn.startedAt,
      };
    }
    if (this.lastCompleted) snapshot.lastCompletedOperation = { ...this.lastCompleted };
    const waiting = this.toolCalls.waiting;
    if (waiting) {
      const { toolRequestId, tool, args, operationId, createdAt, timeoutMs } = waiting;
      // Two shapes, never mixed, so a page's reader is tested on each: Core's names, or this Core's own.
      snapshot.pendingToolRequest = coreStatuses
        ? { requestId: toolRequestId, threadId: this.id, operationId, toolName: tool, args, createdAt, timeoutMs }
        : { toolRequestId, tool, args, operationId };
    }
    this.routes.sendTo(sink, channelId, 'session_snapshot', { snapshot });
  }

  // ───────────────────────────── turns ─────────────────────────────

  /**
   * Claims the session for one turn (throws `THREAD_BUSY` while another runs) and returns the function
   * that starts it. The caller answers the request first, so the page sees the response before the
   * turn's first event.
   */
  reserveTurn(kind: OperationKind, text: string, operationId?: string): () => void {
    if (this.ended) throw new DevCoreError('THREAD_NOT_FOUND', 'The session has ended', { sessionId: this.id });
    if (this.turn) {
      throw new DevCoreError('THREAD_BUSY', 'A turn is already running in this session; wait for it to end', {
        sessionId: this.id,
      });
    }
    const turn: Turn = {
      kind,
      operationId,
      startedAt: new Date().toISOString(),
      signal: this.stop.signal,
      done: false,
      queue: Promise.resolve(),
      message: '',
    };
    this.turn = turn;
    return () => void this.runTurn(turn, text);
  }

  private async runTurn(turn: Turn, text: string): Promise<void> {
    this.conversationChars += text.length;
    this.setStatus(turn, 'running');
    const ctx = this.turnContext(turn);
    let failure: unknown = undefined;
    let failed = false;
    try {
      if (turn.kind === 'prepare') await this.agentSession.prepare?.(ctx);
      else await this.agentSession.turn(text, ctx);
      // A call the agent started without awaiting still belongs to this turn.
      await turn.queue;
    } catch (thrown) {
      failed = true;
      failure = thrown;
    }
    turn.done = true;
    if (this.turn === turn) this.turn = null;
    if (this.ended || turn.signal.aborted) return;
    this.sendMessage(turn);
    this.reportUsage(turn);
    if (!failed) {
      // Back to back, in this order, as today's Core does; a 0.1 page finishes its turn on the idle.
      this.setStatus(turn, 'idle');
      this.completeOperation(turn, { success: true });
      return;
    }
    // An error event ends the turn on a 0.1 page by itself; an `idle` after it could arrive after the
    // page has already started its next turn and finish that one early, so none is sent.
    const error = toWireError(failure);
    const source = (failure as { source?: unknown })?.source === 'provider' ? 'provider' : 'core';
    this.status = 'error';
    this.turnEvent(turn, 'error', { error, source, provider: this.provider });
    this.completeOperation(turn, { success: false, error });
    this.hooks.changed(this);
  }

  /** The assistant message said since the last one, whole, as `chat_message` (today's protocol). */
  private sendMessage(turn: Turn): void {
    if (!this.protocol.chatMessages || turn.message === '') return;
    const text = turn.message;
    turn.message = '';
    this.turnEvent(turn, 'chat_message', { text });
  }

  private reportUsage(turn: Turn): void {
    if (!this.protocol.operations) return;
    this.totalTokens = Math.ceil(this.conversationChars / 4);
    this.turnEvent(turn, 'usage_updated', { totalTokens: this.totalTokens });
  }

  private completeOperation(turn: Turn, outcome: { success: boolean; error?: PedelecError }): void {
    if (turn.operationId === undefined) return;
    this.lastCompleted = {
      operationId: turn.operationId,
      operationKind: turn.kind,
      success: outcome.success,
      ...(outcome.error && { error: outcome.error }),
      completedAt: new Date().toISOString(),
    };
    this.turnEvent(turn, 'operation_completed', {
      operationKind: turn.kind,
      success: outcome.success,
      ...(outcome.error && { error: outcome.error }),
    });
  }

  private turnContext(turn: Turn): TurnContext {
    return {
      session: this.info,
      kind: turn.kind,
      signal: turn.signal,
      say: (text: string) => {
        if (this.isOver(turn) || typeof text !== 'string' || text === '') return;
        this.conversationChars += text.length;
        if (this.protocol.chatMessages) turn.message += text;
        if (this.protocol.chatFragments) this.turnEvent(turn, 'chat_delta', { text });
      },
      callTool: (name: string, args?: unknown, options?: { timeoutMs?: number }) => {
        // One call at a time, in order: the page's status has room for a single pending call.
        const call = turn.queue.then(() => this.toolCalls.call(turn, name, args, options));
        turn.queue = call.then(noop, noop);
        return call;
      },
      refused: (result: JsonValue) => this.toolCalls.isRefusal(result),
      publishArtifact: (name: string, content: string, mimeType?: string) => {
        // In the same queue as tool calls: the turn waits for the file, and events keep the agent's order.
        const publish = turn.queue.then(() => this.publishArtifact(turn, name, content, mimeType));
        turn.queue = publish.then(noop, noop);
        return publish;
      },
    };
  }

  private async publishArtifact(
    turn: Turn,
    name: unknown,
    content: unknown,
    mimeType: unknown,
  ): Promise<PublishedArtifact> {
    if (this.isOver(turn)) throw this.endedReason();
    const session = { id: this.id, provider: this.provider, writeAsset: this.writeAsset };
    const artifact = await storeArtifact(session, name, content, mimeType);
    // 0.1 has no such event: the file is there all the same, for list_assets and downloads.
    if (this.protocol.operations && !this.isOver(turn)) this.turnEvent(turn, 'provider_artifact', { artifact });
    return artifact;
  }

  // ───────────────────────────── tool calls ─────────────────────────────

  /** The page's answer to a `tool_call`. Exactly one per call; a late or repeated one is refused. */
  submitToolResult(toolRequestId: string, result: unknown): void {
    this.toolCalls.submitResult(toolRequestId, result);
  }

  // ───────────────────────────── end ─────────────────────────────

  private endedReason(): DevCoreError {
    return new DevCoreError('SESSION_ENDED', 'The session has ended', { sessionId: this.id });
  }

  /**
   * Ends the session: the running turn's agent is aborted, pending calls are dropped, and every route
   * except `endingRoute` (the page that asked, which expects silence) gets one `ended` event. The agent
   * session stays open for a reactivation until {@link release}.
   */
  end(endingRoute?: { sink: EventSink; channelId: string }): void {
    if (this.ended) return;
    if (endingRoute) this.routes.delete(endingRoute.sink, endingRoute.channelId);
    this.ended = true;
    this.status = 'ended';
    if (this.turn) this.turn.done = true;
    this.turn = null;
    const reason = this.endedReason();
    this.stop.abort(reason);
    this.toolCalls.cancelAll(reason);
    this.routes.send('ended', {});
    this.routes.clear();
    this.hooks.ended(this);
  }

  /**
   * Brings an ended session back, idle, with everything it had but its routes (the caller adds the
   * page's) and its asset files. `autoEndOnDisconnect`, when given, becomes the reactivating page's; a
   * session that has not ended keeps running as it is. Nothing is sent: the snapshot that follows tells
   * the page.
   */
  reactivate(autoEndOnDisconnect?: boolean): void {
    if (autoEndOnDisconnect !== undefined) this.autoEnd = autoEndOnDisconnect;
    if (!this.ended) return;
    this.ended = false;
    this.status = 'idle';
    this.stop = new AbortController();
  }

  /** The session is over for good (it will not be reactivated): the agent releases what it holds. */
  release(): void {
    try {
      this.agentSession.close?.();
    } catch {
      // An agent failing to clean up must not break the Core.
    }
  }
}
