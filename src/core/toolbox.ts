/**
 * The {@link Toolbox} that runs one call — availability, argument validation, handler resolution,
 * result check — for agent calls and local `invoke()`s alike (docs/design/tools-api.md).
 */
import { invalidInput, normalizeError, pedelecError, type PedelecError } from './errors.js';
import { toBridgeJson, type JsonValue } from './json.js';
import { toolTimeout, type RunningCallContext } from './call-context.js';
import { MAX_TIMER_MS } from './bridge-port.js';
import type { ToolCallVia } from './types.js';
import { TOOL_NAME_PATTERN, type GenericToolHandler, type NormalizedTool, type ToolSpecificHandler } from './tools.js';
import { argsError, argsMessage } from './schema/compile.js';
import { lazyModule } from './lazy-module.js';
import type { PedelecOptions, ToolApprovalAnswer, ToolApprovalDecision, ToolApprovalRequest } from './types.js';
/** What a call produced: the wire result, and whether the kit answered with an error of its own. */
export type ToolOutcome =
  | { ok: true; result: JsonValue }
  | {
      ok: false;
      result: { error: PedelecError };
      error: PedelecError;
      reportToPage: boolean;
      /** What the handler threw, when it threw (or rejected): the developer wants its stack. */
      thrown?: unknown;
    };

/** One tool call, as the {@link Toolbox} sees it. */
export type ToolCall = {
  tool: string;
  args: unknown;
  ctx: RunningCallContext;
  /** Who called (also `ctx.via`). */
  via: ToolCallVia;
  /** Aborts `ctx.signal` (e.g. an element removing the tool while it runs). */
  abort?: (reason: PedelecError) => void;
  /**
   * Answer `TOOL_TIMEOUT` at `ctx.deadline` when the handler has not answered by then, aborting its
   * signal: for calls made in the page. An agent's call has Core, which stops waiting at the deadline.
   */
  enforceDeadline?: boolean;
  /**
   * The tools this call is answered from, when not the toolbox's own (the set sent to Core): a call
   * from a foreign agent (WebMCP, MCP) runs the page's current tools.
   */
  tools?: ReadonlyMap<string, NormalizedTool>;
  /** A foreign agent's call of a consequential tool: who approved it before it came (tool-approval.ts). */
  approvedBy?: 'mcp-client' | 'operator' | 'browser-hint';
};

/**
 * @internal Hooks the elements plug into the resolution order (elements.md "Handler resolution"); the plain
 * SDK uses none of them. (To observe every call, the elements extend `run`.)
 */
export type ToolboxHooks = {
  /** Step 0: a tool whose element is gone or disabled answers `TOOL_UNAVAILABLE`. */
  unavailable?(tool: string, call: ToolCall): PedelecError | null;
  /** Between named and inline handlers: the `pedelec-tool-call` event. Undefined when nobody answered. */
  dispatch?(call: ToolCall): { respond: unknown } | { deny: PedelecError } | undefined;
  /** The inline handler, looked up at call time (an element's `handler` may change after start). */
  inline?(tool: string): ToolSpecificHandler | undefined;
  /**
   * Who asks a person about an agent's call of a consequential tool, and how they answer; `null` when
   * nobody can be asked. Unset: the `onApproval` option, if any.
   */
  ask?: (request: ToolApprovalRequest) => Asked | null | Promise<Asked | null>;
  /** Told of every decision on a consequential tool's call. */
  decided?: (decision: ToolApprovalDecision) => void;
};

/** Who a person's answer will come from, and the answer (a value, or a promise of one). */
export type Asked = { decidedBy: 'page' | 'chat'; answer: ToolApprovalAnswer | Promise<ToolApprovalAnswer> };

/** The approval step, loaded at the first consequential call (a failed load rejects `CHUNK_LOAD_FAILED`). */
const approvalStep = lazyModule(() => import('./tool-approval.js'));

const kitError = (error: PedelecError, reportToPage = false, thrown?: unknown): ToolOutcome => ({
  ok: false,
  result: { error },
  error,
  reportToPage,
  thrown,
});

/**
 * The tools a session answers and how: declared tools (with their compiled validators and inline
 * handlers), named handlers, the generic fallback. `run` never throws and never rejects; it returns
 * synchronously when the handler did, so a synchronous result is submitted in the same task.
 */
export class Toolbox {
  /** Declared tools by name: the set whose schemas were sent to Core. */
  tools = new Map<string, NormalizedTool>();
  /** The inline handlers by name once replaced (`replaceInlineToolHandlers`); until then, the declared tools'. */
  inline: Map<string, ToolSpecificHandler> | undefined;
  readonly named = new Map<string, ToolSpecificHandler>();
  generic: GenericToolHandler | null = null;
  /** @internal The elements' steps of the resolution order. */
  hooks: ToolboxHooks = {};

  constructor(
    public validateArgs = true,
    readonly onApproval?: PedelecOptions['onApproval'],
  ) {}

  /**
   * Registers the generic fallback (`onTool(fn)`) or a named handler (`onTool(name, fn)`, the latest
   * for a name wins; a bad name or handler throws `INVALID_INPUT`). The returned function unregisters
   * only if that same handler is still the registered one; it never cancels a running call.
   */
  onTool(name: string | GenericToolHandler, handler?: ToolSpecificHandler): () => void {
    if (typeof name === 'function') {
      this.generic = name;
      return () => {
        if (this.generic === name) this.generic = null;
      };
    }
    if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name))
      throw invalidInput('tool name is invalid', { toolName: name });
    if (typeof handler !== 'function') throw invalidInput('tool handler must be a function', { toolName: name });
    this.named.set(name, handler);
    return () => {
      if (this.named.get(name) === handler) this.named.delete(name);
    };
  }

  setTools(tools: readonly NormalizedTool[]): void {
    this.tools = new Map(tools.map((t) => [t.name, t]));
    this.inline = undefined;
  }

  /**
   * Answers one call — whoever made it: availability, argument validation, the first handler in
   * resolution order, the result check, and (`enforceDeadline`) the deadline.
   */
  run(call: ToolCall): ToolOutcome | Promise<ToolOutcome> {
    const outcome = this.#answer(call);
    return call.enforceDeadline && outcome instanceof Promise ? withinDeadline(call, outcome) : outcome;
  }

  #answer(call: ToolCall): ToolOutcome | Promise<ToolOutcome> {
    const { tool, args } = call;
    const { hooks } = this;
    const unavailable = hooks.unavailable?.(tool, call);
    if (unavailable) return kitError(unavailable);
    const declared = (call.tools ?? this.tools).get(tool);
    let errors;
    try {
      errors = this.validateArgs && declared?.validate(args);
    } catch (thrown) {
      // Args from page code (invoke()) may throw when read — a getter, a revoked Proxy; an agent's never do.
      errors = [
        argsError([], 'type', `could not be read (${normalizeError(thrown, 'TOOL_ARGS_INVALID', 'it threw').message})`),
      ];
    }
    if (errors) return kitError(pedelecError('TOOL_ARGS_INVALID', argsMessage(errors), { errors }));
    const approval = declared?.approval;
    if (approval && call.via !== 'local')
      // A consequential tool's call runs once a person approved it, with the arguments they approved.
      return approvalStep()
        .then((step) => step.approve(call, { ...declared, approval }, this))
        .then((approved) =>
          'error' in approved ? kitError(approved.error) : this.#handle({ ...call, args: approved.args }, declared),
        );
    return this.#handle(call, declared);
  }

  /** The first handler in resolution order, for arguments that may run. */
  #handle(call: ToolCall, declared: NormalizedTool | undefined): ToolOutcome | Promise<ToolOutcome> {
    const { tool, args, ctx } = call;
    const { hooks } = this;
    const named = this.named.get(tool);
    if (named) return settle(() => named(args, ctx));
    const dispatched = hooks.dispatch?.(call);
    if (dispatched) return 'deny' in dispatched ? kitError(dispatched.deny) : settle(() => dispatched.respond);
    const inline = hooks.inline ? hooks.inline(tool) : this.inline ? this.inline.get(tool) : declared?.handler;
    if (inline) return settle(() => inline(args, ctx));
    const { generic } = this;
    if (generic) return settle(() => generic(tool, args, ctx));
    return kitError(pedelecError('TOOL_HANDLER_NOT_FOUND', `No tool handler registered for ${tool}`, { tool }));
  }
}

/**
 * The outcome, or `TOOL_TIMEOUT` once the call's deadline passes (its signal aborted with it): what the
 * agent would get from Core, which stops waiting then.
 */
function withinDeadline(call: ToolCall, outcome: Promise<ToolOutcome>): Promise<ToolOutcome> {
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      const left = call.ctx.deadline - Date.now();
      if (left > 0) return void (timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS)));
      const error = toolTimeout(call.tool, call.ctx.toolRequestId);
      call.abort?.(error);
      resolve(kitError(error));
    };
    arm();
    void outcome.then((settled) => {
      clearTimeout(timer);
      resolve(settled);
    });
  });
}

/**
 * A handler's failure as the agent's error result. Its `details` (anything a page throws) must cross
 * the bridge too: converted as a result is; details that cannot be are left out, not let make the
 * whole answer unsendable (the agent would get nothing and wait for Core's timeout). A thrown
 * `{ code, message }` keeps its own `details: undefined`, as the public SDK's copy does.
 */
function handlerFailed(thrown: unknown): ToolOutcome {
  const error = normalizeError(thrown, 'TOOL_HANDLER_ERROR', 'Tool handler failed');
  if (error.details !== undefined) {
    const json = toBridgeJson(error.details);
    if (json.ok) error.details = json.value;
    else delete error.details;
  }
  return kitError(error, false, thrown);
}

function checked(value: unknown): ToolOutcome {
  const json = toBridgeJson(value);
  return json.ok
    ? { ok: true, result: json.value }
    : kitError(pedelecError('TOOL_RESULT_INVALID', json.problem.message, { path: json.problem.path }), true);
}

/** Runs a handler and turns whatever it does — return, throw, resolve, reject — into an outcome. */
function settle(invoke: () => unknown): ToolOutcome | Promise<ToolOutcome> {
  let value: unknown;
  try {
    value = invoke();
    // Inside the try: reading `then` runs a getter when the result has one.
    if (typeof (value as { then?: unknown } | null | undefined)?.then === 'function' && typeof value === 'object')
      return Promise.resolve(value).then(checked, handlerFailed);
  } catch (thrown) {
    return handlerFailed(thrown);
  }
  return checked(value);
}
