/**
 * The MCP server behind `/mcp`, the same for both protocol eras: `tools/list` answers the linked
 * pages' tools (page-directory.ts) and `tools/call` runs one in its page. Built on the official SDK's
 * low-level `Server` rather than `McpServer`, which wants a Standard Schema per tool: the pages' tools
 * come with JSON Schemas, passed on as they are.
 *
 * One instance serves one modern request or one legacy session (mcp-endpoint.ts); everything they
 * share lives in the directory, so names, annotations, results and errors are the same in both eras.
 */
import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { callToolResult, type CallAnswer } from 'pedelec-elements/protocol';
import type { JsonValue, PedelecError } from 'pedelec-elements/core';
import { toWireError } from '../errors.js';
import { PAGES_TOOL, type PageDirectory, type PageSummary } from './page-directory.js';
import { answeredByPage } from './page-link.js';

export type McpCallRecord = { client: string; tool: string; ok: boolean; ms: number };

export type PageToolsDeps = {
  directory: PageDirectory;
  version: string;
  /**
   * Asks the operator about a call before it runs (`--mcp-approval prompt`); rejects when refused, or
   * when `signal` aborts first (the client cancelled).
   */
  approve?(
    call: { client: string; tool: string; page: PageSummary; args: unknown },
    signal: AbortSignal,
  ): Promise<void>;
  /** Told about each call a client made (for the inspector's log). */
  onCall?(record: McpCallRecord): void;
};

const INSTRUCTIONS =
  'Tools of the web pages open with pedelec-elements and linked to pedelec-dev. pedelec_pages lists the pages.';

/** A fresh server answering from `deps.directory`; the caller connects it to a transport. */
export function pageToolsServer(deps: PageToolsDeps): Server {
  const { directory } = deps;
  const server = new Server(
    { name: 'pedelec-dev', version: deps.version },
    {
      capabilities: { tools: { listChanged: true } },
      instructions: INSTRUCTIONS,
      // Pages link and leave at any moment, so a list is never promised to hold; clients learn of
      // changes from `subscriptions/listen` (or `list_changed` in the 2025 era). The list names the
      // user's own pages: no shared cache may keep it.
      cacheHints: { 'tools/list': { ttlMs: 0, cacheScope: 'private' } },
    },
  );
  server.setRequestHandler('tools/list', () => ({ tools: directory.list() }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const startedAt = Date.now();
    const client = server.getClientVersion()?.name ?? 'unknown client';
    let answer: CallAnswer;
    if (name === PAGES_TOOL) {
      answer = { ok: true, result: { pages: directory.pages() } as unknown as JsonValue };
    } else {
      // The page and tool the name stands for now: what is asked about is what runs, with the same args.
      const target = directory.target(name);
      if (!target)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name} (no linked page offers it)`);
      const given = structuredClone(args ?? {});
      const { signal } = ctx.mcpReq;
      const refused = await approval(deps, { client, tool: name, target, args: given }, signal);
      answer = refused ? { ok: false, error: refused } : await target.run(given, signal);
    }
    const result = callToolResult(answer);
    // Whose word an error code is: a page may send any code, pedelec-dev's own included.
    if (!answer.ok) {
      const error = result.structuredContent?.error as { [key: string]: JsonValue };
      error.source = answeredByPage(answer) ? 'page' : 'pedelec-dev';
    }
    deps.onCall?.({ client, tool: name, ok: !result.isError, ms: Date.now() - startedAt });
    return server.projectCallToolResult(result, undefined);
  });
  // A client's protocol mistakes are answered to that client by the SDK; nothing more to do here.
  server.onerror = () => {};
  return server;
}

/** `null` when the call may run; else why not (the operator refused or did not answer, or the client cancelled). */
async function approval(
  deps: PageToolsDeps,
  { target, ...call }: { client: string; tool: string; target: { page(): PageSummary }; args: unknown },
  signal: AbortSignal,
): Promise<PedelecError | null> {
  if (!deps.approve) return null;
  try {
    await deps.approve({ ...call, page: target.page() }, signal);
    return null;
  } catch (error) {
    return toWireError(error);
  }
}
