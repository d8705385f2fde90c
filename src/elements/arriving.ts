/**
 * What is still arriving that changes what sessions declare or who hears them: a lazy chunk being
 * fetched (the form binding of `<pedelec-tool form>`, the WebMCP chunk, the CDN file's chat), the
 * page's WebMCP tools being read for `webmcp="import"`. A start waits until nothing is
 * (start-attempt.ts), so that what they add is sent and a chat sees the session's first event.
 */
export const arriving = new Set<Promise<unknown>>();

/** Makes starts wait for `promise` (a rejection is its caller's to handle: it only ends the wait). */
export function track(promise: Promise<unknown>): void {
  const settled: Promise<unknown> = promise.then(done, done);
  arriving.add(settled);
  function done() {
    arriving.delete(settled);
  }
}
