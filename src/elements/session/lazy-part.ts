/**
 * A part of a `<pedelec-session>` that lives in a lazy chunk (the WebMCP exposure, the MCP page link):
 * loaded the first time the element is in the page and `wanted()` holds, then told of every change.
 * A page that never wants it downloads nothing.
 */
import { track } from '../arriving.js';

export type LazyPart<T> = {
  /** Loads the part if it is wanted now, else brings it in line with the element. */
  sync(): void;
  /** The part, once loaded. */
  readonly loaded: T | undefined;
};

/** `tracked`: a start waits for the part to load (it may add tools). */
export function lazyPart<T extends { sync(): unknown }>(
  element: Element,
  wanted: () => boolean,
  load: () => Promise<T>,
  tracked = false,
): LazyPart<T> {
  let loaded: T | undefined;
  let loading = false;
  return {
    sync() {
      if (loaded) return loaded.sync();
      if (loading || !element.isConnected || !wanted()) return;
      loading = true;
      const arrival = load().then(
        (part) => {
          loaded = part;
          return part.sync(); // tracked: what the first sync reads (the page's WebMCP tools) is waited for too
        },
        // A chunk that could not be fetched (offline, say): the next change tries again.
        () => (loading = false),
      );
      if (tracked) track(arrival);
    },
    get loaded() {
      return loaded;
    },
  };
}
