/**
 * `PedelecSession`: one agent session — turns, statuses, listeners, tool calls, assets
 * (spec/sdk-api.md, tools-api.md). Created by `Pedelec.createSession()` / `resumeSession()`.
 */
import { isPedelecError, normalizeError, pedelecError, type PedelecError } from './errors.js';
import type { JsonValue } from './json.js';
import { randomId } from './protocol.js';
import { Toolbox, type GenericToolHandler, type ToolCall, type ToolOutcome, type ToolSpecificHandler, TOOL_NAME_PATTERN } from './tools.js';
import type {
  ChatEventContext,
  EndedEventContext,
  ErrorEventContext,
  PedelecEventContext,
  PedelecSessionStatus,
  ReadAssetType,
  SandboxAsset,
  StatusEventContext,
  ToolCallContext,
  TurnEvent,
  TurnKind,
} from './types.js';

/** What a session needs from its client; keeps the session testable and the client private. */
export interface SessionBridge {
  request<T = unknown>(type: string, payload?: Record<string, unknown>): Promise<T>;
  release(session: PedelecSession<string>): void;
  warn(warning: PedelecError): void;
}

type Turn = {
  id: string;
  startedAt: number;
  kind: TurnKind;
  finished: Promise<void>;
  /** Set when the turn finished without error (a `done`/`idle` may come before the request's failure). */
  succeeded?: boolean;
  resolve(): void;
  reject(error: PedelecError): void;
};

/** A tool call in flight: enough to abort its signal and to refuse a repeat of it. */
type RunningCall = { abort(reason: PedelecError): void };

type Listener<T extends unknown[]> = (...args: T) => void;

const STATUSES: ReadonlySet<string> = new Set(['idle', 'running', 'waiting_tool_result', 'ended', 'error']);
const DEFAULT_TOOL_TIMEOUT_MS = 60_000;
const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
const noop = () => {};

export const ASSET_PATH_PATTERN = /^\/[^/\\\x00-\x1f]+(\/[^/\\\x00-\x1f]+)*$/;

/** A valid sandbox asset path: rooted, single slashes, no empty, `.` or `..` segment. */
export function isAssetPath(path: unknown): path is `/${string}` {
  return typeof path === 'string' && ASSET_PATH_PATTERN.test(path) && !path.split('/').some((s) => s === '.' || s === '..');
}

export class PedelecSession<TToolName extends string = string> {
  readonly sessionId: string;
  provider: string;
  model: string | undefined;
  readonly sessionCreatedAt: number;

  /** (ours) The tools this session answers and how; shared with a `<pedelec-session>` element. */
  readonly toolbox: Toolbox;

  private status: PedelecSessionStatus = 'idle';
  private lastSeq = -1;
  private turn: Turn | null = null;
  private ended = false;
  private ending = false;
  private prepared = false;
  private preparing: Promise<void> | null = null;
  private uploading = false;
  private readonly running = new Map<string, RunningCall>();
  private readonly answered = new Set<string>();
  private readonly listeners = {
    chat: new Set<Listener<[string, ChatEventContext]>>(),
    status: new Set<Listener<[PedelecSessionStatus, StatusEventContext]>>(),
    error: new Set<Listener<[PedelecError, ErrorEventContext]>>(),
    ended: new Set<Listener<[EndedEventContext]>>(),
    turn: new Set<Listener<[TurnEvent, PedelecEventContext]>>(),
  };

  /** @internal Sessions are made by `Pedelec`; construct one yourself only in tests. */
  constructor(
    private readonly bridge: SessionBridge,
    init: { sessionId: string; provider: string; model: string | undefined; toolbox: Toolbox },
  ) {
    this.sessionId = init.sessionId;
    this.provider = init.provider;
    this.model = init.model;
    this.sessionCreatedAt = Date.now();
    this.toolbox = init.toolbox;
  }

  getStatus(): PedelecSessionStatus {
    return this.status;
  }

  // ───────────────────────────── listeners ─────────────────────────────

  onChat(listener: (text: string, ctx: ChatEventContext) => void): () => void {
    return subscribe(this.listeners.chat, listener);
  }
  onStatus(listener: (status: PedelecSessionStatus, ctx: StatusEventContext) => void): () => void {
    return subscribe(this.listeners.status, listener);
  }
  onError(listener: (error: PedelecError, ctx: ErrorEventContext) => void): () => void {
    return subscribe(this.listeners.error, listener);
  }
  onEnded(listener: (ctx: EndedEventContext) => void): () => void {
    return subscribe(this.listeners.ended, listener);
  }
  /** (ours) A turn starts — `sendText()` or `prepare()`, whoever called it. */
  onTurn(listener: (turn: TurnEvent, ctx: PedelecEventContext) => void): () => void {
    return subscribe(this.listeners.turn, listener);
  }
  /** The generic fallback for any tool without a more specific handler. */
  onTool(handler: GenericToolHandler<TToolName>): () => void;
  /** The handler for one tool; the latest registration for a name wins. */
  onTool<TArgs = unknown, TResult = unknown>(toolName: TToolName, handler: ToolSpecificHandler<TArgs, TResult>): () => void;
  onTool(nameOrHandler: unknown, maybeHandler?: unknown): () => void {
    const { toolbox } = this;
    if (typeof nameOrHandler === 'function') {
      const generic = nameOrHandler as GenericToolHandler;
      toolbox.generic = generic;
      return () => {
        if (toolbox.generic === generic) toolbox.generic = null;
      };
    }
    if (typeof nameOrHandler !== 'string' || !TOOL_NAME_PATTERN.test(nameOrHandler)) {
      throw pedelecError('INVALID_INPUT', 'tool name is invalid', { toolName: nameOrHandler });
    }
    if (typeof maybeHandler !== 'function') throw pedelecError('INVALID_INPUT', 'tool handler must be a function', { toolName: nameOrHandler });
    const name = nameOrHandler;
    const handler = maybeHandler as ToolSpecificHandler;
    toolbox.named.set(name, handler);
    return () => {
      if (toolbox.named.get(name) === handler) toolbox.named.delete(name);
    };
  }

  // ───────────────────────────── turns ─────────────────────────────

  /**
   * Sends the user's text and resolves when the request succeeded and the turn finished. Waits for
   * an in-flight `prepare()` first (ignoring its failure).
   */
  sendText(text: string): Promise<void> {
    if (this.preparing) return this.preparing.then(noop, noop).then(() => this.startUserTurn(text));
    return this.startUserTurn(text);
  }

  private startUserTurn(text: string): Promise<void> {
    if (this.ended) return Promise.reject(this.endedError());
    if (this.turn) return Promise.reject(this.busyError());
    if (typeof text !== 'string') return Promise.reject(pedelecError('INVALID_INPUT', 'text must be a string'));
    return this.runTurn('user', 'send_text', { sessionId: this.sessionId, text }, 'SEND_TEXT_FAILED', 'send_text failed', text);
  }

  /** Warms the provider up; resolves at once when already prepared, shares an in-flight prepare. */
  prepare(): Promise<void> {
    if (this.ended) return Promise.reject(this.endedError());
    if (this.preparing) return this.preparing;
    if (this.turn) return Promise.reject(this.busyError());
    if (this.prepared) return Promise.resolve();
    const preparing = this.runTurn('prepare', 'prepare_session', { sessionId: this.sessionId }, 'PREPARE_FAILED', 'prepare_session failed').then(
      () => {
        this.prepared = true;
      },
    );
    this.preparing = preparing;
    const settled = () => {
      if (this.preparing === preparing) this.preparing = null;
    };
    preparing.then(settled, settled);
    return preparing;
  }

  private runTurn(
    kind: TurnKind,
    type: string,
    payload: Record<string, unknown>,
    fallbackCode: string,
    fallbackMessage: string,
    text?: string,
  ): Promise<void> {
    const turn = this.beginTurn(kind);
    this.emit(this.listeners.turn, text === undefined ? { turnId: turn.id, kind } : { turnId: turn.id, kind, text }, this.context(undefined, 'sdk'));
    this.setStatus('running', 'sdk_status_changed', 'sdk');
    const request = this.bridge.request(type, payload).then(noop, (failure: unknown) => {
      const error = normalizeError(failure, fallbackCode, fallbackMessage);
      // Emitted while the turn is still active, so the error's context carries it; a turn that
      // already finished cleanly still reports the failed request (one that failed on an error event
      // has reported that error already).
      if (this.turn === turn) {
        this.emitError(error, 'sdk_error', 'sdk');
        this.finishTurn(turn, error);
      } else if (turn.succeeded) {
        this.emitError(error, 'sdk_error', 'sdk');
      }
      throw error;
    });
    // Joined like Promise.all, so whichever side fails first, neither rejection goes unhandled.
    return Promise.all([request, turn.finished]).then(noop);
  }

  private beginTurn(kind: TurnKind): Turn {
    let resolve!: () => void;
    let reject!: (error: PedelecError) => void;
    const finished = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const turn: Turn = { id: randomId('turn'), startedAt: Date.now(), kind, finished, resolve, reject };
    this.turn = turn;
    return turn;
  }

  /** Clears the turn; with an error, rejects whoever waits for it. */
  private finishTurn(turn: Turn, error?: PedelecError): void {
    if (this.turn !== turn) return;
    this.turn = null;
    if (error) turn.reject(error);
    else {
      turn.succeeded = true;
      turn.resolve();
    }
  }

  /** Ends the session. Already ended or ending: resolves with no request. */
  end(): Promise<void> {
    if (this.ended || this.ending) return Promise.resolve();
    this.ending = true;
    return this.bridge.request('end_session', { sessionId: this.sessionId }).then(
      () => {
        this.ending = false;
        this.markEnded('sdk_ended', 'sdk');
      },
      (failure: unknown) => {
        this.ending = false;
        const error = normalizeError(failure, 'END_SESSION_FAILED', 'end_session failed');
        this.emitError(error, 'sdk_error', 'sdk');
        throw error;
      },
    );
  }

  // ───────────────────────────── incoming events ─────────────────────────────

  /** @internal Routed here by the client: one session-addressed message from the bridge. */
  handleEvent(message: Record<string, unknown>, receivedAt: number): void {
    if (this.ended) return;
    const { seq } = message;
    if (typeof seq === 'number' && Number.isInteger(seq) && seq >= 0) {
      if (seq <= this.lastSeq) return; // the extension may route one event twice
      this.lastSeq = seq;
    }
    switch (message.type) {
      case 'chat_delta': {
        const turn = this.turn;
        if (!turn) return this.protocolError('chat_delta arrived outside of a turn', receivedAt);
        if (typeof message.text !== 'string') return this.protocolError('chat_delta had no text', receivedAt);
        if (turn.kind === 'prepare') return; // a prepare turn's words are not the user's conversation
        this.emit(this.listeners.chat, message.text, this.context('chat_delta', 'core', receivedAt) as ChatEventContext);
        return;
      }
      case 'status_changed': {
        const status = message.status;
        if (typeof status !== 'string' || !STATUSES.has(status)) return this.protocolError('status_changed had an unknown status', receivedAt);
        if (status === 'ended') return this.markEnded('ended', 'core', receivedAt);
        this.setStatus(status as PedelecSessionStatus, 'status_changed', 'core', receivedAt);
        const turn = this.turn;
        if (!turn) return;
        if (status === 'idle') this.finishTurn(turn);
        else if (status === 'error') this.finishTurn(turn, pedelecError('SESSION_ERROR', 'Pedelec session reported an error.', { sessionId: this.sessionId }));
        return;
      }
      case 'done': {
        this.setStatus('idle', 'status_changed', 'core', receivedAt);
        if (this.turn) this.finishTurn(this.turn);
        return;
      }
      case 'error': {
        const error = normalizeError(message.error, 'SESSION_ERROR', 'Pedelec session error');
        this.setStatus('error', 'status_changed', 'core', receivedAt);
        this.emitError(error, 'error', 'core', receivedAt);
        if (this.turn) this.finishTurn(this.turn, error);
        return;
      }
      case 'ended':
        return this.markEnded('ended', 'core', receivedAt);
      case 'tool_call':
        return this.handleToolCall(message, receivedAt);
    }
  }

  /**
   * @internal A transport-wide failure (a broadcast error without `sessionId`, or the port going
   * away): status `error`, an SDK error, the active turn rejected. On disconnect, running tool
   * handlers are aborted too. The session stays usable for whatever the client can still do.
   */
  handleTransportError(error: PedelecError, disconnected: boolean): void {
    if (this.ended) return;
    // Handlers keep their place: their results are still submitted, and that failure is reported.
    if (disconnected) this.running.forEach((call) => call.abort(error));
    this.setStatus('error', 'sdk_status_changed', 'sdk');
    this.emitError(error, 'sdk_error', 'sdk');
    if (this.turn) this.finishTurn(this.turn, error);
  }

  /**
   * (ours) Forgets this session locally — the turn rejects, running handlers abort, `onEnded` fires
   * once — without asking Core. For a page that let a persisted session go, or whose `end()` failed.
   */
  detach(reason: PedelecError = this.endedError()): void {
    if (this.ended) return;
    this.abortRunning(reason);
    this.markEnded('sdk_ended', 'sdk');
  }

  private markEnded(type: 'ended' | 'sdk_ended', source: 'core' | 'sdk', receivedAt?: number): void {
    if (this.ended) return;
    this.ended = true;
    const statusType = source === 'core' ? 'status_changed' : 'sdk_status_changed';
    this.setStatus('ended', statusType, source, receivedAt);
    // onEnded runs before the pending turn is rejected, so its context still carries the turn.
    this.emit(this.listeners.ended, this.context(type, source, receivedAt) as EndedEventContext);
    const error = this.endedError();
    if (this.turn) this.finishTurn(this.turn, error);
    this.abortRunning(error);
    this.answered.clear();
    this.bridge.release(this as PedelecSession<string>);
  }

  private abortRunning(reason: PedelecError): void {
    const calls = [...this.running.values()];
    this.running.clear();
    calls.forEach((call) => call.abort(reason));
  }

  // ───────────────────────────── tool calls ─────────────────────────────

  private handleToolCall(message: Record<string, unknown>, receivedAt: number): void {
    const turn = this.turn;
    if (!turn) return this.protocolError('tool_call arrived outside of a turn', receivedAt);
    const { toolRequestId, tool } = message;
    if (typeof toolRequestId !== 'string' || toolRequestId === '' || typeof tool !== 'string') {
      return this.protocolError('tool_call had no toolRequestId or tool', receivedAt);
    }
    // Exactly one result per request: a repeat of a running or answered call is ignored.
    if (this.running.has(toolRequestId) || this.answered.has(toolRequestId)) return;
    this.setStatus('waiting_tool_result', 'status_changed', 'core', receivedAt);

    const declared = this.toolbox.tools.get(tool);
    const deadline = receivedAt + (declared?.manifest.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS);
    const base = this.context(undefined, 'core', receivedAt);
    const { ctx, abort, settle } = toolCallContext(base, { toolRequestId, tool }, deadline);
    const call: ToolCall = { tool, args: message.args, ctx, local: false, abort };
    this.running.set(toolRequestId, { abort });

    const outcome = this.runTool(call);
    if (outcome instanceof Promise) outcome.then((o) => this.submit(call, o, settle));
    else this.submit(call, outcome, settle);
  }

  /** Runs one call through the toolbox; a result that is not JSON is also reported to the page. */
  private runTool(call: ToolCall): ToolOutcome | Promise<ToolOutcome> {
    const report = (outcome: ToolOutcome): ToolOutcome => {
      if (!outcome.ok && outcome.reportToPage) this.emitError(outcome.error, 'sdk_error', 'sdk');
      return outcome;
    };
    const outcome = this.toolbox.run(call);
    return outcome instanceof Promise ? outcome.then(report) : report(outcome);
  }

  private submit(call: ToolCall, outcome: ToolOutcome, settle: () => void): void {
    settle();
    const { toolRequestId, tool } = call.ctx;
    // The session ended (or the bridge went away) while the handler ran: that call was settled
    // then, and its result has nowhere to go.
    if (!this.running.delete(toolRequestId)) return;
    this.answered.add(toolRequestId);
    this.bridge
      .request('submit_tool_result', { sessionId: this.sessionId, toolRequestId, result: outcome.result as JsonValue })
      .catch((failure: unknown) => {
        const cause = normalizeError(failure, 'SUBMIT_TOOL_RESULT_FAILED', 'submit_tool_result failed');
        this.emitError(pedelecError('SUBMIT_TOOL_RESULT_FAILED', cause.message, { tool, toolRequestId, cause }), 'sdk_error', 'sdk');
      });
  }

  // ───────────────────────────── assets ─────────────────────────────

  /** The files in this session's sandbox. */
  listAssets(): Promise<SandboxAsset[]> {
    if (this.ended || this.ending) return Promise.reject(this.endedError());
    return this.bridge.request<{ assets?: unknown }>('list_assets', { sessionId: this.sessionId }).then((result) => {
      const assets = result?.assets;
      if (!Array.isArray(assets) || !assets.every(isAssetEntry)) {
        throw pedelecError('SDK_PROTOCOL_ERROR', 'list_assets response had an invalid shape');
      }
      return assets.map(({ name, path, sizeBytes, modifiedAt }) => ({ name, path, sizeBytes, modifiedAt }));
    });
  }

  /** Uploads a `File` into the sandbox (at most 100 MiB; one upload at a time). */
  uploadAsset(file: File, targetPath?: string): Promise<{ path: `/${string}` }> {
    if (this.ended || this.ending) return Promise.reject(this.endedError());
    if (typeof File === 'undefined' || !(file instanceof File) || !file.name) {
      return Promise.reject(pedelecError('INVALID_INPUT', 'file must be a File with a name'));
    }
    if (file.size > MAX_UPLOAD_BYTES) return Promise.reject(pedelecError('ASSET_TOO_LARGE', 'file is larger than 100 MiB', { sizeBytes: file.size }));
    if (targetPath !== undefined && !isAssetPath(targetPath)) {
      return Promise.reject(pedelecError('ASSET_PATH_INVALID', 'targetPath is not a valid asset path', { path: targetPath }));
    }
    if (this.uploading) return Promise.reject(this.busyError());
    this.uploading = true;
    const payload: Record<string, unknown> = { sessionId: this.sessionId, filename: file.name, sizeBytes: file.size, mimeType: file.type || 'application/octet-stream' };
    if (targetPath !== undefined) payload.targetPath = targetPath;
    const done = () => {
      this.uploading = false;
    };
    const upload = this.bridge
      .request<Record<string, unknown>>('create_asset_upload', payload)
      .then(async (ticket) => {
        if (!ticket || typeof ticket.uploadUrl !== 'string' || typeof ticket.token !== 'string') {
          throw pedelecError('SDK_PROTOCOL_ERROR', 'create_asset_upload response had an invalid shape');
        }
        const response = await fetchOrFail(ticket.uploadUrl, {
          method: 'PUT',
          headers: { Authorization: `Bearer ${ticket.token}`, 'Content-Type': file.type || 'application/octet-stream' },
          body: file,
          credentials: 'omit',
        }, 'ASSET_UPLOAD_FAILED', 'Asset upload failed');
        const body = (await response.json().catch(() => null)) as { path?: unknown } | null;
        const path = body?.path;
        if (!isAssetPath(path) || (targetPath !== undefined && path !== targetPath)) {
          throw pedelecError('SDK_PROTOCOL_ERROR', 'asset upload response had an invalid path');
        }
        return { path };
      });
    upload.then(done, done);
    return upload;
  }

  /** Reads a sandbox file as text, parsed JSON, or a `File`. */
  readAsset(path: string, type: 'text'): Promise<string>;
  readAsset(path: string, type: 'json'): Promise<JsonValue>;
  readAsset(path: string, type: 'file'): Promise<File>;
  readAsset(path: string, type: ReadAssetType): Promise<string | JsonValue | File> {
    if (this.ended || this.ending) return Promise.reject(this.endedError());
    if (!isAssetPath(path) || (type !== 'text' && type !== 'json' && type !== 'file')) {
      return Promise.reject(pedelecError('ASSET_PATH_INVALID', 'path or type is not valid for readAsset', { path, type }));
    }
    return this.bridge.request<Record<string, unknown>>('create_asset_download', { sessionId: this.sessionId, path }).then(async (ticket) => {
      if (
        !ticket ||
        typeof ticket.downloadUrl !== 'string' ||
        typeof ticket.token !== 'string' ||
        typeof ticket.name !== 'string' ||
        typeof ticket.mimeType !== 'string' ||
        !isAssetPath(ticket.path)
      ) {
        throw pedelecError('SDK_PROTOCOL_ERROR', 'create_asset_download response had an invalid shape');
      }
      const response = await fetchOrFail(ticket.downloadUrl, {
        method: 'GET',
        headers: { Authorization: `Bearer ${ticket.token}` },
        credentials: 'omit',
      }, 'ASSET_READ_FAILED', 'Asset read failed');
      const bytes = await response.arrayBuffer();
      if (type === 'file') {
        const modified = typeof ticket.modifiedAt === 'number' ? { lastModified: ticket.modifiedAt } : {};
        return new File([bytes], ticket.name, { type: ticket.mimeType, ...modified });
      }
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
    });
  }

  // ───────────────────────────── helpers ─────────────────────────────

  private context(type: PedelecEventContext['type'], source: 'core' | 'sdk', receivedAt?: number): PedelecEventContext {
    const ctx: PedelecEventContext = {
      sessionId: this.sessionId,
      provider: this.provider,
      model: this.model,
      sessionCreatedAt: this.sessionCreatedAt,
      eventEmittedAt: Date.now(),
      source,
    };
    if (receivedAt !== undefined) ctx.eventReceivedAt = receivedAt;
    const turn = this.turn;
    if (turn) {
      ctx.turnId = turn.id;
      ctx.turnStartedAt = turn.startedAt;
      ctx.turnKind = turn.kind;
    }
    if (type) ctx.type = type;
    return ctx;
  }

  private setStatus(next: PedelecSessionStatus, type: 'status_changed' | 'sdk_status_changed', source: 'core' | 'sdk', receivedAt?: number): void {
    const previousStatus = this.status;
    if (next === previousStatus) return;
    this.status = next;
    const ctx = this.context(type, source, receivedAt) as StatusEventContext;
    ctx.status = next;
    ctx.previousStatus = previousStatus;
    this.emit(this.listeners.status, next, ctx);
  }

  private emitError(error: PedelecError, type: 'error' | 'sdk_error', source: 'core' | 'sdk', receivedAt?: number): void {
    this.emit(this.listeners.error, error, this.context(type, source, receivedAt) as ErrorEventContext);
  }

  private protocolError(message: string, receivedAt: number): void {
    // The one SDK-made event that keeps eventReceivedAt: it is about a message that did arrive.
    this.emitError(pedelecError('SDK_PROTOCOL_ERROR', message), 'sdk_error', 'sdk', receivedAt);
  }

  private emit<T extends unknown[]>(set: Set<Listener<T>>, ...args: T): void {
    if (set.size === 0) return;
    for (const fn of [...set]) safely(() => fn(...args), this.bridge);
  }

  private endedError(): PedelecError {
    return pedelecError('SESSION_ENDED', 'Pedelec session has ended.', { sessionId: this.sessionId });
  }

  private busyError(): PedelecError {
    return pedelecError('SESSION_BUSY', 'Pedelec session is busy.', { sessionId: this.sessionId });
  }
}

function subscribe<T>(set: Set<T>, listener: T): () => void {
  set.add(listener);
  return () => void set.delete(listener);
}

/** A listener that throws must not break the session: its error becomes a warning, not a crash. */
function safely(fn: () => void, bridge: SessionBridge): void {
  try {
    fn();
  } catch (thrown) {
    bridge.warn(normalizeError(thrown, 'LISTENER_ERROR', 'A session listener threw'));
  }
}

function isAssetEntry(entry: unknown): entry is SandboxAsset {
  if (typeof entry !== 'object' || entry === null) return false;
  const { name, path, sizeBytes, modifiedAt } = entry as Record<string, unknown>;
  return (
    typeof name === 'string' &&
    name !== '' &&
    name !== '.' &&
    name !== '..' &&
    !/[/\\]/.test(name) &&
    isAssetPath(path) &&
    path.slice(path.lastIndexOf('/') + 1) === name &&
    Number.isInteger(sizeBytes) &&
    (sizeBytes as number) >= 0 &&
    Number.isInteger(modifiedAt) &&
    (modifiedAt as number) >= 0
  );
}

async function fetchOrFail(url: string, init: RequestInit, code: string, message: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (thrown) {
    throw normalizeError(thrown, code, message);
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: unknown } | null;
    throw isPedelecError(body?.error) ? normalizeError(body!.error, code, message) : pedelecError(code, `${message} (HTTP ${response.status})`, { status: response.status });
  }
  return response;
}

/**
 * The context handed to a tool handler. Its `AbortController` and deadline timer are created only
 * if the handler reads `ctx.signal` (most never do), and the timer is cleared when the call settles.
 */
export function toolCallContext(
  base: PedelecEventContext,
  ids: { toolRequestId: string; tool: string },
  deadline: number,
): { ctx: ToolCallContext; abort(reason: PedelecError): void; settle(): void } {
  let controller: AbortController | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let abortedWith: PedelecError | null = null;
  let settled = false;
  const timeoutError = () => pedelecError('TOOL_TIMEOUT', `Tool ${ids.tool} passed its deadline`, { tool: ids.tool, toolRequestId: ids.toolRequestId });
  const ctx = base as ToolCallContext;
  ctx.type = 'tool_call';
  ctx.toolRequestId = ids.toolRequestId;
  ctx.tool = ids.tool;
  ctx.deadline = deadline;
  Object.defineProperty(ctx, 'signal', {
    enumerable: true,
    configurable: true,
    get() {
      if (!controller) {
        controller = new AbortController();
        const remaining = deadline - Date.now();
        if (abortedWith) controller.abort(abortedWith);
        else if (remaining <= 0) controller.abort(timeoutError());
        else if (!settled) timer = setTimeout(() => controller!.abort(timeoutError()), remaining);
      }
      return controller.signal;
    },
  });
  return {
    ctx,
    abort(reason) {
      if (abortedWith) return;
      abortedWith = reason;
      clearTimeout(timer);
      controller?.abort(reason);
    },
    settle() {
      settled = true;
      clearTimeout(timer);
    },
  };
}
