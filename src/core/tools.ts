/**
 * Tools: definitions, their normalization (docs/design/tools-api.md), and the {@link Toolbox} that runs
 * one call — availability, argument validation, handler resolution, result check — for agent calls
 * and local `invoke()`s alike.
 */
import { invalidInput, normalizeError, pedelecError, type PedelecError } from './errors.js';
import { isPlainObject, toBridgeJson, type JsonValue } from './json.js';
import { analyzeArgsSchema, type ArgsValidator } from './schema/compile.js';
import type { ToolArgsSchema } from './schema/types.js';
import { toolTimeout, type RunningCallContext } from './call-context.js';
import { MAX_TIMER_MS } from './bridge-port.js';
import type { ToolCallContext, ToolCallVia } from './types.js';
import type { AgentDenoModuleDefinition, PreparedDenoModule } from './deno-modules.js';

/**
 * A tool's handler. Declared through a method-style signature so a handler for specific args is still
 * accepted wherever a `ToolDefinition` is expected (parameters are checked bivariantly).
 */
export type ToolSpecificHandler<TArgs = unknown, TResult = unknown> = {
  bivarianceHack(args: TArgs, ctx: ToolCallContext): TResult | Promise<TResult>;
}['bivarianceHack'];

export type ToolDefinition<TArgs = unknown, TResult = unknown, TName extends string = string> = {
  /** Starts with a letter; then letters, digits, `_`, `.`, `-`. Unique within one manifest. */
  name: TName;
  /** What it does, its side effects, and when the agent should pick it. */
  description: string;
  /** Pedelec Tool Args Schema; the root is an object. */
  argsSchema: ToolArgsSchema;
  /** How long Core waits for the result (Core default 60 000 ms). */
  timeoutMs?: number;
  /** Kept in the browser, never sent to Core. */
  handler?: ToolSpecificHandler<TArgs, TResult>;
  /** (ours) A human-readable name for agents that show one (WebMCP, MCP). Never sent to Core. */
  title?: string;
  /** (ours) A hint to foreign agents (WebMCP, MCP) that the tool changes nothing. Never sent to Core. */
  readOnly?: boolean;
  /** (ours) A hint to foreign agents that the result may hold content the page does not vouch for. Never sent to Core. */
  untrustedContent?: boolean;
  /** (ours) Offered to the Pedelec agent only, never to foreign agents (WebMCP, MCP). Never sent to Core. */
  private?: boolean;
};

export type SkillsInput<TTools extends readonly ToolDefinition[] = readonly ToolDefinition[]> = {
  guidance: string;
  tools: TTools;
  /** Deno modules the agent may use: each says what it is for and how to call it, and is prepared. */
  denoModules?: readonly AgentDenoModuleDefinition[];
};

export type ToolNameOf<TTools extends readonly ToolDefinition[]> = Extract<TTools[number]['name'], string>;

export type SerializableToolManifest = {
  name: string;
  description: string;
  argsSchema: ToolArgsSchema;
  timeoutMs?: number;
};

export type SerializableSkillsManifest = {
  guidance: string;
  tools: SerializableToolManifest[];
  /** What Core is told of the session's Deno modules (their sources are uploaded apart). */
  denoModules?: PreparedDenoModule['manifest'][];
};

/** The generic fallback handler: any tool, by name. It returns the result, or a promise of it. */
export type GenericToolHandler<TToolName extends string = string> = (
  tool: TToolName,
  args: unknown,
  ctx: ToolCallContext,
) => unknown;

/**
 * Returns the very definition it was given; it exists to keep the generics and the literal name.
 * It validates nothing: that happens when a session is created.
 */
export function defineTool<TArgs = unknown, TResult = unknown, const TName extends string = string>(
  tool: ToolDefinition<TArgs, TResult, TName>,
): ToolDefinition<TArgs, TResult, TName> {
  return tool;
}

export const TOOL_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_.-]*$/;

/** A tool ready for a manifest: what Core gets, plus what stays in the page. */
export type NormalizedTool = {
  name: string;
  manifest: SerializableToolManifest;
  handler: ToolSpecificHandler | undefined;
  validate: ArgsValidator;
  /** Non-fatal findings (unknown keywords…), reported once by whoever normalized the tool. */
  warnings: PedelecError[];
};

/** A tool that passed the checks of tools-api.md step 3, before its validator is compiled (step 6). */
type CheckedTool = { name: string; manifest: SerializableToolManifest; handler: ToolSpecificHandler | undefined };

/**
 * tools-api.md step 3 for one entry: the public SDK's checks, messages and order. Throws the first
 * problem. `owned`: the schema is JSON data that was just built for this call and that nobody else
 * holds (the elements' markup), so it already is what the JSON clone would be.
 */
function checkTool(entry: unknown, index: number, owned?: boolean): CheckedTool {
  if (!isPlainObject(entry)) throw invalidInput('skills.tools entries must be objects', { index });
  const { name, description, timeoutMs, handler, argsSchema } = entry;
  const fail = (what: string) => invalidInput(`tool ${what}`, { index, toolName: name });
  const problem = firstProblem(entry);
  if (problem) throw fail(problem);
  let clone = argsSchema as ToolArgsSchema;
  try {
    if (!owned) clone = JSON.parse(JSON.stringify(argsSchema)) as ToolArgsSchema;
  } catch {
    throw fail('argsSchema must be serializable');
  }
  // What is sent is the clone: a toJSON or a getter may have made it something else.
  if ((clone as { type?: unknown } | null)?.type !== 'object') throw fail('argsSchema must describe an object');
  // firstProblem() found nothing: each field is of the type it checked.
  return {
    name: name as string,
    manifest: {
      name: name as string,
      description: description as string,
      argsSchema: clone,
      ...(timeoutMs !== undefined && { timeoutMs: timeoutMs as number }),
    },
    handler: handler as ToolSpecificHandler | undefined,
  };
}

/** The first thing wrong with a tool entry, in the public SDK's order and words; `''` when nothing is. */
function firstProblem(entry: Record<string, unknown>): string {
  const { name, description, timeoutMs, handler, argsSchema } = entry;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) return 'name is invalid';
  if (typeof description !== 'string' || !description.trim()) return 'description must be a non-empty string';
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && (timeoutMs as number) > 0))
    return 'timeoutMs must be a positive integer';
  if (handler !== undefined && typeof handler !== 'function') return 'handler must be a function';
  if ('input' in entry) return 'input is no longer supported; use argsSchema';
  if (!isPlainObject(argsSchema)) return 'argsSchema must be an object';
  if (argsSchema.type !== 'object') return 'argsSchema must describe an object';
  return '';
}

/**
 * (ours) Step 6: the validator compiled once for the tool, and what it has to say about the clone. It
 * never rejects (the public SDK does not): what the kit cannot validate accepts any value, and is
 * reported in one warning per tool, listing every path.
 */
function compileTool(tool: CheckedTool): NormalizedTool {
  const { name, manifest } = tool;
  const { unvalidated, warnings, validate } = analyzeArgsSchema(manifest.argsSchema);
  const found = warnings.map((w) =>
    pedelecError('SCHEMA_KEYWORD_UNSUPPORTED', `${name}: ${w.message}`, { tool: name, path: w.path }),
  );
  if (unvalidated.length)
    found.unshift(
      pedelecError('SCHEMA_NOT_VALIDATED', `${name}: not validated: ${unvalidated.map((u) => u.message).join('; ')}`, {
        tool: name,
        paths: unvalidated.map((u) => u.path),
      }),
    );
  return { ...tool, validate, warnings: found };
}

/**
 * Normalizes one tool definition (tools-api.md step 3 onwards). Returns the tool, or the
 * `INVALID_INPUT` error that `createSession` rejects with. Duplicate names are the caller's check.
 * Never throws: whatever goes wrong with one tool (a getter or a proxy that throws, an engine limit)
 * leaves that tool out, not every tool of the session.
 */
export function normalizeTool(entry: unknown, index: number, owned?: boolean): NormalizedTool | PedelecError {
  try {
    return compileTool(checkTool(entry, index, owned));
  } catch (error) {
    // The checks throw INVALID_INPUT; anything else came from the page's getters or proxies, or the engine.
    const thrown = normalizeError(error, '', 'it threw');
    return thrown.code === 'INVALID_INPUT'
      ? thrown
      : invalidInput(`tool could not be read (${thrown.message})`, { index });
  }
}

/**
 * The result of normalizing `createSession({ skills })`. Its Deno modules are as the page gave them:
 * their checks load with the code that sets them up (deno-module-check.ts), when there are some.
 */
export type NormalizedSkills = {
  manifest: SerializableSkillsManifest;
  tools: NormalizedTool[];
  denoModules: readonly unknown[];
};

/**
 * Normalizes a whole skills input; throws (as a value) the first `INVALID_INPUT`, in the public SDK's
 * order and words (the schema checks of step 6 never reject).
 */
export function normalizeSkills(skills: unknown): NormalizedSkills | undefined {
  if (skills === undefined) return undefined;
  if (!isPlainObject(skills)) throw invalidInput('skills must be an object');
  const { guidance, tools: entries } = skills;
  if (typeof guidance !== 'string') throw invalidInput('skills.guidance must be a string');
  if (!Array.isArray(entries)) throw invalidInput('skills.tools must be an array');
  if (skills.denoModules !== undefined && !Array.isArray(skills.denoModules))
    throw invalidInput('skills.denoModules must be an array');
  // Of unknown: the check below asks it about an entry's name before that name is checked.
  const names = new Set<unknown>();
  // Array.from, not map: a hole in the array is an entry too (undefined), and is refused as one.
  const tools = Array.from(entries, (entry: unknown, index) => {
    // The duplicate check sits right after the name check, as in the spec's order (only valid
    // names are ever in `names`).
    if (isPlainObject(entry) && names.has(entry.name))
      throw invalidInput('duplicate tool name', { toolName: entry.name });
    const tool = checkTool(entry, index);
    names.add(tool.name);
    return compileTool(tool);
  });
  const manifest: SerializableSkillsManifest = { guidance, tools: tools.map((t) => t.manifest) };
  return { manifest, tools, denoModules: (skills.denoModules as unknown[] | undefined) ?? [] };
}

/** What a call produced: the wire result, and whether the kit answered with an error of its own. */
export type ToolOutcome =
  | { ok: true; result: JsonValue }
  | { ok: false; result: { error: PedelecError }; error: PedelecError; reportToPage: boolean };

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
};

const kitError = (error: PedelecError, reportToPage = false): ToolOutcome => ({
  ok: false,
  result: { error },
  error,
  reportToPage,
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

  constructor(public validateArgs = true) {}

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
    const { tool, args, ctx } = call;
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
        {
          path: '',
          message: `args: could not be read (${normalizeError(thrown, 'TOOL_ARGS_INVALID', 'it threw').message})`,
        },
      ];
    }
    if (errors) return kitError(pedelecError('TOOL_ARGS_INVALID', errors[0].message, { errors }));
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
  return kitError(error);
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
