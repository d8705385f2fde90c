/**
 * A tool call made in the page — `<pedelec-session>.invoke()`, the browser's agent through WebMCP, an
 * MCP client through the development Core — on exactly the path an agent's call takes: the session's
 * {@link Toolbox} (availability, validation, handler resolution, result check), with the context, the
 * deadline and the signal an agent's call gets. Nothing is sent over the bridge.
 */
import { toolCallContext } from './call-context.js';
import { normalizeError } from './errors.js';
import type { CallAnswer } from './page-link-contract.js';
import { DEFAULT_TOOL_TIMEOUT_MS } from './bridge-port.js';
import type { NormalizedTool } from './tools.js';
import type { ToolCall, Toolbox } from './toolbox.js';
import type { PedelecEventContext, ToolCallVia } from './types.js';

/** What a local call answers: exactly what the agent would have received. Never a rejection. */
export type LocalCallResult = CallAnswer;

/** The session a local call is made in (`''` and the time of the call before a session exists). */
export type LocalCallSession = {
  sessionId: string;
  provider: string;
  model: string | undefined;
  sessionCreatedAt: number;
};

export type LocalCall = {
  tool: string;
  args: unknown;
  /** The call's id, `<via>_<n>`: its `toolRequestId` (and `turnId`). */
  id: string;
  via: Exclude<ToolCallVia, 'pedelec'>;
  /** A foreign agent's call of a consequential tool: who approved it before it came. */
  approvedBy?: ToolCall['approvedBy'];
  session: LocalCallSession;
  /** The caller's own cancellation: aborts the handler's `ctx.signal`. */
  signal?: AbortSignal;
  /** The tools to answer from (the deadline, the schema), when not the toolbox's own: see `ToolCall.tools`. */
  tools?: ReadonlyMap<string, NormalizedTool>;
};

/**
 * Runs `call` through `toolbox` and resolves with what the agent would have received: a result, or the
 * error result (invalid args, no handler, a handler that threw, a result that is not JSON, the
 * deadline passed). A handler still running at the deadline gets `TOOL_TIMEOUT` then, as an agent's
 * call would from Core.
 */
export function callLocally(toolbox: Toolbox, call: LocalCall): Promise<LocalCallResult> {
  const { tool, args, id, via, session, signal, tools, approvedBy } = call;
  const timeoutMs = (tools ?? toolbox.tools).get(tool)?.manifest.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const startedAt = Date.now();
  const base: PedelecEventContext = {
    ...session,
    eventEmittedAt: startedAt,
    eventReceivedAt: startedAt,
    turnId: id,
    turnStartedAt: startedAt,
    source: 'sdk',
  };
  const { ctx, abort, settle } = toolCallContext(base, { toolRequestId: id, tool, via }, startedAt + timeoutMs);
  const onAbort = () => abort(normalizeError(signal?.reason, 'ABORTED', 'The call was aborted'));
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const outcome = toolbox.run({ tool, args, ctx, via, abort, enforceDeadline: true, tools, approvedBy });
  const finish = (settled: Awaited<typeof outcome>): LocalCallResult => {
    settle();
    signal?.removeEventListener('abort', onAbort);
    return settled.ok ? { ok: true, result: settled.result } : { ok: false, error: settled.error };
  };
  return outcome instanceof Promise ? outcome.then(finish) : Promise.resolve(finish(outcome));
}
