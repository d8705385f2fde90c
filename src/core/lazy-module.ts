/**
 * Code that only some pages use (assets, Deno modules) lives in modules loaded on first use: a page
 * that never uses them never downloads them (the CDN file's chunks, a bundler's split points).
 */
import { normalizeError } from './errors.js';

/**
 * A module loaded on first use: one import, shared by every caller. A failed import (a chunk the
 * network did not deliver) rejects with `CHUNK_LOAD_FAILED`, and the next caller tries again. `what`
 * names the module in that error, for loaders whose failure reaches the page.
 */
export function lazyModule<T>(load: () => Promise<T>, what = 'a part of the kit'): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () =>
    (loading ??= load().catch((thrown: unknown) => {
      loading = null;
      throw normalizeError(thrown, 'CHUNK_LOAD_FAILED', `Could not load ${what}`);
    }));
}
