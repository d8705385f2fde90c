/**
 * Paths inside a workspace, as Desktop reads them: relative to the workspace's root, `/`-separated,
 * never leaving it — no absolute path, no `..`, and no symbolic link on the way (a link could point
 * anywhere on the machine, so none is followed, whatever it points to).
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { isWorkspacePath } from 'pedelec-elements/protocol';
import { DevCoreError } from '../errors.js';

export const pathInvalid = (message: string, path?: unknown) =>
  new DevCoreError('WORKSPACE_PATH_INVALID', message, path === undefined ? undefined : { path });

/**
 * Where `path` (checked with {@link isWorkspacePath}) is in the folder `root`: every segment that
 * exists is looked at, and a symbolic link among them refuses the path. What does not exist yet is
 * fine (an upload's new folders).
 */
export async function resolveInside(root: string, path: unknown): Promise<string> {
  if (!isWorkspacePath(path)) throw pathInvalid('not a path inside the workspace (relative, no "..")', path);
  let at = root;
  for (const segment of path.split('/')) {
    at = join(at, segment);
    const info = await lstat(at).catch(() => null);
    if (!info) return join(root, ...path.split('/'));
    if (info.isSymbolicLink()) throw pathInvalid(`${path}: a symbolic link on the way is never followed`, path);
  }
  return at;
}

/** The type a workspace file is read as, by its extension (as Desktop tells them). */
export function mimeTypeOf(path: string): string {
  const extension = /\.([^./]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';
  const types: Record<string, string> = {
    txt: 'text/plain',
    md: 'text/plain',
    csv: 'text/plain',
    json: 'application/json',
    html: 'text/html',
    pdf: 'application/pdf',
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    webp: 'image/webp',
    gif: 'image/gif',
    glb: 'model/gltf-binary',
  };
  return types[extension] ?? 'application/octet-stream';
}
