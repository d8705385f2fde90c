/**
 * `Pedelec`: the connection to the bridge — requests and responses, event routing, sessions
 * (docs/design/sdk-api.md, sdk-0.4.md, bridge-protocol.md). How a create chooses its provider and
 * model is provider-choice.ts.
 */
import type { EventMeta } from './call-context.js';
import {
  extensionDisconnected,
  isPedelecError,
  keepError,
  normalizeError,
  pedelecError,
  protocolError,
  type PedelecError,
} from './errors.js';
import { isObject } from './json.js';
import { lazyModule } from './lazy-module.js';
import { givenProviderAndModel, resolveProviderAndModel } from './provider-choice.js';
import { watchPageActivity, type PageActivity } from './page-activity.js';
import { PendingRequests } from './pending-requests.js';
import { APPROVAL_HELD_REQUESTS, PEDELEC_PROTOCOL_VERSION, randomId, type BridgePort } from './bridge-port.js';
import type { BridgeInboundType, BridgeNotificationType, BridgeRequestType } from './bridge-messages.js';
import {
  availability,
  isLinkDown,
  readApprovalStatus,
  readProviders,
  readSessionReply,
  readSettings,
  type WorkspaceReply,
} from './responses.js';
import {
  readCreateInput,
  readResumeSkills,
  type CreateSessionInput,
  type ResumeSessionOptions,
  type SessionWiring,
} from './session-input.js';
import { PedelecSession, type SessionBridge } from './session.js';
import { type NormalizedSkills, type ToolDefinition, type ToolNameOf } from './tools.js';
import { Toolbox } from './toolbox.js';
import { chromeRuntime, extensionTransport } from './transports/extension.js';
import type {
  ApprovalStatus,
  EffortLevel,
  PedelecAvailability,
  PedelecOptions,
  PedelecSettings,
  ProviderInfo,
} from './types.js';
import { loadWorkspaceCalls, PedelecWorkspace, type WorkspaceBridge } from './workspace.js';

const DEFAULT_BRIDGE_TIMEOUT_MS = 30_000;
const loadDenoModuleSetup = lazyModule(() => import('./deno-module-setup.js'), "the kit's Deno module code");
const UNAVAILABLE = (message = 'Pedelec extension is unavailable.') => pedelecError('EXTENSION_UNAVAILABLE', message);
const TRANSPORT = (failure: unknown) => normalizeError(failure, 'SDK_TRANSPORT_ERROR', 'Pedelec transport error');
const MODEL_NOT_APPLIED = () =>
  protocolError(
    'The connected Pedelec Extension/Desktop does not support explicit model configuration. Update Pedelec components and try again.',
    { feature: 'explicitModelConfig' },
  );

/**
 * Which Pedelec the port reaches, as learned from its answers: a 0.1.x extension refuses the
 * `sdk_hello` handshake (a response with an empty `requestId`), and that refusal arrives before the
 * answer to any later request; today's extension takes the handshake silently.
 */
type Era = 'unknown' | '0.1' | 'current';

/**
 * A message from the bridge, read defensively where it is used; its `type` typed so that comparing it
 * with a name the protocol does not have fails the type check.
 */
type InboundMessage = { type?: BridgeInboundType; [key: string]: unknown };

/**
 * A client of the Pedelec bridge. Construct it where the page asks for the agent; it connects at
 * once, and again on the next request after the connection went away. Every method returns a promise
 * that rejects with a {@link PedelecError}, never throws.
 */
export class Pedelec {
  /** (ours) Messages are routed by this id; other clients on the same port are ignored. */
  readonly channelId = randomId('pedelec');
  #options: PedelecOptions;
  #bridgeTimeoutMs: number;
  #origin: string | null;
  /** Opens a port; null where none can ever be opened (no page context and no transport). */
  #openPort: (() => BridgePort) | null = null;
  #port: BridgePort | null = null;
  /** The ports whose messages and disconnection this client listens to. */
  #heard = new WeakSet<BridgePort>();
  /** Why no port is open: the last connection failed or went away (until a new one opens). */
  #failure: PedelecError | null = null;
  /** (ours) `disconnect()` was called: the client stays closed. */
  #closed = false;
  #era: Era = 'unknown';
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
  #activity: PageActivity = { announce() {}, stop() {} };
  #warnedOnce = new Set<string>();
  /** What the client's sessions and workspaces use of it. */
  #bridge: SessionBridge & WorkspaceBridge = {
    request: <T>(type: BridgeRequestType, payload?: Record<string, unknown>, waitMs?: number) =>
      this.#request<T>(type, payload, waitMs),
    release: (session) => {
      if (this.#sessions.get(session.sessionId) === session) this.unregisterSession(session.sessionId);
    },
    register: (session) => void this.#sessions.set(session.sessionId, session),
    warn: (warning) => this.#warn(warning),
    createSession: (input, workspace) => this.createWiredSession(input, { workspace }),
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
    this.#openPort = options.transport ?? extensionTransport(options.extensionId);
    this.#activity = watchPageActivity((active) => this.#post({ type: 'page_activity', active }));
    try {
      this.#connect();
    } catch {
      // Recorded in #failure: the next request tries again.
    }
  }

  /**
   * The open port, or a new one: with today's handshake — without it, an extension flags the page's
   * SDK as outdated and may open its popup — then the page's activity. Throws when none can be opened.
   */
  #connect(): BridgePort {
    if (this.#port) return this.#port;
    if (!this.#openPort || this.#closed) throw this.#failure ?? UNAVAILABLE();
    let port: BridgePort;
    try {
      port = this.#openPort();
    } catch (thrown) {
      this.#failure = isPedelecError(thrown)
        ? thrown
        : normalizeError(thrown, 'EXTENSION_UNAVAILABLE', 'Pedelec extension is unavailable.');
      throw this.#failure;
    }
    this.#port = port;
    this.#failure = null;
    this.#era = 'unknown';
    // A transport may hand out the same port again (the memory pair does): listened to once.
    if (!this.#heard.has(port)) {
      this.#heard.add(port);
      port.onMessage.addListener((message) => {
        if (port === this.#port) this.#handleMessage(message);
      });
      port.onDisconnect.addListener(() => this.#handleDisconnect(port));
    }
    this.#post({ type: 'sdk_hello', sdkVersion: PEDELEC_PROTOCOL_VERSION });
    this.#activity.announce();
    return port;
  }

  /** Posts a message that is not a request (no answer expected), on the open port only. */
  #post(message: { type: BridgeNotificationType; [key: string]: unknown }): void {
    try {
      this.#port?.postMessage(message);
    } catch {
      // Said by the first request posted after it.
    }
  }

  /** (ours) Why requests cannot reach Pedelec now (no port is open), or null while one is. */
  get unavailableReason(): PedelecError | null {
    return this.#port ? null : (this.#failure ?? UNAVAILABLE());
  }

  /** @internal Whether the extension is a 0.1.x one (it refused the handshake). */
  get legacyExtension(): boolean {
    return this.#era === '0.1';
  }

  // ───────────────────────────── requests ─────────────────────────────

  /**
   * Low-level request: posted synchronously, answered by the matching response, rejected on
   * failure, on timeout (`SDK_BRIDGE_TIMEOUT`) or when the bridge goes away.
   */
  request<T = unknown>(type: string, payload: Record<string, unknown> = {}): Promise<T> {
    // Any type goes out as it is (a newer Pedelec may know more); the kit's own requests are typed below.
    return this.#request<T>(type as BridgeRequestType, payload);
  }

  /**
   * A request of a type the protocol names (a misspelled one fails the type check), which may wait
   * longer than the bridge timeout (`waitMs`): one held for the user's approval.
   */
  #request<T>(type: BridgeRequestType, payload: Record<string, unknown> = {}, waitMs?: number): Promise<T> {
    let port: BridgePort;
    try {
      port = this.#connect();
    } catch (error) {
      return Promise.reject(error);
    }
    const requestId = `sdk_${Date.now()}_${++this.#requestCount}`;
    // The envelope last: a payload cannot re-address the request (its answer would never match).
    const message = { ...payload, channelId: this.channelId, type, requestId };
    const held = waitMs ?? (APPROVAL_HELD_REQUESTS.has(type) ? this.#options.approvalTimeoutMs : undefined);
    // Never shorter than the bridge timeout; a held wait that is not a number does not count.
    const wait = (held as number) > this.#bridgeTimeoutMs ? (held as number) : this.#bridgeTimeoutMs;
    const response = this.#pending.add<T>(requestId, type, wait);
    try {
      port.postMessage(message);
    } catch (thrown) {
      const error = keepError(thrown, extensionDisconnected());
      this.#pending.reject(requestId, error);
      this.#handleDisconnect(port, error);
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
    const { channelId, type, sessionId, ok, error, requestId }: InboundMessage = message;
    // A 0.1.x extension refuses the handshake with a response addressed to nobody.
    if (type === 'response' && !requestId && ok === false) {
      if (this.#era === 'unknown') this.#era = '0.1';
      return;
    }
    if (channelId !== undefined && channelId !== this.channelId) return;
    if (type === 'response') {
      // An answer to a request, with no refusal of the handshake before it: today's extension.
      if (this.#era === 'unknown') this.#era = 'current';
      const { result } = message;
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
      // A transport-wide error, broadcast to every SDK port. Only one that names no session: an
      // error with a malformed session id is garbage, and ignored.
      const failure = TRANSPORT(error);
      [...this.#sessions.values()].forEach((session) => session.handleTransportError(failure));
    }
  }

  /**
   * The port went away (or could not take a message): every session of the client is detached — its
   * turn rejected, its handlers aborted, its later calls `SESSION_ENDED` — then every request waiting
   * on that port is rejected. Nothing is sent again; the next request opens a new port.
   */
  #handleDisconnect(port: BridgePort, error?: PedelecError): void {
    if (port !== this.#port) return;
    const lastError = port.error ?? chromeRuntime()?.lastError;
    const failure = error ?? keepError(lastError, extensionDisconnected(lastError));
    this.#port = null;
    this.#failure = failure;
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    sessions.forEach((session) => session.detachFromTransport(failure));
    this.#pending.rejectAll(failure);
  }

  /**
   * (ours) Closes the connection for good: pending requests and live sessions see a disconnect, and
   * later requests fail. Used by elements releasing a shared client; the public SDK has no such method.
   */
  disconnect(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#activity.stop();
    const port = this.#port;
    if (!port) return;
    try {
      port.disconnect?.();
    } finally {
      this.#handleDisconnect(port);
    }
  }

  // ───────────────────────────── sessions ─────────────────────────────

  /**
   * Creates a session. Without a provider, the user's default one; without a model, Pedelec's effort
   * profile for the provider chooses it (at `effortLevel`).
   */
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
    const { skills, effortLevel } = read;
    this.#warnTools(skills);
    // Checked in the public SDK's order and words before anything is sent; their code loads only here.
    const denoSetup = skills?.denoModules.length ? await loadDenoModuleSetup() : undefined;
    const modules = denoSetup?.readDenoModules(skills!.denoModules) ?? [];
    if (modules.length) skills!.manifest.denoModules = modules.map((module) => module.manifest);
    // Posted at once when nothing needs asking first, as the public SDK posts it.
    const { provider, model } =
      givenProviderAndModel(read, this.legacyExtension) ??
      (await resolveProviderAndModel(
        read,
        () => this.legacyExtension,
        (type) => this.#request(type, {}, wiring.requestTimeoutMs),
      ));
    const legacy = this.legacyExtension;
    const body = legacy
      ? { provider, model, skills: skills?.manifest, autoEndOnDisconnect: read.autoEndOnDisconnect }
      : {
          provider,
          model,
          effort: read.effort,
          effortLevel,
          skills: skills?.manifest,
          ...(wiring.workspace && { workspaceId: wiring.workspace.workspaceId }),
          autoEndOnDisconnect: read.autoEndOnDisconnect,
        };
    const created = this.#request(
      'create_session',
      { input: body, callerSdkVersion: PEDELEC_PROTOCOL_VERSION },
      wiring.requestTimeoutMs,
    );
    return this.#subscribe(async () => {
      const reply = readSessionReply('create_session', await created);
      const { sessionId, workspace } = reply;
      if (wiring.workspace && workspace && workspace.workspaceId !== wiring.workspace.workspaceId)
        throw protocolError('create_session response returned a different Workspace', {
          expectedWorkspaceId: wiring.workspace.workspaceId,
          actualWorkspaceId: workspace.workspaceId,
        });
      // Today's Pedelec says whether it applied the page's model; never run a model it did not ask for.
      if (workspace && read.model !== undefined && reply.explicitModelConfigApplied !== true) {
        await this.#request('abort_session_setup', { sessionId }).catch(() => {});
        throw MODEL_NOT_APPLIED();
      }
      if (modules.length) await denoSetup!.setUpSession(this.#bridge.request, sessionId, modules);
      return this.#adopt(sessionId, {
        provider,
        model,
        effortLevel: legacy ? undefined : effortLevel,
        skills,
        wiring,
        workspace: wiring.workspace ?? this.#workspaceOf(workspace),
        autoEndOnDisconnect: read.autoEndOnDisconnect,
        replaceHandlers: true,
        created: true,
      });
    });
  }

  /**
   * Runs `adopt` once a create or resume response is read. Meanwhile, snapshots of sessions this
   * client does not know yet are kept, so the new handle gets its own.
   */
  async #subscribe<T>(adopt: () => Promise<T>): Promise<T> {
    this.#subscribing++;
    try {
      return await adopt();
    } finally {
      if (--this.#subscribing === 0) this.#earlySnapshots.clear();
    }
  }

  /**
   * Attaches to a session this origin created earlier (e.g. with `autoEndOnDisconnect: false`), after
   * a reload or a lost connection: the handle reflects where the session stands (it is not
   * reactivated: see `session.resume()`).
   */
  resumeSession<const TTools extends readonly ToolDefinition[] = readonly ToolDefinition[]>(
    sessionId: string,
    options: ResumeSessionOptions<TTools> = {},
  ): Promise<PedelecSession<ToolNameOf<TTools>>> {
    // Typed by the names of the tools `options.skills` re-attaches, as createSession's handle is by its tools'.
    return this.resumeWiredSession(sessionId, options, {}) as Promise<PedelecSession<ToolNameOf<TTools>>>;
  }

  /** @internal `resumeSession` for a `<pedelec-session>`: its toolbox, its approval wait. */
  async resumeWiredSession(
    sessionId: string,
    options: ResumeSessionOptions,
    wiring: SessionWiring,
  ): Promise<PedelecSession> {
    const skills = readResumeSkills(sessionId, options);
    this.#warnTools(skills);
    const resumed = this.#request('resume_session', { sessionId }, wiring.requestTimeoutMs);
    return this.#subscribe(async () => {
      const reply = readSessionReply('resume_session', await resumed);
      if (reply.sessionId !== sessionId) throw protocolError('resume_session response did not match sessionId');
      const existing = this.#sessions.get(sessionId);
      if (existing && reply.workspace && existing.workspace.workspaceId !== reply.workspace.workspaceId)
        throw protocolError('resume_session response returned a different Workspace');
      return this.#adopt(sessionId, {
        provider: options.provider ?? '',
        model: options.model,
        effortLevel: undefined,
        skills,
        wiring,
        workspace: this.#workspaceOf(reply.workspace),
        autoEndOnDisconnect: reply.autoEndOnDisconnect ?? false,
        replaceHandlers: !!skills,
        created: false,
      });
    });
  }

  /**
   * Opens a workspace: the folder at `path` on the user's machine (Desktop decides which folders it
   * may open), or — without a path — a folder the user picks: null when they cancel. A pick waits as
   * long as the user takes.
   */
  openWorkspace(): Promise<PedelecWorkspace | null>;
  openWorkspace(path: string): Promise<PedelecWorkspace>;
  async openWorkspace(path?: string): Promise<PedelecWorkspace | null> {
    const reply = await (await loadWorkspaceCalls()).openWorkspace(this.#bridge.request, path);
    return reply && this.#workspaceOf(reply);
  }

  /** A reply's workspace, or — from a 0.1.x extension, which has none — one whose methods say so. */
  #workspaceOf(reply: WorkspaceReply | null): PedelecWorkspace {
    return new PedelecWorkspace(this.#bridge, reply?.workspaceId ?? '', reply?.path ?? null);
  }

  /**
   * The handle for a session: the one this client holds for that id (`replaceHandlers`: with the new
   * tools), or a new one.
   */
  #adopt(
    sessionId: string,
    init: {
      provider: string;
      model: string | undefined;
      effortLevel: EffortLevel | undefined;
      skills: NormalizedSkills | undefined;
      wiring: SessionWiring;
      workspace: PedelecWorkspace;
      autoEndOnDisconnect: boolean;
      replaceHandlers: boolean;
      /** Made by `createSession` (not a resume). */
      created: boolean;
    },
  ): PedelecSession {
    const { skills, wiring, replaceHandlers } = init;
    let session = this.#sessions.get(sessionId);
    // A create that names an ended session's id starts a session of its own (a resume reattaches to it).
    if (session && init.created && session.getStatus() === 'ended') session = undefined;
    const { validateArgs, onApproval } = this.#options;
    const toolbox = session?.toolbox ?? wiring.toolbox ?? new Toolbox(validateArgs !== false, onApproval);
    // A wired toolbox (the elements') was given its tools as built, approvals included: the manifest
    // read back from the skills would lose what never goes to Core.
    if ((!session || replaceHandlers) && toolbox !== wiring.toolbox) toolbox.setTools(skills?.tools ?? []);
    if (session) return session;
    session = new PedelecSession<string>(this.#bridge, { ...init, sessionId, toolbox });
    this.#sessions.set(sessionId, session);
    const early = this.#earlySnapshots.get(sessionId);
    this.#earlySnapshots.delete(sessionId);
    if (early) session.handleEvent(...early);
    return session;
  }

  /**
   * Forgets the handle of `sessionId`: what arrives for that session is no longer routed to it. A
   * session unregisters itself when the page ends it.
   */
  unregisterSession(sessionId: string): void {
    this.#sessions.delete(sessionId);
  }

  // ───────────────────────────── information ─────────────────────────────

  /**
   * The providers Desktop knows, validated; extra fields are dropped. `isDefault` comes from the
   * extension, or — from one that does not say — from the settings.
   */
  async listProviders(): Promise<ProviderInfo[]> {
    const { providers, complete } = readProviders(await this.#request('list_providers'));
    if (complete) return providers;
    const { defaultProvider } = readSettings(await this.#request('get_settings'));
    return providers.map((provider) => ({ ...provider, isDefault: provider.code === defaultProvider }));
  }

  /** The user's default provider — and nothing else the extension may include. */
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

  /** What the tools' schemas leave unvalidated or ignore: each warning once per client. */
  #warnTools(skills: NormalizedSkills | undefined): void {
    skills?.tools.forEach((tool) =>
      tool.warnings.forEach((warning) => {
        const key = `${warning.code}:${warning.message}`;
        if (this.#warnedOnce.has(key)) return;
        this.#warnedOnce.add(key);
        this.#warn(warning);
      }),
    );
  }
}
