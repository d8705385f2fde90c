/**
 * A consequential tool's approval (docs/tools.md, "Consequential tools"): before its handler runs, a
 * person approves the call on a surface the calling agent cannot drive. The Pedelec agent acts only
 * through tools, so the page asks (its own UI, or the chat's card); a foreign agent's call arrives
 * already decided — WebMCP leaves it to the browser's confirmation, pedelec-dev to the MCP client's
 * user or its operator — and one that says nobody decided is refused. `invoke()` never gets here.
 *
 * A chunk of its own, loaded by the toolbox at the first consequential call: pages without one never
 * download it.
 */
import { normalizeError, pedelecError, type PedelecError } from './errors.js';
import { MAX_TIMER_MS } from './bridge-port.js';
import { argsError, argsMessage } from './schema/compile.js';
import type { Asked, ToolCall, Toolbox } from './toolbox.js';
import type { NormalizedTool, ToolApproval } from './tools.js';
import type { ToolApprovalAnswer, ToolApprovalDecider, ToolApprovalRequest } from './types.js';

/** The call may run with `args`, or fails with `error`. */
export type Approved = { args: unknown } | { error: PedelecError };

const unavailable = (tool: string, why: string): Approved => ({
  error: pedelecError('TOOL_APPROVAL_UNAVAILABLE', `${tool} needs a person's approval, and ${why}`, { tool }),
});

/**
 * @internal Decides on one call of `tool` (consequential), by the toolbox's surfaces: its `ask` hook,
 * else its `onApproval`. Never rejects.
 */
export async function approve(
  call: ToolCall,
  tool: NormalizedTool & { approval: ToolApproval },
  { hooks, onApproval }: Pick<Toolbox, 'hooks' | 'onApproval'>,
): Promise<Approved> {
  const { via, args } = call;
  const decided = (decidedBy: ToolApprovalDecider, approved: boolean, finalArgs: unknown, reason?: string) =>
    hooks.decided?.({
      tool: tool.name,
      args: finalArgs,
      via,
      decidedBy,
      approved,
      ...(reason && { reason }),
      at: Date.now(),
    });
  if (via !== 'pedelec') {
    if (!call.approvedBy) return unavailable(tool.name, `the ${via} call came with nobody's approval`);
    decided(call.approvedBy, true, args);
    return { args };
  }
  const controller = new AbortController();
  const request: ToolApprovalRequest = {
    tool: tool.name,
    args,
    via,
    editable: tool.approval.editable,
    signal: controller.signal,
    context: call.ctx,
  };
  const ask = hooks.ask ?? (onApproval && ((asking) => ({ decidedBy: 'page', answer: onApproval(asking) })));
  let asked: Asked | null | undefined;
  let answer: ToolApprovalAnswer | PedelecError;
  try {
    asked = await ask?.(request);
    if (!asked) return unavailable(tool.name, 'nobody can be asked on this page');
    answer = await waitFor(asked.answer, tool, call);
  } catch (thrown) {
    // The surface broke (a chunk that did not load, the page's own promise rejected): nobody decided.
    return unavailable(tool.name, `asking for it failed: ${normalizeError(thrown, '', 'it failed').message}`);
  } finally {
    controller.abort(pedelecError('ABORTED', 'The approval is no longer awaited'));
  }
  if (isError(answer)) return { error: answer };
  const { approved, reason, args: edited } = typeof answer === 'boolean' ? { approved: answer } : answer;
  const finalArgs = tool.approval.editable && edited !== undefined ? edited : args;
  const why = typeof reason === 'string' && reason ? reason : undefined;
  decided(asked.decidedBy, approved === true, finalArgs, why);
  if (approved !== true) {
    const message = `A person rejected ${tool.name}${why ? `: ${why}` : ''}`;
    return { error: pedelecError('TOOL_APPROVAL_REJECTED', message, { tool: tool.name, ...(why && { reason: why }) }) };
  }
  return finalArgs === args ? { args } : revalidated(tool, finalArgs);
}

/** Arguments a person edited, checked again as the agent's were. */
function revalidated(tool: NormalizedTool, args: unknown): Approved {
  let errors;
  try {
    errors = tool.validate(args);
  } catch (thrown) {
    errors = [argsError([], 'type', `could not be read (${normalizeError(thrown, '', 'it threw').message})`)];
  }
  if (!errors) return { args };
  const message = `The edited arguments: ${argsMessage(errors)}`;
  return { error: pedelecError('TOOL_ARGS_INVALID', message, { errors }) };
}

const isError = (value: unknown): value is PedelecError =>
  typeof value === 'object' && value !== null && 'code' in value && 'message' in value;

/**
 * The person's answer; or `TOOL_APPROVAL_TIMEOUT` once the tool's approval time is over; or the
 * call's abort reason if it ends first (the session ended, the page removed the tool).
 */
function waitFor(
  answer: ToolApprovalAnswer | Promise<ToolApprovalAnswer>,
  tool: NormalizedTool & { approval: ToolApproval },
  call: ToolCall,
): Promise<ToolApprovalAnswer | PedelecError> {
  const { timeoutMs } = tool.approval;
  const { signal } = call.ctx;
  return new Promise((resolve, reject) => {
    const finish =
      <T>(settle: (value: T) => void) =>
      (value: T) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', ended);
        settle(value);
      };
    const timeout = pedelecError('TOOL_APPROVAL_TIMEOUT', `Nobody approved ${tool.name} within ${timeoutMs} ms`, {
      tool: tool.name,
      timeoutMs,
    });
    const timer = setTimeout(() => finish(resolve)(timeout), Math.min(timeoutMs, MAX_TIMER_MS));
    const ended = () => finish(resolve)(signal.reason as PedelecError);
    if (signal.aborted) return ended();
    signal.addEventListener('abort', ended, { once: true });
    Promise.resolve(answer).then(finish(resolve), finish(reject));
  });
}
