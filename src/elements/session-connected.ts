/**
 * Who wants to know that a `<pedelec-session>` connected, and in which root: the CDN file's chat
 * loader (to look for chats beside it, in a shadow root too) and chats still looking for their session
 * (one that upgrades later than its chat).
 */
type Listener = (root: Node) => void;
const listeners = new Set<Listener>();

/** Calls `listener` each time a session connects; returns the function that stops it. */
export function onSessionConnected(listener: Listener): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** A session connected in `root`. */
export function sessionConnected(root: Node): void {
  for (const listener of [...listeners]) listener(root);
}
