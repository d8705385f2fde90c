// Preloaded (helpers.ts `nodeTs` with `flags: ['--expose-gc']` and this file in `preloads`, imported
// after tsx's loader) into a process a test watches for growth per call: it notes the most `abort`
// listeners any one AbortSignal held at once, and on SIGUSR2 (and at exit) prints to stderr one JSON
// line `{"probe":{abortListenersMax, heapUsed}}`, the heap measured after a full garbage collection
// (when --expose-gc is given, else null). It only observes: every listener is added as it would be
// without it.
import { getEventListeners } from 'node:events';

let abortListenersMax = 0;
const addEventListener = EventTarget.prototype.addEventListener;
EventTarget.prototype.addEventListener = function (
  this: EventTarget,
  type: string,
  ...rest: [EventListenerOrEventListenerObject | null, (AddEventListenerOptions | boolean)?]
) {
  addEventListener.call(this, type, ...rest);
  if (type === 'abort' && this instanceof AbortSignal)
    abortListenersMax = Math.max(abortListenersMax, getEventListeners(this, 'abort').length);
};

function report() {
  globalThis.gc?.();
  const heapUsed = globalThis.gc ? process.memoryUsage().heapUsed : null;
  process.stderr.write(`${JSON.stringify({ probe: { abortListenersMax, heapUsed } })}\n`);
}
process.on('SIGUSR2', report);
process.on('exit', report);
