/**
 * The WebMCP chunk's entry (spec every-agent.md §2–3): what a `<pedelec-session webmcp>` does with
 * the browser's agent API once its `webmcp` is set — expose its tools (webmcp-exposure.ts) and import
 * the page's (webmcp-import.ts) — through its host (host.ts). A lazy chunk, loaded by the foreign agents'
 * entry (foreign-agents.ts): a page that never sets `webmcp` downloads none of it.
 */
import { agentSide, type ForeignAgentHost } from '../host.js';
import { exposedTools, registeredByKit, WebmcpExposure } from './webmcp-exposure.js';
import { WebmcpImport } from './webmcp-import.js';
import { modelContext } from './webmcp-tokens.js';

/** What the foreign agents' entry (foreign-agents.ts) drives. */
export type Webmcp = {
  /**
   * Brings registrations and imports in line with the session. Returns the read of the page's tools
   * it started, if it started one (the first start waits for it).
   */
  sync(): Promise<unknown> | undefined;
  /** The tool names registered now. */
  readonly names: string[];
};

/** The chunk's entry (lazy-part.ts): the WebMCP side of a session element, through its host. */
export function partOf(host: ForeignAgentHost): Webmcp {
  const webmcp = () => host.inputs().webmcp;
  // The browser's agent calls the tools offered now (not those sent to Core at start()).
  const side = agentSide(host, 'webmcp', (tools) => exposedTools(tools, webmcp()));
  const exposure = new WebmcpExposure({ ...side, webmcp, exposedTo: () => host.inputs().exposedTo });
  const imported = new WebmcpImport({
    connected: side.connected,
    webmcp,
    window: () => host.inputs().window,
    context: modelContext,
    registeredByKit,
    rebuild: () => host.rebuild(),
    warn: side.warn,
  });
  host.addToolSource((elements, definitions) => imported.extend(elements, definitions));
  return {
    // Once for a batch of changes (foreign-agents.ts); the import's read, if one starts, is returned.
    sync() {
      exposure.sync();
      return imported.sync();
    },
    get names() {
      return exposure.names;
    },
  };
}
