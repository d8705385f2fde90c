/**
 * A session's foreign agents — the browser's agent through WebMCP (`webmcp`), MCP clients through the
 * page link (`mcp`) — each a folder beside this file, reaching the session through its
 * {@link ForeignAgentHost} (host.ts) only.
 *
 * The entry of all, in a lazy chunk with the session's side of the host (session/foreign-agents-host.ts,
 * loaded the first time the element sets `webmcp` or `mcp`): it loads each agent's chunk the first time
 * the agent is asked for. So the main file knows none of them, and a page that sets only one downloads
 * nothing of the other.
 */
import { microtaskBatch } from './microtask-batch.js';
import { lazyModule } from '../../core/lazy-module.js';
import { lazyPart, type LazyChunk, type LazyPart } from '../lazy-part.js';
import type { ForeignAgentHost, ForeignAgentInputs } from './host.js';

/** The foreign agents' parts of one session element. */
export type ForeignAgents = {
  /** Loads the parts the element asks for now, and brings the loaded ones in line with it. */
  sync(): void;
  /** The tool names registered with the browser's agent now (the `webmcpTools` property). */
  readonly webmcpTools: string[];
};

/** One foreign agent: when the session wants it, and where its chunk is. */
type AgentChunk<T extends { sync(): unknown }> = {
  wanted(inputs: ForeignAgentInputs): boolean;
  load: () => Promise<LazyChunk<ForeignAgentHost, T>>;
};

const WEBMCP = {
  wanted: (inputs) => inputs.webmcp !== null,
  load: lazyModule(() => import('./webmcp/webmcp.js')),
} satisfies AgentChunk<{ sync(): unknown; readonly names: string[] }>;

const MCP = {
  wanted: (inputs) => !!inputs.mcp.url,
  load: lazyModule(() => import('./mcp/mcp-page-link.js')),
} satisfies AgentChunk<{ sync(): unknown }>;

function agentPart<T extends { sync(): unknown }>(host: ForeignAgentHost, agent: AgentChunk<T>): LazyPart<T> {
  return lazyPart(
    (promise) => host.arriving(promise),
    () => host.connected(),
    () => host,
    () => agent.wanted(host.inputs()),
    agent.load,
  );
}

/** The foreign agents' parts of a session element, through its host. */
export function partOf(host: ForeignAgentHost): ForeignAgents {
  const webmcp = agentPart(host, WEBMCP);
  const mcp = agentPart(host, MCP);
  // A microtask after a change, once for a batch of changes, and not at all in effect for an element
  // a framework moves (out of the document and back within the task).
  const sync = microtaskBatch(() => {
    webmcp.sync();
    mcp.sync();
  });
  return {
    sync,
    get webmcpTools() {
      return webmcp.loaded?.names ?? [];
    },
  };
}
