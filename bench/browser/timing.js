// Browser-side helpers shared by the bench pages.

/** Collects garbage between runs when Chromium runs with --js-flags=--expose-gc (off the clock). */
export function collectGarbage() {
  if (typeof globalThis.gc === 'function') globalThis.gc();
}

/** Lets the event loop turn once (timers, rendering) between runs. */
export const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

/** What the page can measure: cross-origin isolation gives performance.now() 5 µs resolution. */
export function clockInfo() {
  return { crossOriginIsolated: globalThis.crossOriginIsolated === true, userAgent: navigator.userAgent };
}

/** Exposes a benchmark to the Node driver: `await window.bench.run(options)`. */
export function expose(name, run) {
  globalThis.bench = { name, run: async (options) => ({ clock: clockInfo(), ...(await run(options)) }) };
}
