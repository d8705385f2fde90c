/**
 * One agent session inside the development Core: one turn at a time, and what its pages are told of
 * it, when. Here: its routes, its life (end, reactivation) and the wiring of its parts. Kept apart:
 * running each turn and what its agent may do in it (turn-runner.ts), the events and the snapshot in
 * the protocol's words, with the status and usage they report (session-events.ts), handing each event
 * to every page with its `seq` (session-routes.ts), checking, timing and settling tool calls
 * (tool-call-relay.ts), and storing published files (artifacts.ts).
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
import type { AgentSession, AgentSessionInfo, AgentWorkspace, DevAgent } from '../agents/types.js';
import type { AssetWriter } from '../assets/artifacts.js';
import { DevCoreError } from '../errors.js';
import type { CheckedTool, SkillsManifest } from './manifest.js';
import { protocolProfile, type ProtocolProfile } from './protocol-profile.js';
import { SessionEvents, type OperationKind, type SessionStatus } from './session-events.js';
import { SessionRoutes, type EventSink } from './session-routes.js';
import { ToolCallRelay } from './tool-call-relay.js';
import { TurnRunner, type Turn } from './turn-runner.js';

export type { SessionStatus };

/** The workspace a session works in, as its page is told: a folder the page opened, or a managed one (`path` null). */
export type SessionWorkspace = { workspaceId: string; path: string | null };

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
  /** The session's workspace, with today's protocol: its id, and its folder when the page opened it. */
  workspaceId?: string | undefined;
  workspacePath?: string | null | undefined;
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
  /** The workspace it works in (today's protocol); none with 0.1. */
  workspace?: SessionWorkspace | null;
  /** That workspace as its agent works in it. */
  agentWorkspace?: AgentWorkspace | null;
  /** Called once the session is over for good (not kept for reactivation any more). */
  released?: () => void;
};

export class DevSession {
  readonly id = `session_${randomUUID()}`;
  readonly createdAt = Date.now();
  readonly origin: string | null;
  readonly provider: string;
  readonly model: string | undefined;
  readonly agentCode: string;
  readonly info: AgentSessionInfo;
  /** Its workspace, the same for the session's whole life; null with the 0.1 protocol. */
  readonly workspace: SessionWorkspace | null;

  private ended = false;
  private autoEnd: boolean;
  private readonly released: (() => void) | undefined;
  private readonly routes = new SessionRoutes(this.id);
  private readonly events: SessionEvents;
  private readonly toolCalls: ToolCallRelay<Turn>;
  private readonly turns: TurnRunner;
  private readonly protocol: ProtocolProfile;
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
    this.protocol = params.protocol ?? protocolProfile('current');
    this.events = new SessionEvents(this, this.routes, this.protocol, {
      ended: () => this.ended,
      changed: () => this.hooks.changed(this),
    });
    this.toolCalls = new ToolCallRelay<Turn>(params.skills.tools, params.defaultToolTimeoutMs, {
      over: (turn) => (this.turns.isOver(turn) ? this.endedReason() : undefined),
      sent: (turn, request) => this.events.toolCallSent(turn, request),
      settled: (turn, result) => this.events.toolCallSettled(turn, result),
    });
    this.workspace = params.workspace ? Object.freeze({ ...params.workspace }) : null;
    this.released = params.released;
    this.info = Object.freeze({
      sessionId: this.id,
      hasWorkspace: !!params.agentWorkspace,
      provider: this.provider,
      model: this.model,
      explicitModel: params.explicitModel ?? false,
      origin: this.origin,
      skills: params.skills.manifest,
      effortLevel: params.effortLevel,
      effort: params.effort,
    });
    this.agentSession = params.agent.openSession(this.info);
    const host = {
      id: this.id,
      provider: this.provider,
      info: this.info,
      writeAsset: params.writeAsset,
      workspace: params.agentWorkspace ?? null,
      ended: () => this.ended,
      endedReason: () => this.endedReason(),
    };
    this.turns = new TurnRunner(host, this.agentSession, this.events, this.toolCalls);
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Whether the session ends when its last page goes (`create_session`'s flag, or `reactivate_session`'s). */
  get autoEndOnDisconnect(): boolean {
    return this.autoEnd;
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
      workspacePath: this.workspace?.path,
      autoEndOnDisconnect: this.autoEnd,
      status: this.events.status,
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

  /**
   * Sends one route (a page that just created or resumed the session, after its response) where the
   * session stands. It takes the next seq like any event — the page drops events whose seq is not above
   * the last it saw, so a snapshot that reused the next event's seq would cost the page that event.
   */
  sendSnapshot(sink: EventSink, channelId: string): void {
    if (!this.protocol.operations || this.ended || !this.hasRoute(sink, channelId)) return;
    const snapshot = this.events.snapshot(this.turns.current, this.toolCalls.waiting);
    this.routes.sendTo(sink, channelId, 'session_snapshot', { snapshot });
  }

  // ───────────────────────────── turns ─────────────────────────────

  /**
   * Claims the session for one turn (throws `THREAD_BUSY` while another runs) and returns the function
   * that starts it. The caller answers the request first, so the page sees the response before the
   * turn's first event.
   */
  reserveTurn(kind: OperationKind, text: string, operationId?: string): () => void {
    return this.turns.reserve(kind, text, operationId);
  }

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
    this.events.status = 'ended';
    const reason = this.endedReason();
    this.turns.abort(reason);
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
    this.events.status = 'idle';
    this.turns.renew();
  }

  /** The session is over for good (it will not be reactivated): the agent releases what it holds. */
  release(): void {
    try {
      this.agentSession.close?.();
    } catch {
      // An agent failing to clean up must not break the Core.
    }
    this.released?.();
  }
}
