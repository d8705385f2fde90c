/**
 * `/mcp` for clients of the 2025 protocol era: Streamable HTTP with sessions (`initialize`, then
 * `Mcp-Session-Id`) and the GET stream that carries `notifications/tools/list_changed`. Sessionful on
 * purpose: the SDK's own stateless fallback answers GET with 405, so those clients would never hear
 * that a page's tools changed.
 *
 * Sessions are bounded: past {@link MAX_MCP_SESSIONS}, the least recently used one that has been idle
 * for {@link IDLE_SESSION_MS} makes room; when none has, the new client is refused until one ends.
 */
import { randomUUID } from 'node:crypto';
import {
  isInitializeRequest,
  WebStandardStreamableHTTPServerTransport,
  type Server,
} from '@modelcontextprotocol/server';

/** Live 2025-era sessions at once. */
export const MAX_MCP_SESSIONS = 32;
/** How long a session must have gone without a request before a new client may take its place. */
export const IDLE_SESSION_MS = 10 * 60_000;

type Session = { server: Server; transport: WebStandardStreamableHTTPServerTransport; lastSeen: number };

/** A JSON-RPC error answer outside any session (the SDK answers those inside one). */
export function refusal(status: number, message: string): Response {
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32600, message }, id: null },
    { status, headers: { 'Cache-Control': 'no-store' } },
  );
}

export class LegacySessions {
  /** In the order they were last used, least recent first. */
  readonly #sessions = new Map<string, Session>();

  constructor(
    private readonly newServer: () => Server,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.#sessions.size;
  }

  /** A 2025-era request (`isLegacyRequest` said so). */
  async handle(request: Request): Promise<Response> {
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const session = this.#sessions.get(id);
      if (!session) return refusal(404, 'pedelec-dev: no such MCP session (the server may have restarted)');
      this.#sessions.delete(id);
      this.#sessions.set(id, session);
      session.lastSeen = this.now();
      return session.transport.handleRequest(request);
    }
    // The body's size was bounded before it got here (mcp-endpoint.ts).
    const body: unknown = request.method === 'POST' ? await request.json().catch(() => undefined) : undefined;
    if (!isInitializeRequest(body))
      return refusal(400, 'pedelec-dev: start an MCP session with initialize first (or use protocol 2026-07-28)');
    if (!this.#makeRoom())
      return refusal(503, `pedelec-dev: ${MAX_MCP_SESSIONS} MCP sessions are in use; end one (or restart pedelec-dev)`);
    return this.#open().transport.handleRequest(request, { parsedBody: body });
  }

  /** Tells every session's client that the tool list changed. */
  toolsChanged(): void {
    for (const { server } of this.#sessions.values()) server.sendToolListChanged().catch(() => {});
  }

  async close(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map(({ server }) => server.close().catch(() => {})));
  }

  /** Whether a new session fits, after ending the least recently used idle one if needed. */
  #makeRoom(): boolean {
    if (this.#sessions.size < MAX_MCP_SESSIONS) return true;
    const [oldest] = this.#sessions;
    if (!oldest || this.now() - oldest[1].lastSeen < IDLE_SESSION_MS) return false;
    this.#sessions.delete(oldest[0]);
    void oldest[1].server.close().catch(() => {});
    return true;
  }

  #open(): Session {
    const server = this.newServer();
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void this.#sessions.set(id, session),
    });
    const session: Session = { server, transport, lastSeen: this.now() };
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined && this.#sessions.get(id) === session) this.#sessions.delete(id);
    };
    void server.connect(transport);
    return session;
  }
}
