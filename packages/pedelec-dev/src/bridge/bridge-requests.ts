/**
 * What the Core answers to each request type a page may send on `/bridge` (bridge-protocol.md §2):
 * one handler per type, from the approval questions to sessions, turns, tool results and assets.
 * Kept apart from bridge.ts, which owns the connection itself (frames in arrival order, fairness
 * between pages, responses and events going out): a new request type is a change here alone.
 */
import { isModuleName, isPlainObject, type BridgeRequestType } from 'pedelec-elements/protocol';
import type { BridgeConnection } from './bridge.js';
import { DevCoreError } from '../errors.js';
import { checkSkills } from './manifest.js';
import { operationIdFor, type ProtocolProfile } from './protocol-profile.js';
import type { DevSession, SessionWorkspace } from './session.js';
import { agentWorkspace } from '../workspaces/agent-workspace.js';
import { WORKSPACE_HANDLERS } from './workspace-requests.js';

export type Request = { channelId: string; requestId: string; type: string } & Record<string, unknown>;
/** A handler returns the result; `after` runs once the response is out (a turn's first event follows it). */
export type Handler = (this: BridgeConnection, req: Request, after: Array<() => void>) => unknown;

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

/** Today's effort profiles (profile mode) and a model's native efforts (explicit mode). */
const EFFORT_LEVELS: readonly string[] = ['default', 'low', 'high'];
const EFFORTS: readonly string[] = ['low', 'medium', 'high', 'xhigh', 'max'];

/** One of `allowed`, or absent (`undefined`, `null`); anything else is refused naming the choices. */
function optionalChoice(input: Record<string, unknown>, key: string, allowed: readonly string[]): string | undefined {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !allowed.includes(value))
    throw new DevCoreError('INVALID_INPUT', `input.${key} must be one of ${allowed.join(', ')}`);
  return value;
}

/** How the page chose its model: `model` named (explicit mode), or an effort profile. */
type ModelChoice = { model: string | undefined; effortLevel: string | undefined; effort: string | undefined };

/**
 * `create_session`'s model choice as today's Core reads it: explicit mode — a non-blank `model`
 * (trimmed) with an optional `effort`, never `effortLevel`; profile mode — no `model`, no `effort`, an
 * `effortLevel` that is `default` when not given.
 */
function modelChoice(input: Record<string, unknown>): ModelChoice {
  const given = optionalString(input, 'model');
  if (given !== undefined) {
    const model = given.trim();
    if (model === '')
      throw new DevCoreError('INVALID_INPUT', 'input.model must not be blank; leave it out to use the default');
    if (input.effortLevel !== undefined && input.effortLevel !== null) {
      throw new DevCoreError(
        'INVALID_INPUT',
        'input.model and input.effortLevel cannot be combined: give effort with an explicit model',
      );
    }
    return { model, effortLevel: undefined, effort: optionalChoice(input, 'effort', EFFORTS) };
  }
  if (input.effort !== undefined && input.effort !== null) {
    throw new DevCoreError(
      'INVALID_INPUT',
      'input.effort needs input.model (explicit mode); without a model, choose a profile with input.effortLevel',
    );
  }
  return {
    model: undefined,
    effortLevel: optionalChoice(input, 'effortLevel', EFFORT_LEVELS) ?? 'default',
    effort: undefined,
  };
}

/** The session's workspace as a reply carries it (a copy: the page's reply is not the session's object). */
function workspaceOf(session: DevSession): { workspace: SessionWorkspace } | Record<never, never> {
  return session.workspace ? { workspace: { ...session.workspace } } : {};
}

/** The Deno modules a `create_session` manifest declares (their sources come in the setup that follows). */
function declaredModules(skills: unknown): string[] {
  const modules = isPlainObject(skills) ? skills.denoModules : undefined;
  if (modules === undefined) return [];
  if (!Array.isArray(modules)) throw new DevCoreError('INVALID_INPUT', 'skills.denoModules must be an array');
  return modules.map((module: unknown, index) => {
    const { name, description, usage } = isPlainObject(module) ? module : {};
    if (!isModuleName(name))
      throw new DevCoreError('DENO_MODULE_NAME_INVALID', 'Deno Module name is invalid', { index, moduleName: name });
    const filled = (text: unknown) => typeof text === 'string' && text.trim() !== '';
    if (!filled(description) || !filled(usage))
      throw new DevCoreError('INVALID_INPUT', 'Deno Module description and usage must be non-empty strings', {
        moduleName: name,
      });
    return name;
  });
}

/** Refuses a turn in a session whose Deno modules are not all set up (`complete_session_setup` not done). */
function checkSetUp(this: BridgeConnection, session: DevSession): void {
  if (this.deps.denoModules.setupIncomplete(session.id))
    throw new DevCoreError('DENO_MODULE_SETUP_INCOMPLETE', 'The session’s Deno modules are not all set up yet', {
      sessionId: session.id,
    });
}

/** Request types only today's protocol knows; with 0.1 they are unknown, like any other. */
const CURRENT_ONLY: ReadonlySet<string> = new Set<BridgeRequestType>([
  'reactivate_session',
  'abort_session_setup',
  'complete_session_setup',
  'create_deno_module_upload',
  ...(Object.keys(WORKSPACE_HANDLERS) as BridgeRequestType[]),
]);

/** The handler of a request type in `protocol`, or undefined (refused `UNKNOWN_REQUEST_TYPE`). */
export function handlerFor(type: string, protocol: ProtocolProfile): Handler | undefined {
  if (CURRENT_ONLY.has(type) && !protocol.reactivation) return undefined;
  return REQUEST_HANDLERS.get(type);
}

/**
 * One handler per request type the protocol names (pedelec-elements/protocol): a handler for a name it
 * does not know, or a name left without one, fails the type check.
 */
const HANDLERS = {
  get_approval_status() {
    return {
      installed: true,
      approved: this.deps.approvals.isApproved(this.origin),
      origin: this.origin,
      appConnected: true,
    };
  },
  get_settings() {
    const { defaultProvider, defaultModels } = this.deps.agents.settings();
    return this.deps.protocol.settingsHaveDefaultModels ? { defaultProvider, defaultModels } : { defaultProvider };
  },
  list_providers() {
    const providers = this.deps.agents.providers();
    if (!this.deps.protocol.providersHaveIsDefault) return providers;
    return providers.map((p) => ({ ...p, isDefault: p.code === this.deps.agents.selectedCode }));
  },
  create_session(req, after) {
    const input = req.input;
    if (!isPlainObject(input)) throw new DevCoreError('INVALID_INPUT', 'input must be an object');
    // A top-level `callerSdkVersion` (today's SDK) is informational: nothing depends on it.
    const { protocol, workspaces } = this.deps;
    // Today's Core serves a page that names no provider with the default one; 0.1 needs one.
    const provider =
      protocol.checksModelChoice && (input.provider === undefined || input.provider === null)
        ? this.deps.agents.selectedCode
        : input.provider;
    if (typeof provider !== 'string' || provider === '')
      throw new DevCoreError('INVALID_INPUT', 'input.provider must be a non-empty string');
    const { model, effortLevel, effort } = protocol.checksModelChoice
      ? modelChoice(input)
      : {
          model: optionalString(input, 'model'),
          effortLevel: optionalString(input, 'effortLevel'),
          effort: optionalString(input, 'effort'),
        };
    const skills = checkSkills(input.skills, this.deps.patterns);
    const modules = protocol.sessionWorkspaces ? declaredModules(input.skills) : [];
    const agent = this.deps.agents.resolve(provider, this.deps.strictProviders);
    // The page's workspace (`workspace.createSession`), or a new managed one.
    const opened = input.workspaceId !== undefined && protocol.sessionWorkspaces;
    const workspace = !protocol.sessionWorkspaces
      ? null
      : opened
        ? workspaces.use(input.workspaceId, this.origin)
        : workspaces.managed(this.origin);
    let session: DevSession;
    try {
      session = this.deps.registry.create(
        {
          origin: this.origin,
          provider,
          model: model ?? agent.defaultModel,
          explicitModel: model !== undefined,
          effortLevel,
          effort,
          agent,
          autoEndOnDisconnect: input.autoEndOnDisconnect !== false,
          skills,
          defaultToolTimeoutMs: this.deps.defaultToolTimeoutMs,
          protocol: this.deps.protocol,
          writeAsset: (sessionId, path, content, mimeType) =>
            this.deps.assets.writeFile(sessionId, path, content, mimeType),
          workspace: workspace && { workspaceId: workspace.id, path: workspace.path },
          agentWorkspace:
            workspace &&
            agentWorkspace({
              workspace,
              deno: this.deps.deno,
              importMap: () => this.deps.denoModules.sessionImportMap(session.id),
            }),
          released: () => {
            this.deps.denoModules.dropSession(session.id);
            if (workspace && !opened) void workspaces.dropManaged(workspace.id);
          },
        },
        this,
        req.channelId,
      );
    } catch (error) {
      if (workspace && !opened) void workspaces.dropManaged(workspace.id);
      throw error;
    }
    if (workspace) this.deps.denoModules.declareSession(session.id, workspace.folder, modules);
    after.push(() => session.sendSnapshot(this, req.channelId));
    if (!protocol.sessionWorkspaces) return { sessionId: session.id };
    // SDK 0.4.6 aborts the setup of an explicit-model session unless Core says the model was applied.
    return {
      sessionId: session.id,
      ...workspaceOf(session),
      ...(model !== undefined && { explicitModelConfigApplied: true }),
    };
  },
  resume_session(req, after) {
    const session = this.deps.registry.resume(req.sessionId, this, req.channelId, this.origin);
    after.push(() => session.sendSnapshot(this, req.channelId));
    if (!this.deps.protocol.sessionWorkspaces) return { sessionId: session.id };
    return { sessionId: session.id, ...workspaceOf(session), autoEndOnDisconnect: session.autoEndOnDisconnect };
  },
  reactivate_session(req) {
    const { autoEndOnDisconnect } = req;
    if (autoEndOnDisconnect !== undefined && typeof autoEndOnDisconnect !== 'boolean')
      throw new DevCoreError('INVALID_INPUT', 'autoEndOnDisconnect must be a boolean');
    const session = this.deps.registry.reactivate(req.sessionId, this, req.channelId, this.origin, autoEndOnDisconnect);
    // Before the response, unlike create and resume: SDK 0.4.6 checks that the idle snapshot came first.
    // A session that had not ended gets where it stands (the SDK sends this only for ended handles).
    session.sendSnapshot(this, req.channelId);
    return { sessionId: session.id };
  },
  abort_session_setup(req) {
    // Nothing to abort (unknown, or already forgotten) is still ok: the SDK sends this best-effort,
    // awaits it and ignores the answer, and an abort repeated after a lost response must not fail.
    this.deps.registry.abortSetup(req.sessionId, this, req.channelId, this.origin);
    return {};
  },
  prepare_session(req, after) {
    const session = this.deps.registry.forRoute(req.sessionId, this, req.channelId);
    checkSetUp.call(this, session);
    after.push(session.reserveTurn('prepare', '', operationIdFor(this.deps.protocol, req.operationId)));
    return {};
  },
  send_text(req, after) {
    const session = this.deps.registry.forRoute(req.sessionId, this, req.channelId);
    if (typeof req.text !== 'string') throw new DevCoreError('INVALID_INPUT', 'text must be a string');
    checkSetUp.call(this, session);
    after.push(session.reserveTurn('user', req.text, operationIdFor(this.deps.protocol, req.operationId)));
    return {};
  },
  submit_tool_result(req) {
    const session = this.deps.registry.forRoute(req.sessionId, this, req.channelId);
    session.submitToolResult(requireString(req, 'toolRequestId'), req.result);
    return {};
  },
  end_session(req) {
    this.deps.registry.forRoute(req.sessionId, this, req.channelId).end({ sink: this, channelId: req.channelId });
    return {};
  },
  async list_assets(req) {
    const session = this.deps.registry.forRoute(req.sessionId, this, req.channelId);
    return { assets: await this.deps.assets.list(session.id) };
  },
  create_asset_upload(req) {
    const session = this.deps.registry.forRoute(req.sessionId, this, req.channelId);
    return this.deps.assets.createUpload(session.id, req);
  },
  create_asset_download(req) {
    const session = this.deps.registry.forRoute(req.sessionId, this, req.channelId);
    return this.deps.assets.createDownload(session.id, req.path);
  },
  ...WORKSPACE_HANDLERS,
} satisfies Record<BridgeRequestType, Handler>;

/** The handler of each request type (see {@link handlerFor}); bridge.ts refuses any other type `UNKNOWN_REQUEST_TYPE`. */
export const REQUEST_HANDLERS: ReadonlyMap<string, Handler> = new Map(Object.entries(HANDLERS));
