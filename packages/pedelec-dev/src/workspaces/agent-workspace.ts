/**
 * The session's workspace as its agent reaches it, as Desktop gives a coding agent its working folder:
 * the files (paths from the root), text read and written there, and Deno runs in it that may import
 * the session's Deno modules. Paths are held to the workspace as a page's are (workspace-paths.ts);
 * a write lands whole or not at all.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AgentWorkspace } from '../agents/types.js';
import { DevCoreError } from '../errors.js';
import { DEFAULT_RUN_TIMEOUT_MS, denoUnavailable, runDeno } from './deno-runtime.js';
import { listWorkspace } from './workspace-listing.js';
import { resolveInside } from './workspace-paths.js';
import { MAX_WORKSPACE_FILE_BYTES, RUNTIME_FOLDER, type Workspace } from './workspace-store.js';

export type AgentWorkspaceDeps = {
  workspace: Workspace;
  /** The Deno that runs scripts, or null (runs then fail `DENO_UNAVAILABLE`). */
  deno: string | null;
  /** The session's import map, once its Deno modules are set up (null without modules). */
  importMap: () => string | null;
};

/** The regular file at `path`, or `WORKSPACE_FILE_NOT_FOUND` / `WORKSPACE_FILE_NOT_REGULAR`. */
async function existingFile(folder: string, path: string): Promise<string> {
  const file = await resolveInside(folder, path);
  const info = await lstat(file).catch(() => null);
  if (!info) throw new DevCoreError('WORKSPACE_FILE_NOT_FOUND', `No file ${path} in the workspace`, { path });
  if (!info.isFile()) throw new DevCoreError('WORKSPACE_FILE_NOT_REGULAR', `${path} is not a regular file`, { path });
  if (info.size > MAX_WORKSPACE_FILE_BYTES)
    throw new DevCoreError('WORKSPACE_FILE_READ_TOO_LARGE', `${path} is over 100 MiB`, { path });
  return file;
}

export function agentWorkspace({ workspace, deno, importMap }: AgentWorkspaceDeps): AgentWorkspace {
  const { folder } = workspace;
  return {
    path: workspace.path,
    files: async () => (await listWorkspace(workspace, 'files')).paths,
    read: async (path) => readFile(await existingFile(folder, path), 'utf8'),
    async write(path, text) {
      const content = Buffer.from(text, 'utf8');
      if (content.length > MAX_WORKSPACE_FILE_BYTES)
        throw new DevCoreError('WORKSPACE_FILE_TOO_LARGE', 'workspace file exceeds the 100 MiB limit', { path });
      const target = await resolveInside(folder, path);
      const existing = await lstat(target).catch(() => null);
      if (existing && !existing.isFile())
        throw new DevCoreError('WORKSPACE_FILE_NOT_REGULAR', `${path} is not a regular file`, { path });
      const partial = join(folder, RUNTIME_FOLDER, 'tmp', `write_${randomBytes(8).toString('hex')}`);
      try {
        await mkdir(dirname(partial), { recursive: true });
        await mkdir(dirname(target), { recursive: true });
        await writeFile(partial, content);
        await rename(partial, target);
      } catch (thrown) {
        await rm(partial, { force: true }).catch(() => {});
        if (thrown instanceof DevCoreError) throw thrown;
        throw new DevCoreError('WORKSPACE_FILE_UPLOAD_FAILED', `${path} could not be written`, { path });
      }
      return content.length;
    },
    run(script, options = {}) {
      if (!deno) return Promise.reject(denoUnavailable());
      const timeoutMs = options.timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS;
      return runDeno({ deno, folder, script, timeoutMs, importMap: importMap() ?? undefined });
    },
  };
}
