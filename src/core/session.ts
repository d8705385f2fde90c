/**
 * `PedelecSession`: one agent session — statuses, listeners, its lifecycle, tool calls, assets
 * (docs/design/sdk-api.md, tools-api.md). Created by `Pedelec.createSession()` / `resumeSession()`. Its
 * turns are session-turns.ts's; what arrives for it is read by session-protocol.ts; its sandbox files
 * are session-assets.ts's.
 */
import { normalizeError, sessionBusy, sessionEnded, type PedelecError } from './errors.js';
import { eventContext, fromCore, type EventMeta } from './call-context.js';
import type { JsonValue } from './json.js';
import { Listeners } from './listeners.js';
import { inOrder } from './bridge-port.js';
import type { BridgeRequestType } from './bridge-messages.js';
import { lazyModule } from './lazy-module.js';
import { SessionAssets } from './session-assets.js';
import type { SessionBridge, SessionInit } from './session-input.js';
import { SessionProtocol, type SessionMessage } from './session-protocol.js';
import { SessionTurns } from './session-turns.js';
import { SessionToolCalls } from './session-tool-calls.js';
import type { GenericToolHandler, ToolSpecificHandler } from './tools.js';
import type { Toolbox } from './toolbox.js';
import type {
  Asset,
  AssetPath,
  ChatDeltaEventContext,
  ChatEventContext,
  EffortLevel,
  EndedEventContext,
  ErrorEventContext,
  PedelecEventContext,
  PedelecSessionStatus,
  PedelecSessionUsage,
  ProviderArtifactHandler,
  ReadAssetType,
  StatusEventContext,
  TurnEvent,
  UsageEventContext,
} from './types.js';
import type { PedelecWorkspace } from './workspace.js';

type EventKind = 'chat' | 'chatDelta' | 'usage' | 'artifact' | 'status' | 'error' | 'ended' | 'turn';

const loadReactivation = lazyModule(() => import('./session-reactivation.js'), "the kit's session reactivation code");

export class PedelecSession<TToolName extends string = string> {
  readonly sessionId: string;
  provider: string;
  /** (ours) The explicit model the session was created with, when it was (not in the public SDK). */
  model: string | undefined;
  /** The effort level the session was created with (profile mode); undefined with an explicit model. */
  readonly effortLevel?: EffortLevel;
  /** The workspace the agent works in: one the page opened, or one Desktop manages (`path` null). */
  readonly workspace: PedelecWorkspace;
  readonly sessionCreatedAt: number;
  /** The session's token usage: `totalTokens` once Core reports it; it never goes down. */
  readonly usage: PedelecSessionUsage = {};

  /** @internal The tools this session answers and how; shared with a `<pedelec-session>` element. */
  readonly toolbox: Toolbox;

  #bridge: SessionBridge;
  #status: PedelecSessionStatus = 'idle';
  #ended = false;
  #ending = false;
  /**
   * Why the connection this handle was made on went away, once it did: the handle can do nothing more
   * (a new `resumeSession` can), and what it still had to send fails with this.
   */
  #detachedBy: PedelecError | null = null;
  #reactivating: Promise<void> | null = null;
  #autoEndOnDisconnect: boolean;
  #listeners: Listeners<EventKind>;
  /** Status events, in order even when a status listener changes the status again. */
  #emitStatus = inOrder((args: unknown[]) => this.#listeners.emit('status', ...args));
  #turns: SessionTurns;
  #calls: SessionToolCalls;
  #protocol: SessionProtocol;
  #assets: SessionAssets;

  /** @internal Sessions are made by `Pedelec`; construct one yourself only in tests. */
  constructor(bridge: SessionBridge, init: SessionInit) {
    this.#bridge = bridge;
    this.sessionId = init.sessionId;
    this.provider = init.provider;
    this.model = init.model;
    if (init.effortLevel !== undefined) this.effortLevel = init.effortLevel;
    this.workspace = init.workspace;
    this.#autoEndOnDisconnect = init.autoEndOnDisconnect;
    this.sessionCreatedAt = Date.now();
    this.toolbox = init.toolbox;
    this.#listeners = new Listeners((warning) => bridge.warn(warning));
    this.#calls = new SessionToolCalls({
      toolbox: this.toolbox,
      request: (type, payload) => this.#request(type, payload),
      emitError: (error) => this.#emitError(error),
    });
    this.#turns = new SessionTurns({
      sessionId: this.sessionId,
      check: () => this.#check(),
      operationAware: () => this.#protocol.operationAware,
      started: (event) => {
        this.#protocol.turnStarted();
        this.#listeners.emit('turn', event, this.#ctx());
      },
      status: () => this.#status,
      setStatus: (status) => this.#setStatus(status),
      request: (type, payload) => this.#request(type, payload),
      failed: (error, turn) => this.#detachedBy || this.#emitError(error, undefined, turn),
    });
    this.#protocol = new SessionProtocol({
      sessionId: this.sessionId,
      toolbox: this.toolbox,
      calls: this.#calls,
      usage: this.usage,
      ended: () => this.#ended,
      reactivating: () => !!this.#reactivating,
      revive: () => void (this.#ended = this.#ending = false),
      turns: this.#turns,
      setStatus: (status, meta) => this.#setStatus(status, meta),
      markEnded: (meta) => this.#markEnded(meta),
      emit: (kind, payload, type, meta) => this.#listeners.emit(kind, payload, this.#ctx(type, fromCore(meta))),
      emitError: (error, meta) => this.#emitError(error, meta),
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
    return !!this.#turns.current;
  }

  // ───────────────────────────── listeners ─────────────────────────────

  /** Each whole assistant message, once complete. */
  onChat(listener: (text: string, ctx: ChatEventContext) => void): () => void {
    return this.#listeners.on('chat', listener);
  }
  /** The fragments of the assistant's messages exactly as the provider streams them (not every provider does). */
  onChatDelta(listener: (text: string, ctx: ChatDeltaEventContext) => void): () => void {
    return this.#listeners.on('chatDelta', listener);
  }
  /** @deprecated Use {@link PedelecSession.onChat}, which now delivers whole messages. */
  onChatMessage(listener: (text: string, ctx: ChatEventContext) => void): () => void {
    return this.onChat(listener);
  }
  /** (ours) Core reported more token usage (also `session.usage`). */
  onUsage(listener: (usage: PedelecSessionUsage, ctx: UsageEventContext) => void): () => void {
    return this.#listeners.on('usage', listener);
  }
  /** The provider produced a file during a turn; read it with `readAsset(artifact.path, 'file')`. */
  onArtifact(listener: ProviderArtifactHandler): () => void {
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
  onTool(name: TToolName | GenericToolHandler<TToolName>, handler?: ToolSpecificHandler): () => void {
    // The toolbox calls a generic handler with the names of this session's tools only.
    const off = this.toolbox.onTool(name as string | GenericToolHandler, handler);
    // A call of a turn taken over after a reload may have been waiting for exactly this handler.
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
    return this.#turns.send(text);
  }

  /** Warms the provider up; resolves at once when already prepared, shares an in-flight prepare. */
  prepare(): Promise<void> {
    return this.#turns.prepare();
  }

  /** Ends the session. Already ended or ending: resolves with no request. */
  end(): Promise<void> {
    if (this.#detachedBy) return Promise.reject(sessionEnded(this.sessionId));
    if (this.#ended || this.#ending) return Promise.resolve();
    this.#ending = true;
    return this.#request('end_session').then(
      () => {
        this.#ending = false;
        this.#markEnded();
        this.#bridge.release(this as PedelecSession<string>);
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

  /**
   * Brings an ended session back (`reactivate_session`): the same handle, with its handlers, usage,
   * workspace and conversation. Resolves once Core says the session is idle again; a session that has
   * not ended resolves at once; concurrent calls share one request. Its code loads on first use: when
   * it cannot be fetched, this rejects `CHUNK_LOAD_FAILED` and nothing is sent.
   */
  resume(): Promise<void> {
    if (this.#detachedBy) return Promise.reject(sessionEnded(this.sessionId));
    if (this.#reactivating) return this.#reactivating;
    if (this.#status !== 'ended') return Promise.resolve();
    // Routed to this handle again at once: the idle snapshot comes first, and a port lost meanwhile
    // detaches it. Few pages reactivate a session, so the code loads on first use; the request waits.
    this.#bridge.register(this as PedelecSession<string>);
    const reactivating = loadReactivation()
      .then(({ reactivate }) =>
        reactivate({
          sessionId: this.sessionId,
          request: () => this.#request('reactivate_session', { autoEndOnDisconnect: this.#autoEndOnDisconnect }),
          status: () => this.#status,
          report: (error) => this.#detachedBy || this.#emitError(error),
          release: () => this.#bridge.release(this as PedelecSession<string>),
        }),
      )
      .finally(() => {
        if (this.#reactivating === reactivating) this.#reactivating = null;
      });
    return (this.#reactivating = reactivating);
  }

  // ───────────────────────────── what arrives ─────────────────────────────

  /**
   * One session event of the bridge (bridge-protocol.md §3). The client routes every message it
   * receives here with `{ source: 'core', eventReceivedAt }`; call it yourself to replay an event, as
   * with the public SDK: without `meta` the event counts as the SDK's own (`source: 'sdk'`, statuses,
   * errors and endings in their `sdk_` form), while chat and tool contexts are always Core's.
   */
  handleEvent(event: object, meta: { source: 'core' | 'sdk'; eventReceivedAt?: number } = { source: 'sdk' }): void {
    this.#protocol.receive(event as SessionMessage, meta);
  }

  /**
   * @internal A transport-wide error (a broadcast error without `sessionId`): reported, status
   * `error`. A 0.1.x turn fails with it; today's waits for its `operation_completed`.
   */
  handleTransportError(error: PedelecError): void {
    if (this.#ended || this.#detachedBy) return;
    this.#emitError(error);
    this.#setStatus('error');
    if (!this.#protocol.operationAware) this.#turns.finish(error);
  }

  /**
   * @internal The connection this handle was made on went away: status `error`, the error reported,
   * the turn rejected and running handlers aborted — and the handle can do nothing more (every method
   * rejects `SESSION_ENDED`); `resumeSession()` on the client makes a new one.
   */
  detachFromTransport(error: PedelecError): void {
    if (this.#detachedBy) return;
    this.#detachedBy = error;
    if (this.#ended) return;
    this.#calls.abortRunning(error);
    this.#setStatus('error');
    this.#emitError(error);
    this.#turns.finish(error);
  }

  /**
   * (ours) Forgets this session locally — the turn rejects, running handlers abort, `onEnded` fires
   * once — without asking Core. For a page that let a persisted session go, or whose `end()` failed.
   */
  detach(reason: PedelecError = sessionEnded(this.sessionId)): void {
    if (this.#ended) return;
    this.#calls.abortAll(reason);
    this.#markEnded();
    this.#bridge.release(this as PedelecSession<string>);
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
    this.#turns.finish(error);
    this.#calls.abortAll(error);
  }

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

  /** The files in this session's assets; a bad entry fails the whole list. */
  listAssets(): Promise<Asset[]> {
    return this.#assets.list();
  }

  /**
   * Uploads a `File` into the sandbox (at most 100 MiB; one upload at a time) and resolves with the
   * path it was stored at.
   */
  uploadAsset(file: File): Promise<AssetPath>;
  uploadAsset(file: File, targetPath: AssetPath): Promise<AssetPath>;
  uploadAsset(file: File, targetPath?: string): Promise<AssetPath> {
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

  /** Throws `SESSION_ENDED` once ended or detached (or, with `orEnding`, while `end()` is in flight). */
  #check(orEnding?: boolean): void {
    if (this.#ended || this.#detachedBy || (orEnding && this.#ending)) throw sessionEnded(this.sessionId);
  }

  /**
   * A request about this session: `sessionId` goes first in the payload. A detached handle's requests
   * (a tool result finished after the connection went) fail with why it was detached: they never go
   * out on a later connection.
   */
  #request<T = unknown>(type: BridgeRequestType, payload?: object): Promise<T> {
    if (this.#detachedBy) return Promise.reject(this.#detachedBy);
    return this.#bridge.request<T>(type, { sessionId: this.sessionId, ...payload });
  }

  /** An event context; without `meta`, the SDK's own. */
  #ctx(type?: string, meta?: EventMeta, turn = this.#turns.current): PedelecEventContext {
    return eventContext(this, turn?.ctx, type, meta);
  }

  #setStatus(status: PedelecSessionStatus, meta?: EventMeta): void {
    const previousStatus = this.#status;
    if (status === previousStatus) return;
    this.#status = status;
    this.#emitStatus([status, { ...this.#ctx('status_changed', meta), status, previousStatus }]);
  }

  /** `turn`: the turn the error belongs to, when not the current one (a late failure of a finished turn). */
  #emitError(error: PedelecError, meta?: EventMeta, turn = this.#turns.current): void {
    this.#listeners.emit('error', error, this.#ctx('error', meta, turn));
  }
}
