/**
 * The agent's tool calls of one session: each runs once through the toolbox (the one path every
 * caller shares), its result is submitted once, and a call the session can no longer answer is
 * aborted with a reason its handler sees on `ctx.signal`.
 */
import { toolCallContext } from './call-context.js';
import { normalizeError, pedelecError, type PedelecError } from './errors.js';
import type { JsonValue } from './json.js';
import { DEFAULT_TOOL_TIMEOUT_MS } from './bridge-port.js';
import type { Toolbox, ToolOutcome } from './toolbox.js';
import type { PedelecEventContext } from './types.js';

/** What the calls need from their session. */
export interface ToolCallsHost {
  readonly toolbox: Toolbox;
  request(type: 'submit_tool_result', payload: { toolRequestId: string; result: JsonValue }): Promise<unknown>;
  emitError(error: PedelecError): void;
}

/** How to abort a call still running. */
type Abort = (reason: PedelecError) => void;

/**
 * How many answered calls a session remembers, so that a repeat of one is ignored (tools-api.md): Core
 * never resends a call that old, and memory stays bounded however long the session runs.
 */
export const ANSWERED_WINDOW = 1024;

export class SessionToolCalls {
  /** The calls running, by `toolRequestId`. */
  #running = new Map<string, Abort>();
  /** The ids of the last {@link ANSWERED_WINDOW} calls answered (or withdrawn), oldest first. */
  #answered = new Set<string>();

  constructor(private readonly host: ToolCallsHost) {}

  /** Whether a call with this id runs, or was answered recently: a repeat of it is ignored. */
  has(toolRequestId: string): boolean {
    return this.#running.has(toolRequestId) || this.#answered.has(toolRequestId);
  }

  /** The call is no longer running: its id is remembered among the last answered. */
  #answer(toolRequestId: string): void {
    this.#running.delete(toolRequestId);
    this.#answered.add(toolRequestId);
    if (this.#answered.size > ANSWERED_WINDOW) this.#answered.delete(this.#answered.values().next().value!);
  }

  /** Runs one call; `baseCtx` is the event context of its `tool_call`. */
  run(toolRequestId: string, tool: string, args: unknown, baseCtx: PedelecEventContext, receivedAt: number): void {
    const { toolbox } = this.host;
    const deadline = receivedAt + (toolbox.tools.get(tool)?.manifest.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS);
    const { ctx, abort, settle } = toolCallContext(baseCtx, { toolRequestId, tool, via: 'pedelec' }, deadline);
    this.#running.set(toolRequestId, abort);

    const submit = (outcome: ToolOutcome) => {
      // A result that is not JSON is also reported to the page.
      if (!outcome.ok && outcome.reportToPage) this.host.emitError(outcome.error);
      const aborted = settle();
      // The session ended while the handler ran: that call was settled then, and its result has
      // nowhere to go. Not posted — but said, as any other result that could not be delivered.
      if (!this.#running.has(toolRequestId)) {
        if (aborted) this.host.emitError(submitFailed(aborted, tool, toolRequestId));
        return;
      }
      this.#answer(toolRequestId);
      this.host
        .request('submit_tool_result', { toolRequestId, result: outcome.result as JsonValue })
        .catch((failure) => {
          const cause = normalizeError(failure, 'SUBMIT_TOOL_RESULT_FAILED', 'submit_tool_result failed');
          this.host.emitError(submitFailed(cause, tool, toolRequestId));
        });
    };
    const outcome = toolbox.run({ tool, args, ctx, via: 'pedelec', abort });
    // Fire and forget: the outcome never rejects (the toolbox turns a failure into an error outcome),
    // and submit reports its own failures.
    if (outcome instanceof Promise) void outcome.then(submit);
    else submit(outcome);
  }

  /**
   * The connection went away: running handlers are aborted but keep their place, so their results
   * are still submitted — and that failure reported.
   */
  abortRunning(reason: PedelecError): void {
    this.#running.forEach((abort) => abort(reason));
  }

  /** The session ended: running calls are aborted and every call forgotten. */
  abortAll(reason: PedelecError): void {
    const aborts = [...this.#running.values()];
    this.#running.clear();
    this.#answered.clear();
    aborts.forEach((abort) => abort(reason));
  }

  /** Core (a snapshot) waits for no call but `pendingId`: the others still running are withdrawn. */
  withdrawAllBut(pendingId: string | undefined): void {
    for (const [toolRequestId, abort] of [...this.#running]) {
      if (toolRequestId === pendingId) continue;
      this.#answer(toolRequestId);
      abort(pedelecError('TOOL_REQUEST_NOT_PENDING', 'Pedelec no longer waits for this tool call', { toolRequestId }));
    }
  }
}

/** A tool's result that could not be delivered, with why (`cause`). */
const submitFailed = (cause: PedelecError, tool: string, toolRequestId: string): PedelecError =>
  pedelecError('SUBMIT_TOOL_RESULT_FAILED', cause.message, { tool, toolRequestId, cause });
