/**
 * What the Core answers to the workspace and Deno module requests (today's protocol): opening a
 * workspace, listing it, tickets for its files, runs of Deno scripts in it, and the uploads of Deno
 * modules — a run's, and a session's in its setup. Each request names a workspace its page's origin
 * opened (or a session of that page); the work is the workspace store's, the module store's and
 * the Deno runtime's (src/workspaces/).
 */
import { rm } from 'node:fs/promises';
import { DevCoreError } from '../errors.js';
import { DEFAULT_RUN_TIMEOUT_MS, denoUnavailable, MAX_OUTPUT_BYTES, runDeno } from '../workspaces/deno-runtime.js';
import { listWorkspace } from '../workspaces/workspace-listing.js';
import type { Handler } from './bridge-requests.js';

/** A reply above this is refused, as Desktop's native messaging refuses one (1 MiB). */
const MAX_REPLY_BYTES = MAX_OUTPUT_BYTES;

function positiveInteger(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || (value as number) <= 0)
    throw new DevCoreError('INVALID_INPUT', `${name} must be a positive integer`);
  return value as number;
}

export const WORKSPACE_HANDLERS = {
  open_workspace(req) {
    return this.deps.workspaces.open(req.path, this.origin);
  },
  workspace_list_files(req) {
    return listWorkspace(this.deps.workspaces.use(req.workspaceId, this.origin), 'files', req.path);
  },
  workspace_list_folders(req) {
    return listWorkspace(this.deps.workspaces.use(req.workspaceId, this.origin), 'folders', req.path);
  },
  create_workspace_file_upload(req) {
    return this.deps.workspaces.createUpload(this.deps.workspaces.use(req.workspaceId, this.origin), req);
  },
  create_workspace_file_download(req) {
    return this.deps.workspaces.createDownload(this.deps.workspaces.use(req.workspaceId, this.origin), req.path);
  },
  prepare_workspace_deno_modules(req) {
    const workspace = this.deps.workspaces.use(req.workspaceId, this.origin);
    return this.deps.denoModules.prepare(workspace, this.origin, req.moduleNames);
  },
  create_workspace_deno_module_upload(req) {
    const workspace = this.deps.workspaces.use(req.workspaceId, this.origin);
    return this.deps.denoModules.workspaceUpload(workspace, this.origin, req);
  },
  async workspace_run(req) {
    const workspace = this.deps.workspaces.use(req.workspaceId, this.origin);
    if (typeof req.script !== 'string') throw new DevCoreError('INVALID_INPUT', 'script must be a string');
    const timeoutMs = positiveInteger(req.timeoutMs, 'timeoutMs') ?? DEFAULT_RUN_TIMEOUT_MS;
    const deno = this.deps.deno;
    if (!deno) throw denoUnavailable();
    const importMap = await this.deps.denoModules.runImportMap(workspace, this.origin, req.denoModules);
    try {
      const result = await runDeno({
        deno,
        folder: workspace.folder,
        script: req.script,
        timeoutMs,
        importMap: importMap?.file,
      });
      if (JSON.stringify(result).length > MAX_REPLY_BYTES)
        throw new DevCoreError(
          'WORKSPACE_RUN_OUTPUT_TOO_LARGE',
          'The run printed more than a reply can carry: print less, or write a file',
        );
      return result;
    } finally {
      if (importMap) await rm(importMap.folder, { recursive: true, force: true }).catch(() => {});
    }
  },
  create_deno_module_upload(req) {
    const session = this.deps.registry.forRoute(req.sessionId, this, req.channelId);
    return this.deps.denoModules.sessionUpload(session.id, req);
  },
  async complete_session_setup(req) {
    const session = this.deps.registry.forRoute(req.sessionId, this, req.channelId);
    await this.deps.denoModules.completeSession(session.id);
    return {};
  },
} satisfies Record<string, Handler>;
