/**
 * `Pedelec`: one connection to the bridge — requests and responses, event routing, sessions
 * (spec/sdk-api.md, bridge-protocol.md).
 */
import { isPedelecError, normalizeError, pedelecError, type PedelecError } from './errors.js';
import { APPROVAL_HELD_REQUESTS, randomId, type BridgePort } from './protocol.js';
import { PedelecSession, type SessionBridge } from './session.js';
import { normalizeSkills, Toolbox, type NormalizedSkills, type SkillsInput, type ToolDefinition, type ToolNameOf } from './tools.js';
import { chromeRuntime, extensionTransport } from './transports/extension.js';
import type { ApprovalStatus, PedelecAvailability, PedelecOptions, PedelecSettings, ProviderCode, ProviderInfo } from './types.js';

/**
 * What `createSession` takes. A union, so that `model` without `provider` is a compile error.
 */
export type CreateSessionInput<TTools extends readonly ToolDefinition[] = readonly ToolDefinition[]> =
  | { provider?: undefined; model?: undefined; skills?: SkillsInput<TTools>; autoEndOnDisconnect?: boolean }
  | { provider: ProviderCode; model?: string; skills?: SkillsInput<TTools>; autoEndOnDisconnect?: boolean };

/** (ours) Options for `resumeSession`: what Core does not return, and the page's handlers. */
export type ResumeSessionOptions<TTools extends readonly ToolDefinition[] = readonly ToolDefinition[]> = {
  provider?: ProviderCode;
  model?: string;
  /** Re-attaches inline handlers and validators; nothing is sent (Core keeps the manifest it has). */
  skills?: SkillsInput<TTools>;
};

/** @internal How a `<pedelec-session>` shares its toolbox with the sessions it creates. */
export type SessionWiring = { toolbox?: Toolbox; requestTimeoutMs?: number };

type Pending = {
  type: string;
  resolve(value: unknown): void;
  reject(error: PedelecError): void;
  timer: ReturnType<typeof setTimeout>;
};

const DEFAULT_BRIDGE_TIMEOUT_MS = 30_000;
const UNAVAILABLE = (message = 'Pedelec extension is unavailable.') => pedelecError('EXTENSION_UNAVAILABLE', message);
const DISCONNECTED = () => pedelecError('EXTENSION_DISCONNECTED', 'Pedelec extension disconnected.');
const isLinkDown = (error: PedelecError) => error.code === 'EXTENSION_UNAVAILABLE' || error.code === 'EXTENSION_DISCONNECTED';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A client of the Pedelec bridge. Construct it where the page asks for the agent; it connects at
 * once. Every method returns a promise that rejects with a {@link PedelecError}, never throws.
 */
export class Pedelec {
  /** (ours) Messages are routed by this id; other clients on the same port are ignored. */
  readonly channelId = randomId('pedelec');
  private readonly options: PedelecOptions;
  private readonly bridgeTimeoutMs: number;
  private readonly pageOrigin: string | null;
  private port: BridgePort | null = null;
  /** Set once the client can no longer talk: unavailable from the start, or disconnected. */
  private failure: PedelecError | null = null;
  private requestCount = 0;
  private readonly pending = new Map<string, Pending>();
  private readonly sessions = new Map<string, PedelecSession<string>>();
  private readonly warnedOnce = new Set<string>();
  private readonly sessionBridge: SessionBridge;

  constructor(options: PedelecOptions = {}) {
    this.options = options;
    const timeout = Number(options.bridgeTimeoutMs ?? DEFAULT_BRIDGE_TIMEOUT_MS);
    this.bridgeTimeoutMs = Number.isNaN(timeout) ? DEFAULT_BRIDGE_TIMEOUT_MS : Math.max(1, timeout);
    this.sessionBridge = {
      request: (type, payload) => this.request(type, payload),
      release: (session) => {
        if (this.sessions.get(session.sessionId) === session) this.sessions.delete(session.sessionId);
      },
      warn: (warning) => this.warn(warning),
    };
    const win = (globalThis as { window?: { location?: { origin?: string } } }).window;
    this.pageOrigin = typeof win?.location?.origin === 'string' ? win.location.origin : null;
    // A page context is required, unless (ours) a transport is given: Node tools may then connect.
    if (typeof win === 'undefined' && !options.transport) {
      this.failure = UNAVAILABLE('Pedelec SDK must run in a browser page context.');
      return;
    }
    try {
      const port = (options.transport ?? extensionTransport(options.extensionId))();
      port.onMessage.addListener((message) => this.handleMessage(message));
      port.onDisconnect.addListener(() => this.handleDisconnect(port));
      this.port = port;
    } catch {
      this.failure = UNAVAILABLE();
    }
  }

  /** (ours) The error every request gets now, or null while the bridge is usable. */
  get unavailableReason(): PedelecError | null {
    return this.failure;
  }

  // ───────────────────────────── requests ─────────────────────────────

  /**
   * Low-level request: posted synchronously, answered by the matching response, rejected on
   * failure, on timeout (`SDK_BRIDGE_TIMEOUT`) or when the bridge goes away.
   */
  request<T = unknown>(type: string, payload: Record<string, unknown> = {}, /** @internal */ timeoutOverrideMs?: number): Promise<T> {
    const port = this.port;
    if (this.failure || !port) return Promise.reject(this.failure ?? UNAVAILABLE());
    const requestId = `sdk_${Date.now()}_${++this.requestCount}`;
    const message = { channelId: this.channelId, type, requestId, ...payload };
    const approvalWait = APPROVAL_HELD_REQUESTS.has(type) ? this.options.approvalTimeoutMs : undefined;
    const wait = timeoutOverrideMs ?? approvalWait;
    const timeoutMs = wait !== undefined && wait > this.bridgeTimeoutMs ? wait : this.bridgeTimeoutMs;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.pending.delete(requestId)) {
          reject(pedelecError('SDK_BRIDGE_TIMEOUT', 'Pedelec extension did not respond.', { requestId, type }));
        }
      }, timeoutMs);
      this.pending.set(requestId, { type, resolve: resolve as (value: unknown) => void, reject, timer });
      try {
        port.postMessage(message);
      } catch (thrown) {
        clearTimeout(timer);
        this.pending.delete(requestId);
        reject(isPedelecError(thrown) ? normalizeError(thrown, '', '') : DISCONNECTED());
      }
    });
  }

  private handleMessage(message: unknown): void {
    if (!isPlainObject(message)) return;
    const receivedAt = Date.now();
    if (message.channelId !== undefined && message.channelId !== this.channelId) return;
    if (message.type === 'response') {
      const pending = typeof message.requestId === 'string' ? this.pending.get(message.requestId) : undefined;
      if (!pending) return;
      this.pending.delete(message.requestId as string);
      clearTimeout(pending.timer);
      if (message.ok === true) pending.resolve(message.result === undefined ? {} : message.result);
      else pending.reject(isPedelecError(message.error) ? normalizeError(message.error, '', '') : pedelecError('SDK_TRANSPORT_ERROR', 'SDK transport request failed', message.error));
      return;
    }
    if (typeof message.sessionId === 'string') {
      this.sessions.get(message.sessionId)?.handleEvent(message, receivedAt);
      return;
    }
    if (message.type === 'error') {
      // A transport-wide error, broadcast to every SDK port: every live session's turn fails.
      const error = normalizeError(message.error, 'SDK_TRANSPORT_ERROR', 'Pedelec transport error');
      [...this.sessions.values()].forEach((session) => session.handleTransportError(error, false));
    }
  }

  private handleDisconnect(port: BridgePort): void {
    if (this.port !== port || this.failure) return;
    const lastError = port.error ?? chromeRuntime()?.lastError;
    const error = isPedelecError(lastError)
      ? normalizeError(lastError, '', '')
      : lastError === undefined
        ? DISCONNECTED()
        : pedelecError('EXTENSION_DISCONNECTED', 'Pedelec extension disconnected.', lastError);
    this.failure = error;
    const pending = [...this.pending.values()];
    this.pending.clear();
    pending.forEach((p) => {
      clearTimeout(p.timer);
      p.reject(error);
    });
    [...this.sessions.values()].forEach((session) => session.handleTransportError(error, true));
  }

  /**
   * (ours) Closes the connection: pending requests and live sessions see a disconnect. Used by
   * elements releasing a shared client; the public SDK has no such method.
   */
  disconnect(): void {
    const port = this.port;
    if (!port || this.failure) return;
    try {
      port.disconnect?.();
    } finally {
      this.handleDisconnect(port);
    }
  }

  // ───────────────────────────── sessions ─────────────────────────────

  /** Creates a session (resolving the default provider and model when not given). */
  createSession(): Promise<PedelecSession<string>>;
  createSession<const TTools extends readonly ToolDefinition[] = readonly ToolDefinition[]>(
    input: CreateSessionInput<TTools>,
    wiring?: SessionWiring,
  ): Promise<PedelecSession<ToolNameOf<TTools>>>;
  createSession(input: CreateSessionInput = {}, wiring: SessionWiring = {}): Promise<PedelecSession<string>> {
    let skills: NormalizedSkills | undefined;
    try {
      if (!isPlainObject(input)) throw pedelecError('INVALID_INPUT', 'createSession input must be an object');
      skills = normalizeSkills(input.skills);
      if (input.model !== undefined && input.provider === undefined) {
        throw pedelecError('INVALID_INPUT', 'model cannot be provided without provider');
      }
    } catch (error) {
      return Promise.reject(normalizeError(error, 'INVALID_INPUT', 'createSession input is invalid'));
    }
    skills?.tools.forEach((tool) => tool.warnings.forEach((w) => this.warnOnce(w)));

    const wait = wiring.requestTimeoutMs;
    const create = (provider: string, model: string | undefined) =>
      this.request<Record<string, unknown>>(
        'create_session',
        { input: { provider, model, skills: skills?.manifest, autoEndOnDisconnect: input.autoEndOnDisconnect !== false } },
        wait,
      ).then((result) => {
        const sessionId = result?.sessionId;
        if (typeof sessionId !== 'string' || sessionId === '') {
          throw pedelecError('SDK_PROTOCOL_ERROR', 'create_session response did not include sessionId');
        }
        return this.adopt(sessionId, provider, model, skills, wiring.toolbox, true);
      });

    const { provider, model } = input;
    if (provider !== undefined && model !== undefined) return create(provider, model);
    if (provider !== undefined) return this.getSettings().then((settings) => create(provider, settings.defaultModels[provider]));
    return this.getSettings().then((settings) => {
      const fallback = settings.defaultProvider;
      if (fallback === null) throw pedelecError('DEFAULT_PROVIDER_NOT_SET', 'No default provider is set in Pedelec.');
      return this.listProviders().then((providers) => {
        const info = providers.find((p) => p.code === fallback);
        if (!info || !info.available) {
          throw pedelecError('DEFAULT_PROVIDER_UNAVAILABLE', `The default provider ${fallback} is not available.`, { provider: fallback });
        }
        return create(fallback, settings.defaultModels[fallback]);
      });
    });
  }

  /** Re-attaches to a session this origin created earlier (e.g. with `autoEndOnDisconnect: false`). */
  resumeSession<const TTools extends readonly ToolDefinition[] = readonly ToolDefinition[]>(
    sessionId: string,
    options: ResumeSessionOptions<TTools> = {},
    wiring: SessionWiring = {},
  ): Promise<PedelecSession<ToolNameOf<TTools>>> {
    if (typeof sessionId !== 'string' || sessionId.trim() === '') {
      return Promise.reject(pedelecError('INVALID_INPUT', 'sessionId must be a non-empty string'));
    }
    let skills: NormalizedSkills | undefined;
    try {
      skills = normalizeSkills(options.skills);
    } catch (error) {
      return Promise.reject(normalizeError(error, 'INVALID_INPUT', 'resumeSession options are invalid'));
    }
    return this.request<Record<string, unknown>>('resume_session', { sessionId }, wiring.requestTimeoutMs).then((result) => {
      const id = typeof result?.sessionId === 'string' && result.sessionId !== '' ? result.sessionId : sessionId;
      return this.adopt(id, options.provider ?? '', options.model, skills, wiring.toolbox, skills !== undefined) as PedelecSession<ToolNameOf<TTools>>;
    });
  }

  private adopt(
    sessionId: string,
    provider: string,
    model: string | undefined,
    skills: NormalizedSkills | undefined,
    toolbox: Toolbox | undefined,
    replaceHandlers: boolean,
  ): PedelecSession<string> {
    const tools = skills?.tools ?? [];
    const existing = this.sessions.get(sessionId);
    if (existing) {
      if (replaceHandlers) existing.toolbox.setTools(tools);
      return existing;
    }
    const box = toolbox ?? new Toolbox(this.options.validateArgs !== false);
    box.setTools(tools);
    const session = new PedelecSession<string>(this.sessionBridge, { sessionId, provider, model, toolbox: box });
    this.sessions.set(sessionId, session);
    return session;
  }

  // ───────────────────────────── information ─────────────────────────────

  /** The providers Desktop knows, validated; extra fields are dropped. */
  listProviders(): Promise<ProviderInfo[]> {
    return this.request('list_providers').then((result) => {
      if (!Array.isArray(result)) throw pedelecError('SDK_PROTOCOL_ERROR', 'list_providers response was not an array');
      return result.map((item: unknown) => {
        const p = item as Record<string, unknown>;
        if (
          !isPlainObject(item) ||
          typeof p.name !== 'string' ||
          p.name === '' ||
          typeof p.code !== 'string' ||
          p.code === '' ||
          typeof p.available !== 'boolean' ||
          !(typeof p.error === 'string' || p.error === null)
        ) {
          throw pedelecError('SDK_PROTOCOL_ERROR', 'list_providers response had invalid provider data');
        }
        return { name: p.name, code: p.code, available: p.available, error: p.error as string | null };
      });
    });
  }

  /** The user's default provider and models — and nothing else the extension may include. */
  getSettings(): Promise<PedelecSettings> {
    return this.request('get_settings').then((result) => {
      const r = result as Record<string, unknown>;
      const models = isPlainObject(result) ? r.defaultModels : undefined;
      const validProvider = r?.defaultProvider === null || (typeof r?.defaultProvider === 'string' && r.defaultProvider !== '');
      if (!validProvider || !isPlainObject(models) || !Object.values(models).every((m) => typeof m === 'string')) {
        throw pedelecError('SDK_PROTOCOL_ERROR', 'get_settings response had invalid shape');
      }
      return { defaultProvider: r.defaultProvider as ProviderCode | null, defaultModels: { ...(models as Record<string, string>) } };
    });
  }

  /** Whether the extension is installed, this origin approved, and Desktop connected. Never rejects for a missing extension. */
  getApprovalStatus(): Promise<ApprovalStatus> {
    const notInstalled = (): ApprovalStatus => ({ installed: false, approved: false, origin: this.pageOrigin, appConnected: false });
    if (this.failure && isLinkDown(this.failure)) return Promise.resolve(notInstalled());
    return this.request<Record<string, unknown>>('get_approval_status').then(
      (r) => ({
        installed: r?.installed !== false,
        approved: r?.approved === true,
        origin: typeof r?.origin === 'string' ? r.origin : null,
        appConnected: r?.appConnected === true,
      }),
      (error: PedelecError) => {
        if (isLinkDown(error)) return notInstalled();
        throw error;
      },
    );
  }

  /** Everything a page needs to tell the user what to do next. Never rejects; at most two requests. */
  checkAvailability(): Promise<PedelecAvailability> {
    const origin = this.pageOrigin;
    return this.getApprovalStatus().then(
      (status): PedelecAvailability | Promise<PedelecAvailability> => {
        const approvalOrigin = status.origin ?? origin;
        if (!status.installed) {
          return {
            available: false,
            extension: { available: false },
            approval: { approved: false, origin: approvalOrigin },
            desktop: { available: false, launchAttempted: false },
          };
        }
        if (!status.approved) {
          return {
            available: false,
            extension: { available: true },
            approval: { approved: false, origin: approvalOrigin },
            desktop: { available: status.appConnected, launchAttempted: true },
          };
        }
        return this.getSettings().then(
          () => ({
            available: true,
            extension: { available: true },
            approval: { approved: true, origin: approvalOrigin },
            desktop: { available: true, launchAttempted: true },
          }),
          (failure: unknown) => ({
            available: false,
            extension: { available: true },
            approval: { approved: true, origin: approvalOrigin },
            desktop: { available: false, launchAttempted: true },
            error: normalizeError(failure, 'SDK_TRANSPORT_ERROR', 'Pedelec transport error'),
          }),
        );
      },
      (failure: unknown) => {
        const error = normalizeError(failure, 'SDK_TRANSPORT_ERROR', 'Pedelec transport error');
        return {
          available: false,
          extension: { available: !isLinkDown(error) },
          approval: { approved: false, origin },
          desktop: { available: false, launchAttempted: false },
          error,
        };
      },
    );
  }

  // ───────────────────────────── warnings ─────────────────────────────

  private warn(warning: PedelecError): void {
    if (this.options.debug) console.warn(`[pedelec] ${warning.code}: ${warning.message}`);
    try {
      this.options.onWarning?.(warning);
    } catch {
      // A warning sink that throws has nowhere further to report to.
    }
  }

  private warnOnce(warning: PedelecError): void {
    const key = `${warning.code}:${warning.message}`;
    if (this.warnedOnce.has(key)) return;
    this.warnedOnce.add(key);
    this.warn(warning);
  }
}
