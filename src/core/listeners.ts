/**
 * Listeners by kind, as the session's `on…` methods keep them. A listener that throws must not break
 * its owner: its error becomes a warning. One unsubscribed by an earlier listener of the same emit is
 * not called any more; one added during an emit waits for the next.
 */
import { normalizeError, type PedelecError } from './errors.js';

/**
 * A listener of one kind, taking what that kind's `emit` passes: the session's typed `on…` methods
 * pair the two. Any function is one (a parameter list accepts `never`).
 */
type Listener = (...args: never[]) => void;
/** How `emit` calls a listener: with the values its kind carries. */
type Called = (...args: unknown[]) => void;

export class Listeners<Kind extends string> {
  #byKind = new Map<Kind, Set<Listener>>();

  constructor(private readonly warn: (warning: PedelecError) => void) {}

  /** Adds a listener; returns the function that removes it. */
  on(kind: Kind, listener: Listener): () => void {
    let set = this.#byKind.get(kind);
    if (!set) this.#byKind.set(kind, (set = new Set()));
    set.add(listener);
    return () => void set.delete(listener);
  }

  emit(kind: Kind, ...args: unknown[]): void {
    const set = this.#byKind.get(kind);
    if (!set) return;
    for (const listener of [...set]) {
      if (!set.has(listener)) continue;
      try {
        (listener as Called)(...args);
      } catch (thrown) {
        this.warn(normalizeError(thrown, 'LISTENER_ERROR', 'A session listener threw'));
      }
    }
  }
}
