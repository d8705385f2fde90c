/**
 * A part of a `<pedelec-session>` that lives in a lazy chunk — the foreign agents' entry
 * (foreign-agents.ts), and from there WebMCP (webmcp.ts) and the MCP page link (mcp-page-link.ts):
 * fetched the first time the element is in the page and `wanted()` holds, made for the element, and
 * from then on told of every change. A page that never wants it downloads nothing.
 */
import { track } from '../arriving.js';
import type { SessionElementPort, SessionParts } from './session-parts.js';

/** A lazy chunk's entry: its part of one session element, which `sync()` brings in line with it. */
export type LazyChunk<T extends { sync(): unknown }> = {
  partOf(element: SessionElementPort, parts: SessionParts): T;
};

export type LazyPart<T> = {
  /** Loads the part if it is wanted now, else brings it in line with the element. */
  sync(): void;
  /** The part, once loaded. */
  loaded?: T;
};

/** `parts`: the element's parts, read once the chunk is there (they are wired after this). */
export function lazyPart<T extends { sync(): unknown }>(
  element: SessionElementPort,
  parts: () => SessionParts,
  wanted: () => boolean,
  load: () => Promise<LazyChunk<T>>,
): LazyPart<T> {
  let loading = false;
  const part: LazyPart<T> = {
    sync() {
      if (part.loaded) return void part.loaded.sync();
      if (loading || !element.isConnected || !wanted()) return;
      loading = true;
      // A start waits for the part, and for what its first sync brings (the nested parts, the page's
      // WebMCP tools being read): they may add tools, which are sent too.
      track(
        load().then(
          (chunk) => (part.loaded = chunk.partOf(element, parts())).sync(),
          // A chunk that could not be fetched (offline, say): the next change tries again.
          () => (loading = false),
        ),
      );
    },
  };
  return part;
}
