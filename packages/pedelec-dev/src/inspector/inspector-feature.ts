/**
 * The inspector as a feature of the Core: its page and script under `/_pedelec/inspector` (same-origin
 * only, under a strict CSP) and its socket, handed to the {@link InspectorHub}.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { WebSocketServer } from 'ws';
import { closeSockets, type DevFeature } from '../http/feature.js';
import { RESERVED_PREFIX } from '../http/http-routes.js';
import { staticHandler } from '../http/static.js';
import { inspectorPageDir } from '../package-files.js';
import { InspectorHub, type InspectorDeps } from './inspector.js';

export function inspectorFeature(deps: InspectorDeps): DevFeature {
  const hub = new InspectorHub(deps);
  const files = staticHandler(inspectorPageDir, { 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'no-referrer' });
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const page = `${RESERVED_PREFIX}inspector`;

  function serve(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    // The page and its script come from this origin only; the socket goes back to the same host.
    res.setHeader(
      'Content-Security-Policy',
      `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self' ws://${req.headers.host}; ` +
        `base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    const file = path === page || path === `${page}/` ? '/index.html' : path.slice(page.length);
    return files(req, res, file, `${page}/`);
  }

  return {
    routes: [
      { path: page, handle: serve },
      { path: `${page}/`, handle: serve },
    ],
    sockets: [{ path: `${page}/socket`, forPages: false, sockets, accept: (ws, req) => hub.accept(ws, req) }],
    async close() {
      hub.closeAll(1001, 'pedelec-dev is stopping');
      await closeSockets([sockets]);
    },
  };
}
