// The trace readings behind `stream` and `startup` (bench/lib/frames.mjs, bench/lib/startup.mjs), on
// hand-made traces: which work counts in which frame, and how nested work is counted once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frameTimes } from '../../bench/lib/frames.mjs';
import { mainThreadWork } from '../../bench/lib/startup.mjs';
import { phaseStats } from '../../bench/lib/stream.mjs';

const MAIN = { pid: 1, tid: 1 };
const mark = (name, ts) => ({ ...MAIN, cat: 'blink.user_timing', name, ph: 'I', ts });
const task = (ts, dur, name = 'ThreadControllerImpl::RunTask', cat = 'toplevel') => ({
  ...MAIN,
  cat,
  name,
  ph: 'X',
  ts,
  dur,
});

test('a frame holds the main-thread tasks that start between its mark and the next, each counted once', () => {
  const events = [
    mark('s:0', 1000),
    { ...task(1100, 4000), tdur: 2000 }, // the delta's task: ran 2 ms of the 4 the clock saw
    task(1200, 500, 'BlinkScheduler_PerformMicrotaskCheckpoint'), // nested in it: not counted again
    task(16_000, 3000), // the next frame's rendering, starting just before its mark
    mark('s:1', 16_500),
    task(20_000, 1000),
    { ...task(17_500, 9000), tid: 2 }, // another thread: not the page's main thread
    mark('s:end', 33_000),
    task(34_000, 5000), // after the last mark: no frame
  ];
  assert.deepEqual(frameTimes(events, 's:'), [
    { name: 's:0', ms: 5, wallMs: 7 },
    { name: 's:1', ms: 1, wallMs: 1 },
  ]);
});

test("frames are split into the reply's first and last fifths by the delta they show; the close is its own", () => {
  const frames = Array.from({ length: 10 }, (_, i) => ({ name: `stream:${i}`, ms: i + 1, wallMs: i + 1 }));
  frames.push({ name: 'stream:end', ms: 42, wallMs: 50 });
  const stats = phaseStats(frames, 10);
  assert.deepEqual([stats.early.frames, stats.early.max, stats.end.frames, stats.end.max], [2, 2, 2, 10]);
  assert.equal(stats.closeMs, 42);
});

test('startup: busy and blocking time until the ready mark, and self time per kind of work', () => {
  const events = [
    task(0, 900), // before the navigation started (the mark is 100 ms after it): not counted
    task(1000, 80_000),
    task(2000, 30_000, 'EvaluateScript', 'devtools.timeline'),
    task(3000, 10_000, 'v8.compileModule', 'v8'),
    task(40_000, 20_000, 'Layout', 'devtools.timeline'),
    task(90_000, 10_000),
    mark('pedelec-startup:ready', 101_000),
  ];
  const work = mainThreadWork(events, 100);
  assert.equal(work.busyMs, 90);
  assert.equal(work.blockingMs, 30);
  assert.deepEqual(work.byKind, { 'loading, other': 40, script: 20, compile: 10, layout: 20 });
});
