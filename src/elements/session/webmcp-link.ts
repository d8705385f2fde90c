/**
 * What every `<pedelec-session>` carries of WebMCP: loading the WebMCP chunk (webmcp.ts, which reads
 * the `webmcp` tokens: expose, import) the first time a session in the page sets `webmcp`. A page
 * that never sets it downloads and registers nothing.
 */
import type { PedelecError } from '../../core/index.js';
import { track } from '../arriving.js';
import type { SessionElementPort, SessionParts } from './session-parts.js';
import type { Webmcp } from './webmcp.js';

export type WebmcpLink = {
  /** Brings the registrations and imports in line with the session, a microtask later (a move in the DOM is no removal). */
  sync(): void;
  /** The tool names registered now. */
  names(): string[];
};

/** `parts`: the element's parts, once wired (the link is one of them). */
export function webmcpLink(
  element: SessionElementPort,
  parts: () => SessionParts,
  warn: (warning: PedelecError) => void,
): WebmcpLink {
  let webmcp: Webmcp | undefined;
  let loading = false;
  return {
    sync() {
      if (webmcp) return void webmcp.sync();
      if (loading || !element.isConnected || !element.hasAttribute('webmcp')) return;
      loading = true;
      // A start waits for it, and for the page's tools it imports: they are sent too.
      track(
        import('./webmcp.js').then(
          (chunk) => (webmcp = chunk.webmcpOf(element, parts(), warn)).sync(),
          // A chunk that could not be fetched (offline, say): the next change tries again.
          () => (loading = false),
        ),
      );
    },
    names: () => webmcp?.names ?? [],
  };
}
