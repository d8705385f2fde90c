/**
 * Static files (the demo pages, the built kit, the inspector page) through `sirv`, behind a guard
 * that decides which file may be served *before* sirv sees the request: sirv's own checks cover `..`
 * but not symlinks, and in its live-reading mode not dotfiles either. The guard:
 * - decodes each path segment once and refuses `.`/`..`, dot-prefixed names, encoded separators,
 *   NUL and empty segments — so `%2e%2e`, `%2f` and `//host` never reach the file system;
 * - resolves the real path (following symlinks) and refuses anything outside the real root;
 * - hands sirv that verified, re-encoded path, so sirv serves exactly the file that was checked.
 */
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join, relative, sep } from 'node:path';
import sirv from 'sirv';

export type StaticHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  subPath: string,
  mountPrefix: string,
) => Promise<void>;

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

/** Splits and decodes a raw URL path (no query); `null` when any segment is not allowed. */
export function safeSegments(rawPath: string): string[] | null {
  const parts = rawPath.split('/');
  if (parts[0] !== '') return null;
  parts.shift();
  const trailing = parts.length > 0 && parts[parts.length - 1] === '';
  if (trailing) parts.pop();
  const out: string[] = [];
  for (const part of parts) {
    let name: string;
    try {
      name = decodeURIComponent(part);
    } catch {
      return null;
    }
    if (name === '' || name.startsWith('.') || /[/\\\0]/.test(name)) return null;
    out.push(name);
  }
  return out;
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root + sep);
}

/** A handler serving files under `root`. `subPath` is the raw path below the mount, starting with `/`. */
export function staticHandler(root: string, headers: Record<string, string> = {}): StaticHandler {
  const serve = sirv(root, { dev: true, etag: true, dotfiles: false, extensions: [] });
  let realRoot: string | null = null;

  return async (req, res, subPath, mountPrefix) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return plain(res, 405, 'Method not allowed');
    }
    const segments = safeSegments(subPath);
    if (!segments) return plain(res, 404, 'Not found');
    try {
      realRoot ??= await realpath(root);
    } catch {
      return plain(res, 404, 'Not found (this folder does not exist; is the kit built? run npm run build)');
    }
    let file: string;
    try {
      file = await realpath(join(realRoot, ...segments));
    } catch {
      return plain(res, 404, 'Not found');
    }
    // A symlink may point anywhere; only its target's real location counts.
    if (
      !inside(realRoot, file) ||
      relative(realRoot, file)
        .split(sep)
        .some((s) => s.startsWith('.'))
    ) {
      return plain(res, 404, 'Not found');
    }
    let info = await stat(file).catch(() => null);
    if (!info) return plain(res, 404, 'Not found'); // removed meanwhile
    if (info.isDirectory()) {
      if (!subPath.endsWith('/')) {
        // Relative links in the folder's index.html need the trailing slash.
        const location = [mountPrefix.replace(/\/$/, ''), ...segments.map(encodeURIComponent)].join('/') + '/';
        res.writeHead(301, { Location: location });
        res.end();
        return;
      }
      try {
        file = await realpath(join(file, 'index.html'));
        info = await stat(file);
      } catch {
        return plain(res, 404, 'Not found');
      }
      if (!inside(realRoot, file)) return plain(res, 404, 'Not found');
    }
    if (!info.isFile()) return plain(res, 404, 'Not found');

    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // sirv decodes with decodeURI, which leaves reserved characters (@ + ; , = & $ :) encoded: pass
    // them as they are (encodeURI), so the file sirv looks up is exactly the one checked here — not a
    // sibling literally named `logo%402x.txt`. A name with `?` or `#` cannot be passed at all.
    const served = relative(realRoot, file).split(sep);
    if (served.some((name) => /[?#]/.test(name))) return plain(res, 404, 'Not found');
    req.url = '/' + served.map(encodeURI).join('/');
    serve(req, res, () => plain(res, 404, 'Not found'));
  };
}
