/**
 * One page connection on `/bridge`: JSON text frames carrying exactly the page-level protocol
 * (bridge-protocol.md §2, with today's additions of current-pedelec.md when `deps.protocol` says so).
 * Every request gets one response; nothing a page sends can crash the server or reach another page's
 * session. Frames that cannot be matched to a request (not JSON, no `requestId`) get a response with
 * `requestId: null`, which a client ignores — the same as the real extension's unmatchable refusals —
 * so one bad frame does not cost the page its connection. The exception is today's SDK handshake
 * (`sdk_hello`, `page_activity`): notifications that today's extension takes silently and a 0.1
 * extension refuses in its own words.
 */
import { randomUUID } from 'node:crypto';
import { WebSocket, type RawData } from 'ws';
import { isPlainObject } from '../core/json.js';
import { APPROVAL_HELD_REQUESTS } from '../core/protocol.js';
import type { AgentDirectory } from './agents/index.js';
import type { Approvals } from './approval.js';
import type { AssetStore } from './assets.js';
import { DevCoreError, frameText, toWireError } from './errors.js';
import { checkSkills } from './manifest.js';
import type { MessageLog } from './message-log.js';
import type { PatternChecks } from './pattern-check.js';
import { HANDSHAKE_TYPES, LEGACY_HANDSHAKE_REFUSAL, operationIdFor, type ProtocolProfile } from './protocol.js';
import type { SessionRegistry } from './registry.js';
import type { EventSink } from './session.js';

export type BridgeDeps = {
  registry: SessionRegistry;
  agents: AgentDirectory;
  approvals: Approvals;
  assets: AssetStore;
  log: MessageLog;
  /** Where args checks that run a schema's `pattern` go (a worker with a time budget). */
  patterns: PatternChecks;
  strictProviders: boolean;
  defaultToolTimeoutMs: number;
  /** What the protocol mode changes (protocol.ts). */
  protocol: ProtocolProfile;
  /** Unexpected exceptions (bugs) go here; pages only see `INTERNAL_ERROR`. */
  reportBug(error: unknown): void;
  /** A page with more than this waiting to be sent to it is not reading: it is closed (1008). */
  maxBufferedBytes: number;
};

type Request = { channelId: string; requestId: string; type: string } & Record<string, unknown>;
/** A handler returns the result; `after` runs once the response is out (a turn's first event follows it). */
type Handler = (this: BridgeConnection, req: Request, after: Array<() => void>) => unknown;

/**
 * Frames one connection may have handled per turn of the event loop. Each connection takes its turn,
 * so a page that sends a thousand requests at once delays another page's answer by one turn's worth of
 * its frames, not by all thousand.
 */
const FRAMES_PER_TURN = 16;
/** Waiting frames (count or bytes) past which the page's socket is paused: its TCP window holds the rest. */
const INBOX_PAUSE_FRAMES = 256;
const INBOX_PAUSE_BYTES = 32 * 1024 * 1024;

function requireString(req: Request, key: string): string {
  const value = req[key];
  if (typeof value !== 'string' || value === '')
    throw new DevCoreError('INVALID_INPUT', `${key} must be a non-empty string`);
  return value;
}

/** An optional string of `create_session`'s input (`null` counts as absent, as for `model`). */
function optionalString(input: Record<string, unknown>, key: string): string | undefined {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new DevCoreError('INVALID_INPUT', `input.${key} must be a string`);
  return value;
}

const HANDLERS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  [
    'get_approval_status',
    function () {
      return {
        installed: true,
        approved: this.deps.approvals.isApproved(this.origin),
        origin: this.origin,
        appConnected: true,
      };
    },
  ],
  [
    'get_settings',
    function () {
      const { defaultProvider, defaultModels } = this.deps.agents.settings();
      return this.deps.protocol.settingsHaveDefaultModels ? { defaultProvider, defaultModels } : { defaultProvider };
    },
  ],
  [
    'list_providers',
    function () {
      const providers = this.deps.agents.providers();
      if (!this.deps.protocol.providersHaveIsDefault) return providers;
      return providers.map((p) => ({ ...p, isDefault: p.code === this.deps.agents.selectedCode }));
    },
  ],
  [
    'create_session',
    function (req, after) {
      const input = req.input;
      if (!isPlainObject(input)) throw new DevCoreError('INVALID_INPUT', 'input must be an object');
      // A top-level `callerSdkVersion` (today's SDK) is informational: nothing depends on it.
      const { provider } = input;
      if (typeof provider !== 'string' || provider === '')
        throw new DevCoreError('INVALID_INPUT', 'input.provider must be a non-empty string');
      const model = optionalString(input, 'model');
      const effortLevel = optionalString(input, 'effortLevel');
      const effort = optionalString(input, 'effort');
      if (this.deps.protocol.checksModelChoice) {
        // Today's Core: a model is named (explicit mode) or an effort profile chooses one, not both.
        if (model !== undefined && model.trim() === '')
          throw new DevCoreError('INVALID_INPUT', 'input.model must not be blank; leave it out to use the default');
        if (model !== undefined && effortLevel !== undefined) {
          throw new DevCoreError(
            'INVALID_INPUT',
            'input.model and input.effortLevel cannot be combined: give effort with an explicit model',
          );
        }
      }
      const skills = checkSkills(input.skills, this.deps.patterns);
      const agent = this.deps.agents.resolve(provider, this.deps.strictProviders);
      const session = this.deps.registry.create(
        {
          origin: this.origin,
          provider,
          model: model ?? agent.defaultModel,
          effortLevel,
          effort,
          agent,
          autoEndOnDisconnect: input.autoEndOnDisconnect !== false,
          skills,
          defaultToolTimeoutMs: this.deps.defaultToolTimeoutMs,
          protocol: this.deps.protocol,
          writeAsset: (sessionId, path, content, mimeType) =>
            this.deps.assets.writeFile(sessionId, path, content, mimeType),
        },
        this,
        req.channelId,
      );
      after.push(() => session.sendSnapshot(this, req.channelId));
      return { sessionId: session.id };
    },
  ],
  [
    'resume_session',
    function (req, after) {
      const session = this.deps.registry.resume(req.sessionId, this, req.channelId, this.origin);
      after.push(() => session.sendSnapshot(this, req.channelId));
      return { sessionId: session.id };
    },
  ],
  [
    'prepare_session',
    function (req, after) {
      const session = this.deps.registry.forRoute(req.sessionId, this, req.channelId);
      after.push(session.reserveTurn('prepare', '', operationIdFor(this.deps.protocol, req.operationId)));
      return {};
    },
  ],
  [
    'send_text',
    function (req, after) {
      const session = this.deps.registry.forRoute(req.sessionId, this, req.channelId);
      if (typeof req.text !== 'string') throw new DevCoreError('INVALID_INPUT', 'text must be a string');
      after.push(session.reserveTurn('user', req.text, operationIdFor(this.deps.protocol, req.operationId)));
      return {};
    },
  ],
  [
    'submit_tool_result',
    function (req) {
      const session = this.deps.registry.forRoute(req.sessionId, this, req.channelId);
      session.submitToolResult(requireString(req, 'toolRequestId'), req.result);
      return {};
    },
  ],
  [
    'end_session',
    function (req) {
      this.deps.registry.forRoute(req.sessionId, this, req.channelId).end({ sink: this, channelId: req.channelId });
      return {};
    },
  ],
  [
    'list_assets',
    async function (req) {
      const session = this.deps.registry.forRoute(req.sessionId, this, req.channelId);
      return { assets: await this.deps.assets.list(session.id) };
    },
  ],
  [
    'create_asset_upload',
    function (req) {
      const session = this.deps.registry.forRoute(req.sessionId, this, req.channelId);
      return this.deps.assets.createUpload(session.id, req);
    },
  ],
  [
    'create_asset_download',
    function (req) {
      const session = this.deps.registry.forRoute(req.sessionId, this, req.channelId);
      return this.deps.assets.createDownload(session.id, req.path);
    },
  ],
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
    const text = data.toString();
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
    const handler = HANDLERS.get(type);
    if (!handler) {
      return this.respond(channel, requestId, {
        error: new DevCoreError('UNKNOWN_REQUEST_TYPE', 'unknown SDK request type', { type }),
      });
    }
    const req = message as Request;
    // Approved origins are handled synchronously, so requests keep their arrival order.
    if (APPROVAL_HELD_REQUESTS.has(type) && !this.deps.approvals.isApproved(this.origin)) {
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
  private onHandshake(message: Record<string, unknown>): void {
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
