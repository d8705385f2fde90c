/**
 * A session's foreign agents — the browser's agent through WebMCP (`webmcp`), MCP clients through the
 * page link (`mcp`): what they are offered of the tools the session built (never the `private` ones,
 * with the fields only foreign agents read, never in the Pedelec manifest).
 *
 * A lazy chunk, and the entry of both: the element loads it the first time it sets `webmcp` or `mcp`
 * (lazy-part.ts), and it loads the WebMCP chunk (webmcp.ts) and the MCP page link (mcp-page-link.ts)
 * the first time each is asked for. So the main file knows neither, and a page that sets only one
 * downloads nothing of the other.
 */
import type { ToolDefinition } from '../../core/tools.js';
import { lazyPart } from './lazy-part.js';
import type { SessionElementPort, SessionParts } from './session-parts.js';
import type { BuiltTool, ToolBuild } from './tool-registry.js';

/** The foreign agents' parts of one session element. */
export type ForeignAgents = {
  /** Loads the parts the element asks for now, and brings the loaded ones in line with it. */
  sync(): void;
  /** The tool names registered with the browser's agent now (the `webmcpTools` property). */
  readonly webmcpTools: string[];
};

/** The chunk's entry (lazy-part.ts): the foreign agents' parts of a session element. */
export function partOf(element: SessionElementPort, parts: SessionParts): ForeignAgents {
  const webmcp = lazyPart(
    element,
    () => parts,
    () => element.hasAttribute('webmcp'),
    () => import('./webmcp.js'),
  );
  const mcp = lazyPart(
    element,
    () => parts,
    () => !!element.mcp,
    () => import('./mcp-page-link.js'),
  );
  return {
    sync() {
      webmcp.sync();
      mcp.sync();
    },
    get webmcpTools() {
      return webmcp.loaded?.names ?? [];
    },
  };
}

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
