/**
 * The MCP server behind `/mcp`, the same for both protocol eras: `tools/list` answers the linked
 * pages' tools (page-directory.ts) and `tools/call` runs one in its page, once approved where it must
 * be (call-approval.ts). Built on the official SDK's low-level `Server` rather than `McpServer`, which
 * wants a Standard Schema per tool: the pages' tools come with JSON Schemas, passed on as they are.
 *
 * One instance serves one modern request or one legacy session (mcp-endpoint.ts); everything they
 * share lives in the directory and the approval questions, so names, annotations, results and errors
 * are the same in both eras.
 */
import { ProtocolError, ProtocolErrorCode, Server, type InputRequiredResult } from '@modelcontextprotocol/server';
import { callToolResult, type CallAnswer } from 'pedelec-elements/protocol';
import type { JsonValue } from 'pedelec-elements/core';
import { callApproval, type ApprovalSurfaces, type CallInQuestion, type ClientQuestions } from './call-approval.js';
import { PAGES_TOOL, type PageDirectory } from './page-directory.js';
import { answeredByPage } from './page-link.js';

export type McpCallRecord = { client: string; tool: string; ok: boolean; ms: number };

export type PageToolsDeps = {
  directory: PageDirectory;
  version: string;
  /**
   * Asks the operator about a call before it runs (`--mcp-approval prompt`); rejects when refused, or
   * when `signal` aborts first (the client cancelled).
   */
  approve?: ApprovalSurfaces['operator'];
  /** Told about each call a client made (for the inspector's log). */
  onCall?(record: McpCallRecord): void;
};

const INSTRUCTIONS =
  'Tools of the web pages open with pedelec-elements and linked to pedelec-dev. pedelec_pages lists the pages.';

/**
 * A fresh server answering from `deps.directory`; the caller connects it to a transport. `questions`
 * holds the approvals asked of clients' users, shared by every instance: a client's retry with its
 * user's answer may reach another one.
 */
export function pageToolsServer(deps: PageToolsDeps, questions: ClientQuestions): Server {
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
      // A retry's `requestState` must name an approval question still open, and takes it.
      requestState: { verify: questions.verify },
    },
  );
  const surfaces: ApprovalSurfaces = { questions, operator: deps.approve };
  server.setRequestHandler('tools/list', () => ({ tools: directory.list() }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const startedAt = Date.now();
    const client = server.getClientVersion()?.name ?? 'unknown client';
    let answer: CallAnswer;
    if (name === PAGES_TOOL) {
      answer = { ok: true, result: { pages: directory.pages() } as unknown as JsonValue };
    } else {
      const asked = ctx.mcpReq.requestState<CallInQuestion>();
      // The page and tool the name stands for now, or the ones the client's user was asked about: what
      // is approved is what runs, with the same args.
      const target = asked?.target ?? directory.target(name);
      if (!target)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name} (no linked page offers it)`);
      const call = { client, name, target, args: structuredClone(args ?? {}) };
      const { signal, inputResponses } = ctx.mcpReq;
      const approval = await callApproval(
        call,
        { capabilities: server.getClientCapabilities(), answered: asked, responses: inputResponses, signal },
        surfaces,
      );
      if ('ask' in approval) return approval.ask satisfies InputRequiredResult;
      if ('mismatched' in approval)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', {
          reason: 'invalid_request_state',
        });
      if ('refused' in approval) answer = { ok: false, error: approval.refused };
      else answer = await approval.run.target.run(approval.run.args, signal, approval.run.approvedBy);
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
