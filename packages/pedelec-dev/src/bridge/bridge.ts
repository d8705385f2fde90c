/**
 * One page connection on `/bridge`: JSON text frames carrying exactly the page-level protocol
 * (bridge-protocol.md §2, with today's additions of current-pedelec.md when `deps.protocol` says so).
 * Every request gets one response; nothing a page sends can crash the server or reach another page's
 * session. Frames that cannot be matched to a request (not JSON, no `requestId`) get a response with
 * `requestId: null`, which a client ignores — the same as the real extension's unmatchable refusals —
 * so one bad frame does not cost the page its connection. The exception is today's SDK handshake
 * (`sdk_hello`, `page_activity`): notifications that today's extension takes silently and a 0.1
 * extension refuses in its own words. The answer to each request type is in bridge-requests.ts.
 */
import { randomUUID } from 'node:crypto';
import { WebSocket, type RawData } from 'ws';
import {
  APPROVAL_HELD_REQUESTS,
  isPlainObject,
  type BridgeNotificationType,
  type BridgeRequestType,
} from 'pedelec-elements/protocol';
import type { AgentDirectory } from '../agents/index.js';
import type { Approvals } from '../inspector/approval.js';
import type { AssetStore } from '../assets/asset-store.js';
import type { DenoModules } from '../workspaces/deno-modules.js';
import type { WorkspaceStore } from '../workspaces/workspace-store.js';
import { handlerFor, type Handler, type Request } from './bridge-requests.js';
import { DevCoreError, frameText, toWireError } from '../errors.js';
import type { MessageLog } from '../inspector/message-log.js';
import type { PatternChecks } from './pattern-check.js';
import { HANDSHAKE_TYPES, LEGACY_HANDSHAKE_REFUSAL, type ProtocolProfile } from './protocol-profile.js';
import type { SessionRegistry } from './registry.js';
import type { EventSink } from './session-routes.js';

export type BridgeDeps = {
  registry: SessionRegistry;
  agents: AgentDirectory;
  approvals: Approvals;
  assets: AssetStore;
  /** The workspaces pages open, and the managed ones of their sessions. */
  workspaces: WorkspaceStore;
  /** Deno modules: sessions' and workspace runs'. */
  denoModules: DenoModules;
  /** The Deno that runs scripts, or null when none was found (runs are refused `DENO_UNAVAILABLE`). */
  deno: string | null;
  log: MessageLog;
  /** Where args checks that run a schema's `pattern` go (a worker with a time budget). */
  patterns: PatternChecks;
  strictProviders: boolean;
  defaultToolTimeoutMs: number;
  /** What the protocol mode changes (protocol-profile.ts). */
  protocol: ProtocolProfile;
  /** Unexpected exceptions (bugs) go here; pages only see `INTERNAL_ERROR`. */
  reportBug(error: unknown): void;
  /** A page with more than this waiting to be sent to it is not reading: it is closed (1008). */
  maxBufferedBytes: number;
};

/**
 * Frames one connection may have handled per turn of the event loop. Each connection takes its turn,
 * so a page that sends a thousand requests at once delays another page's answer by one turn's worth of
 * its frames, not by all thousand.
 */
const FRAMES_PER_TURN = 16;
/** Waiting frames (count or bytes) past which the page's socket is paused: its TCP window holds the rest. */
const INBOX_PAUSE_FRAMES = 256;
const INBOX_PAUSE_BYTES = 32 * 1024 * 1024;

/**
 * Requests held while the origin waits for approval: the kit's list, and `reactivate_session`, which
 * brings a session back to life as `resume_session` does.
 */
const HELD_FOR_APPROVAL: ReadonlySet<string> = new Set([
  ...APPROVAL_HELD_REQUESTS,
  'reactivate_session' satisfies BridgeRequestType,
  // Desktop may ask the user to approve the origin before it opens a folder for it.
  'open_workspace' satisfies BridgeRequestType,
]);

function frameSize(data: RawData): number {
  return Array.isArray(data) ? data.reduce((sum, part) => sum + part.length, 0) : data.byteLength;
}

export class BridgeConnection implements EventSink {
  readonly id = `conn_${randomUUID().slice(0, 8)}`;
  private closed = false;
  /** From the page's `sdk_hello` and latest `page_activity` (today's SDK), shown when the connection closes. */
  private sdkVersion: string | null = null;
  private pageActive: boolean | null = null;
  /** Frames received and not handled yet, oldest first (see FRAMES_PER_TURN). */
  private readonly inbox: Array<{ data: RawData; isBinary: boolean }> = [];
  private inboxBytes = 0;
  /** A turn of handling is scheduled. */
  private draining = false;

  constructor(
    private readonly socket: WebSocket,
    readonly origin: string | null,
    readonly deps: BridgeDeps,
  ) {
    deps.log.record('info', this.id, origin, `connected from ${origin ?? 'a client without Origin'}`);
    socket.on('message', (data, isBinary) => this.receive(data, isBinary));
    socket.on('close', (code, reason) => {
      this.closed = true;
      // Frames still waiting would create sessions for a page that is gone (after detach below).
      this.inbox.length = 0;
      this.inboxBytes = 0;
      const page = [
        this.sdkVersion !== null && `SDK ${this.sdkVersion}`,
        this.pageActive !== null && `page ${this.pageActive ? 'active' : 'inactive'}`,
      ];
      const about = page.filter(Boolean).join(', ');
      deps.log.record(
        'info',
        this.id,
        origin,
        `closed (${code}${reason.length ? ` ${reason.toString()}` : ''})${about ? ` — ${about}` : ''}`,
      );
      deps.registry.detach(this);
    });
    // 'error' (e.g. an oversized frame) is always followed by 'close', which does the cleanup.
    socket.on('error', () => {});
  }

  sendEvent(message: Record<string, unknown>): void {
    this.send(message);
  }

  /** Queues a frame; frames are handled in arrival order, {@link FRAMES_PER_TURN} per turn. */
  private receive(data: RawData, isBinary: boolean): void {
    this.inbox.push({ data, isBinary });
    this.inboxBytes += frameSize(data);
    if (this.inbox.length >= INBOX_PAUSE_FRAMES || this.inboxBytes >= INBOX_PAUSE_BYTES) this.socket.pause();
    if (!this.draining) {
      this.draining = true;
      setImmediate(() => this.drain());
    }
  }

  private drain(): void {
    for (let handled = 0; handled < FRAMES_PER_TURN && this.inbox.length > 0; handled++) {
      const { data, isBinary } = this.inbox.shift()!;
      this.inboxBytes -= frameSize(data);
      this.onFrame(data, isBinary);
    }
    if (this.inbox.length > 0) {
      setImmediate(() => this.drain()); // the other connections' turn comes first
    } else {
      this.draining = false;
      if (this.socket.isPaused) this.socket.resume();
    }
  }

  private send(message: Record<string, unknown>): void {
    if (this.socket.readyState !== WebSocket.OPEN) return;
    // A response that cannot be serialized fails; an event becomes a Core error of its session.
    const { channelId, type, requestId, sessionId, seq } = message;
    const text = frameText(message, (error) =>
      type === 'response'
        ? { channelId, type, requestId, ok: false, error }
        : { channelId, type: 'error', sessionId, seq, error, source: 'core' },
    );
    // Events cannot be dropped, and a turn does not wait for the page to read: a page that stops
    // reading would make the Core buffer without bound (a 150-byte `/tools` streams the manifest back).
    if (this.socket.bufferedAmount + text.length > this.deps.maxBufferedBytes) {
      this.socket.close(1008, 'not reading: too much is waiting to be sent');
      return;
    }
    this.socket.send(text);
    this.deps.log.record('out', this.id, this.origin, text, message);
  }

  private respond(
    channelId: string | undefined,
    requestId: string | null,
    outcome: { result: unknown } | { error: unknown },
  ): void {
    const base: Record<string, unknown> = channelId === undefined ? {} : { channelId };
    if ('result' in outcome) {
      this.send({ ...base, type: 'response', requestId, ok: true, result: outcome.result ?? {} });
    } else {
      this.send({ ...base, type: 'response', requestId, ok: false, error: toWireError(outcome.error) });
    }
  }

  private onFrame(data: RawData, isBinary: boolean): void {
    if (isBinary) {
      this.deps.log.record('in', this.id, this.origin, '<binary frame>');
      return this.respond(undefined, null, {
        error: new DevCoreError('INVALID_MESSAGE', 'Binary frames are not supported: send JSON text'),
      });
    }
    // With ws's default binaryType ('nodebuffer'), a message arrives as one Buffer.
    const text = (data as Buffer).toString();
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.deps.log.record('in', this.id, this.origin, text);
      return this.respond(undefined, null, { error: new DevCoreError('MALFORMED_MESSAGE', 'Frame is not valid JSON') });
    }
    this.deps.log.record('in', this.id, this.origin, text, message);
    if (!isPlainObject(message)) {
      return this.respond(undefined, null, {
        error: new DevCoreError('INVALID_MESSAGE', 'A request must be a JSON object'),
      });
    }
    const { channelId, requestId, type } = message;
    const hasRequestId = typeof requestId === 'string' && requestId !== '';
    if (!hasRequestId && typeof type === 'string' && HANDSHAKE_TYPES.has(type)) return this.onHandshake(message);
    const channel = typeof channelId === 'string' && channelId !== '' ? channelId : undefined;
    if (!channel || !hasRequestId || typeof type !== 'string') {
      return this.respond(channel, typeof requestId === 'string' ? requestId : null, {
        error: new DevCoreError(
          'INVALID_MESSAGE',
          'A request needs non-empty string channelId and requestId, and a string type',
        ),
      });
    }
    const handler = handlerFor(type, this.deps.protocol);
    if (!handler) {
      return this.respond(channel, requestId, {
        error: new DevCoreError('UNKNOWN_REQUEST_TYPE', 'unknown SDK request type', { type }),
      });
    }
    const req = message as Request;
    // Approved origins are handled synchronously, so requests keep their arrival order.
    if (HELD_FOR_APPROVAL.has(type) && !this.deps.approvals.isApproved(this.origin)) {
      this.deps.approvals.ensure(this.origin).then(
        // A page that left while the prompt was open must not get a session nobody will ever end.
        () => void (this.closed || this.run(handler, req)),
        (error) => this.respond(channel, requestId, { error }),
      );
      return;
    }
    this.run(handler, req);
  }

  /**
   * `sdk_hello` / `page_activity`: today's extension keeps them to itself (no answer); a 0.1 extension
   * refuses them as frames without a requestId, with a response nobody can match — which a page must
   * be able to live with, so the 0.1 mode sends exactly that.
   */
  private onHandshake(message: { type?: BridgeNotificationType; [key: string]: unknown }): void {
    if (!this.deps.protocol.acceptsHandshake)
      return this.send({ ...LEGACY_HANDSHAKE_REFUSAL, error: { ...LEGACY_HANDSHAKE_REFUSAL.error } });
    if (message.type === 'sdk_hello' && typeof message.sdkVersion === 'string') {
      // Kept for the whole connection: a page's oversized string is not.
      this.sdkVersion = message.sdkVersion.length <= 100 ? message.sdkVersion : '(too long to show)';
    }
    if (message.type === 'page_activity' && typeof message.active === 'boolean') this.pageActive = message.active;
  }

  private run(handler: Handler, req: Request): void {
    const after: Array<() => void> = [];
    const finish = (result: unknown) => {
      this.respond(req.channelId, req.requestId, { result });
      for (const fn of after) fn();
    };
    const refuse = (error: unknown) => {
      if (!(error instanceof DevCoreError)) this.deps.reportBug(error);
      this.respond(req.channelId, req.requestId, { error });
    };
    let result: unknown;
    try {
      result = handler.call(this, req, after);
    } catch (error) {
      return refuse(error);
    }
    if (result instanceof Promise) result.then(finish, refuse);
    else finish(result);
  }
}
