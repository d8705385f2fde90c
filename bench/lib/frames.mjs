// Main-thread time per animation frame, from a Chrome trace. The page marks each animation frame
// (`performance.mark(<prefix><i>…)` in a requestAnimationFrame callback); a frame's time is all the
// work of the page's main thread between two marks: every top-level task that starts in between —
// script, style, layout, paint, garbage collection — whatever caused it. The task that runs the
// animation frame callbacks starts just before its mark, so frame i holds what frame i's delta cost:
// the delta's task, the render it queued, and the style, layout and paint of the frame that shows it.
//
// The time counted is the thread's: how long it ran (the trace's thread time), not how long the tasks
// took by the clock. On a shared machine the clock also counts the moments the system gave the core
// to another process — at a load of 8 on 2 cores, a task of 15 ms now and then takes 100 ms by the
// clock, and such frames decide a p95. The clock's figure is kept beside it (`wallMs`).
import { quantile } from './stats.mjs';

/** Trace categories the analysis needs: top-level tasks and the page's marks. */
export const FRAME_TRACE_CATEGORIES = ['toplevel', 'blink.user_timing'];

/**
 * `[{ name, ms, wallMs }]` per frame, in order: the main thread's time (and the clock's) between each
 * mark named `prefix…` and the next one (the last mark closes the last frame).
 */
export function frameTimes(events, prefix) {
  const marks = events.filter((e) => e.cat === 'blink.user_timing' && e.name.startsWith(prefix) && e.ph !== 'e');
  if (marks.length < 2) throw new Error(`frames: found ${marks.length} marks named ${prefix}… in the trace`);
  marks.sort((a, b) => a.ts - b.ts);
  // The marks are made on the page's main thread: its tasks are the ones that count.
  const { pid, tid } = marks[0];
  const tasks = outermost(
    events.filter((e) => e.ph === 'X' && e.pid === pid && e.tid === tid && e.cat.split(',').includes('toplevel')),
  );
  const frames = [];
  let t = 0;
  for (let i = 0; i + 1 < marks.length; i++) {
    const [from, to] = [marks[i].ts, marks[i + 1].ts];
    let [us, wallUs] = [0, 0];
    while (t < tasks.length && tasks[t].ts < from) t++;
    for (; t < tasks.length && tasks[t].ts < to; t++) {
      us += tasks[t].tdur ?? tasks[t].dur;
      wallUs += tasks[t].dur;
    }
    frames.push({ name: marks[i].name, ms: us / 1000, wallMs: wallUs / 1000 });
  }
  return frames;
}

/** Top-level tasks nest (a task's microtask checkpoint is a task event too): the outermost ones, by start. */
export function outermost(tasks) {
  tasks.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const top = [];
  let end = -Infinity;
  for (const task of tasks) {
    if (task.ts < end) continue;
    top.push(task);
    end = task.ts + task.dur;
  }
  return top;
}

/** p50, p95 and max of frame times (ms). */
export function frameStats(ms) {
  return { frames: ms.length, p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), max: Math.max(...ms) };
}
