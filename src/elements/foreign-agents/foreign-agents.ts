/**
 * A session's foreign agents — the browser's agent through WebMCP (`webmcp`), MCP clients through the
 * page link (`mcp`): what they are offered of the tools the session built (never the `private` ones,
 * with the fields only foreign agents read, never in the Pedelec manifest) and how their calls reach
 * it (on the element's one path).
 *
 * A lazy chunk, and the entry of both: the element loads it the first time it sets `webmcp` or `mcp`
 * (lazy-part.ts), and it loads the WebMCP chunk (webmcp.ts) and the MCP page link (mcp-page-link.ts)
 * the first time each is asked for. So the main file knows neither, and a page that sets only one
 * downloads nothing of the other.
 */
import type { PedelecError } from '../../core/errors.js';
import type { LocalCallResult } from '../../core/local-call.js';
import type { ToolDefinition } from '../../core/tools.js';
import { lazyPart } from '../session/lazy-part.js';
import type { SessionElementPort, SessionParts } from '../session/session-parts.js';
import type { BuiltTool, ToolBuild } from '../session/tool-registry.js';

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
    () => import('./webmcp/webmcp.js'),
  );
  const mcp = lazyPart(
    element,
    () => parts,
    () => !!element.mcp,
    () => import('./mcp/mcp-page-link.js'),
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

/** A tool as foreign agents are told of it. */
export type ForeignTool = {
  name: string;
  description: string;
  inputSchema: object;
  title?: string;
  readOnly?: true;
  untrustedContent?: true;
};

/**
 * A built tool as foreign agents are told of it: its manifest entry (the args schema as `inputSchema`)
 * and, where set, what they read besides. The MCP link publishes it as it is; WebMCP's registration
 * turns the two hints into annotations.
 */
export function foreignTool(built: BuiltTool): ForeignTool {
  const { name, description, argsSchema } = built.tool.manifest;
  const { title, readOnly, untrustedContent } = foreignFields(built);
  return {
    name,
    description,
    inputSchema: argsSchema,
    ...(typeof title === 'string' && title && { title }),
    ...(readOnly === true && { readOnly }),
    ...(untrustedContent === true && { untrustedContent }),
  };
}

/** What a foreign agent's part (the WebMCP exposure, the MCP page link) needs from its session element. */
export interface ForeignHost {
  /** Whether the session element is in the page. */
  connected(): boolean;
  /** The tools as built now. */
  built(): ToolBuild;
  /**
   * Runs one call of the agent's on the element's path, answered from the tools the agent is offered
   * now (not those sent to Core at start()); its context names the running session, or none.
   */
  call(tool: string, args: unknown, signal?: AbortSignal): Promise<LocalCallResult>;
  /** A `pedelec-warning`. */
  warn(warning: PedelecError): void;
}

/** The host of a session element's part for the foreign agent `via`, which is offered `offered(built)`. */
export function foreignHost(
  element: SessionElementPort,
  parts: SessionParts,
  via: 'webmcp' | 'mcp',
  offered: (built: ToolBuild) => Map<string, BuiltTool>,
): ForeignHost {
  const built = () => parts.declarations.built;
  const tools = () => new Map([...offered(built())].map(([name, { tool }]) => [name, tool]));
  return {
    connected: () => element.isConnected,
    built,
    call: (tool, args, signal) => {
      // The running session, or none: before start() no provider or model either (elements.md: `''`),
      // where invoke()'s context names the element's.
      const session = parts.lifecycle.session;
      return parts.call(via, tool, args, signal, tools, {
        sessionId: session?.sessionId ?? '',
        provider: session?.provider ?? '',
        model: session?.model,
        sessionCreatedAt: session?.sessionCreatedAt ?? Date.now(),
      });
    },
    warn: parts.warn,
  };
}
