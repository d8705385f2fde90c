/**
 * One agent session inside the development Core: its routes (the page connections that created or
 * resumed it), its per-session `seq`, one turn at a time, and the tool calls of that turn — checked
 * against the manifest, timed out, answered exactly once.
 *
 * The event order is the real Core's (dev-core.md): `running`, deltas, and for each tool call
 * `waiting_tool_result` then `tool_call`, `running` again once the result is in, and finally `idle`.
 * No `done` is ever sent: the page's SDK finishes a turn on either, so sending both would let a stale
 * one finish the page's *next* turn early.
 */
import { randomUUID } from 'node:crypto';
import { pedelecError } from '../core/errors.js';
import type { JsonValue } from '../core/json.js';
import type { AgentSession, AgentSessionInfo, DevAgent, TurnContext } from './agents/types.js';
import { DevCoreError, toWireError } from './errors.js';
import type { CheckedTool, SkillsManifest } from './manifest.js';

export type SessionStatus = 'idle' | 'running' | 'waiting_tool_result' | 'error' | 'ended';

/** Where a session's events go: a page connection. `sendEvent` must never throw. */
export interface EventSink {
  readonly id: string;
  sendEvent(message: Record<string, unknown>): void;
}

export type SessionSummary = {
  sessionId: string;
  origin: string | null;
  provider: string;
  agent: string;
  model: string | undefined;
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
  agent: DevAgent;
  autoEndOnDisconnect: boolean;
  skills: { manifest: SkillsManifest | undefined; tools: Map<string, CheckedTool> };
  defaultToolTimeoutMs: number;
};

type Turn = { kind: 'user' | 'prepare'; done: boolean; queue: Promise<void> };
type PendingCall = { tool: string; settle(how: 'answered' | 'timed_out', result: JsonValue): void; cancel(reason: unknown): void };

/** setTimeout's ceiling; a longer wait would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;
/** How many answered/timed-out request ids a session remembers to explain a late or repeated result. */
const SETTLED_MEMORY = 512;

const noop = () => {};
const routeKey = (sink: EventSink, channelId: string) => `${sink.id}\u0000${channelId}`;

function errorResult(code: string, message: string, details?: unknown): JsonValue {
  return { error: pedelecError(code, message, details) as unknown as JsonValue };
}

function isPositiveInteger(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) > 0;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export class DevSession {
  readonly id = `session_${randomUUID()}`;
  readonly createdAt = Date.now();
  readonly origin: string | null;
  readonly provider: string;
  readonly model: string | undefined;
  readonly agentCode: string;
  readonly autoEndOnDisconnect: boolean;
  readonly info: AgentSessionInfo;

  private status: SessionStatus = 'idle';
  private seq = 0;
  private ended = false;
  private turn: Turn | null = null;
  private readonly routes = new Map<string, { sink: EventSink; channelId: string }>();
  private readonly pending = new Map<string, PendingCall>();
  private readonly settled = new Map<string, 'answered' | 'timed_out'>();
  private readonly tools: Map<string, CheckedTool>;
  private readonly defaultToolTimeoutMs: number;
  private readonly stop = new AbortController();
  private readonly agentSession: AgentSession;

  constructor(
    params: SessionParams,
    private readonly hooks: { changed(session: DevSession): void; ended(session: DevSession): void },
  ) {
    this.origin = params.origin;
    this.provider = params.provider;
    this.model = params.model;
    this.agentCode = params.agent.code;
    this.autoEndOnDisconnect = params.autoEndOnDisconnect;
    this.tools = params.skills.tools;
    this.defaultToolTimeoutMs = params.defaultToolTimeoutMs;
    this.info = Object.freeze({
      sessionId: this.id,
      provider: this.provider,
      model: this.model,
      origin: this.origin,
      skills: params.skills.manifest,
    });
    this.agentSession = params.agent.openSession(this.info);
  }

  get isEnded(): boolean {
    return this.ended;
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
      autoEndOnDisconnect: this.autoEndOnDisconnect,
      status: this.status,
      routes: this.routes.size,
      createdAt: this.createdAt,
      ...(withSkills && { skills: this.info.skills }),
    };
  }

  // ───────────────────────────── routes ─────────────────────────────

  addRoute(sink: EventSink, channelId: string): void {
    this.routes.set(routeKey(sink, channelId), { sink, channelId });
    this.hooks.changed(this);
  }

  hasRoute(sink: EventSink, channelId: string): boolean {
    return this.routes.has(routeKey(sink, channelId));
  }

  /** Drops every route of a closed connection; true when that left the session with none. */
  dropConnection(sink: EventSink): boolean {
    let dropped = false;
    for (const [key, route] of this.routes) {
      if (route.sink === sink) {
        this.routes.delete(key);
        dropped = true;
      }
    }
    if (dropped) this.hooks.changed(this);
    return dropped && this.routes.size === 0;
  }

  // ───────────────────────────── events ─────────────────────────────

  private emit(type: string, fields: Record<string, unknown>): void {
    if (this.ended) return;
    this.send(type, fields);
  }

  private send(type: string, fields: Record<string, unknown>): void {
    const seq = ++this.seq;
    for (const { sink, channelId } of this.routes.values()) {
      sink.sendEvent({ channelId, type, sessionId: this.id, seq, ...fields });
    }
  }

  private setStatus(status: SessionStatus): void {
    this.status = status;
    this.emit('status_changed', { status });
    this.hooks.changed(this);
  }

  // ───────────────────────────── turns ─────────────────────────────

  /**
   * Claims the session for one turn (throws `THREAD_BUSY` while another runs) and returns the function
   * that starts it. The caller answers the request first, so the page sees the response before the
   * turn's first event.
   */
  reserveTurn(kind: 'user' | 'prepare', text: string): () => void {
    if (this.ended) throw new DevCoreError('THREAD_NOT_FOUND', 'The session has ended', { sessionId: this.id });
    if (this.turn) {
      throw new DevCoreError('THREAD_BUSY', 'A turn is already running in this session; wait for it to end', { sessionId: this.id });
    }
    const turn: Turn = { kind, done: false, queue: Promise.resolve() };
    this.turn = turn;
    return () => void this.runTurn(turn, text);
  }

  private async runTurn(turn: Turn, text: string): Promise<void> {
    this.setStatus('running');
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
    if (this.ended) return;
    if (!failed) {
      this.setStatus('idle');
      return;
    }
    // An error event ends the turn on the page by itself; an `idle` after it could arrive after the
    // page has already started its next turn and finish that one early, so none is sent.
    const error = toWireError(failure);
    const source = (failure as { source?: unknown })?.source === 'provider' ? 'provider' : 'core';
    this.status = 'error';
    this.emit('error', { error, source, provider: this.provider });
    this.hooks.changed(this);
  }

  private turnContext(turn: Turn): TurnContext {
    return {
      session: this.info,
      kind: turn.kind,
      signal: this.stop.signal,
      say: (text: string) => {
        if (turn.done || this.ended || typeof text !== 'string' || text === '') return;
        this.emit('chat_delta', { text });
      },
      callTool: (name: string, args?: unknown, options?: { timeoutMs?: number }) => {
        // One call at a time, in order: the page's status has room for a single pending call.
        const call = turn.queue.then(() => this.callTool(turn, name, args, options));
        turn.queue = call.then(noop, noop);
        return call;
      },
    };
  }

  private callTool(turn: Turn, name: unknown, args: unknown, options?: { timeoutMs?: number }): Promise<JsonValue> {
    if (turn.done || this.ended) return Promise.reject(this.endedReason());
    const tool = typeof name === 'string' ? this.tools.get(name) : undefined;
    if (!tool) {
      return Promise.resolve(
        errorResult('TOOL_NOT_FOUND', `Tool ${JSON.stringify(name)} is not in this session's manifest`, {
          tool: name,
          available: [...this.tools.keys()],
        }),
      );
    }

    let callArgs: unknown = args === undefined ? {} : args;
    let timeoutMs = tool.manifest.timeoutMs ?? this.defaultToolTimeoutMs;
    // An agent may extend one call with a `timeoutMs` argument, which Core strips unless the tool
    // declares such an argument itself (bridge-protocol.md §3).
    const declared = (tool.manifest.argsSchema.properties ?? {}) as Record<string, unknown>;
    if (isPlainObject(callArgs) && Object.hasOwn(callArgs, 'timeoutMs') && !Object.hasOwn(declared, 'timeoutMs')) {
      const { timeoutMs: asked, ...rest } = callArgs;
      callArgs = rest;
      // Extend, never shorten: a tool's own deadline is what its handler was written for.
      if (isPositiveInteger(asked)) timeoutMs = Math.max(timeoutMs, asked);
    }
    if (isPositiveInteger(options?.timeoutMs)) timeoutMs = Math.max(timeoutMs, options.timeoutMs);
    timeoutMs = Math.min(timeoutMs, MAX_TIMER_MS);

    const problems = tool.validate(callArgs);
    if (problems) {
      return Promise.resolve(errorResult('TOOL_ARGS_INVALID', problems[0].message, { tool: tool.manifest.name, errors: problems }));
    }

    const toolName = tool.manifest.name;
    return new Promise<JsonValue>((resolve, reject) => {
      const toolRequestId = `toolreq_${randomUUID()}`;
      const timer = setTimeout(() => {
        call.settle(
          'timed_out',
          errorResult('TOOL_TIMEOUT', `Tool ${toolName} did not answer within ${timeoutMs} ms`, { tool: toolName, toolRequestId, timeoutMs }),
        );
      }, timeoutMs);
      const call: PendingCall = {
        tool: toolName,
        settle: (how, result) => {
          if (!this.pending.delete(toolRequestId)) return;
          clearTimeout(timer);
          this.remember(toolRequestId, how);
          if (!this.ended) this.setStatus('running');
          resolve(result);
        },
        cancel: (reason) => {
          this.pending.delete(toolRequestId);
          clearTimeout(timer);
          reject(reason);
        },
      };
      this.pending.set(toolRequestId, call);
      this.setStatus('waiting_tool_result');
      this.emit('tool_call', { toolRequestId, tool: toolName, args: callArgs });
    });
  }

  private remember(toolRequestId: string, how: 'answered' | 'timed_out'): void {
    this.settled.set(toolRequestId, how);
    if (this.settled.size > SETTLED_MEMORY) this.settled.delete(this.settled.keys().next().value as string);
  }

  /** The page's answer to a `tool_call`. Exactly one per call; a late or repeated one is refused. */
  submitToolResult(toolRequestId: string, result: unknown): void {
    const call = this.pending.get(toolRequestId);
    if (call) {
      call.settle('answered', (result === undefined ? null : result) as JsonValue);
      return;
    }
    const how = this.settled.get(toolRequestId);
    if (how === 'answered') {
      throw new DevCoreError('TOOL_RESULT_ALREADY_SUBMITTED', `A result for tool request ${toolRequestId} was already submitted`, { toolRequestId });
    }
    if (how === 'timed_out') {
      throw new DevCoreError('TOOL_TIMEOUT', `Tool request ${toolRequestId} timed out before its result arrived`, { toolRequestId });
    }
    throw new DevCoreError('TOOL_REQUEST_NOT_FOUND', `No tool call ${toolRequestId} is waiting for a result in this session`, { toolRequestId });
  }

  // ───────────────────────────── end ─────────────────────────────

  private endedReason(): DevCoreError {
    return new DevCoreError('SESSION_ENDED', 'The session has ended', { sessionId: this.id });
  }

  /**
   * Ends the session: the running turn's agent is aborted, pending calls are dropped, and every route
   * except `endingRoute` (the page that asked, which expects silence) gets one `ended` event.
   */
  end(endingRoute?: { sink: EventSink; channelId: string }): void {
    if (this.ended) return;
    if (endingRoute) this.routes.delete(routeKey(endingRoute.sink, endingRoute.channelId));
    this.ended = true;
    this.status = 'ended';
    if (this.turn) this.turn.done = true;
    this.turn = null;
    const reason = this.endedReason();
    this.stop.abort(reason);
    for (const call of [...this.pending.values()]) call.cancel(reason);
    this.send('ended', {});
    this.routes.clear();
    try {
      this.agentSession.close?.();
    } catch {
      // An agent failing to clean up must not keep the session alive.
    }
    this.hooks.ended(this);
  }
}
