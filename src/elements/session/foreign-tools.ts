/**
 * What a session offers foreign agents — the browser's agent through WebMCP, MCP clients through the
 * page link — of the tools it built: never the `private` ones, and with the fields only foreign
 * agents read (never in the Pedelec manifest). Shared by the lazy chunks that serve them.
 */
import type { ToolDefinition } from '../../core/tools.js';
import type { BuiltTool, ToolBuild } from './tool-registry.js';

/**
 * What foreign agents read besides the manifest entry: a `<pedelec-tool>`'s properties, or the JS
 * definition's optional fields.
 */
export const foreignFields = ({
  element,
  definition,
}: BuiltTool): Pick<ToolDefinition, 'title' | 'readOnly' | 'untrustedContent' | 'private'> =>
  element ?? definition ?? {};

/**
 * The tools offered to MCP clients: every built tool but the private ones — imported and form tools
 * included (the WebMCP exposure leaves out those the browser's agent already has).
 */
export const foreignTools = (built: ToolBuild): Map<string, BuiltTool> =>
  new Map(built.tools.filter((t) => !foreignFields(t).private).map((t) => [t.tool.name, t]));
