/**
 * The tool manifest a page sends in `create_session`, checked the way Core checks it before a session
 * exists: the same rules as the SDK's normalization (tools-api.md), so a page that passes its own SDK
 * passes here, and a hand-written client that does not gets `INVALID_INPUT` naming the problem. Like
 * the SDK, and like Desktop's Core, which takes full JSON Schema, it accepts any object schema: what the
 * kit's validator cannot validate (outside the subset — `anyOf`, `$ref`, a type array — or a keyword it
 * cannot use) accepts any value there, and the rest of the args is checked.
 */
import type { ToolArgsSchema } from 'pedelec-elements/core';
import { analyzeArgsSchema, isPlainObject, type ArgsError } from 'pedelec-elements/protocol';
import { DevCoreError } from '../errors.js';
import { hasPattern, type PatternChecks } from './pattern-check.js';

export type ToolManifest = { name: string; description: string; argsSchema: ToolArgsSchema; timeoutMs?: number };
export type SkillsManifest = { guidance: string; tools: ToolManifest[] };

/**
 * A manifest tool with its args check: the validator compiled once, at session creation — or, for a
 * schema with a `pattern`, a check in the pattern worker with a time budget (pattern-check.ts).
 * Resolves (or returns) the errors, `null` when the args are valid.
 */
export type CheckedTool = {
  manifest: ToolManifest;
  validate(args: unknown): ArgsError[] | null | Promise<ArgsError[] | null>;
};

const TOOL_NAME = /^[a-zA-Z][a-zA-Z0-9_.-]*$/;

function invalid(message: string, details?: unknown): never {
  throw new DevCoreError('INVALID_INPUT', message, details);
}

/**
 * Checks `skills` (the wire value, already plain JSON) and returns the manifest plus an args check per
 * tool; `undefined`/`null` means "no tools". Throws {@link DevCoreError} `INVALID_INPUT`.
 */
export function checkSkills(
  skills: unknown,
  patterns: PatternChecks,
): {
  manifest: SkillsManifest | undefined;
  tools: Map<string, CheckedTool>;
} {
  const tools = new Map<string, CheckedTool>();
  if (skills === undefined || skills === null) return { manifest: undefined, tools };
  if (!isPlainObject(skills)) invalid('skills must be an object');
  if (typeof skills.guidance !== 'string') invalid('skills.guidance must be a string');
  if (!Array.isArray(skills.tools)) invalid('skills.tools must be an array');

  const list: ToolManifest[] = [];
  skills.tools.forEach((entry: unknown, index: number) => {
    if (!isPlainObject(entry)) invalid('skills.tools entries must be objects', { index });
    const { name, description, argsSchema, timeoutMs } = entry;
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) invalid('tool name is invalid', { index, toolName: name });
    if (tools.has(name)) invalid('duplicate tool name', { toolName: name });
    if (typeof description !== 'string' || description.trim() === '') {
      invalid('tool description must be a non-empty string', { index, toolName: name });
    }
    if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && (timeoutMs as number) > 0)) {
      invalid('tool timeoutMs must be a positive integer', { index, toolName: name });
    }
    if (!isPlainObject(argsSchema)) invalid('tool argsSchema must be an object', { index, toolName: name });
    if (argsSchema.type !== 'object') invalid('tool argsSchema must describe an object', { index, toolName: name });
    const validate = argsCheck(argsSchema as ToolArgsSchema, index, name, patterns);
    const manifest: ToolManifest = { name, description, argsSchema: argsSchema as ToolArgsSchema };
    if (timeoutMs !== undefined) manifest.timeoutMs = timeoutMs as number;
    list.push(manifest);
    tools.set(name, { manifest, validate });
  });
  return { manifest: { guidance: skills.guidance, tools: list }, tools };
}

/**
 * The args check of one tool: the kit's validator, which lets any value through where it cannot
 * validate (see above). A schema whose check throws (an engine limit) is refused: the page hears
 * INVALID_INPUT about its tool, not INTERNAL_ERROR, and the console gets no stack.
 */
function argsCheck(
  schema: ToolArgsSchema,
  index: number,
  toolName: string,
  patterns: PatternChecks,
): CheckedTool['validate'] {
  const where = `skills.tools[${index}].argsSchema`;
  try {
    const { validate } = analyzeArgsSchema(schema, where);
    return hasPattern(schema) ? (args: unknown) => patterns.check(schema, args) : validate;
  } catch (thrown) {
    const why = thrown instanceof Error ? thrown.message : String(thrown);
    return invalid(`${where} could not be checked (${why})`, { index, toolName });
  }
}
