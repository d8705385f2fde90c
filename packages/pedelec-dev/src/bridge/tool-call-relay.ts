/**
 * A session's tool calls on their way to the page and back: each checked against the manifest (an
 * unknown tool or args that do not match are refused here, and the page never sees the call), given
 * its deadline, and settled exactly once — by the page's answer or by the timeout; a late or repeated
 * answer is refused with the reason. Apart from turn-runner.ts, which runs the turn around the calls,
 * and session-events.ts, which decides what the page is shown of them, through the {@link RelayHooks}.
 */
import { randomUUID } from 'node:crypto';
import type { JsonValue } from 'pedelec-elements/core';
import { MAX_TIMER_MS, argsMessage, isPlainObject, pedelecError, type ArgsError } from 'pedelec-elements/protocol';
import { DevCoreError } from '../errors.js';
import type { CheckedTool } from './manifest.js';

/** A tool call as the page gets it (`tool_call`). */
export type ToolRequest = { toolRequestId: string; tool: string; args: unknown; operationId: string | undefined };
/** A call waiting for the page, with what Core's snapshot also tells of it: when it went out, and its deadline. */
export type WaitingCall = ToolRequest & { createdAt: string; timeoutMs: number };
type PendingCall = {
  request: ToolRequest;
  createdAt: string;
  timeoutMs: number;
  settle(how: 'answered' | 'timed_out', result: JsonValue): void;
  cancel(reason: unknown): void;
};

/** What the relay asks of the session about the turn a call belongs to. */
export type RelayHooks<T> = {
  /** Why a call of the turn can no longer go out (the turn or the session is over); undefined while it can. */
  over(turn: T): DevCoreError | undefined;
  /** The call is going out to the page. */
  sent(turn: T, request: ToolRequest): void;
  /** The page answered, or the call timed out: `result` is what the agent gets. */
  settled(turn: T, result: JsonValue): void;
};

/** How many answered/timed-out request ids a session remembers to explain a late or repeated result. */
const SETTLED_MEMORY = 512;

function errorResult(code: string, message: string, details?: unknown): JsonValue {
  return { error: pedelecError(code, message, details) as unknown as JsonValue };
}

function isPositiveInteger(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) > 0;
}

/** One per session; the relay knows a turn only by its `operationId` and hands it back to the hooks. */
export class ToolCallRelay<T extends { readonly operationId: string | undefined }> {
  private readonly pending = new Map<string, PendingCall>();
  private readonly settled = new Map<string, 'answered' | 'timed_out'>();
  /** Error results this Core made for calls it refused before the page saw them (TOOL_NOT_FOUND, TOOL_ARGS_INVALID). */
  private readonly refusals = new WeakSet<object>();

  constructor(
    private readonly tools: Map<string, CheckedTool>,
    private readonly defaultToolTimeoutMs: number,
    private readonly hooks: RelayHooks<T>,
  ) {}

  /** The call waiting for the page, if any (the turn sends one at a time). */
  get waiting(): WaitingCall | undefined {
    const call = this.pending.values().next().value;
    return call && { ...call.request, createdAt: call.createdAt, timeoutMs: call.timeoutMs };
  }

  /** Whether a result is this Core's refusal of a call the page never saw (see TurnContext.refused). */
  isRefusal(result: JsonValue): boolean {
    return typeof result === 'object' && result !== null && this.refusals.has(result);
  }

  private refuse(result: JsonValue): JsonValue {
    this.refusals.add(result as object);
    return result;
  }

  call(turn: T, name: unknown, args: unknown, options?: { timeoutMs?: number }): Promise<JsonValue> {
    const over = this.hooks.over(turn);
    if (over) return Promise.reject(over);
    const tool = typeof name === 'string' ? this.tools.get(name) : undefined;
    if (!tool) {
      return Promise.resolve(
        this.refuse(
          errorResult('TOOL_NOT_FOUND', `Tool ${JSON.stringify(name)} is not in this session's manifest`, {
            tool: name,
            available: [...this.tools.keys()],
          }),
        ),
      );
    }

    let callArgs: unknown = args === undefined ? {} : args;
    let timeoutMs = tool.manifest.timeoutMs ?? this.defaultToolTimeoutMs;
    // An agent may extend one call with a `timeoutMs` argument, which Core strips unless the tool
    // declares such an argument itself (bridge-protocol.md §3).
    const declared = (tool.manifest.argsSchema.properties ?? {}) as Record<string, unknown>;
    if (isPlainObject(callArgs) && Object.hasOwn(callArgs, 'timeoutMs') && !Object.hasOwn(declared, 'timeoutMs')) {
      const { timeoutMs: asked, ...rest } = callArgs;
      callArgs = rest;
      // Extend, never shorten: a tool's own deadline is what its handler was written for.
      if (isPositiveInteger(asked)) timeoutMs = Math.max(timeoutMs, asked);
    }
    if (isPositiveInteger(options?.timeoutMs)) timeoutMs = Math.max(timeoutMs, options.timeoutMs);
    timeoutMs = Math.min(timeoutMs, MAX_TIMER_MS);

    const checked = tool.validate(callArgs);
    // A check that runs a schema's pattern comes back later, from the pattern worker (pattern-check.ts).
    if (checked instanceof Promise) {
      return checked.then((problems) => {
        const overSince = this.hooks.over(turn);
        if (overSince) throw overSince;
        return this.sendCall(turn, tool, problems, callArgs, timeoutMs);
      });
    }
    return this.sendCall(turn, tool, checked, callArgs, timeoutMs);
  }

  /** Refuses args with problems to the agent, or sends the call to the page and waits for its answer. */
  private sendCall(
    turn: T,
    tool: CheckedTool,
    problems: ArgsError[] | null,
    callArgs: unknown,
    timeoutMs: number,
  ): Promise<JsonValue> {
    if (problems) {
      return Promise.resolve(
        this.refuse(
          errorResult('TOOL_ARGS_INVALID', argsMessage(problems), { tool: tool.manifest.name, errors: problems }),
        ),
      );
    }

    const toolName = tool.manifest.name;
    return new Promise<JsonValue>((resolve, reject) => {
      const toolRequestId = `toolreq_${randomUUID()}`;
      const timer = setTimeout(() => {
        call.settle(
          'timed_out',
          errorResult('TOOL_TIMEOUT', `Tool ${toolName} did not answer within ${timeoutMs} ms`, {
            tool: toolName,
            toolRequestId,
            timeoutMs,
          }),
        );
      }, timeoutMs);
      // Nothing here watches the session's routes: a call outlives the page it was sent to, so the page
      // that resumes a persistent session (after a reload) can still answer it.
      const call: PendingCall = {
        request: { toolRequestId, tool: toolName, args: callArgs, operationId: turn.operationId },
        createdAt: new Date().toISOString(),
        timeoutMs,
        settle: (how, result) => {
          if (!this.pending.delete(toolRequestId)) return;
          clearTimeout(timer);
          this.remember(toolRequestId, how);
          this.hooks.settled(turn, result);
          resolve(result);
        },
        cancel: (reason) => {
          this.pending.delete(toolRequestId);
          clearTimeout(timer);
          reject(reason);
        },
      };
      this.pending.set(toolRequestId, call);
      this.hooks.sent(turn, call.request);
    });
  }

  private remember(toolRequestId: string, how: 'answered' | 'timed_out'): void {
    this.settled.set(toolRequestId, how);
    if (this.settled.size > SETTLED_MEMORY) this.settled.delete(this.settled.keys().next().value as string);
  }

  /** The page's answer to a `tool_call`. Exactly one per call; a late or repeated one is refused. */
  submitResult(toolRequestId: string, result: unknown): void {
    const call = this.pending.get(toolRequestId);
    if (call) {
      call.settle('answered', (result === undefined ? null : result) as JsonValue);
      return;
    }
    const how = this.settled.get(toolRequestId);
    if (how === 'answered') {
      throw new DevCoreError(
        'TOOL_RESULT_ALREADY_SUBMITTED',
        `A result for tool request ${toolRequestId} was already submitted`,
        { toolRequestId },
      );
    }
    if (how === 'timed_out') {
      throw new DevCoreError('TOOL_TIMEOUT', `Tool request ${toolRequestId} timed out before its result arrived`, {
        toolRequestId,
      });
    }
    throw new DevCoreError(
      'TOOL_REQUEST_NOT_FOUND',
      `No tool call ${toolRequestId} is waiting for a result in this session`,
      { toolRequestId },
    );
  }

  /** Drops every waiting call: each rejects with `reason` (the session has ended). */
  cancelAll(reason: unknown): void {
    for (const call of [...this.pending.values()]) call.cancel(reason);
  }
}
