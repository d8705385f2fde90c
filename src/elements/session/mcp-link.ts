/**
 * What every `<pedelec-session>` carries of the MCP page link: loading it (mcp-page-link.ts, a lazy
 * chunk) the first time the session has `mcp`. A page that never sets it downloads nothing.
 */
import type { PedelecError } from '../../core/index.js';
import type { McpPageLink } from './mcp-page-link.js';
import type { SessionElementPort, SessionParts } from './session-parts.js';

export type McpLink = {
  /** Brings the link in line with the session, a microtask later. */
  sync(): void;
};

/** `parts`: the element's parts, once wired (the link is one of them); `scripted`: `mcp` was set from script. */
export function mcpLink(
  element: SessionElementPort,
  parts: () => SessionParts,
  scripted: () => boolean,
  warn: (warning: PedelecError) => void,
): McpLink {
  let link: McpPageLink | undefined;
  let loading = false;
  return {
    sync() {
      if (link) return link.sync();
      if (loading || !element.isConnected || !element.mcp) return;
      loading = true;
      import('./mcp-page-link.js').then(
        (chunk) => {
          link = chunk.pageLinkOf(element, parts(), scripted, warn);
          link.sync();
        },
        // A chunk that could not be fetched (offline, say): the next change tries again.
        () => (loading = false),
      );
    },
  };
}
