/**
 * `/mcp`: MCP over Streamable HTTP (sessions, and the GET stream that carries
 * `notifications/tools/list_changed`) for desktop MCP clients, serving the linked pages' tools
 * (page-directory.ts). Built on the official SDK's server classes; the low-level `Server` rather than
 * `McpServer`, which wants a Zod schema per tool: the pages' tools come with JSON Schemas, passed on
 * as they are.
 *
 * Who may call (every-agent.md §4): the Host check has been made (http-routes.ts); a request with an
 * `Origin` is a browser's and must be on the allow-list (desktop clients send none); every request
 * needs the bearer token printed at start. A refusal names no OAuth metadata, which would send a
 * client into an OAuth flow pedelec-dev does not have.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
// `Server` is marked deprecated in favour of `McpServer`; used deliberately (see above).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  isInitializeRequest,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { callToolResult as pageCallToolResult, type CallAnswer } from 'pedelec-elements/protocol';
import type { JsonValue } from 'pedelec-elements/core';
import type { PedelecError } from 'pedelec-elements/core';
import { toWireError } from '../errors.js';
import { checkOrigin, type OriginRules } from '../http/security.js';
import { PAGES_TOOL, type PageDirectory, type PageSummary } from './page-directory.js';

/** Live MCP sessions at once; a client past that is refused until one ends (DELETE, or the server stops). */
export const MAX_MCP_SESSIONS = 32;
/** The largest request body read. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export type McpCallRecord = { client: string; tool: string; ok: boolean; ms: number };

export type McpEndpointDeps = {
  /** The bearer token. */
  token: string;
  originRules: OriginRules;
  directory: PageDirectory;
  version: string;
  /** Asks the operator about a call before it runs (`--mcp-approval prompt`); rejects when refused. */
  approve?(call: { client: string; tool: string; page: PageSummary | null }): Promise<void>;
  /** Told about each call a client made (for the inspector's log). */
  onCall?(record: McpCallRecord): void;
  reportBug(error: unknown): void;
};

type McpSession = { server: Server; transport: StreamableHTTPServerTransport };

/** A JSON-RPC error answer outside any session (the SDK answers those inside one). */
function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: ErrorCode.InvalidRequest, message }, id: null }));
}

/**
 * A page's answer as an MCP `CallToolResult`, as the page's WebMCP tools give it (the result as JSON
 * text, and structured when an object; an error as `CODE: message`) — and an error also whole (with
 * its details: the paths of invalid args) as structured content.
 */
export function callToolResult(answer: CallAnswer): CallToolResult {
  const result: CallToolResult = pageCallToolResult(answer);
  if (answer.ok) return result;
  const { code, message, details } = answer.error;
  const error = details === undefined ? { code, message } : { code, message, details };
  return { ...result, structuredContent: { error } };
}

export class McpEndpoint {
  readonly #sessions = new Map<string, McpSession>();
  readonly #stopWatching: () => void;

  constructor(private readonly deps: McpEndpointDeps) {
    this.#stopWatching = deps.directory.onChange(() => {
      for (const { server } of this.#sessions.values()) server.sendToolListChanged().catch(() => {});
    });
  }

  /** Every request to `/mcp` (its Host already checked). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const decision = checkOrigin('/mcp', req.headers, this.deps.originRules);
    if (!decision.allowed) return refuse(res, 403, decision.reason);
    if (!this.#authorized(req.headers.authorization))
      return refuse(res, 401, 'pedelec-dev: send the bearer token it printed at start (Authorization: Bearer …)');
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = this.#sessions.get(id);
      if (!session) return refuse(res, 404, 'pedelec-dev: no such MCP session (the server may have restarted)');
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return refuse(res, 400, 'pedelec-dev: start an MCP session with initialize first');
    const body = await readJson(req);
    if (body === undefined) return refuse(res, 400, 'pedelec-dev: the body is not JSON, or is too large');
    if (!isInitializeRequest(body)) return refuse(res, 400, 'pedelec-dev: start an MCP session with initialize first');
    if (this.#sessions.size >= MAX_MCP_SESSIONS)
      return refuse(
        res,
        503,
        `pedelec-dev: ${MAX_MCP_SESSIONS} MCP sessions are open; end one (or restart pedelec-dev)`,
      );
    const session = this.#open();
    await session.transport.handleRequest(req, res, body);
  }

  /** Ends every MCP session (the server is stopping). */
  async close(): Promise<void> {
    this.#stopWatching();
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map(({ server }) => server.close().catch(() => {})));
  }

  /** `null` when the call may run; else why not (the operator refused, or did not answer). */
  async #approve(client: string, tool: string): Promise<PedelecError | null> {
    if (!this.deps.approve || tool === PAGES_TOOL) return null;
    try {
      await this.deps.approve({ client, tool, page: this.deps.directory.pageOf(tool) });
      return null;
    } catch (error) {
      return toWireError(error);
    }
  }

  #authorized(header: string | undefined): boolean {
    const given = Buffer.from(/^Bearer (.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '');
    const token = Buffer.from(this.deps.token);
    return given.length === token.length && timingSafeEqual(given, token);
  }

  #open(): McpSession {
    const { directory, version } = this.deps;
    const server = new Server(
      { name: 'pedelec-dev', version },
      {
        capabilities: { tools: { listChanged: true } },
        instructions:
          'Tools of the web pages open with pedelec-elements and linked to pedelec-dev. pedelec_pages lists the pages.',
      },
    );
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void this.#sessions.set(id, session),
      maxRequestBodySize: MAX_BODY_BYTES,
    });
    const session: McpSession = { server, transport };
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.#sessions.delete(transport.sessionId);
    };
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: directory.list() }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { name, arguments: args } = request.params;
      const startedAt = Date.now();
      const client = server.getClientVersion()?.name ?? 'unknown client';
      let result: CallToolResult;
      const refused = await this.#approve(client, name);
      if (refused) {
        result = callToolResult({ ok: false, error: refused });
      } else if (name === PAGES_TOOL) {
        const pages = directory.pages();
        result = callToolResult({ ok: true, result: { pages } as unknown as JsonValue });
      } else {
        const running = directory.call(name, args ?? {}, extra.signal);
        if (!running) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name} (no linked page offers it)`);
        result = callToolResult(await running);
      }
      this.deps.onCall?.({
        client,
        tool: name,
        ok: !result.isError,
        ms: Date.now() - startedAt,
      });
      return result;
    });
    // A client's protocol mistakes are answered to that client by the SDK; nothing more to do here.
    server.onerror = () => {};
    void server.connect(transport);
    return session;
  }
}

/** The request's body as JSON; `undefined` when it is not JSON or longer than {@link MAX_BODY_BYTES}. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}
