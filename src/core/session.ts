/**
 * `PedelecSession`: one agent session — turns, statuses, listeners, tool calls, assets
 * (spec/sdk-api.md, tools-api.md). Created by `Pedelec.createSession()` / `resumeSession()`.
 */
import { invalidInput, keepError, normalizeError, pedelecError, protocolError, type PedelecError } from './errors.js';
import { fieldsOf, isObject, isText, type JsonValue } from './json.js';
import { toolCallContext } from './call-context.js';
import { DEFAULT_TOOL_TIMEOUT_MS, inOrder, randomId } from './protocol.js';
import {
  Toolbox,
  type GenericToolHandler,
  type ToolCall,
  type ToolOutcome,
  type ToolSpecificHandler,
} from './tools.js';
import type {
  ArtifactEventContext,
  ChatEventContext,
  ChatMessageEventContext,
  EndedEventContext,
  ErrorEventContext,
  PedelecEventContext,
  PedelecSessionStatus,
  ProviderArtifact,
  ReadAssetType,
  SandboxAsset,
  StatusEventContext,
  TurnEvent,
  TurnKind,
  UsageEventContext,
  UsageInfo,
} from './types.js';

/** What a session needs from its client; keeps the session testable and the client private. */
export interface SessionBridge {
  request<T = unknown>(type: string, payload?: Record<string, unknown>): Promise<T>;
  release(session: PedelecSession<string>): void;
  warn(warning: PedelecError): void;
}

type Turn = {
  /** What every context of the turn carries. */
  ctx: { turnId: string; turnStartedAt: number; turnKind: TurnKind };
  /**
   * The turn's id on the wire (current protocol): sent with its request, carried by its events and by
   * the `operation_completed` that finishes it. Undefined only for a turn taken over from a snapshot
   * that named no operation.
   */
  operationId: string | undefined;
  /**
   * Whether the request's own failure, should it come after the turn finished, is still to be
   * reported: the turn finished cleanly (a `done`/`idle` may come first), or on `status_changed:
   * error`, which reports nothing by itself.
   */
  unreported?: boolean;
  /** Settles whoever waits for the turn: resolves, or rejects with `error`. */
  finish(error?: PedelecError): void;
};

type Listener = (...args: any[]) => void;

const STATUSES = ['idle', 'running', 'waiting_tool_result', 'ended', 'error'];
const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
const noop = () => {};
/** A tool call from a snapshot, waiting for a handler to be registered (see #takeOverPendingCall). */
type ParkedCall = { toolRequestId: string; tool: string; args: unknown; receivedAt: number };
const isCount = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;
const shapeError = (type: string) => protocolError(`${type} response had an invalid shape`);
/** Whatever a session request failed with, as an error with that request's fallbacks. */
const failed = (failure: unknown, type: string, code = `${type.toUpperCase()}_FAILED`): PedelecError =>
  normalizeError(failure, code, `${type} failed`);

/**
 * A valid sandbox asset path: rooted, single slashes, no segment empty, `.` or `..`, no `\` and no
 * control characters.
 */
export const isAssetPath = (path: unknown): path is `/${string}` =>
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a path must not hold
  typeof path === 'string' && /^(\/(?!\.\.?(\/|$))[^/\\\x00-\x1f]+)+$/.test(path);

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

export class PedelecSession<TToolName extends string = string> {
  readonly sessionId: string;
  provider: string;
  model: string | undefined;
  readonly sessionCreatedAt: number;

  /** (ours) The tools this session answers and how; shared with a `<pedelec-session>` element. */
  readonly toolbox: Toolbox;

  #bridge: SessionBridge;
  #status: PedelecSessionStatus = 'idle';
  #lastSeq = -1;
  #turn: Turn | null = null;
  #ended = false;
  #ending = false;
  #prepared = false;
  #preparing: Promise<void> | null = null;
  #uploading = false;
  /** Tool calls by `toolRequestId`: how to abort one still running, `null` once answered. */
  #calls = new Map<string, ((reason: PedelecError) => void) | null>();
  /**
   * The current protocol: the session has seen an operation-aware event (a `session_snapshot`, or
   * any event carrying an `operationId`). Its turns then finish only on their `operation_completed`;
   * before, `done` or `status_changed: idle` finishes them (0.1.x).
   */
  #operationAware = false;
  /** What the fragments (`chat_delta`) of the current assistant message delivered so far. */
  #messageDelivered = '';
  /** Operations whose events were ignored (and warned about) during the current turn. */
  #foreignOperations = new Set<string>();
  #parked: ParkedCall | null = null;
  #usage: UsageInfo | undefined;
  #listeners: Record<string, Set<Listener>> = {};
  /** Status events, in order even when a status listener changes the status again. */
  #emitStatus = inOrder((args: unknown[]) => this.#emit('status', ...args));

  /** @internal Sessions are made by `Pedelec`; construct one yourself only in tests. */
  constructor(
    bridge: SessionBridge,
    init: { sessionId: string; provider: string; model: string | undefined; toolbox: Toolbox },
  ) {
    this.#bridge = bridge;
    this.sessionId = init.sessionId;
    this.provider = init.provider;
    this.model = init.model;
    this.sessionCreatedAt = Date.now();
    this.toolbox = init.toolbox;
  }

  getStatus(): PedelecSessionStatus {
    return this.#status;
  }

  /** @internal Whether a turn is in progress (a failed request ends it without changing the status). */
  get turnActive(): boolean {
    return !!this.#turn;
  }

  /** (ours) The session's token usage as Core last reported it (`usage_updated`, snapshots); undefined until then. */
  get usage(): UsageInfo | undefined {
    return this.#usage;
  }

  // ───────────────────────────── listeners ─────────────────────────────

  /**
   * Pieces of the agent's reply, in order: every character of each assistant message exactly once,
   * whether the provider streams fragments, sends whole messages, or both.
   */
  onChat(listener: (text: string, ctx: ChatEventContext) => void): () => void {
    return this.#on('chat', listener);
  }
  /** (ours) Each whole assistant message, once it is complete (current Pedelec only). */
  onChatMessage(listener: (text: string, ctx: ChatMessageEventContext) => void): () => void {
    return this.#on('chatMessage', listener);
  }
  /** (ours) Core reported the session's token usage. */
  onUsage(listener: (usage: UsageInfo, ctx: UsageEventContext) => void): () => void {
    return this.#on('usage', listener);
  }
  /** (ours) The provider produced a file; read it with `readAsset(artifact.path, 'file')`. */
  onArtifact(listener: (artifact: ProviderArtifact, ctx: ArtifactEventContext) => void): () => void {
    return this.#on('artifact', listener);
  }
  onStatus(listener: (status: PedelecSessionStatus, ctx: StatusEventContext) => void): () => void {
    return this.#on('status', listener);
  }
  onError(listener: (error: PedelecError, ctx: ErrorEventContext) => void): () => void {
    return this.#on('error', listener);
  }
  onEnded(listener: (ctx: EndedEventContext) => void): () => void {
    return this.#on('ended', listener);
  }
  /** (ours) A turn starts — `sendText()` or `prepare()`, whoever called it. */
  onTurn(listener: (turn: TurnEvent, ctx: PedelecEventContext) => void): () => void {
    return this.#on('turn', listener);
  }
  /** The generic fallback for any tool without a more specific handler. */
  onTool(handler: GenericToolHandler<TToolName>): () => void;
  /** The handler for one tool; the latest registration for a name wins. */
  onTool<TArgs = unknown, TResult = unknown>(
    toolName: TToolName,
    handler: ToolSpecificHandler<TArgs, TResult>,
  ): () => void;
  onTool(name: any, handler?: any): () => void {
    const off = this.toolbox.onTool(name, handler);
    // A call taken over from a snapshot may have been waiting for exactly this handler.
    this.#runParked();
    return off;
  }

  #on(kind: string, listener: Listener): () => void {
    const set = (this.#listeners[kind] ??= new Set());
    set.add(listener);
    return () => void set.delete(listener);
  }

  /** A listener that throws must not break the session: its error becomes a warning, not a crash. */
  #emit(kind: string, ...args: unknown[]): void {
    const set = this.#listeners[kind];
    for (const fn of [...(set ?? [])]) {
      // One unsubscribed by an earlier listener of this emit is not called any more.
      if (!set!.has(fn)) continue;
      try {
        fn(...args);
      } catch (thrown) {
        this.#bridge.warn(normalizeError(thrown, 'LISTENER_ERROR', 'A session listener threw'));
      }
    }
  }

  // ───────────────────────────── turns ─────────────────────────────

  /**
   * Sends the user's text and resolves when the request succeeded and the turn finished. Waits for
   * an in-flight `prepare()` first (ignoring its failure).
   */
  sendText(text: string): Promise<void> {
    const start = () =>
      this.#usable(() => {
        if (this.#turn) throw this.#busy();
        if (typeof text !== 'string') throw invalidInput('text must be a string');
        return this.#runTurn('user', 'send_text', { text });
      });
    return this.#preparing ? this.#preparing.then(noop, noop).then(start) : start();
  }

  /** Warms the provider up; resolves at once when already prepared, shares an in-flight prepare. */
  prepare(): Promise<void> {
    return this.#usable(() => {
      if (this.#preparing) return this.#preparing;
      if (this.#turn) throw this.#busy();
      if (this.#prepared) return Promise.resolve();
      // In flight before the turn's first callbacks run (its `turn` event, status `running`), so a
      // listener calling sendText() or prepare() there waits for it or shares it.
      let run!: (turn: Promise<void>) => void;
      const preparing = (this.#preparing = new Promise<void>((resolve) => (run = resolve)).then(() => {
        this.#prepared = true;
      }));
      const settled = () => {
        if (this.#preparing === preparing) this.#preparing = null;
      };
      preparing.then(settled, settled);
      run(this.#runTurn('prepare', 'prepare_session', {}, 'PREPARE_FAILED'));
      return preparing;
    });
  }

  /**
   * Starts a turn and posts its request; resolves once the request succeeded and the turn finished.
   * A failed request is reported (fallback code `failCode`), finishes the turn and rejects.
   */
  #runTurn(kind: TurnKind, type: string, payload: { text?: string }, failCode?: string): Promise<void> {
    const turnId = randomId('turn');
    const operationId = randomId('op');
    const turn = (this.#turn = { ctx: { turnId, turnStartedAt: Date.now(), turnKind: kind }, operationId } as Turn);
    this.#newTurnState();
    const finished = new Promise<void>((resolve, reject) => {
      turn.finish = (error) => (error ? reject(error) : resolve());
    });
    // The payload carries the turn's text, when it has one.
    this.#emit('turn', { turnId, kind, ...payload }, this.#ctx());
    this.#setStatus('running');
    const request = this.#request(type, { ...payload, operationId }).then(noop, (failure: unknown) => {
      const error = failed(failure, type, failCode);
      // Emitted while the turn is still active, so the error's context carries it; a turn that
      // already finished cleanly still reports the failed request (one that failed on an error event
      // has reported that error already).
      if (this.#turn === turn || turn.unreported) this.#emitError(error, undefined, undefined, turn);
      this.#finishTurn(error, turn);
      throw error;
    });
    // Joined like Promise.all, so whichever side fails first, neither rejection goes unhandled.
    return Promise.all([request, finished]).then(noop);
  }

  /** Clears the turn (when it still is the current one); with an error, rejects whoever waits for it. */
  #finishTurn(error?: PedelecError, turn = this.#turn, unreported = !error): void {
    if (turn && this.#turn === turn) {
      this.#turn = null;
      turn.unreported = unreported;
      turn.finish(error);
    }
  }

  /** Ends the session. Already ended or ending: resolves with no request. */
  end(): Promise<void> {
    if (this.#ended || this.#ending) return Promise.resolve();
    this.#ending = true;
    return this.#request('end_session').then(
      () => {
        this.#ending = false;
        this.#markEnded();
      },
      (failure: unknown) => {
        this.#ending = false;
        // Core ended the session meanwhile: what end() asked for has happened.
        if (this.#ended) return;
        const error = failed(failure, 'end_session');
        this.#emitError(error);
        throw error;
      },
    );
  }

  // ───────────────────────────── incoming events ─────────────────────────────

  /** @internal Routed here by the client: one session-addressed message from the bridge. */
  handleEvent(message: Record<string, any>, receivedAt: number): void {
    if (this.#ended) return;
    const { seq, type, status, text, toolRequestId, tool, operationId } = message;
    if (isCount(seq)) {
      // The extension may route one event twice. A snapshot is state, not an event to replay: taken
      // whatever its seq (a recovery's snapshot may repeat the last seq seen).
      if (seq <= this.#lastSeq && type !== 'session_snapshot') return;
      this.#lastSeq = Math.max(seq, this.#lastSeq);
    }
    if (isText(operationId)) this.#operationAware = true;
    // An SDK error about a message that did arrive: the one SDK-made event that keeps eventReceivedAt.
    const malformed = (what: string) => this.#emitError(protocolError(`${type} ${what}`), receivedAt, true);
    switch (type) {
      case 'chat_delta':
      case 'chat_message':
      case 'tool_call': {
        const turn = this.#turn;
        if (isText(operationId) && operationId !== turn?.operationId) this.#ignoreForeign(type, operationId);
        else if (!turn) malformed('arrived outside of a turn');
        else if (type === 'tool_call') {
          if (isText(toolRequestId) && typeof tool === 'string')
            this.#toolCall(toolRequestId, tool, message.args, receivedAt);
          else malformed('had no toolRequestId or tool');
        } else if (typeof text !== 'string') malformed('had no text');
        // A prepare turn's words are not the user's conversation.
        else if (turn.ctx.turnKind !== 'prepare') this.#chat(type, text, receivedAt);
        return;
      }
      case 'status_changed':
      case 'done':
      case 'ended': {
        // `done` reports `idle` as `status_changed: idle` does; `ended` is final either way.
        const next = type === 'done' ? 'idle' : type === 'ended' ? type : status;
        if (!STATUSES.includes(next)) malformed('had an unknown status');
        else if (next === 'ended') this.#markEnded(receivedAt);
        else {
          this.#setStatus(next, receivedAt);
          // An operation-aware session's turn finishes on its operation_completed alone.
          if (next === 'idle' && !this.#operationAware) this.#finishTurn();
          else if (next === 'error')
            this.#finishTurn(this.#error('SESSION_ERROR', 'Pedelec session error'), this.#turn, true);
        }
        return;
      }
      case 'operation_completed':
        this.#operationAware = true;
        this.#completeOperation(message, receivedAt);
        return;
      case 'session_snapshot':
        this.#operationAware = true;
        if (isObject(message.snapshot)) this.#applySnapshot(message.snapshot, receivedAt);
        else malformed('had no snapshot');
        return;
      case 'usage_updated':
        if (isCount(message.totalTokens)) this.#setUsage(message.totalTokens, receivedAt);
        else malformed('had no totalTokens');
        return;
      case 'provider_artifact': {
        const artifact = readArtifact(message.artifact);
        if (artifact) this.#emit('artifact', artifact, this.#ctx('provider_artifact', receivedAt));
        else malformed('had no artifact with a valid path');
        return;
      }
      case 'error':
        this.#fail(normalizeError(message.error, 'SESSION_ERROR', 'Pedelec session error'), receivedAt);
        return;
      // Unknown event types are ignored: newer extensions add some.
    }
  }

  /**
   * The reply's text through the one delta channel, each character once: fragments as they come; of a
   * whole message, whatever its fragments did not deliver (all of it when none came). Fragments that do
   * not match the start of their message have delivered what they could: the message then adds nothing
   * (`onChatMessage` has it whole).
   */
  #chat(type: 'chat_delta' | 'chat_message', text: string, receivedAt: number): void {
    let piece = text;
    if (type === 'chat_delta') this.#messageDelivered += text;
    else {
      const delivered = this.#messageDelivered;
      piece = text.startsWith(delivered) ? text.slice(delivered.length) : '';
      this.#messageDelivered = '';
    }
    if (piece) this.#emit('chat', piece, this.#ctx('chat_delta', receivedAt));
    if (type === 'chat_message') this.#emit('chatMessage', text, this.#ctx('chat_message', receivedAt));
  }

  /** What each turn starts with: no message begun, no operation ignored yet. */
  #newTurnState(): void {
    this.#messageDelivered = '';
    this.#foreignOperations.clear();
  }

  /** An event of another operation than the running turn's (another page's, or one that ended): ignored, said once. */
  #ignoreForeign(type: string, operationId: string): void {
    if (this.#foreignOperations.has(operationId)) return;
    this.#foreignOperations.add(operationId);
    this.#bridge.warn(
      pedelecError(
        'FOREIGN_OPERATION',
        `Ignored ${type} of operation ${operationId}: it is not this page's running turn`,
        {
          sessionId: this.sessionId,
          operationId,
          type,
        },
      ),
    );
  }

  /** `operation_completed` (or a snapshot's `lastCompletedOperation`): finishes the running turn if it is that operation. */
  #completeOperation(operation: Record<string, any>, receivedAt: number): void {
    const turn = this.#turn;
    // Another operation's, or the running turn's after an error event already finished it.
    if (!turn || !isText(operation.operationId) || operation.operationId !== turn.operationId) return;
    if (operation.success !== false) return this.#finishTurn();
    const error = normalizeError(operation.error, 'SESSION_ERROR', 'Pedelec session error');
    this.#emitError(error, receivedAt);
    this.#finishTurn(error);
  }

  /**
   * A `session_snapshot` (sent on every subscribe: create, resume, recovery): the status and usage;
   * a turn that finished unseen; a turn still running that this page did not start (after a reload
   * with `persist`), taken over; and the tool call Core waits for, run as if it had just arrived.
   */
  #applySnapshot(snapshot: Record<string, any>, receivedAt: number): void {
    const { status, usage, activeOperation, lastCompletedOperation, pendingToolRequest } = snapshot;
    if (isCount(usage?.totalTokens)) this.#setUsage(usage.totalTokens, receivedAt);
    if (isObject(lastCompletedOperation)) this.#completeOperation(lastCompletedOperation, receivedAt);
    // A turn this page started that the snapshot knows nothing of: Core made the snapshot before the
    // turn's request reached it (the create response and the snapshot, then sendText at once). Its
    // status (`idle`) is older than the turn's.
    const turn = this.#turn;
    if (turn && turn.operationId !== undefined && activeOperation?.operationId !== turn.operationId) return;
    const pending =
      isObject(pendingToolRequest) &&
      isText(pendingToolRequest.toolRequestId) &&
      typeof pendingToolRequest.tool === 'string'
        ? pendingToolRequest
        : null;
    if (!this.#turn && (isObject(activeOperation) || pending)) {
      const operation = isObject(activeOperation) ? activeOperation : pending!;
      this.#turn = {
        ctx: {
          turnId: randomId('turn'),
          turnStartedAt: receivedAt,
          turnKind: operation.operationKind === 'prepare' ? 'prepare' : 'user',
        },
        operationId: isText(operation.operationId) ? operation.operationId : undefined,
        finish: noop, // nobody on this page waits for it
      };
      this.#newTurnState();
    }
    if (status === 'ended') return this.#markEnded(receivedAt);
    if (STATUSES.includes(status)) this.#setStatus(status, receivedAt);
    // Calls still running that Core no longer waits for: their results would be refused.
    for (const [id, abort] of this.#calls) {
      if (!abort || id === pending?.toolRequestId) continue;
      this.#calls.set(id, null);
      abort(
        pedelecError('TOOL_REQUEST_NOT_PENDING', 'Pedelec no longer waits for this tool call', { toolRequestId: id }),
      );
    }
    if (this.#parked && this.#parked.toolRequestId !== pending?.toolRequestId) this.#parked = null;
    if (pending && !this.#calls.has(pending.toolRequestId)) {
      this.#parked = { toolRequestId: pending.toolRequestId, tool: pending.tool, args: pending.args, receivedAt };
      this.#runParked();
    }
  }

  /**
   * Runs the call taken over from a snapshot once something can answer it: a declared tool (an
   * inline handler, or a `<pedelec-tool>`), a named handler or the generic one. A page that resumes
   * with the core SDK registers its handlers after `resumeSession()` resolves.
   */
  #runParked(): void {
    const parked = this.#parked;
    if (!parked || !this.#turn || this.#ended) return;
    const { toolbox } = this;
    if (!(toolbox.tools.has(parked.tool) || toolbox.named.has(parked.tool) || toolbox.generic)) return;
    this.#parked = null;
    this.#toolCall(parked.toolRequestId, parked.tool, parked.args, parked.receivedAt);
  }

  #setUsage(totalTokens: number, receivedAt: number): void {
    const usage = { totalTokens };
    this.#usage = usage;
    this.#emit('usage', usage, this.#ctx('usage_updated', receivedAt));
  }

  /**
   * @internal A transport-wide failure (a broadcast error without `sessionId`, or the port going
   * away): status `error`, an SDK error, the active turn rejected. On disconnect, running tool
   * handlers are aborted too. The session stays usable for whatever the client can still do.
   */
  handleTransportError(error: PedelecError, disconnected: boolean): void {
    if (this.#ended) return;
    // Handlers keep their place: their results are still submitted, and that failure is reported.
    if (disconnected) this.#calls.forEach((abort) => abort?.(error));
    this.#fail(error);
  }

  /** Status `error`, the error reported, the active turn rejected with it. */
  #fail(error: PedelecError, receivedAt?: number): void {
    this.#setStatus('error', receivedAt);
    this.#emitError(error, receivedAt);
    this.#finishTurn(error);
  }

  /**
   * (ours) Forgets this session locally — the turn rejects, running handlers abort, `onEnded` fires
   * once — without asking Core. For a page that let a persisted session go, or whose `end()` failed.
   */
  detach(reason: PedelecError = this.#endedError()): void {
    if (this.#ended) return;
    this.#abortRunning(reason);
    this.#markEnded();
  }

  /** Ended by Core (`receivedAt` given) or by the SDK. */
  #markEnded(receivedAt?: number): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#parked = null;
    this.#setStatus('ended', receivedAt);
    // onEnded runs before the pending turn is rejected, so its context still carries the turn.
    this.#emit('ended', this.#ctx('ended', receivedAt));
    const error = this.#endedError();
    this.#finishTurn(error);
    this.#abortRunning(error);
    this.#bridge.release(this as PedelecSession<string>);
  }

  /** Aborts the running calls and forgets every call. */
  #abortRunning(reason: PedelecError): void {
    const aborts = [...this.#calls.values()];
    this.#calls.clear();
    aborts.forEach((abort) => abort?.(reason));
  }

  // ───────────────────────────── tool calls ─────────────────────────────

  #toolCall(toolRequestId: string, tool: string, args: unknown, receivedAt: number): void {
    // Exactly one result per request: a repeat of a running or answered call is ignored.
    if (this.#calls.has(toolRequestId)) return;
    this.#setStatus('waiting_tool_result', receivedAt);
    // A status listener may have ended the session: no handler runs for an ended session.
    if (this.#ended) return;

    const deadline = receivedAt + (this.toolbox.tools.get(tool)?.manifest.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS);
    const { ctx, abort, settle } = toolCallContext(
      this.#ctx('tool_call', receivedAt),
      { toolRequestId, tool, via: 'pedelec' },
      deadline,
    );
    this.#calls.set(toolRequestId, abort);

    const submit = (outcome: ToolOutcome) => {
      // A result that is not JSON is also reported to the page.
      if (!outcome.ok && outcome.reportToPage) this.#emitError(outcome.error);
      const aborted = settle();
      // The session ended while the handler ran: that call was settled then, and its result has
      // nowhere to go. Not posted — but said, as any other result that could not be delivered.
      if (!this.#calls.get(toolRequestId)) {
        if (aborted)
          this.#emitError(
            pedelecError('SUBMIT_TOOL_RESULT_FAILED', aborted.message, { tool, toolRequestId, cause: aborted }),
          );
        return;
      }
      this.#calls.set(toolRequestId, null);
      this.#request('submit_tool_result', { toolRequestId, result: outcome.result as JsonValue }).catch(
        (failure: unknown) => {
          const cause = failed(failure, 'submit_tool_result');
          this.#emitError(pedelecError('SUBMIT_TOOL_RESULT_FAILED', cause.message, { tool, toolRequestId, cause }));
        },
      );
    };
    const outcome = this.toolbox.run({ tool, args, ctx, via: 'pedelec', abort } satisfies ToolCall);
    if (outcome instanceof Promise) outcome.then(submit);
    else submit(outcome);
  }

  // ───────────────────────────── assets ─────────────────────────────
  // Async methods: a check that throws becomes a rejection, and the first request is still posted
  // synchronously (an async function runs up to its first await at once).

  /** The files in this session's sandbox; a bad entry fails the whole list. */
  async listAssets(): Promise<SandboxAsset[]> {
    this.#check(true);
    const assets = (await this.#request<{ assets?: unknown } | undefined>('list_assets'))?.assets;
    if (!Array.isArray(assets)) throw shapeError('list_assets');
    return assets.map((entry: unknown) => {
      const { name, path, sizeBytes, modifiedAt } = fieldsOf(entry);
      // The path being valid and ending in `name` also makes `name` a valid file name.
      if (
        !isAssetPath(path) ||
        path.slice(path.lastIndexOf('/') + 1) !== name ||
        !isCount(sizeBytes) ||
        !isCount(modifiedAt)
      ) {
        throw shapeError('list_assets');
      }
      return { name, path, sizeBytes, modifiedAt } as SandboxAsset;
    });
  }

  /** Uploads a `File` into the sandbox (at most 100 MiB; one upload at a time). */
  async uploadAsset(file: File, targetPath?: string): Promise<{ path: `/${string}` }> {
    this.#check(true);
    if (typeof File === 'undefined' || !(file instanceof File) || !file.name)
      throw invalidInput('file must be a File with a name');
    const { name, size } = file;
    const type = file.type || 'application/octet-stream';
    if (size > MAX_UPLOAD_BYTES)
      throw pedelecError('ASSET_TOO_LARGE', 'file is larger than 100 MiB', { sizeBytes: size });
    const given = targetPath !== undefined;
    if (given && !isAssetPath(targetPath))
      throw pedelecError('ASSET_PATH_INVALID', 'targetPath is not a valid asset path', { path: targetPath });
    if (this.#uploading) throw this.#busy();
    this.#uploading = true;
    try {
      const [, response] = await this.#transfer(
        'create_asset_upload',
        { filename: name, sizeBytes: size, mimeType: type, ...(given && { targetPath }) },
        ['uploadUrl', 'token'],
        'ASSET_UPLOAD_FAILED',
        'Asset upload failed',
        file,
        type,
      );
      const path = ((await response.json().catch(noop)) as { path?: unknown } | undefined)?.path;
      if (!isAssetPath(path) || (given && path !== targetPath))
        throw protocolError('asset upload response had an invalid path');
      return { path };
    } finally {
      this.#uploading = false;
    }
  }

  /** Reads a sandbox file as text, parsed JSON, or a `File`. */
  readAsset(path: string, type: 'text'): Promise<string>;
  readAsset(path: string, type: 'json'): Promise<JsonValue>;
  readAsset(path: string, type: 'file'): Promise<File>;
  /** The type known only at run time (a `ReadAssetType` variable). */
  readAsset(path: string, type: ReadAssetType): Promise<string | JsonValue | File>;
  async readAsset(path: string, type: ReadAssetType): Promise<string | JsonValue | File> {
    this.#check(true);
    if (!isAssetPath(path) || !['text', 'json', 'file'].includes(type)) {
      throw pedelecError('ASSET_PATH_INVALID', 'path or type is not valid for readAsset', { path, type });
    }
    const [{ name, mimeType, modifiedAt }, response] = await this.#transfer(
      'create_asset_download',
      { path },
      ['downloadUrl', 'token', 'name', 'mimeType'],
      'ASSET_READ_FAILED',
      'Asset read failed',
    );
    let bytes: ArrayBuffer;
    try {
      bytes = await response.arrayBuffer();
    } catch (thrown) {
      // The connection can still fail while the body streams in.
      throw normalizeError(thrown, 'ASSET_READ_FAILED', 'Asset read failed');
    }
    if (type === 'file')
      return new File([bytes], name, {
        type: mimeType,
        ...(typeof modifiedAt === 'number' && { lastModified: modifiedAt }),
      });
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw pedelecError('ASSET_TEXT_DECODE_FAILED', 'asset is not valid UTF-8 text', { path });
    }
    if (type === 'text') return text;
    try {
      return JSON.parse(text) as JsonValue;
    } catch {
      throw pedelecError('ASSET_INVALID_JSON', 'asset is not valid JSON', { path });
    }
  }

  /**
   * Asks for a transfer ticket and checks it (`keys` are its string fields, the URL first; a
   * download ticket also names a valid path), then fetches the URL — a PUT of `body` when there is
   * one, else a GET — with the ticket's bearer token and no credentials. Network and HTTP failures
   * reject with `code` (or the server's own error).
   */
  async #transfer(
    type: string,
    payload: object,
    keys: string[],
    code: string,
    message: string,
    body?: File,
    contentType?: string,
  ): Promise<[Record<string, any>, Response]> {
    const ticket = await this.#request<Record<string, any> | undefined>(type, payload);
    if (keys.some((key) => typeof ticket?.[key] !== 'string') || (!body && !isAssetPath(ticket!.path)))
      throw shapeError(type);
    let response: Response;
    try {
      response = await fetch(ticket![keys[0]!], {
        method: body ? 'PUT' : 'GET',
        headers: { Authorization: `Bearer ${ticket!.token}`, ...(contentType && { 'Content-Type': contentType }) },
        body,
        credentials: 'omit',
      });
    } catch (thrown) {
      throw normalizeError(thrown, code, message);
    }
    if (!response.ok) {
      const { status } = response;
      throw keepError(
        ((await response.json().catch(noop)) as { error?: unknown } | undefined)?.error,
        pedelecError(code, `${message} (HTTP ${status})`, { status }),
      );
    }
    return [ticket!, response];
  }

  // ───────────────────────────── helpers ─────────────────────────────

  /**
   * Runs `body` unless the session has ended: then, and whenever `body` throws, returns a rejected
   * promise instead — public methods never throw.
   */
  #usable<T>(body: () => Promise<T>): Promise<T> {
    try {
      this.#check();
      return body();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Throws `SESSION_ENDED` once ended (or, with `orEnding`, while `end()` is in flight). */
  #check(orEnding?: boolean): void {
    if (this.#ended || (orEnding && this.#ending)) throw this.#endedError();
  }

  /** A request about this session: `sessionId` goes first in the payload. */
  #request<T = unknown>(type: string, payload?: object): Promise<T> {
    return this.#bridge.request<T>(type, { sessionId: this.sessionId, ...payload });
  }

  /**
   * An event context. Caused by a message from the extension (`receivedAt` given): `core`-sourced;
   * otherwise `sdk`-sourced, and the type gets its `sdk_` form.
   */
  #ctx(type?: string, receivedAt?: number, sdk = receivedAt === undefined, current = this.#turn): any {
    // Fields assigned one by one, not spread: this runs for every tool call.
    const ctx: PedelecEventContext = {
      sessionId: this.sessionId,
      provider: this.provider,
      model: this.model,
      sessionCreatedAt: this.sessionCreatedAt,
      eventEmittedAt: Date.now(),
      source: sdk ? 'sdk' : 'core',
    };
    if (receivedAt !== undefined) ctx.eventReceivedAt = receivedAt;
    const turn = current?.ctx;
    if (turn) {
      ctx.turnId = turn.turnId;
      ctx.turnStartedAt = turn.turnStartedAt;
      ctx.turnKind = turn.turnKind;
    }
    if (type) ctx.type = (sdk ? `sdk_${type}` : type) as PedelecEventContext['type'];
    return ctx;
  }

  #setStatus(status: PedelecSessionStatus, receivedAt?: number): void {
    const previousStatus = this.#status;
    if (status === previousStatus) return;
    this.#status = status;
    this.#emitStatus([status, { ...this.#ctx('status_changed', receivedAt), status, previousStatus }]);
  }

  /** `turn`: the turn the error belongs to, when not the current one (a late failure of a finished turn). */
  #emitError(error: PedelecError, receivedAt?: number, sdk?: boolean, turn = this.#turn): void {
    this.#emit('error', error, this.#ctx('error', receivedAt, sdk, turn));
  }

  #error(code: string, message: string): PedelecError {
    return pedelecError(code, message, { sessionId: this.sessionId });
  }

  #endedError(): PedelecError {
    return this.#error('SESSION_ENDED', 'Pedelec session has ended.');
  }

  #busy(): PedelecError {
    return this.#error('SESSION_BUSY', 'Pedelec session is busy.');
  }
}
