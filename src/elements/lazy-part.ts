/**
 * A part of an element that lives in a lazy chunk — the session's foreign agents (foreign-agents/), and
 * from there each agent: fetched the first time the element is in the page and `wanted()` holds, made
 * for its context, and from then on told of every change through `sync()`. A page that never wants it
 * downloads nothing.
 */

/** A lazy chunk's entry: its part for one context, which `sync()` brings in line with it. */
export type LazyChunk<C, T extends { sync(): unknown }> = {
  partOf(context: C): T;
};

export type LazyPart<T> = {
  /** Loads the part if it is wanted now, else brings it in line with the element. */
  sync(): void;
  /** The part, once loaded. */
  loaded?: T;
};

/**
 * `arriving`: makes the session's starts wait for a promise (arriving.ts); `context`: what the part is
 * made with, read once the chunk is there (so it may be wired after this); `connected`: whether the
 * element is in the page (a part is never fetched for one that is not);
 * `load`: the chunk's loader, a {@link lazyModule} (one import shared by every caller, tried again
 * after a failure).
 */
export function lazyPart<C, T extends { sync(): unknown }>(
  arriving: (promise: Promise<unknown>) => void,
  connected: () => boolean,
  context: () => C,
  wanted: () => boolean,
  load: () => Promise<LazyChunk<C, T>>,
): LazyPart<T> {
  const part: LazyPart<T> = {
    sync() {
      if (part.loaded) return void part.loaded.sync();
      if (!connected() || !wanted()) return;
      // A start waits for the part, and for what its first sync brings (the nested parts, the page's
      // WebMCP tools being read): they may add tools, which are sent too. A chunk that could not be
      // fetched (offline, say) is fetched again at the next change.
      arriving(load().then((chunk) => (part.loaded ??= chunk.partOf(context())).sync()));
    },
  };
  return part;
}
