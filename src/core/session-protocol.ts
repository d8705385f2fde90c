/**
 * What arrives for one session (bridge-protocol.md §3, current-pedelec.md §2), read by the rules of
 * both protocols: duplicates dropped by `seq`; events of another operation ignored; the reply's text
 * delivered once whether it comes in fragments, whole or both; a turn finished by `done`/`idle`
 * (0.1.x) or by its own `operation_completed` (today's Pedelec, once the session has seen an
 * operation-aware event); snapshots, usage and artifacts. The session acts on what this decides.
 */
import type { EventMeta } from './call-context.js';
import { normalizeError, pedelecError, protocolError, type PedelecError } from './errors.js';
import { isObject, isText } from './json.js';
import { randomId } from './protocol.js';
import { isAssetPath } from './session-assets.js';
import type { SessionToolCalls } from './session-tool-calls.js';
import type { Toolbox } from './tools.js';
import type { PedelecSessionStatus, ProviderArtifact, TurnKind, UsageInfo } from './types.js';

export type Turn = {
  /** What every context of the turn carries. */
  ctx: { turnId: string; turnStartedAt: number; turnKind: TurnKind };
  /**
   * The turn's id on the wire (current protocol): sent with its request, carried by its events and by
   * the `operation_completed` that finishes it. Undefined only for a turn taken over from a snapshot
   * that named no operation.
   */
  operationId: string | undefined;
  /** Settles whoever waits for the turn: resolves, or rejects with `error`. */
  finish(error?: PedelecError): void;
};

/**
 * What the session does on what arrives. `meta` says who caused an event (sdk-api.md "Event
 * contexts"): `core` when the client routes a message from the bridge, `sdk` (the default) when the
 * page replays one through `handleEvent`.
 */
export interface ProtocolHost {
  readonly sessionId: string;
  readonly toolbox: Toolbox;
  ended(): boolean;
  turn(): Turn | null;
  /** A turn this page did not start (a snapshot's active operation, after a reload). */
  takeOver(turn: Turn): void;
  /** Clears the current turn; with an error, rejects whoever waits for it. */
  finishTurn(error?: PedelecError): void;
  setStatus(status: PedelecSessionStatus, meta: EventMeta): void;
  markEnded(meta: EventMeta): void;
  /** Status `error`, the error reported, the turn rejected. */
  fail(error: PedelecError, meta: EventMeta): void;
  /** Calls the session's listeners of `kind` with `payload` and the context of `type` (always Core's). */
  emit(kind: 'chat' | 'chatMessage' | 'usage' | 'artifact', payload: unknown, type: string, meta: EventMeta): void;
  emitError(error: PedelecError, meta: EventMeta): void;
  warn(warning: PedelecError): void;
  /** Runs an agent's tool call (a repeat of one running or answered is ignored). */
  toolCall(toolRequestId: string, tool: string, args: unknown, meta: EventMeta): void;
  /** The session's tool calls, running or answered. */
  readonly calls: SessionToolCalls;
}

const STATUSES: readonly string[] = ['idle', 'running', 'waiting_tool_result', 'ended', 'error'];
const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;
const sessionError = (error: unknown) => normalizeError(error, 'SESSION_ERROR', 'Pedelec session error');

/** A tool call from a snapshot, waiting for a handler to be registered. */
type ParkedCall = { toolRequestId: string; tool: string; args: unknown; meta: EventMeta };

export class SessionProtocol {
  #lastSeq = -1;
  /**
   * Today's protocol: the session has seen an operation-aware event (a `session_snapshot`, or any
   * event carrying an `operationId`). Its turns then finish only on their `operation_completed`;
   * before, `done` or `status_changed: idle` finishes them (0.1.x).
   */
  #operationAware = false;
  /** What the fragments (`chat_delta`) of the current assistant message delivered so far. */
  #messageDelivered = '';
  /** Operations whose events were ignored (and warned about) during the current turn. */
  #foreignOperations = new Set<string>();
  #parked: ParkedCall | null = null;
  /** The session's token usage as Core last reported it. */
  usage: UsageInfo | undefined;

  constructor(private readonly host: ProtocolHost) {}

  /** What each turn starts with: no message begun, no operation ignored yet. */
  turnStarted(): void {
    this.#messageDelivered = '';
    this.#foreignOperations.clear();
  }

  /** The session ended: a call waiting for its handler never runs. */
  sessionEnded(): void {
    this.#parked = null;
  }

  /** One session-addressed message from the bridge. */
  receive(message: Record<string, any>, meta: EventMeta): void {
    const { host } = this;
    if (host.ended()) return;
    const { seq, type, status, text, toolRequestId, tool, operationId } = message;
    if (isCount(seq)) {
      // The extension may route one event twice. A snapshot is state, not an event to replay: taken
      // whatever its seq (a recovery's snapshot may repeat the last seq seen).
      if (seq <= this.#lastSeq && type !== 'session_snapshot') return;
      this.#lastSeq = Math.max(seq, this.#lastSeq);
    }
    if (isText(operationId)) this.#operationAware = true;
    // An SDK error about a message that did arrive: the one SDK-made event that keeps eventReceivedAt.
    const malformed = (what: string) =>
      host.emitError(protocolError(`${type} ${what}`), { source: 'sdk', eventReceivedAt: meta.eventReceivedAt });
    switch (type) {
      case 'chat_delta':
      case 'chat_message':
      case 'tool_call': {
        const turn = host.turn();
        if (isText(operationId) && operationId !== turn?.operationId) this.#ignoreForeign(type, operationId);
        else if (!turn) malformed('arrived outside of a turn');
        else if (type === 'tool_call') {
          if (isText(toolRequestId) && typeof tool === 'string') host.toolCall(toolRequestId, tool, message.args, meta);
          else malformed('had no toolRequestId or tool');
        } else if (typeof text !== 'string') malformed('had no text');
        // A prepare turn's words are not the user's conversation.
        else if (turn.ctx.turnKind !== 'prepare') this.#chat(type, text, meta);
        return;
      }
      case 'status_changed':
      case 'done':
      case 'ended': {
        // `done` reports `idle` as `status_changed: idle` does; `ended` is final either way.
        const next = type === 'done' ? 'idle' : type === 'ended' ? type : status;
        if (!STATUSES.includes(next)) return malformed('had an unknown status');
        if (next === 'ended') return host.markEnded(meta);
        // Said as the public SDK says it, besides rejecting the running turn.
        if (next === 'error')
          return host.fail(
            pedelecError('SESSION_ERROR', 'session entered error status', { sessionId: host.sessionId }),
            meta,
          );
        host.setStatus(next, meta);
        // An operation-aware session's turn finishes on its operation_completed alone.
        if (next === 'idle' && !this.#operationAware) host.finishTurn();
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
        if (isCount(message.totalTokens)) return this.#setUsage(message.totalTokens, meta);
        return malformed('had no totalTokens');
      case 'provider_artifact': {
        const artifact = readArtifact(message.artifact);
        if (artifact) return host.emit('artifact', artifact, 'provider_artifact', meta);
        return malformed('had no artifact with a valid path');
      }
      case 'error':
        return host.fail(sessionError(message.error), meta);
      // Unknown event types are ignored: newer extensions add some.
    }
  }

  /**
   * Runs the call taken over from a snapshot once something can answer it: a declared tool (an
   * inline handler, or a `<pedelec-tool>`), a named handler or the generic one. A page that resumes
   * with the core SDK registers its handlers after `resumeSession()` resolves.
   */
  runParked(): void {
    const parked = this.#parked;
    const { host } = this;
    if (!parked || !host.turn() || host.ended()) return;
    const { toolbox } = host;
    if (!(toolbox.tools.has(parked.tool) || toolbox.named.has(parked.tool) || toolbox.generic)) return;
    this.#parked = null;
    host.toolCall(parked.toolRequestId, parked.tool, parked.args, parked.meta);
  }

  /**
   * The reply's text through the one delta channel, each character once: fragments as they come; of a
   * whole message, whatever its fragments did not deliver (all of it when none came). Fragments that do
   * not match the start of their message have delivered what they could: the message then adds nothing
   * (`onChatMessage` has it whole).
   */
  #chat(type: 'chat_delta' | 'chat_message', text: string, meta: EventMeta): void {
    let piece = text;
    if (type === 'chat_delta') this.#messageDelivered += text;
    else {
      const delivered = this.#messageDelivered;
      piece = text.startsWith(delivered) ? text.slice(delivered.length) : '';
      this.#messageDelivered = '';
    }
    if (piece) this.host.emit('chat', piece, 'chat_delta', meta);
    if (type === 'chat_message') this.host.emit('chatMessage', text, 'chat_message', meta);
  }

  /** An event of another operation than the running turn's (another page's, or one that ended): ignored, said once. */
  #ignoreForeign(type: string, operationId: string): void {
    if (this.#foreignOperations.has(operationId)) return;
    this.#foreignOperations.add(operationId);
    const message = `Ignored ${type} of operation ${operationId}: it is not this page's running turn`;
    this.host.warn(pedelecError('FOREIGN_OPERATION', message, { sessionId: this.host.sessionId, operationId, type }));
  }

  /** `operation_completed` (or a snapshot's `lastCompletedOperation`): finishes the running turn if it is that operation. */
  #completeOperation(operation: Record<string, any>, meta: EventMeta): void {
    const turn = this.host.turn();
    // Another operation's, or the running turn's after an error event already finished it.
    if (!turn || !isText(operation.operationId) || operation.operationId !== turn.operationId) return;
    if (operation.success !== false) return this.host.finishTurn();
    const error = sessionError(operation.error);
    this.host.emitError(error, meta);
    this.host.finishTurn(error);
  }

  /**
   * A `session_snapshot` (sent on every subscribe: create, resume, recovery): the status and usage;
   * a turn that finished unseen; a turn still running that this page did not start (after a reload
   * with `persist`), taken over; and the tool call Core waits for, run as if it had just arrived.
   */
  #applySnapshot(snapshot: Record<string, any>, meta: EventMeta): void {
    const { host } = this;
    const { status, usage, activeOperation, lastCompletedOperation, pendingToolRequest } = snapshot;
    if (isCount(usage?.totalTokens)) this.#setUsage(usage.totalTokens, meta);
    if (isObject(lastCompletedOperation)) this.#completeOperation(lastCompletedOperation, meta);
    // A turn this page started that the snapshot knows nothing of: Core made the snapshot before the
    // turn's request reached it (the create response and the snapshot, then sendText at once). Its
    // status (`idle`) is older than the turn's.
    const turn = host.turn();
    if (turn && turn.operationId !== undefined && activeOperation?.operationId !== turn.operationId) return;
    const pending = readPendingCall(pendingToolRequest);
    if (!turn && (isObject(activeOperation) || pending)) {
      const operation = isObject(activeOperation) ? activeOperation : pendingToolRequest;
      const turnKind = operation.operationKind === 'prepare' ? 'prepare' : 'user';
      host.takeOver({
        ctx: { turnId: randomId('turn'), turnStartedAt: meta.eventReceivedAt ?? Date.now(), turnKind },
        operationId: isText(operation.operationId) ? operation.operationId : undefined,
        finish: () => {}, // nobody on this page waits for it
      });
      this.turnStarted();
    }
    if (status === 'ended') return host.markEnded(meta);
    if (STATUSES.includes(status)) host.setStatus(status, meta);
    // Calls still running that Core no longer waits for: their results would be refused.
    host.calls.withdrawAllBut(pending?.toolRequestId);
    if (this.#parked && this.#parked.toolRequestId !== pending?.toolRequestId) this.#parked = null;
    if (pending && !host.calls.has(pending.toolRequestId)) {
      this.#parked = { ...pending, meta };
      this.runParked();
    }
  }

  #setUsage(totalTokens: number, meta: EventMeta): void {
    this.usage = { totalTokens };
    this.host.emit('usage', this.usage, 'usage_updated', meta);
  }
}

/** A snapshot's `pendingToolRequest`, when it names a call. */
function readPendingCall(value: unknown): { toolRequestId: string; tool: string; args: unknown } | null {
  if (!isObject(value) || !isText(value.toolRequestId) || typeof value.tool !== 'string') return null;
  return { toolRequestId: value.toolRequestId, tool: value.tool, args: value.args };
}

/** A `provider_artifact`'s artifact: its path must be a valid asset path; other fields are kept when well typed. */
function readArtifact(value: unknown): ProviderArtifact | null {
  if (!isObject(value) || !isAssetPath(value.path)) return null;
  const artifact: ProviderArtifact = { path: value.path };
  for (const key of ['id', 'provider', 'name', 'mimeType', 'kind', 'source'] as const) {
    if (typeof value[key] === 'string') artifact[key] = value[key];
  }
  if (isCount(value.sizeBytes)) artifact.sizeBytes = value.sizeBytes;
  return artifact;
}
