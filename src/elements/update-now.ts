/**
 * Lit updates an element a microtask after a property changes, and that is where the kit's elements
 * derive what they declare from their properties (`willUpdate`). A synchronous read — `manifest`,
 * `start()`, `invoke()` — runs a pending update first, so it sees what the page wrote in this task.
 */
import type { ReactiveElement } from '@lit/reactive-element';

/** Runs `element`'s pending update now (a connected element only: Lit updates none before it connects). */
export function updateNow(element: ReactiveElement): void {
  // `performUpdate` is protected: Lit's documented way to update synchronously, called from outside here.
  if (element.isUpdatePending && element.isConnected) (element as unknown as { performUpdate(): void }).performUpdate();
}
