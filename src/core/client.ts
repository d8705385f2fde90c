/**
 * `Pedelec`: the client of the bridge — sessions, workspaces, information — over its connection
 * (port-connection.ts: the port, the handshake, requests and their answers), which it routes session
 * events from (docs/design/sdk-api.md, sdk-0.4.md, bridge-protocol.md). How a create chooses its
 * provider and model is provider-choice.ts.
 */
import type { EventMeta } from './call-context.js';
import { PortConnection, type InboundMessage } from './port-connection.js';
import { normalizeError, protocolError, type PedelecError } from './errors.js';
import { lazyModule } from './lazy-module.js';
import { givenProviderAndModel, resolveProviderAndModel } from './provider-choice.js';
import { PEDELEC_PROTOCOL_VERSION } from './bridge-port.js';
import type { BridgeRequestType } from './bridge-messages.js';
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
  type SessionBridge,
  type SessionWiring,
} from './session-input.js';
import { PedelecSession } from './session.js';
import { type NormalizedSkills, type ToolDefinition, type ToolNameOf } from './tools.js';
import { Toolbox } from './toolbox.js';
import type {
  ApprovalStatus,
  EffortLevel,
  PedelecAvailability,
  PedelecOptions,
  PedelecSettings,
  ProviderInfo,
} from './types.js';
import { loadWorkspaceCalls, PedelecWorkspace, type WorkspaceBridge } from './workspace.js';

const loadDenoModuleSetup = lazyModule(() => import('./deno-module-setup.js'), "the kit's Deno module code");
const TRANSPORT = (failure: unknown) => normalizeError(failure, 'SDK_TRANSPORT_ERROR', 'Pedelec transport error');
const MODEL_NOT_APPLIED = () =>
  protocolError(
    'The connected Pedelec Extension/Desktop does not support explicit model configuration. Update Pedelec components and try again.',
    { feature: 'explicitModelConfig' },
  );

/**
 * A client of the Pedelec bridge. Construct it where the page asks for the agent; it connects at
 * once, and again on the next request after the connection went away. Every method returns a promise
 * that rejects with a {@link PedelecError}, never throws.
 */
export class Pedelec extends PortConnection {
  #options: PedelecOptions;
  #origin: string | null;
  #sessions = new Map<string, PedelecSession<string>>();
  /**
   * Snapshots for sessions this client has no handle for yet: the extension may send a session's
   * snapshot before the create/resume response that makes its handle. Kept only while such a
   * request is in flight (`#subscribing` counts them), and handed to the handle when it is made.
   */
  #earlySnapshots = new Map<string, [message: Record<string, unknown>, meta: EventMeta]>();
  #subscribing = 0;
  #warnedOnce = new Set<string>();
  /** What the client's sessions and workspaces use of it. */
  #bridge: SessionBridge & WorkspaceBridge = {
    request: <T>(type: BridgeRequestType, payload?: Record<string, unknown>, waitMs?: number) =>
      this.send<T>(type, payload, waitMs),
    release: (session) => {
      if (this.#sessions.get(session.sessionId) === session) this.unregisterSession(session.sessionId);
    },
    register: (session) => void this.#sessions.set(session.sessionId, session),
    warn: (warning) => this.#warn(warning),
    createSession: (input, workspace) => this.createWiredSession(input, { workspace }),
  };

  constructor(options: PedelecOptions = {}) {
    super(options);
    this.#options = options;
    const win = (globalThis as { window?: { location?: { origin?: string } } }).window;
    this.#origin = typeof win?.location?.origin === 'string' ? win.location.origin : null;
  }

  protected override receive(message: InboundMessage, meta: EventMeta): void {
    const { type, sessionId, error } = message;
    if (typeof sessionId === 'string') {
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
   * Every session of the client is detached — its turn rejected, its handlers aborted, its later calls
   * `SESSION_ENDED` — before the requests waiting on the port are rejected.
   */
  protected override lost(failure: PedelecError): void {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    sessions.forEach((session) => session.detachFromTransport(failure));
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
        (type) => this.send(type, {}, wiring.requestTimeoutMs),
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
    const created = this.send(
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
        await this.send('abort_session_setup', { sessionId }).catch(() => {});
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
    const resumed = this.send('resume_session', { sessionId }, wiring.requestTimeoutMs);
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
    const { providers, complete } = readProviders(await this.send('list_providers'));
    if (complete) return providers;
    const { defaultProvider } = readSettings(await this.send('get_settings'));
    return providers.map((provider) => ({ ...provider, isDefault: provider.code === defaultProvider }));
  }

  /** The user's default provider — and nothing else the extension may include. */
  async getSettings(): Promise<PedelecSettings> {
    return readSettings(await this.send('get_settings'));
  }

  /** Whether the extension is installed, this origin approved, and Desktop connected. Never rejects for a missing extension. */
  async getApprovalStatus(): Promise<ApprovalStatus> {
    let result: Record<string, unknown> | undefined;
    try {
      result = await this.send('get_approval_status');
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
