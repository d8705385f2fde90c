/**
 * `Pedelec`: one connection to the bridge — requests and responses, event routing, sessions
 * (spec/sdk-api.md, bridge-protocol.md).
 */
import type { EventMeta } from './call-context.js';
import { keepError, normalizeError, pedelecError, protocolError, type PedelecError } from './errors.js';
import { hasOwn, isObject, isText } from './json.js';
import { watchPageActivity } from './page-activity.js';
import { PendingRequests } from './pending-requests.js';
import { APPROVAL_HELD_REQUESTS, PEDELEC_PROTOCOL_VERSION, randomId, type BridgePort } from './protocol.js';
import { availability, isLinkDown, readApprovalStatus, readProviders, readSettings } from './responses.js';
import {
  readCreateInput,
  readResumeSkills,
  type CreateSessionInput,
  type ResumeSessionOptions,
  type SessionWiring,
} from './session-input.js';
import { PedelecSession, type SessionBridge } from './session.js';
import { Toolbox, type NormalizedSkills, type ToolDefinition, type ToolNameOf } from './tools.js';
import { chromeRuntime, extensionTransport } from './transports/extension.js';
import type { ApprovalStatus, PedelecAvailability, PedelecOptions, PedelecSettings, ProviderInfo } from './types.js';

const DEFAULT_BRIDGE_TIMEOUT_MS = 30_000;
const UNAVAILABLE = (message = 'Pedelec extension is unavailable.') => pedelecError('EXTENSION_UNAVAILABLE', message);
const DISCONNECTED = (details?: unknown) =>
  pedelecError('EXTENSION_DISCONNECTED', 'Pedelec extension disconnected.', details);
const TRANSPORT = (failure: unknown) => normalizeError(failure, 'SDK_TRANSPORT_ERROR', 'Pedelec transport error');

/**
 * A client of the Pedelec bridge. Construct it where the page asks for the agent; it connects at
 * once. Every method returns a promise that rejects with a {@link PedelecError}, never throws.
 */
export class Pedelec {
  /** (ours) Messages are routed by this id; other clients on the same port are ignored. */
  readonly channelId = randomId('pedelec');
  #options: PedelecOptions;
  #bridgeTimeoutMs: number;
  #origin: string | null;
  #port: BridgePort | undefined;
  /** Set once the client can no longer talk: unavailable from the start, or disconnected. */
  #failure: PedelecError | null = null;
  #requestCount = 0;
  #pending = new PendingRequests();
  #sessions = new Map<string, PedelecSession<string>>();
  /**
   * Snapshots for sessions this client has no handle for yet: the extension may send a session's
   * snapshot before the create/resume response that makes its handle. Kept only while such a
   * request is in flight (`#subscribing` counts them), and handed to the handle when it is made.
   */
  #earlySnapshots = new Map<string, [message: Record<string, unknown>, meta: EventMeta]>();
  #subscribing = 0;
  #stopWatchingActivity: () => void = () => {};
  #warnedOnce = new Set<string>();
  #bridge: SessionBridge = {
    request: (type, payload) => this.request(type, payload),
    release: (session) => {
      if (this.#sessions.get(session.sessionId) === session) this.unregisterSession(session.sessionId);
    },
    warn: (warning) => this.#warn(warning),
  };

  constructor(options: PedelecOptions = {}) {
    this.#options = options;
    this.#bridgeTimeoutMs =
      Math.max(1, Number(options.bridgeTimeoutMs ?? DEFAULT_BRIDGE_TIMEOUT_MS)) || DEFAULT_BRIDGE_TIMEOUT_MS;
    const win = (globalThis as { window?: { location?: { origin?: string } } }).window;
    this.#origin = typeof win?.location?.origin === 'string' ? win.location.origin : null;
    // A page context is required, unless (ours) a transport is given: Node tools may then connect.
    if (win === undefined && !options.transport) {
      this.#failure = UNAVAILABLE('Pedelec SDK must run in a browser page context.');
      return;
    }
    try {
      const port = (options.transport ?? extensionTransport(options.extensionId))();
      port.onMessage.addListener((message) => this.#handleMessage(message));
      port.onDisconnect.addListener(() => this.#handleDisconnect(port));
      this.#port = port;
    } catch {
      this.#failure = UNAVAILABLE();
      return;
    }
    // The current protocol's handshake: without it, an extension flags the page's SDK as outdated and
    // may open its popup. A 0.1.x extension refuses both messages with responses that match no
    // request (empty ids), which are ignored like any other.
    this.#post({ type: 'sdk_hello', sdkVersion: PEDELEC_PROTOCOL_VERSION });
    this.#stopWatchingActivity = watchPageActivity((active) => this.#post({ type: 'page_activity', active }));
  }

  /** Posts a message that is not a request (no answer expected). Best effort: a port that cannot take it fails the next request. */
  #post(message: Record<string, unknown>): void {
    try {
      this.#port?.postMessage(message);
    } catch {
      // Said by the first request posted after it.
    }
  }

  /** (ours) The error every request gets now, or null while the bridge is usable. */
  get unavailableReason(): PedelecError | null {
    return this.#failure;
  }

  // ───────────────────────────── requests ─────────────────────────────

  /**
   * Low-level request: posted synchronously, answered by the matching response, rejected on
   * failure, on timeout (`SDK_BRIDGE_TIMEOUT`) or when the bridge goes away.
   */
  request<T = unknown>(type: string, payload: Record<string, unknown> = {}): Promise<T> {
    return this.#request<T>(type, payload);
  }

  /** A request that may wait longer than the bridge timeout (`waitMs`): one held for the user's approval. */
  #request<T>(type: string, payload: Record<string, unknown> = {}, waitMs?: number): Promise<T> {
    // No port means a failure was recorded when the client was constructed.
    if (this.#failure) return Promise.reject(this.#failure);
    const requestId = `sdk_${Date.now()}_${++this.#requestCount}`;
    // The envelope last: a payload cannot re-address the request (its answer would never match).
    const message = { ...payload, channelId: this.channelId, type, requestId };
    const held = waitMs ?? (APPROVAL_HELD_REQUESTS.has(type) ? this.#options.approvalTimeoutMs : undefined);
    // Never shorter than the bridge timeout; a held wait that is not a number does not count.
    const wait = (held as number) > this.#bridgeTimeoutMs ? (held as number) : this.#bridgeTimeoutMs;
    const response = this.#pending.add<T>(requestId, type, wait);
    try {
      this.#port!.postMessage(message);
    } catch (thrown) {
      this.#pending.reject(requestId, keepError(thrown, DISCONNECTED()));
    }
    return response;
  }

  /** @internal For leak tests: how many requests are waiting for their response. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  #handleMessage(message: unknown): void {
    if (!isObject(message)) return;
    // Every message routed from the bridge is Core's.
    const meta: EventMeta = { source: 'core', eventReceivedAt: Date.now() };
    const { channelId, type, sessionId, ok, error } = message;
    if (channelId !== undefined && channelId !== this.channelId) return;
    if (type === 'response') {
      const { requestId, result } = message;
      if (ok === true) this.#pending.resolve(requestId, result === undefined ? {} : result);
      else {
        const fallback = pedelecError('SDK_TRANSPORT_ERROR', 'SDK transport request failed', error);
        this.#pending.reject(requestId, keepError(error, fallback));
      }
    } else if (typeof sessionId === 'string') {
      const session = this.#sessions.get(sessionId);
      if (session) session.handleEvent(message, meta);
      else if (type === 'session_snapshot' && this.#subscribing > 0)
        this.#earlySnapshots.set(sessionId, [message, meta]);
    } else if (type === 'error' && sessionId == null) {
      // A transport-wide error, broadcast to every SDK port: every live session's turn fails. Only
      // one that names no session: an error with a malformed session id is garbage, and ignored.
      this.#failAll(TRANSPORT(error), false);
    }
  }

  #failAll(error: PedelecError, disconnected: boolean): void {
    [...this.#sessions.values()].forEach((session) => session.handleTransportError(error, disconnected));
  }

  #handleDisconnect(port: BridgePort): void {
    if (this.#failure) return;
    this.#stopWatchingActivity();
    const lastError = port.error ?? chromeRuntime()?.lastError;
    const error = (this.#failure = keepError(lastError, DISCONNECTED(lastError)));
    this.#pending.rejectAll(error);
    this.#failAll(error, true);
  }

  /**
   * (ours) Closes the connection: pending requests and live sessions see a disconnect. Used by
   * elements releasing a shared client; the public SDK has no such method.
   */
  disconnect(): void {
    if (this.#failure) return;
    const port = this.#port!;
    try {
      port.disconnect?.();
    } finally {
      this.#handleDisconnect(port);
    }
  }

  // ───────────────────────────── sessions ─────────────────────────────

  /** Creates a session (resolving the default provider and model when not given). */
  createSession(): Promise<PedelecSession<string>>;
  createSession<const TTools extends readonly ToolDefinition[] = readonly ToolDefinition[]>(
    input: CreateSessionInput<TTools>,
  ): Promise<PedelecSession<ToolNameOf<TTools>>>;
  /** An input that may be absent (`createSession(maybeInput)`): the spec's `input?`. */
  createSession(input?: CreateSessionInput): Promise<PedelecSession<string>>;
  createSession(input: CreateSessionInput = {}): Promise<PedelecSession<string>> {
    return this.createWiredSession(input, {});
  }

  /** @internal `createSession` for a `<pedelec-session>`: its toolbox, its approval wait. */
  async createWiredSession(input: CreateSessionInput, wiring: SessionWiring): Promise<PedelecSession<string>> {
    const read = readCreateInput(input);
    const { skills, effort } = read;
    skills?.tools.forEach((tool) => tool.warnings.forEach((w) => this.#warnOnce(w)));

    let { provider, model } = read;
    if (provider === undefined || model === undefined) {
      // Held for approval like create_session: they wait as long as it may (the element's 65 s).
      const { defaultProvider, defaultModels } = readSettings(
        await this.#request('get_settings', {}, wiring.requestTimeoutMs),
      );
      if (provider === undefined) {
        if (defaultProvider === null)
          throw pedelecError('DEFAULT_PROVIDER_NOT_SET', 'No default provider is set in Pedelec.');
        const providers = readProviders(await this.#request('list_providers', {}, wiring.requestTimeoutMs));
        if (!providers.find((p) => p.code === defaultProvider)?.available) {
          throw pedelecError(
            'DEFAULT_PROVIDER_UNAVAILABLE',
            `The default provider ${defaultProvider} is not available.`,
            { provider: defaultProvider },
          );
        }
        provider = defaultProvider;
      }
      // Own keys only: a provider code such as "constructor" must not find Object.prototype's. A
      // current extension has no default models: no model is sent, and Desktop's profile chooses.
      model = hasOwn(defaultModels, provider) ? defaultModels[provider] : undefined;
    }
    const created = this.#request<Record<string, unknown> | undefined>(
      'create_session',
      {
        input: {
          provider,
          model,
          skills: skills?.manifest,
          autoEndOnDisconnect: input.autoEndOnDisconnect !== false,
          ...effort,
        },
        callerSdkVersion: PEDELEC_PROTOCOL_VERSION,
      },
      wiring.requestTimeoutMs,
    );
    return this.#subscribe('create_session', created, (sessionId) =>
      this.#adopt(sessionId, provider!, model, skills, wiring, true),
    );
  }

  /**
   * Waits for a create or resume response and makes the handle for the session it names (one that
   * names none breaks the protocol). Meanwhile, snapshots of sessions this client does not know yet
   * are kept, so the new handle gets its own.
   */
  async #subscribe<T>(
    type: string,
    response: Promise<Record<string, unknown> | undefined>,
    adopt: (sessionId: string) => T,
  ): Promise<T> {
    this.#subscribing++;
    try {
      const sessionId = (await response)?.sessionId;
      if (!isText(sessionId)) throw protocolError(`${type} response did not include sessionId`);
      return adopt(sessionId);
    } finally {
      if (--this.#subscribing === 0) this.#earlySnapshots.clear();
    }
  }

  /** Re-attaches to a session this origin created earlier (e.g. with `autoEndOnDisconnect: false`). */
  resumeSession<const TTools extends readonly ToolDefinition[] = readonly ToolDefinition[]>(
    sessionId: string,
    options: ResumeSessionOptions<TTools> = {},
  ): Promise<PedelecSession<ToolNameOf<TTools>>> {
    return this.resumeWiredSession(sessionId, options, {});
  }

  /** @internal `resumeSession` for a `<pedelec-session>`: its toolbox, its approval wait. */
  async resumeWiredSession(
    sessionId: string,
    options: ResumeSessionOptions,
    wiring: SessionWiring,
  ): Promise<PedelecSession<any>> {
    const skills = readResumeSkills(sessionId, options);
    skills?.tools.forEach((tool) => tool.warnings.forEach((w) => this.#warnOnce(w)));
    const resumed = this.#request<Record<string, unknown> | undefined>(
      'resume_session',
      { sessionId },
      wiring.requestTimeoutMs,
    );
    return this.#subscribe('resume_session', resumed, (id) =>
      this.#adopt(id, options.provider ?? '', options.model, skills, wiring, !!skills),
    );
  }

  /** The handle for a session: the one this client holds for that id (`replaceHandlers`: with the new tools), or a new one. */
  #adopt(
    sessionId: string,
    provider: string,
    model: string | undefined,
    skills: NormalizedSkills | undefined,
    wiring: SessionWiring,
    replaceHandlers: boolean,
  ): PedelecSession<any> {
    let session = this.#sessions.get(sessionId);
    const toolbox = session?.toolbox ?? wiring.toolbox ?? new Toolbox(this.#options.validateArgs !== false);
    if (!session || replaceHandlers) toolbox.setTools(skills?.tools ?? []);
    if (!session) {
      this.#sessions.set(
        sessionId,
        (session = new PedelecSession<string>(this.#bridge, { sessionId, provider, model, toolbox })),
      );
      const early = this.#earlySnapshots.get(sessionId);
      this.#earlySnapshots.delete(sessionId);
      if (early) session.handleEvent(...early);
    }
    return session;
  }

  /**
   * Forgets the handle of `sessionId`: what arrives for that session is no longer routed to it. A
   * session unregisters itself once it has ended.
   */
  unregisterSession(sessionId: string): void {
    this.#sessions.delete(sessionId);
  }

  // ───────────────────────────── information ─────────────────────────────

  /** The providers Desktop knows, validated; extra fields are dropped. */
  async listProviders(): Promise<ProviderInfo[]> {
    return readProviders(await this.#request('list_providers'));
  }

  /** The user's default provider and models — and nothing else the extension may include. */
  async getSettings(): Promise<PedelecSettings> {
    return readSettings(await this.#request('get_settings'));
  }

  /** Whether the extension is installed, this origin approved, and Desktop connected. Never rejects for a missing extension. */
  async getApprovalStatus(): Promise<ApprovalStatus> {
    let result: Record<string, unknown> | undefined;
    try {
      result = await this.#request('get_approval_status');
    } catch (error) {
      if (isLinkDown(error as PedelecError))
        return { installed: false, approved: false, origin: this.#origin, appConnected: false };
      throw error;
    }
    return readApprovalStatus(result);
  }

  /** Everything a page needs to tell the user what to do next. Never rejects; at most two requests. */
  async checkAvailability(): Promise<PedelecAvailability> {
    let status: ApprovalStatus | undefined;
    let error: PedelecError | undefined;
    try {
      status = await this.getApprovalStatus();
      // Only an approved origin probes Desktop.
      if (status.installed && status.approved) await this.getSettings();
    } catch (failure) {
      error = TRANSPORT(failure);
    }
    return availability(status, error, this.#origin);
  }

  // ───────────────────────────── warnings ─────────────────────────────

  #warn(warning: PedelecError): void {
    if (this.#options.debug) console.warn(`[pedelec] ${warning.code}: ${warning.message}`);
    try {
      this.#options.onWarning?.(warning);
    } catch {
      // A warning sink that throws has nowhere further to report to.
    }
  }

  #warnOnce(warning: PedelecError): void {
    const key = `${warning.code}:${warning.message}`;
    if (this.#warnedOnce.has(key)) return;
    this.#warnedOnce.add(key);
    this.#warn(warning);
  }
}
