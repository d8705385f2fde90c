/**
 * What the Core answers to each request type a page may send on `/bridge` (bridge-protocol.md §2):
 * one handler per type, from the approval questions to sessions, turns, tool results and assets.
 * Kept apart from bridge.ts, which owns the connection itself (frames in arrival order, fairness
 * between pages, responses and events going out): a new request type is a change here alone.
 */
import { isPlainObject } from 'pedelec-elements/protocol';
import type { BridgeConnection } from './bridge.js';
import { DevCoreError } from './errors.js';
import { checkSkills } from './manifest.js';
import { operationIdFor } from './protocol.js';

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

/** The handler of each request type; bridge.ts refuses any other type `UNKNOWN_REQUEST_TYPE`. */
export const REQUEST_HANDLERS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
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
