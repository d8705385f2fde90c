/**
 * Listing a workspace as Desktop does: the files (or folders) below a folder of it, as paths from its
 * root, sorted, dot files included; symbolic links are neither followed nor listed. A listing too large
 * for a reply is refused, never cut.
 */
import { lstat, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { DevCoreError } from '../errors.js';
import { pathInvalid, resolveInside } from './workspace-paths.js';
import type { Workspace } from './workspace-store.js';

/** A listing stops here (its JSON, estimated) and is refused `WORKSPACE_LIST_TOO_LARGE`, as Desktop's. */
const MAX_LIST_BYTES = 900 * 1024;

/**
 * The files (or folders) below `path` — the whole workspace without one — as paths from the root,
 * sorted, dot files included; symbolic links are neither followed nor listed.
 */
export async function listWorkspace(
  workspace: Workspace,
  kind: 'files' | 'folders',
  path?: unknown,
): Promise<{ paths: string[] }> {
  let start = workspace.folder;
  if (path !== undefined) {
    start = await resolveInside(workspace.folder, path);
    const info = await lstat(start).catch(() => null);
    if (!info?.isDirectory()) throw pathInvalid(`${path as string} is not a folder of the workspace`, path);
  }
  const paths: string[] = [];
  let bytes = 0;
  const walk = async (folder: string): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => {
      throw new DevCoreError('WORKSPACE_OPEN_FAILED', 'A folder of the workspace could not be read');
    });
    for (const entry of entries) {
      const full = join(folder, entry.name);
      const isFolder = entry.isDirectory();
      if ((kind === 'folders' && isFolder) || (kind === 'files' && entry.isFile())) {
        const listed = relative(workspace.folder, full).split(sep).join('/');
        bytes += listed.length + 3;
        if (bytes > MAX_LIST_BYTES)
          throw new DevCoreError('WORKSPACE_LIST_TOO_LARGE', 'Too many paths to list: list a narrower folder');
        paths.push(listed);
      }
      if (isFolder) await walk(full);
    }
  };
  await walk(start);
  return { paths: paths.sort() };
}
