/**
 * Waiting in tests: for an event or a promise wherever there is one (open-wc's `oneEvent`, the fake
 * port's `request`), otherwise for one task boundary or for a condition — never for a number of
 * microtask hops, which breaks whenever an implementation adds or saves one. The same helpers serve
 * the Node tests, the browser tests and pedelec-dev's tests.
 */

/**
 * Lets every pending promise callback run: one zero-delay task, so all microtasks queued before it have
 * run (no time passes that a test depends on).
 */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * One task boundary posted as a message rather than a timer: not clamped to 4 ms when nested, and not
 * seen by tests that count or wrap timers.
 */
export function nextMessage(): Promise<void> {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}

/** How `until` waits: its limit, and how often it looks. */
export type UntilOptions = {
  /** Rejects after this long (default 2 000 ms). A bound on a wait, never an assertion on time. */
  timeoutMs?: number;
  /**
   * Looks every `everyMs` ms; 0 (the default) looks after each task. Use a few ms when the condition
   * waits on another process (a server, a browser), so the wait does not take the CPU it waits for.
   */
  everyMs?: number;
};

/**
 * Resolves with `check()`'s first truthy value (a check may be async: it is awaited); rejects after the
 * timeout naming `what` (a text, or a function for a message made at that moment). For state that
 * changes without an event to await.
 */
export async function until<T>(
  check: () => T | Promise<T>,
  what: string | (() => string),
  options: number | UntilOptions = {},
): Promise<NonNullable<T>> {
  const { timeoutMs = 2000, everyMs = 0 } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
    await (everyMs > 0 ? new Promise((resolve) => setTimeout(resolve, everyMs)) : nextMessage());
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
