/**
 * The WebMCP chunk's entry (spec every-agent.md §2–3): what a `<pedelec-session webmcp>` does with
 * the browser's agent API once its `webmcp` is set — expose its tools (webmcp-exposure.ts) and import
 * the page's (webmcp-import.ts) — over the element's parts. A lazy chunk, loaded by the foreign agents'
 * entry (foreign-agents.ts): a page that never sets `webmcp` downloads none of it.
 */
import { foreignHost } from '../foreign-agents.js';
import type { SessionElementPort, SessionParts } from '../../session/session-parts.js';
import { exposedTools, registeredByKit, WebmcpExposure } from './webmcp-exposure.js';
import { WebmcpImport } from './webmcp-import.js';
import { modelContext } from './webmcp-tokens.js';

/** What the foreign agents' entry (foreign-agents.ts) drives. */
export type Webmcp = {
  /**
   * Brings registrations and imports in line with the session, a microtask later. Settles once the
   * page's tools are read, when that started a read (the first start waits for it).
   */
  sync(): Promise<unknown>;
  /** The tool names registered now. */
  readonly names: string[];
};

/** The chunk's entry (lazy-part.ts): the WebMCP side of a session element, over its parts. */
export function partOf(element: SessionElementPort, parts: SessionParts): Webmcp {
  const { declarations } = parts;
  const webmcp = () => element.getAttribute('webmcp');
  // The browser's agent calls the tools offered now (not those sent to Core at start()).
  const host = foreignHost(element, parts, 'webmcp', exposedTools);
  const exposure = new WebmcpExposure({ ...host, webmcp, exposedTo: () => element.exposedTo });
  const imported = new WebmcpImport({
    connected: host.connected,
    webmcp,
    window: () => element.ownerDocument.defaultView,
    context: modelContext,
    registeredByKit,
    rebuild: () => declarations.queue(),
    warn: host.warn,
  });
  declarations.extend = (elements, definitions) => imported.extend(elements, definitions);
  let queued: Promise<unknown> | undefined;
  return {
    sync() {
      exposure.sync();
      // A microtask later, as the exposure: once for a batch of changes, and not at all for an
      // element a framework moves.
      return (queued ??= Promise.resolve().then(() => {
        queued = undefined;
        return imported.sync();
      }));
    },
    get names() {
      return exposure.names;
    },
  };
}
