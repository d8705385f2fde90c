/**
 * Watching for promise rejections nobody handled, in Node (where the core tests run): process
 * `unhandledRejection`. While it watches, the test runner's own listeners are set aside, so a test
 * asserts on these itself (and a deliberate one stays quiet); `stop()` puts them back. Node reports an
 * unhandled rejection once the microtasks after it have run: await one task (waits.ts `nextTask`)
 * before looking.
 */
export function watchUnhandled(): { events: unknown[]; stop(): void } {
  const events: unknown[] = [];
  const record = (reason: unknown) => void events.push(reason);
  const others = process.listeners('unhandledRejection');
  process.removeAllListeners('unhandledRejection');
  process.on('unhandledRejection', record);
  return {
    events,
    stop() {
      process.off('unhandledRejection', record);
      others.forEach((listener) => process.on('unhandledRejection', listener));
    },
  };
}
