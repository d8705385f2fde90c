/**
 * What arrives for one session (docs/design/sdk-0.4.md, current-pedelec.md §2, bridge-protocol.md §3), read
 * by the rules of both protocols:
 * - today's Pedelec (a session that has seen an operation-aware event: a snapshot, or any event
 *   carrying an `operationId`): events must carry the running turn's operation; a turn ends on its own
 *   `operation_completed`; an `error` event is reported, not the end of the turn;
 * - a 0.1.x extension: events without operations; a turn ends on `done` or `status_changed: idle`, or
 *   fails on an `error`; the whole reply (`onChat`) is made of its fragments.
 * Duplicates are dropped by `seq`; snapshots, usage and artifacts are read. The session acts on what
 * this decides.
 */
import type { EventMeta } from './call-context.js';
import { normalizeError, pedelecError, protocolError, type PedelecError } from './errors.js';
import { isObject, isText } from './json.js';
import { randomId } from './bridge-port.js';
import type { BridgeEventType } from './bridge-messages.js';
import type { SessionToolCalls } from './session-tool-calls.js';
import type { Toolbox } from './toolbox.js';
import { STATUSES, isCount, readArtifact, readPendingCall, snapshotStatus } from './event-fields.js';
import type { SessionTurns, Turn } from './session-turns.js';
import type { PedelecSessionStatus } from './types.js';

/**
 * What the session does on what arrives. `meta` says who caused an event (sdk-api.md "Event
 * contexts"): `core` when the client routes a message from the bridge, `sdk` (the default) when the
 * page replays one through `handleEvent`.
 */
export interface ProtocolHost {
  readonly sessionId: string;
  readonly toolbox: Toolbox;
  ended(): boolean;
  /** A `resume()` is waiting for the snapshot that says the session is idle again. */
  reactivating(): boolean;
  /** The session lives again (the snapshot a `resume()` waited for). */
  revive(): void;
  /** The session's turns: a snapshot's active operation, after a reload, is taken over as the current one. */
  readonly turns: SessionTurns;
  setStatus(status: PedelecSessionStatus, meta: EventMeta): void;
  markEnded(meta: EventMeta): void;
  /** Calls the session's listeners of `kind` with `payload` and the context of `type` (always Core's). */
  emit(kind: 'chat' | 'chatDelta' | 'usage' | 'artifact', payload: unknown, type: string, meta: EventMeta): void;
  emitError(error: PedelecError, meta: EventMeta): void;
  /** Runs an agent's tool call (a repeat of one running or answered is ignored). */
  toolCall(toolRequestId: string, tool: string, args: unknown, meta: EventMeta): void;
  /** The session's tool calls, running or answered. */
  readonly calls: SessionToolCalls;
  /** The session's token usage (never going down). */
  readonly usage: { totalTokens?: number };
}

/**
 * A message for a session, read defensively where it is used. Its `type` is typed so that `receive()`
 * naming an event the protocol does not have fails the type check; at run time any type may arrive,
 * and one `receive()` does not name is ignored.
 */
export type SessionMessage = { type?: BridgeEventType; [key: string]: unknown };

/** The operation a snapshot says is running (its id checked), or the one its pending call belongs to. */
type ActiveOperation = { operationId?: string; startedAt?: unknown; operationKind?: unknown };

const sessionError = (error: unknown, message = 'Pedelec session error') =>
  normalizeError(error, 'SESSION_ERROR', message);

/** A tool call the page cannot answer yet: its turn was taken over, and no handler was registered for it. */
type ParkedCall = {
  toolRequestId: string;
  tool: string;
  args: unknown;
  operationId: string | undefined;
  meta: EventMeta;
};

export class SessionProtocol {
  #lastSeq = -1;
  /** Today's protocol: the session has seen an operation-aware event (see the module's comment). */
  #operationAware = false;
  /** (0.1.x) The reply's text so far: the fragments of the message being built. */
  #fragments = '';
  #parked: ParkedCall[] = [];

  constructor(private readonly host: ProtocolHost) {}

  /** Whether the session follows today's protocol. */
  get operationAware(): boolean {
    return this.#operationAware;
  }

  /** What each turn starts with: no message begun. */
  turnStarted(): void {
    this.#fragments = '';
  }

  /** The session ended: a call waiting for its handler never runs. */
  sessionEnded(): void {
    this.#parked = [];
  }

  /** One session-addressed message from the bridge. */
  receive(message: SessionMessage, meta: EventMeta): void {
    const { host } = this;
    const { seq, type, status, text, toolRequestId, tool, operationId } = message;
    // An ended session takes nothing more — but the snapshot a `resume()` waits for.
    if (host.ended() && !(type === 'session_snapshot' && host.reactivating())) return;
    if (isCount(seq)) {
      // The extension may route one event twice. A snapshot is state, not an event to replay: taken
      // whatever its seq (a recovery's snapshot may repeat the last seq seen).
      if (seq <= this.#lastSeq && type !== 'session_snapshot') return;
      this.#lastSeq = Math.max(seq, this.#lastSeq);
    }
    if (isText(operationId)) this.#operationAware = true;
    // An SDK error about a message that did arrive: the one SDK-made event that keeps eventReceivedAt.
    const sdkMeta: EventMeta = { source: 'sdk', eventReceivedAt: meta.eventReceivedAt };
    const malformed = (what: string) => host.emitError(protocolError(`${type} ${what}`), sdkMeta);
    switch (type) {
      case 'provider_artifact': {
        // Checked before anything else, whichever turn it claims.
        const artifact = readArtifact(message.artifact);
        if (typeof artifact === 'string') return malformed(artifact);
        const turn = this.#turnOf(type, operationId, sdkMeta);
        if (turn && turn.ctx.turnKind === 'user') host.emit('artifact', artifact, type, meta);
        return;
      }
      case 'chat_delta':
      case 'chat_message':
      case 'tool_call': {
        const turn = this.#turnOf(type, operationId, sdkMeta);
        if (!turn) return;
        if (type === 'tool_call') {
          if (!isText(toolRequestId) || typeof tool !== 'string') return malformed('had no toolRequestId or tool');
          this.#flushFragments(meta);
          return this.#liveCall({ toolRequestId, tool, args: message.args, operationId: turn.operationId, meta }, turn);
        }
        if (typeof text !== 'string') return malformed('had no text');
        // A prepare turn's words are not the user's conversation.
        if (turn.ctx.turnKind !== 'prepare') this.#chat(type, text, meta);
        return;
      }
      case 'status_changed':
      case 'done':
      case 'ended': {
        const turn = host.turns.current;
        // Today's protocol: a status of another operation, or one that names none while a turn runs, is not this turn's.
        if (type === 'status_changed' && this.#operationAware && turn) {
          if (!isText(operationId) || operationId !== turn.operationId) return;
        }
        // `done` reports `idle` as `status_changed: idle` does; `ended` is final either way.
        // Checked just below.
        const next = (type === 'done' ? 'idle' : type === 'ended' ? type : status) as PedelecSessionStatus;
        if (!STATUSES.includes(next)) return malformed('had an unknown status');
        if (next === 'ended') return host.markEnded(meta);
        // (0.1.x) The reply is whole once the turn ends: said before the status that ends it.
        if (next === 'idle') this.#flushFragments(meta);
        host.setStatus(next, meta);
        if (next === 'error') {
          const error = pedelecError('SESSION_ERROR', 'session entered error status', { sessionId: host.sessionId });
          host.emitError(error, meta);
          // A 0.1.x turn fails with its session; today's waits for its operation_completed.
          if (!this.#operationAware) host.turns.finish(error);
        } else if (next === 'idle' && !this.#operationAware) {
          host.turns.finish();
        }
        return;
      }
      case 'operation_completed':
        this.#operationAware = true;
        return this.#completeOperation(message, meta);
      case 'session_snapshot':
        this.#operationAware = true;
        if (isObject(message.snapshot)) return this.#applySnapshot(message.snapshot, meta);
        return malformed('had no snapshot');
      case 'usage_updated':
        return this.#setUsage(message.totalTokens, meta);
      case 'error': {
        const turn = host.turns.current;
        if (isText(operationId) && operationId !== turn?.operationId) return;
        const error = sessionError(message.error);
        host.emitError(error, meta);
        if (!isText(operationId)) host.setStatus('error', meta);
        if (!this.#operationAware) host.turns.finish(error);
        return;
      }
      // Unknown event types are ignored: newer extensions add some.
    }
  }

  /**
   * The turn a turn event belongs to, or null when it belongs to none: one that names another
   * operation than the running turn's, or arrives with no turn running (a 0.1.x event, naming none,
   * belongs to the running turn), is an `SDK_PROTOCOL_ERROR`.
   */
  #turnOf(type: string, operationId: unknown, sdkMeta: EventMeta): Turn | null {
    const turn = this.host.turns.current;
    const named = isText(operationId);
    if (turn && (named ? operationId === turn.operationId : !this.#operationAware)) return turn;
    const details = { sessionId: this.host.sessionId, operationId: named ? operationId : undefined };
    this.host.emitError(protocolError(`${type} event did not match the active operation`, details), sdkMeta);
    return null;
  }

  /**
   * The reply's text: each fragment through `onChatDelta` as it comes, each whole message through
   * `onChat`. A 0.1.x extension sends fragments only: `onChat` then gets the text they built when the
   * turn ends or a tool call starts.
   */
  #chat(type: 'chat_delta' | 'chat_message', text: string, meta: EventMeta): void {
    if (type === 'chat_message') {
      this.#fragments = '';
      this.host.emit('chat', text, type, meta);
      return;
    }
    if (!this.#operationAware) this.#fragments += text;
    this.host.emit('chatDelta', text, type, meta);
  }

  /** (0.1.x) The message the fragments built so far, to `onChat`. */
  #flushFragments(meta: EventMeta): void {
    const text = this.#fragments;
    this.#fragments = '';
    if (text && !this.#operationAware) this.host.emit('chat', text, 'chat_message', meta);
  }

  /**
   * A live `tool_call`: run it — unless its turn was taken over from a snapshot (after a reload) and
   * nothing can answer it yet: it then waits for its handler, as the snapshot's own call does.
   */
  #liveCall(call: ParkedCall, turn: Turn): void {
    this.#parked = this.#parked.filter((c) => c.toolRequestId !== call.toolRequestId);
    if (!turn.local && !this.#answerable(call.tool)) this.#parked.push(call);
    else this.host.toolCall(call.toolRequestId, call.tool, call.args, call.meta);
  }

  /** Whether a handler can answer `tool`: a declared tool (inline or `<pedelec-tool>`), a named or the generic handler. */
  #answerable(tool: string): boolean {
    const { toolbox } = this.host;
    return toolbox.tools.has(tool) || toolbox.named.has(tool) || !!toolbox.generic;
  }

  /**
   * Runs the calls that were waiting for a handler, once one can answer them. A page that resumes
   * with the core SDK registers its handlers after `resumeSession()` resolves.
   */
  runParked(): void {
    const { host } = this;
    const turn = host.turns.current;
    if (!turn || host.ended()) return;
    const ready = this.#parked.filter((c) => c.operationId === turn.operationId && this.#answerable(c.tool));
    if (ready.length === 0) return;
    this.#parked = this.#parked.filter((c) => !ready.includes(c));
    for (const call of ready) host.toolCall(call.toolRequestId, call.tool, call.args, call.meta);
  }

  /**
   * `operation_completed` (or a snapshot's `lastCompletedOperation`): finishes the running turn if it
   * is that operation — the session idle again, or, for a user turn that failed, in error.
   */
  #completeOperation(operation: Record<string, unknown>, meta: EventMeta): void {
    const { host } = this;
    const turn = host.turns.current;
    // Another operation's, or the running turn's after it finished.
    if (!turn || !isText(operation.operationId) || operation.operationId !== turn.operationId) return;
    const { operationKind, success } = operation;
    if (operationKind !== undefined && operationKind !== turn.ctx.turnKind) return;
    const failed = success === false;
    // Core waits for no tool result of an operation that completed: still running, one would be refused.
    host.calls.withdrawAllBut(undefined);
    this.#parked = [];
    host.setStatus(failed && turn.ctx.turnKind === 'user' ? 'error' : 'idle', meta);
    host.turns.finish(failed ? sessionError(operation.error, 'session operation failed') : undefined);
  }

  /**
   * A `session_snapshot` (sent on every subscribe: create, resume, reactivation, recovery): the status
   * and usage; a turn that finished unseen; a turn running that this page did not start (after a
   * reload with `persist`), taken over; and the tool call Core waits for, run as if it had just
   * arrived (once a handler can answer it).
   */
  #applySnapshot(snapshot: Record<string, unknown>, meta: EventMeta): void {
    const { host } = this;
    const { threadId, usage, activeOperation, lastCompletedOperation } = snapshot;
    // Another thread's snapshot (a snapshot that names none is this session's).
    if (isText(threadId) && threadId !== host.sessionId) return;
    const status = snapshotStatus(snapshot.status);
    if (host.ended()) {
      // Only the snapshot a `resume()` waits for gets here.
      if (status !== 'idle') return;
      host.revive();
    }
    this.#setUsage((usage as { totalTokens?: unknown } | null | undefined)?.totalTokens, meta);
    if (isObject(lastCompletedOperation)) this.#completeOperation(lastCompletedOperation, meta);
    const pending = readPendingCall(snapshot.pendingToolRequest);
    // The operation running: the one the snapshot names, or the one its pending call belongs to.
    const active: ActiveOperation | null =
      isObject(activeOperation) && isText(activeOperation.operationId)
        ? activeOperation
        : pending && { operationId: pending.operationId };
    const turn = host.turns.current;
    // A turn this page started that the snapshot knows nothing of: Core made the snapshot before the
    // turn's request reached it (the create response and the snapshot, then sendText at once). Its
    // status is older than the turn's.
    if (turn?.local && active?.operationId !== turn.operationId) return;
    if (!turn?.local) this.#followExternalTurn(active, turn, meta);
    if (status === 'ended') return host.markEnded(meta);
    if (status) host.setStatus(status, meta);
    const current = host.turns.current;
    const waitedFor = pending && current && pending.operationId === current.operationId ? pending : null;
    // Calls still running, or waiting for a handler, that Core no longer waits for: their results would be refused.
    host.calls.withdrawAllBut(waitedFor?.toolRequestId);
    this.#parked = this.#parked.filter((c) => c.toolRequestId === waitedFor?.toolRequestId);
    if (waitedFor && !host.calls.has(waitedFor.toolRequestId)) {
      this.#parked = [{ ...waitedFor, meta }];
      this.runParked();
    }
  }

  /**
   * With no turn of its own running, the page follows the snapshot's: the operation it names becomes
   * the turn (a new one replaces the old), and a snapshot naming none retires it.
   */
  #followExternalTurn(active: ActiveOperation | null, turn: Turn | null, meta: EventMeta): void {
    if (active && turn?.operationId === active.operationId) return;
    if (!active) return void (turn && (this.host.turns.current = null));
    const startedAt = Date.parse(active.startedAt as string);
    this.host.turns.current = {
      ctx: {
        turnId: active.operationId ?? randomId('turn'),
        turnStartedAt: Number.isFinite(startedAt) ? startedAt : (meta.eventReceivedAt ?? Date.now()),
        turnKind: active.operationKind === 'prepare' ? 'prepare' : 'user',
      },
      operationId: active.operationId,
      local: false,
      finish: () => {}, // nobody on this page waits for it
    };
    this.turnStarted();
  }

  /** Usage only grows: a lower or malformed count is ignored. */
  #setUsage(totalTokens: unknown, meta: EventMeta): void {
    const { usage } = this.host;
    if (!isCount(totalTokens) || (usage.totalTokens !== undefined && totalTokens <= usage.totalTokens)) return;
    usage.totalTokens = totalTokens;
    this.host.emit('usage', { totalTokens }, 'usage_updated', meta);
  }
}
