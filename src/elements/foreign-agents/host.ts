/**
 * What a session's foreign agents — the browser's agent through WebMCP, MCP clients through the page
 * link — reach of their `<pedelec-session>`: this host and nothing else. It reads the element's inputs
 * that concern them, offers the tools the session built, runs their calls on the session's one path
 * (`via` naming the agent), and takes an extra source of tools (the page's own WebMCP tools). The
 * session implements it (session/foreign-host.ts); nothing here imports the session's internals, so
 * an agent is one folder beside this file, and the session knows none of them.
 */
import type { PedelecError } from '../../core/errors.js';
import type { LocalCallResult } from '../../core/local-call.js';
import type { PageTool } from '../../core/page-link-contract.js';
import type { NormalizedTool, ToolDefinition } from '../../core/tools.js';
import type { ToolCall } from '../../core/toolbox.js';
import type { PedelecToolElement } from '../tool/pedelec-tool.element.js';

/** One tool the session built, and where it was declared (an element, or a JS definition). */
export type DeclaredTool = {
  readonly tool: NormalizedTool;
  readonly element: PedelecToolElement | null;
  readonly definition: ToolDefinition | null;
};

/** The session element's inputs that concern foreign agents, read when asked. */
export type ForeignAgentInputs = {
  /** The `webmcp` attribute. */
  webmcp: string | null;
  /** Origins WebMCP tools are shown to (the `exposedTo` property). */
  exposedTo: readonly string[] | undefined;
  /**
   * The `mcp` link URL, whether it was set from script (then any host is allowed), and the link key
   * (the `mcpKey` property).
   */
  mcp: { url: string | undefined; scripted: boolean; key: string | undefined };
  /** What the page calls itself on the MCP link: `mcp-label`, else the element's `id`, else none. */
  label: string | null;
  /** The element's window (its document's), if any. */
  window: Window | null;
  /** Whether foreign agents may be offered the tools from a frame (the `allowFramed` property). */
  allowFramed: boolean;
};

/**
 * A source of tools besides the declared ones: given the tool elements and the JS definitions, the
 * definitions to build (the JS ones plus any it adds).
 */
export type ToolSource = (elements: readonly PedelecToolElement[], definitions: ToolDefinition[]) => ToolDefinition[];

export type ForeignAgent = 'webmcp' | 'mcp';

export interface ForeignAgentHost {
  /** Whether the session element is in the page. */
  connected(): boolean;
  /** Makes the session's starts wait for `promise`: a part that may add tools or listeners is arriving. */
  arriving(promise: Promise<unknown>): void;
  inputs(): ForeignAgentInputs;
  /** The tools foreign agents may be offered — every built tool but the private ones — as built now. */
  tools(): readonly DeclaredTool[];
  /**
   * Runs one call of agent `via` on the session's path, answered from the tools that agent is offered
   * now (`offered` of the tools as built once changes are in, not those sent to Core at start()); its
   * context names the running session, or none.
   */
  call(
    via: ForeignAgent,
    offered: (tools: readonly DeclaredTool[]) => readonly DeclaredTool[],
    tool: string,
    args: unknown,
    signal?: AbortSignal,
    approvedBy?: ToolCall['approvedBy'],
  ): Promise<LocalCallResult>;
  /** Adds a source of tools to every build from now on. */
  addToolSource(source: ToolSource): void;
  /** A source's tools changed: build again (once for a batch). */
  rebuild(): void;
  /** A `pedelec-warning`. */
  warn(warning: PedelecError): void;
}

/**
 * What foreign agents read besides the manifest entry: a `<pedelec-tool>`'s properties, or the JS
 * definition's optional fields.
 */
export const foreignFields = ({
  element,
  definition,
}: DeclaredTool): Pick<ToolDefinition, 'title' | 'readOnly' | 'untrustedContent' | 'private'> =>
  element ?? definition ?? {};

/**
 * The tools foreign agents may be offered: every built tool but the private ones. MCP clients are
 * offered all of them, imported and form tools included; the WebMCP exposure leaves out those the
 * browser's agent already has.
 */
export const foreignTools = (tools: readonly DeclaredTool[]): DeclaredTool[] =>
  tools.filter((t) => !foreignFields(t).private);

/** A tool as foreign agents are told of it: as the MCP page link publishes it, a hint only when set. */
export type ForeignTool = PageTool & { readOnly?: true; untrustedContent?: true; consequential?: true };

/**
 * A built tool as foreign agents are told of it: its manifest entry (the args schema as `inputSchema`)
 * and, where set, what they read besides. The MCP link publishes it as it is; WebMCP's registration
 * turns the two hints into annotations.
 */
export function foreignTool(declared: DeclaredTool): ForeignTool {
  const { name, description, argsSchema } = declared.tool.manifest;
  const { title, readOnly, untrustedContent } = foreignFields(declared);
  return {
    name,
    description,
    inputSchema: argsSchema,
    ...(typeof title === 'string' && title && { title }),
    ...(readOnly === true && { readOnly }),
    ...(untrustedContent === true && { untrustedContent }),
    ...(declared.tool.approval && { consequential: true as const }),
  };
}

/** The host as one agent sees it: the tools it is offered, and its calls made as that agent. */
export interface AgentSide {
  connected: () => boolean;
  /** The tools this agent is offered now. */
  offered(): readonly DeclaredTool[];
  /** `approvedBy`: a consequential tool's call, approved where the agent lives (tool-approval.ts). */
  call(
    tool: string,
    args: unknown,
    signal?: AbortSignal,
    approvedBy?: ToolCall['approvedBy'],
  ): Promise<LocalCallResult>;
  warn: (warning: PedelecError) => void;
}

/** `host` as agent `via` sees it, which is offered `offered(tools)`. */
export function agentSide(
  host: ForeignAgentHost,
  via: ForeignAgent,
  offered: (tools: readonly DeclaredTool[]) => readonly DeclaredTool[],
): AgentSide {
  let warned = false;
  return {
    // In a frame the page may be one the user never chose to give agents (an ad, a widget): only a
    // session that says so offers its tools from there. Said once, the first time it matters.
    connected: () => {
      const allowed = !framed(host.inputs().window) || host.inputs().allowFramed;
      if (!allowed && !warned && host.connected()) {
        warned = true;
        host.warn({
          code: via === 'mcp' ? 'MCP_LINK_REFUSED' : 'WEBMCP_UNAVAILABLE',
          message: `No ${via} in a frame: set allowFramed on the session to offer its tools from here`,
          details: { reason: 'framed' },
        });
      }
      return allowed && host.connected();
    },
    offered: () => offered(host.tools()),
    call: (tool, args, signal, approvedBy) => host.call(via, offered, tool, args, signal, approvedBy),
    warn: (warning) => host.warn(warning),
  };
}

/** Whether `window` is a frame's (not the top-level document's). */
export const framed = (window: Window | null): boolean => !!window && window.top !== window;

/**
 * The definitions WebMCP's import made from the page's other tools (webmcp/webmcp-import.ts): never
 * registered with WebMCP again, and sent over the MCP link only with `webmcp="import forward"`.
 */
export const importedDefinitions = new WeakSet<ToolDefinition>();
