/**
 * `PedelecSession`: one agent session — turns, statuses, listeners, tool calls, assets
 * (spec/sdk-api.md, tools-api.md). Created by `Pedelec.createSession()` / `resumeSession()`. What
 * arrives for it is read by session-protocol.ts; its sandbox files are session-assets.ts's.
 */
import { invalidInput, normalizeError, sessionBusy, sessionEnded, type PedelecError } from './errors.js';
import { eventContext, fromCore, type EventMeta } from './call-context.js';
import type { JsonValue } from './json.js';
import { Listeners } from './listeners.js';
import { inOrder, randomId } from './protocol.js';
import { SessionAssets } from './session-assets.js';
import { SessionProtocol, type Turn } from './session-protocol.js';
import { SessionToolCalls } from './session-tool-calls.js';
import type { GenericToolHandler, Toolbox, ToolSpecificHandler } from './tools.js';
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
  SandboxAssetPath,
  StatusEventContext,
  TurnEvent,
  TurnKind,
  UsageEventContext,
  UsageInfo,
} from './types.js';

/** @internal What a session needs from its client; keeps the session testable and the client private. */
export interface SessionBridge {
  request<T = unknown>(type: string, payload?: Record<string, unknown>): Promise<T>;
  release(session: PedelecSession<string>): void;
  warn(warning: PedelecError): void;
}

type EventKind = 'chat' | 'chatMessage' | 'usage' | 'artifact' | 'status' | 'error' | 'ended' | 'turn';

const noop = () => {};

export class PedelecSession<TToolName extends string = string> {
  readonly sessionId: string;
  provider: string;
  model: string | undefined;
  readonly sessionCreatedAt: number;

  /** @internal The tools this session answers and how; shared with a `<pedelec-session>` element. */
  readonly toolbox: Toolbox;

  #bridge: SessionBridge;
  #status: PedelecSessionStatus = 'idle';
  #turn: Turn | null = null;
  #ended = false;
  #ending = false;
  #prepared = false;
  #preparing: Promise<void> | null = null;
  #listeners: Listeners<EventKind>;
  /** Status events, in order even when a status listener changes the status again. */
  #emitStatus = inOrder((args: unknown[]) => this.#listeners.emit('status', ...args));
  #calls: SessionToolCalls;
  #protocol: SessionProtocol;
  #assets: SessionAssets;

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
    this.#listeners = new Listeners((warning) => bridge.warn(warning));
    this.#calls = new SessionToolCalls({
      toolbox: this.toolbox,
      request: (type, payload) => this.#request(type, payload),
      emitError: (error) => this.#emitError(error),
    });
    this.#protocol = new SessionProtocol({
      sessionId: this.sessionId,
      toolbox: this.toolbox,
      calls: this.#calls,
      ended: () => this.#ended,
      turn: () => this.#turn,
      takeOver: (turn) => (this.#turn = turn),
      finishTurn: (error) => this.#finishTurn(error),
      setStatus: (status, meta) => this.#setStatus(status, meta),
      markEnded: (meta) => this.#markEnded(meta),
      fail: (error, meta) => this.#fail(error, meta),
      emit: (kind, payload, type, meta) => this.#listeners.emit(kind, payload, this.#ctx(type, fromCore(meta))),
      emitError: (error, meta) => this.#emitError(error, meta),
      warn: (warning) => this.#bridge.warn(warning),
      toolCall: (toolRequestId, tool, args, meta) => this.#toolCall(toolRequestId, tool, args, meta),
    });
    this.#assets = new SessionAssets({
      request: (type, payload) => this.#request(type, payload),
      checkUsable: () => this.#check(true),
      busy: () => sessionBusy(this.sessionId),
    });
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
    return this.#protocol.usage;
  }

  // ───────────────────────────── listeners ─────────────────────────────

  /**
   * Pieces of the agent's reply, in order: every character of each assistant message exactly once,
   * whether the provider streams fragments, sends whole messages, or both.
   */
  onChat(listener: (text: string, ctx: ChatEventContext) => void): () => void {
    return this.#listeners.on('chat', listener);
  }
  /** (ours) Each whole assistant message, once it is complete (current Pedelec only). */
  onChatMessage(listener: (text: string, ctx: ChatMessageEventContext) => void): () => void {
    return this.#listeners.on('chatMessage', listener);
  }
  /** (ours) Core reported the session's token usage. */
  onUsage(listener: (usage: UsageInfo, ctx: UsageEventContext) => void): () => void {
    return this.#listeners.on('usage', listener);
  }
  /** (ours) The provider produced a file; read it with `readAsset(artifact.path, 'file')`. */
  onArtifact(listener: (artifact: ProviderArtifact, ctx: ArtifactEventContext) => void): () => void {
    return this.#listeners.on('artifact', listener);
  }
  onStatus(listener: (status: PedelecSessionStatus, ctx: StatusEventContext) => void): () => void {
    return this.#listeners.on('status', listener);
  }
  onError(listener: (error: PedelecError, ctx: ErrorEventContext) => void): () => void {
    return this.#listeners.on('error', listener);
  }
  onEnded(listener: (ctx: EndedEventContext) => void): () => void {
    return this.#listeners.on('ended', listener);
  }
  /** (ours) A turn starts — `sendText()` or `prepare()`, whoever called it. */
  onTurn(listener: (turn: TurnEvent, ctx: PedelecEventContext) => void): () => void {
    return this.#listeners.on('turn', listener);
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
    this.#protocol.runParked();
    return off;
  }

  /**
   * Replaces the inline handlers (the `handler`s of the tools' definitions) with `handlers`, by tool
   * name; a copy is kept. `createSession` does this when it returns a handle this client already holds.
   */
  replaceInlineToolHandlers(handlers: Map<string, ToolSpecificHandler>): void {
    this.toolbox.inline = new Map(handlers);
  }

  // ───────────────────────────── turns ─────────────────────────────

  /**
   * Sends the user's text and resolves when the request succeeded and the turn finished. Waits for
   * an in-flight `prepare()` first (ignoring its failure).
   */
  sendText(text: string): Promise<void> {
    const start = () =>
      this.#usable(() => {
        if (this.#turn) throw sessionBusy(this.sessionId);
        if (typeof text !== 'string') throw invalidInput('text must be a string');
        return this.#runTurn('user', 'send_text', { text }, 'SEND_TEXT_FAILED');
      });
    return this.#preparing ? this.#preparing.then(noop, noop).then(start) : start();
  }

  /** Warms the provider up; resolves at once when already prepared, shares an in-flight prepare. */
  prepare(): Promise<void> {
    return this.#usable(() => {
      if (this.#preparing) return this.#preparing;
      if (this.#turn) throw sessionBusy(this.sessionId);
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
  #runTurn(kind: TurnKind, type: string, payload: { text?: string }, failCode: string): Promise<void> {
    const turnId = randomId('turn');
    const operationId = randomId('op');
    const turn = (this.#turn = { ctx: { turnId, turnStartedAt: Date.now(), turnKind: kind }, operationId } as Turn);
    this.#protocol.turnStarted();
    const finished = new Promise<void>((resolve, reject) => {
      turn.finish = (error) => (error ? reject(error) : resolve());
    });
    // The payload carries the turn's text, when it has one.
    this.#listeners.emit('turn', { turnId, kind, ...payload }, this.#ctx());
    this.#setStatus('running');
    const request = this.#request(type, { ...payload, operationId }).then(noop, (failure: unknown) => {
      const error = normalizeError(failure, failCode, `${type} failed`);
      // Emitted while the turn is still active, so the error's context carries it. Reported even when
      // the turn already finished — cleanly, or on an error event — as the public SDK reports it.
      this.#emitError(error, undefined, turn);
      this.#finishTurn(error, turn);
      throw error;
    });
    // Joined like Promise.all, so whichever side fails first, neither rejection goes unhandled.
    return Promise.all([request, finished]).then(noop);
  }

  /** Clears the turn (when it still is the current one); with an error, rejects whoever waits for it. */
  #finishTurn(error?: PedelecError, turn = this.#turn): void {
    if (turn && this.#turn === turn) {
      this.#turn = null;
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
        const error = normalizeError(failure, 'END_SESSION_FAILED', 'end_session failed');
        this.#emitError(error);
        throw error;
      },
    );
  }

  // ───────────────────────────── what arrives ─────────────────────────────

  /**
   * One session event of the bridge (bridge-protocol.md §3). The client routes every message it
   * receives here with `{ source: 'core', eventReceivedAt }`; call it yourself to replay an event, as
   * with the public SDK: without `meta` the event counts as the SDK's own (`source: 'sdk'`, statuses,
   * errors and endings in their `sdk_` form), while chat and tool contexts are always Core's.
   */
  handleEvent(
    event: Record<string, any>,
    meta: { source: 'core' | 'sdk'; eventReceivedAt?: number } = { source: 'sdk' },
  ): void {
    this.#protocol.receive(event, meta);
  }

  /**
   * @internal A transport-wide failure (a broadcast error without `sessionId`, or the port going
   * away): status `error`, an SDK error, the active turn rejected. On disconnect, running tool
   * handlers are aborted too. The session stays usable for whatever the client can still do.
   */
  handleTransportError(error: PedelecError, disconnected: boolean): void {
    if (this.#ended) return;
    if (disconnected) this.#calls.abortRunning(error);
    this.#fail(error);
  }

  /** Status `error`, the error reported, the active turn rejected with it. */
  #fail(error: PedelecError, meta?: EventMeta): void {
    this.#setStatus('error', meta);
    this.#emitError(error, meta);
    this.#finishTurn(error);
  }

  /**
   * (ours) Forgets this session locally — the turn rejects, running handlers abort, `onEnded` fires
   * once — without asking Core. For a page that let a persisted session go, or whose `end()` failed.
   */
  detach(reason: PedelecError = sessionEnded(this.sessionId)): void {
    if (this.#ended) return;
    this.#calls.abortAll(reason);
    this.#markEnded();
  }

  /** Ended by Core (`meta` given) or by the SDK. */
  #markEnded(meta?: EventMeta): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#protocol.sessionEnded();
    this.#setStatus('ended', meta);
    // onEnded runs before the pending turn is rejected, so its context still carries the turn.
    this.#listeners.emit('ended', this.#ctx('ended', meta));
    const error = sessionEnded(this.sessionId);
    this.#finishTurn(error);
    this.#calls.abortAll(error);
    this.#bridge.release(this as PedelecSession<string>);
  }

  // ───────────────────────────── tool calls ─────────────────────────────

  #toolCall(toolRequestId: string, tool: string, args: unknown, meta: EventMeta): void {
    // Exactly one result per request: a repeat of a running or answered call is ignored.
    if (this.#calls.has(toolRequestId)) return;
    this.#setStatus('waiting_tool_result', meta);
    // A status listener may have ended the session: no handler runs for an ended session.
    if (this.#ended) return;
    const core = fromCore(meta);
    this.#calls.run(toolRequestId, tool, args, this.#ctx('tool_call', core), core.eventReceivedAt);
  }

  // ───────────────────────────── assets ─────────────────────────────

  /** The files in this session's sandbox; a bad entry fails the whole list. */
  listAssets(): Promise<SandboxAsset[]> {
    return this.#assets.list();
  }

  /**
   * Uploads a `File` into the sandbox (at most 100 MiB; one upload at a time) and resolves with the
   * path it was stored at.
   */
  uploadAsset(file: File, targetPath?: string): Promise<SandboxAssetPath> {
    return this.#assets.upload(file, targetPath);
  }

  /**
   * Reads a sandbox file as text, parsed JSON, or a `File`. `T` only names what the JSON is expected
   * to be (`readAsset<{ ok: boolean }>(path, 'json')`): it is not checked.
   */
  readAsset(path: string, type: 'text'): Promise<string>;
  readAsset<T = JsonValue>(path: string, type: 'json'): Promise<T>;
  readAsset(path: string, type: 'file'): Promise<File>;
  /** The type known only at run time (a `ReadAssetType` variable). */
  readAsset(path: string, type: ReadAssetType): Promise<string | JsonValue | File>;
  readAsset(path: string, type: ReadAssetType): Promise<string | JsonValue | File> {
    return this.#assets.read(path, type);
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
    if (this.#ended || (orEnding && this.#ending)) throw sessionEnded(this.sessionId);
  }

  /** A request about this session: `sessionId` goes first in the payload. */
  #request<T = unknown>(type: string, payload?: object): Promise<T> {
    return this.#bridge.request<T>(type, { sessionId: this.sessionId, ...payload });
  }

  /** An event context; without `meta`, the SDK's own. */
  #ctx(type?: string, meta?: EventMeta, turn = this.#turn): any {
    return eventContext(this, turn?.ctx, type, meta);
  }

  #setStatus(status: PedelecSessionStatus, meta?: EventMeta): void {
    const previousStatus = this.#status;
    if (status === previousStatus) return;
    this.#status = status;
    this.#emitStatus([status, { ...this.#ctx('status_changed', meta), status, previousStatus }]);
  }

  /** `turn`: the turn the error belongs to, when not the current one (a late failure of a finished turn). */
  #emitError(error: PedelecError, meta?: EventMeta, turn = this.#turn): void {
    this.#listeners.emit('error', error, this.#ctx('error', meta, turn));
  }
}
