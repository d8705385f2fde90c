/**
 * `/mcp`: MCP over Streamable HTTP for desktop MCP clients, serving the linked pages' tools
 * (page-tools-server.ts) in both protocol eras on one endpoint (docs/mcp.md):
 * - 2026-07-28 requests (they carry the protocol version in `_meta`) go to the SDK's stateless
 *   modern handler, which answers `server/discover` and keeps `subscriptions/listen` streams;
 * - 2025-era requests (`initialize`, then a session) go to the sessionful leg (legacy-sessions.ts),
 *   so those clients keep their GET stream and `list_changed`.
 * The split is the SDK's own classification (`isLegacyRequest`), so the two legs never disagree on a
 * request. Both legs are web-standard (`Request` → `Response`); the SDK's Node adapter
 * (`@modelcontextprotocol/node`'s `toNodeHandler`) converts once at the edge and writes streamed
 * answers with backpressure.
 *
 * Who may call (every-agent.md §4), the same in both eras and before anything is parsed: the Host
 * check has been made (http-routes.ts); a request with an `Origin` is a browser's and must be on the
 * allow-list (desktop clients send none); every request needs the bearer token printed at start. A
 * refusal names no OAuth metadata, which would send a client into an OAuth flow pedelec-dev lacks.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createMcpHandler,
  InMemoryServerEventBus,
  isLegacyRequest,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import { toNodeHandler, type NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import { checkOrigin, type OriginRules } from '../http/security.js';
import { ClientQuestions } from './call-approval.js';
import { LegacySessions } from './legacy-sessions.js';
import type { PageDirectory } from './page-directory.js';
import { pageToolsServer, type PageToolsDeps } from './page-tools-server.js';

export { MAX_MCP_SESSIONS } from './legacy-sessions.js';
export type { McpCallRecord } from './page-tools-server.js';

/** The largest request body read. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export type McpEndpointDeps = PageToolsDeps & {
  /** The bearer token. */
  token: string;
  originRules: OriginRules;
  directory: PageDirectory;
  reportBug(error: unknown): void;
};

/** A refusal before any MCP parsing (a JSON-RPC error without an id). */
function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message }, id: null }));
}

/**
 * `response`, its body keeping `request` reachable until it ends. A streamed answer (a listen stream,
 * a call's SSE) learns that its client went from `request.signal`, which follows the connection's
 * signal only while the `Request` object itself is alive: Node's fetch links the two weakly. Nothing
 * else holds the request once the answer has started, and once the server's code is optimised a
 * collection can take it: the stream then outlives its client until its next keep-alive write fails
 * (15 s later).
 */
function heldWhileStreaming(request: Request, response: Response): Response {
  if (response.body === null) return response;
  // Passes every chunk on as it is; its closure is what holds the request, for as long as the pipe runs.
  const holder = new TransformStream<Uint8Array, Uint8Array>({ flush: () => void request.signal });
  return new Response(response.body.pipeThrough(holder), response);
}

/** What MCP clients hold open on the server now. */
export type McpOpen = {
  /** 2025-era sessions (`Mcp-Session-Id`). */
  sessions: number;
  /** 2026-07-28 `subscriptions/listen` streams. */
  listenStreams: number;
};

export class McpEndpoint {
  /** The change events `subscriptions/listen` streams subscribe to: one listener per open stream. */
  readonly #bus = new InMemoryServerEventBus();
  readonly #modern: McpHttpHandler;
  readonly #legacy: LegacySessions;
  readonly #serve: NodeMcpRequestHandler;
  readonly #stopWatching: () => void;

  constructor(private readonly deps: McpEndpointDeps) {
    const questions = new ClientQuestions();
    const newServer = () => pageToolsServer(deps, questions);
    this.#modern = createMcpHandler(newServer, {
      legacy: 'reject',
      bus: this.#bus,
      maxRequestBodySize: MAX_BODY_BYTES,
      // Rejected requests are answered to their client; the rest would be pedelec-dev's own bugs.
      onerror: () => {},
    });
    this.#legacy = new LegacySessions(newServer);
    this.#serve = toNodeHandler(
      {
        fetch: async (request) =>
          heldWhileStreaming(
            request,
            (await isLegacyRequest(request, undefined, { maxRequestBodySize: MAX_BODY_BYTES }))
              ? await this.#legacy.handle(request)
              : await this.#modern.fetch(request),
          ),
      },
      { maxRequestBodySize: MAX_BODY_BYTES, onerror: (error) => deps.reportBug(error) },
    );
    this.#stopWatching = deps.directory.onChange(() => {
      this.#modern.notify.toolsChanged();
      this.#legacy.toolsChanged();
    });
  }

  /** What MCP clients hold open now (sessions and listen streams), for the inspector and tests. */
  get open(): McpOpen {
    return { sessions: this.#legacy.size, listenStreams: this.#bus.listenerCount };
  }

  /** Every request to `/mcp` (its Host already checked). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const decision = checkOrigin('/mcp', req.headers, this.deps.originRules);
    if (!decision.allowed) return refuse(res, 403, decision.reason);
    if (!this.#authorized(req.headers.authorization))
      return refuse(res, 401, 'pedelec-dev: send the bearer token it printed at start (Authorization: Bearer …)');
    await this.#serve(req, res);
  }

  /** Ends every session and listen stream (the server is stopping). */
  async close(): Promise<void> {
    this.#stopWatching();
    await Promise.all([this.#modern.close(), this.#legacy.close()]);
  }

  #authorized(header: string | undefined): boolean {
    const given = Buffer.from(/^Bearer (.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '');
    const token = Buffer.from(this.deps.token);
    return given.length === token.length && timingSafeEqual(given, token);
  }
}
