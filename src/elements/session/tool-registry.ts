/**
 * Turns the tools a session owns — declared elements in tree order, then JS definitions — into
 * normalized tools, through the same per-tool normalization as `createSession`. Each normalized tool
 * (with its compiled validator) is cached by the canonical JSON of its definition, so a rebuild after
 * one change costs one normalization, not N. Unlike `createSession`, a bad tool is dropped and
 * reported; the rest keeps working. A name declared twice drops every tool of that name.
 */
import { isPedelecError, type PedelecError, type ToolDefinition } from '../../core/index.js';
import { pedelecError } from '../../core/errors.js';
// Kit internals, not on the core entry (whose size is budgeted).
import { canonicalJson } from '../../core/json.js';
import { normalizeTool, type NormalizedTool } from '../../core/tools.js';
import { declarationOf, type PedelecToolElement, type ToolDeclaration } from '../tool/pedelec-tool.element.js';

export type BuiltTool = { tool: NormalizedTool; element: PedelecToolElement | null; definition: ToolDefinition | null };
/** `quiet`: reflected on its element, but reported through another declaration (a duplicate name's first). */
export type InvalidDeclaration = {
  element: PedelecToolElement | null;
  name: string | null;
  error: PedelecError;
  quiet?: boolean;
};
/** `disabled`: the names of tool elements that are `disabled` (left out, but declared on this page). */
export type ToolBuild = {
  tools: BuiltTool[];
  byName: Map<string, BuiltTool>;
  invalid: InvalidDeclaration[];
  disabled: Set<string>;
};

function invalid(
  element: PedelecToolElement | null,
  name: string | null,
  reason: string,
  path?: string,
): InvalidDeclaration {
  const details: Record<string, unknown> = { tool: name, reason };
  if (path !== undefined) details.path = path;
  const label = name ? `tool "${name}"` : 'tool';
  return { element, name, error: pedelecError('INVALID_INPUT', `${label}: ${reason}`, details) };
}

export class ToolRegistry {
  /** JS definitions, by the canonical JSON of their data (the same object may be changed in place). */
  #cache = new Map<string, NormalizedTool | PedelecError>();
  /** Elements, by their declaration object: an element hands out a new one only when it changed. */
  /** Each element's last reading, the session's approval time it was built with, and the tool built. */
  #byElement = new WeakMap<PedelecToolElement, [ToolDeclaration, number | undefined, NormalizedTool | PedelecError]>();
  /** How many builds ran: one per batch of changes, however many tools changed in it. */
  builds = 0;

  /** How many normalized JS definitions are cached (elements' are held weakly, by element). */
  get cached(): number {
    return this.#cache.size;
  }

  /**
   * @param approvalTimeoutMs - the session's approval time (`toolApprovalTimeoutMs`), for the
   *   consequential tools that do not set their own.
   */
  build(
    elements: readonly PedelecToolElement[],
    definitions: readonly ToolDefinition[],
    approvalTimeoutMs?: number,
  ): ToolBuild {
    const withDefault = (definition: ToolDefinition): ToolDefinition =>
      approvalTimeoutMs === undefined || !definition.consequential || 'approvalTimeoutMs' in definition
        ? definition
        : { ...definition, approvalTimeoutMs };
    this.builds++;
    const used = new Map<string, NormalizedTool | PedelecError>();
    const candidates: BuiltTool[] = [];
    const problems: InvalidDeclaration[] = [];
    const disabled = new Set<string>();

    const add = (
      normalized: NormalizedTool | PedelecError,
      element: PedelecToolElement | null,
      jsDefinition: ToolDefinition | null,
      name: unknown,
    ) => {
      if (!isPedelecError(normalized))
        return void candidates.push({ tool: normalized, element, definition: jsDefinition });
      const { path } = (normalized.details ?? {}) as { path?: string };
      problems.push(invalid(element, typeof name === 'string' ? name : null, normalized.message, path));
    };

    elements.forEach((element, index) => {
      if (element.disabled) return void (element.name && disabled.add(element.name));
      const declared = declarationOf(element);
      if (!declared.ok) return problems.push(invalid(element, declared.name, declared.reason, declared.path));
      let cached = this.#byElement.get(element);
      if (cached?.[0] !== declared || cached[1] !== approvalTimeoutMs) {
        const normalized = normalizeTool(withDefault(declared.definition), index, declared.owned);
        this.#byElement.set(element, (cached = [declared, approvalTimeoutMs, normalized]));
      }
      add(cached[2], element, null, declared.definition.name);
    });
    definitions.forEach((definition, index) => {
      const normalized = this.#normalize(withDefault(definition), elements.length + index, used);
      // The name as normalization read it: a getter of the page's is not read again.
      add(normalized, null, definition, (normalized as { details?: { toolName?: unknown } }).details?.toolName);
    });

    // A name declared more than once fails closed: every tool of that name is left out, so markup can
    // at worst remove a tool, never replace one. One report, on the first in tree order.
    const byName = new Map<string, BuiltTool[]>();
    for (const built of candidates) {
      const same = byName.get(built.tool.name);
      if (same) same.push(built);
      else byName.set(built.tool.name, [built]);
    }
    const tools = candidates.filter((built) => byName.get(built.tool.name)!.length === 1);
    for (const [name, all] of byName) {
      if (all.length === 1) continue;
      all.forEach(({ element }, i) => {
        const problem = invalid(element, name, `duplicate tool name (declared ${all.length} times)`);
        (problem.error.details as Record<string, unknown>).count = all.length;
        problems.push({ ...problem, quiet: i > 0 });
      });
    }

    this.#cache = used; // entries no build uses any more are dropped: nothing grows without bound
    return { tools, byName: new Map(tools.map((built) => [built.tool.name, built])), invalid: problems, disabled };
  }

  #normalize(
    definition: unknown,
    index: number,
    used: Map<string, NormalizedTool | PedelecError>,
  ): NormalizedTool | PedelecError {
    let key: string | null = null;
    try {
      const { handler: _handler, ...data } = definition as Record<string, unknown>;
      key = canonicalJson(data);
    } catch {
      // Not JSON (a BigInt, a cycle): normalization reports it; nothing to cache.
    }
    const cached = key === null ? undefined : (used.get(key) ?? this.#cache.get(key));
    const result = cached ?? normalizeTool(definition, index);
    if (key !== null) used.set(key, result);
    return result;
  }
}
