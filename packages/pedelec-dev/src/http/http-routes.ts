/**
 * Where a plain HTTP request goes: the Host check first, then the paths the features declared (`/mcp`,
 * the assets and the inspector under {@link RESERVED_PREFIX}), the WebSocket-only endpoints, the kit's
 * files, and the developer's own site (`--serve DIR`) for every other path. Apart from server.ts,
 * which composes the features: the URL layout changes here without touching how the Core listens or
 * shuts down. WebSocket upgrades are websocket-routes.ts's.
 */
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { inspectorPageDir, packageVersion } from '../package-files.js';
import { routeFor, type HttpRoute } from './feature.js';
import type { HostAllowList } from './security.js';
import { staticHandler, type StaticHandler } from './static.js';

/**
 * Everything pedelec-dev serves besides its three endpoints (`/bridge`, `/tools`, `/mcp`) is under
 * this prefix — the kit (`cdn/`, `dist/`), the inspector, the asset URLs — so that every other path is
 * the developer's own, from `--serve DIR`, whole: a Vite `dist/` with its `assets/` serves as built.
 */
export const RESERVED_PREFIX = '/_pedelec/';

export type HttpRouteDeps = {
  hosts: HostAllowList;
  /** Every feature's routes. */
  routes: readonly HttpRoute[];
  /** The kit's root folder, with a trailing slash: its `cdn/` and `dist/` are served. */
  kitDir: string;
  /** The developer's folder served at `/` (`--serve DIR`), if any. */
  serveDir: string | undefined;
  /** `http://host:port` (for the text at `/`). */
  baseUrl: string;
};

export function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

/** The handler of every plain HTTP request; it rejects only on a bug (the server answers 500). */
export function httpRoutes(deps: HttpRouteDeps): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { hosts, routes, kitDir, baseUrl } = deps;
  // The kit's own files, under the reserved prefix; the developer's site (--serve DIR) gets every other path.
  const kitMounts: Array<[prefix: string, handler: StaticHandler]> = [
    ['/cdn/', staticHandler(`${kitDir}cdn`)],
    ['/dist/', staticHandler(`${kitDir}dist`)],
  ];
  // `Origin-Agent-Cluster: ?1` on the developer's pages: browsers that key agent clusters by site refuse
  // the WebMCP API to a page without it.
  const site = deps.serveDir === undefined ? null : staticHandler(deps.serveDir, { 'Origin-Agent-Cluster': '?1' });
  // The inspector's icon, for the favicon fallback below; the inspector's pages are its feature's.
  const icon = staticHandler(inspectorPageDir, { 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'no-referrer' });

  /** Whether the developer's folder (`--serve DIR`) has a file `name` directly in it. */
  async function siteHas(name: string): Promise<boolean> {
    if (deps.serveDir === undefined) return false;
    return (await stat(join(deps.serveDir, name)).catch(() => null))?.isFile() ?? false;
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hosts.allows(req.headers.host))
      return plain(res, 403, 'Host not allowed: pedelec-dev answers only to this machine’s own names.');
    const raw = req.url ?? '/';
    if (!raw.startsWith('/')) return plain(res, 400, 'Bad request');
    const q = raw.indexOf('?');
    const path = q < 0 ? raw : raw.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));

    // The endpoints /bridge and /tools (dev-core.md), and the inspector's socket, answer only WebSocket upgrades.
    if (path === '/bridge' || path === '/tools' || path === `${RESERVED_PREFIX}inspector/socket`)
      return plain(res, 426, 'This is a WebSocket endpoint.');
    const route = routeFor(routes, path);
    if (route) return route.handle(req, res, path, query);
    if (path === '/_pedelec' || path.startsWith(RESERVED_PREFIX)) return onKit(req, res, path);
    // Browsers ask every site for /favicon.ico; a folder without one would see a 404 in the page's
    // console for nothing the page did. The folder's own icon, when it has one, wins.
    if (path === '/favicon.ico' && !(await siteHas('favicon.ico')))
      return icon(req, res, '/favicon.svg', `${RESERVED_PREFIX}inspector/`);
    if (site) return site(req, res, path, '/');
    if (path === '/') {
      return plain(
        res,
        200,
        `pedelec-dev ${packageVersion()} is running.\nBridge: ${baseUrl.replace(/^http/, 'ws')}/bridge\n` +
          `Kit: ${baseUrl}${RESERVED_PREFIX}cdn/pedelec-elements.js\n` +
          'Open the inspector through the URL printed in the terminal. Pass --serve DIR to serve your pages here.\n',
      );
    }
    return plain(res, 404, 'Not found');
  }

  /** The kit's files, under `/_pedelec/cdn/` and `/_pedelec/dist/`. */
  async function onKit(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const sub = path.slice(RESERVED_PREFIX.length - 1); // `/_pedelec/cdn/x.js` → `/cdn/x.js`
    for (const [prefix, handler] of kitMounts) {
      if (!sub.startsWith(prefix)) continue;
      // Any origin may read the kit, so a page served elsewhere (a Vite dev server on localhost:5173)
      // can load it as a module script, which the browser fetches with CORS. Safe to open: these are
      // the package's public build files, the same bytes for every caller, served without cookies or
      // tokens (and `*` never lets a credentialed request read them). Only here: the inspector, /mcp
      // and the developer's own site send no such header, and the assets name only allowed origins.
      res.setHeader('Access-Control-Allow-Origin', '*');
      return handler(req, res, sub.slice(prefix.length - 1), `${RESERVED_PREFIX}${prefix.slice(1)}`);
    }
    return plain(res, 404, 'Not found');
  }

  return onRequest;
}
