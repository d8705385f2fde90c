/**
 * Workspaces as a feature of the Core: the ticketed upload and download URLs of workspace files under
 * `/_pedelec/workspaces/`, and the Deno module uploads under `/_pedelec/deno-modules/`. Stopping it
 * deletes the managed workspaces; the folders pages opened stay.
 */
import type { DevFeature } from '../http/feature.js';
import { DENO_MODULE_URL_PREFIX, type DenoModules } from './deno-modules.js';
import { WORKSPACE_URL_PREFIX, type WorkspaceStore } from './workspace-store.js';

export function workspacesFeature(workspaces: WorkspaceStore, modules: DenoModules): DevFeature {
  return {
    routes: [
      { path: WORKSPACE_URL_PREFIX, handle: (req, res, path, query) => workspaces.handle(req, res, path, query) },
      { path: DENO_MODULE_URL_PREFIX, handle: (req, res, path, query) => modules.handle(req, res, path, query) },
    ],
    sockets: [],
    close: () => workspaces.dispose(),
  };
}
