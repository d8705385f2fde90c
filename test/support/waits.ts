/**
 * Waiting in tests: for an event or a promise wherever there is one (open-wc's `oneEvent`, the fake
 * port's `request`), otherwise for one task boundary or for a condition — never for a number of
 * microtask hops, which breaks whenever an implementation adds or saves one.
 */

/**
 * Lets every pending promise callback run: one zero-delay task, so all microtasks queued before it have
 * run (no time passes that a test depends on).
 */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Waits until `check()` holds, looking after each task; rejects after `timeoutMs` (default 2 000) naming
 * `what`. For state that changes without an event to await.
 */
export async function until(check: () => unknown, what: string, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await nextTask();
  }
}

/**
 * The task running now: `ended` turns true once it is over (a zero-delay timer set now has fired). For
 * "within microtasks, no timer" checks: make it, act, await the outcome, then expect `ended` false.
 */
export function currentTask(): { readonly ended: boolean } {
  const task = { ended: false };
  setTimeout(() => (task.ended = true), 0);
  return task;
}
