/**
 * What every `<pedelec-session>` carries of WebMCP: loading the exposure (webmcp-exposure.ts, a lazy
 * chunk, which reads the `webmcp` tokens) the first time a session in the page sets `webmcp`. A page
 * that never sets it downloads and registers nothing.
 */
import type { PedelecError } from '../../core/index.js';
import type { SessionElementPort, SessionParts } from './session-parts.js';
import type { WebmcpExposure } from './webmcp-exposure.js';

export type WebmcpLink = {
  /** Brings the registrations in line with the session, a microtask later (a move in the DOM is no removal). */
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
  let exposure: WebmcpExposure | undefined;
  let loading = false;
  return {
    sync() {
      if (exposure) return exposure.sync();
      if (loading || !element.isConnected || !element.hasAttribute('webmcp')) return;
      loading = true;
      import('./webmcp-exposure.js').then(
        (chunk) => {
          exposure = chunk.exposureOf(element, parts(), warn);
          exposure.sync();
        },
        // A chunk that could not be fetched (offline, say): the next change tries again.
        () => (loading = false),
      );
    },
    names: () => exposure?.names ?? [],
  };
}
