/**
 * Tools: definitions and their normalization (docs/design/tools-api.md). What runs a call is the
 * toolbox (toolbox.ts).
 */
import { invalidInput, normalizeError, pedelecError, type PedelecError } from './errors.js';
import { isFilled, isPlainObject } from './json.js';
import { analyzeArgsSchema, type ArgsValidator } from './schema/compile.js';
import type { ToolArgsSchema } from './schema/types.js';
import type { ToolCallContext } from './types.js';
import { DEFAULT_TOOL_TIMEOUT_MS } from './bridge-port.js';
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
  /**
   * (ours) A person approves each agent's call before the handler runs (`onApproval`, or the page's
   * event or chat card); foreign agents are told it is consequential. The manifest's `timeoutMs` then
   * covers the approval wait plus the handler's own time.
   */
  consequential?: boolean;
  /** (ours) The person approving may edit the arguments. */
  approvalEditable?: boolean;
  /** (ours) How long a consequential call waits for a person (default 300 000 ms): then `TOOL_APPROVAL_TIMEOUT`. */
  approvalTimeoutMs?: number;
  /** (ours) How `<pedelec-chat>` shows a result in the call's row. Kept in the browser, never sent to Core. */
  renderResult?: RenderToolResult;
};

/** What a result renderer learns of its call: its arguments, its tool, and the kit's error if it failed. */
export type ToolResultContext = { args: unknown; tool: string; error: PedelecError | null };

/**
 * Shows a tool's result: a Node, or a string shown as text (never parsed as HTML); `null` shows the
 * result as JSON, as does a renderer that throws. `result` is what went back to the agent: the
 * handler's JSON, or the kit's `{ error }` result (then `context.error` is that error).
 */
export type RenderToolResult = (result: unknown, context: ToolResultContext) => Node | string | null;

/** How long a consequential tool's call waits for a person unless told otherwise. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 300_000;

/** A consequential tool's approval: whether its arguments may be edited, and how long it waits. */
export type ToolApproval = { editable: boolean; timeoutMs: number };

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
  /** Set for a consequential tool. */
  approval?: ToolApproval;
};

/** A tool that passed the checks of tools-api.md step 3, before its validator is compiled (step 6). */
type CheckedTool = Omit<NormalizedTool, 'validate' | 'warnings'>;

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
  return withApproval(
    {
      name: name as string,
      manifest: {
        name: name as string,
        description: description as string,
        argsSchema: clone,
        ...(timeoutMs !== undefined && { timeoutMs: timeoutMs as number }),
      },
      handler: handler as ToolSpecificHandler | undefined,
    },
    entry,
  );
}

/** A consequential tool's approval, and its manifest's time: Core waits for the person and the handler. */
function withApproval(tool: CheckedTool, entry: Record<string, unknown>): CheckedTool {
  if (entry.consequential !== true) return tool;
  const timeoutMs = (entry.approvalTimeoutMs as number | undefined) ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  const approval = { editable: entry.approvalEditable === true, timeoutMs };
  const handlerMs = tool.manifest.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  return { ...tool, approval, manifest: { ...tool.manifest, timeoutMs: handlerMs + timeoutMs } };
}

/** A time limit a tool may name: absent, or a positive integer (milliseconds). */
const isTimeout = (ms: unknown): boolean => ms === undefined || (Number.isInteger(ms) && (ms as number) > 0);

/** The first thing wrong with a tool entry, in the public SDK's order and words; `''` when nothing is. */
function firstProblem(entry: Record<string, unknown>): string {
  const { name, description, timeoutMs, handler, argsSchema } = entry;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) return 'name is invalid';
  if (!isFilled(description)) return 'description must be a non-empty string';
  if (!isTimeout(timeoutMs)) return 'timeoutMs must be a positive integer';
  if (!isTimeout(entry.approvalTimeoutMs)) return 'approvalTimeoutMs must be a positive integer';
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
 * their checks load with the code that sets them up (deno-module-setup.ts), when there are some.
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
