/**
 * What is still arriving that changes what a session declares or who hears it: a lazy chunk being
 * fetched (the session's foreign agents and, through them, the WebMCP chunk and the page's WebMCP tools
 * being read; the form binding of a `<pedelec-tool form>`; the CDN file's chat), kept per scope. A
 * session's start waits for what arrives for the session itself and for its root — the document or
 * shadow root its tools and chat are in — so that what they add is sent and a chat sees the session's
 * first event; it never waits for another session's parts, nor for another root's.
 */

/** What is arriving, by scope: a session element, or a root (document or shadow root). */
const pendingIn = new WeakMap<Node, Set<Promise<unknown>>>();

/**
 * Makes starts in `scope` wait for `promise` (a rejection is its caller's to handle: it only ends the
 * wait). `scope`: the session element the part is for, or the root of the elements it is for.
 */
export function track(scope: Node, promise: Promise<unknown>): void {
  let pending = pendingIn.get(scope);
  if (!pending) pendingIn.set(scope, (pending = new Set()));
  const settled: Promise<unknown> = promise.then(done, done);
  pending.add(settled);
  function done() {
    pending!.delete(settled);
  }
}

/**
 * What is arriving now for `session` and for its root. A start waits for it, and asks again after:
 * something may have started arriving meanwhile. Nothing arriving, it goes on at once.
 */
export const arrivingFor = (session: Element): Promise<unknown>[] => [
  ...(pendingIn.get(session) ?? []),
  ...(pendingIn.get(session.getRootNode()) ?? []),
];
