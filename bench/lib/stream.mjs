// The `stream` benchmark's driver: opens bench/browser/stream.js's page, warms every subject up, then
// per run streams the reply into each subject — the kit and its stand-in back to back, in alternating
// order — under a trace, and reads each frame's main-thread time from it (./frames.mjs).
import { FRAME_TRACE_CATEGORIES, frameStats, frameTimes } from './frames.mjs';

/** The parts of the reply compared: frames while its first fifth arrives, and while its last fifth does. */
export const PHASES = { early: [0, 0.2], end: [0.8, 1] };
const PREFIX = 'stream:';

/**
 * Frame stats per phase, from frames named `stream:<delta index>`: of the main thread's time, and the
 * p95 of the clock's; and `closeMs`, the main thread's time from the last delta's frames to the
 * reply's close shown (the frame named `stream:end`: the whole message, the turn's end, their render).
 */
export function phaseStats(frames, deltaCount) {
  const stats = {};
  for (const [phase, [from, to]] of Object.entries(PHASES)) {
    const inPhase = frames.filter(({ name }) => {
      const i = Number(name.slice(PREFIX.length));
      // Frame i shows delta i: the reply is (i + 1) / deltaCount there.
      const at = (i + 1) / deltaCount;
      return at > from && at <= to;
    });
    const wall = frameStats(inPhase.map((f) => f.wallMs));
    stats[phase] = { ...frameStats(inPhase.map((f) => f.ms)), wallP95: wall.p95 };
  }
  stats.closeMs = frames.find(({ name }) => name === `${PREFIX}end`)?.ms;
  return stats;
}

export async function runStream(browser, url, { runs, bytes, deltaChars }) {
  const page = await browser.newPage();
  page.on('pageerror', (error) => console.error(`  [page] ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warn')
      console.error(`  [page ${message.type()}] ${message.text()}`);
  });
  try {
    await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
    await page.waitForFunction(() => globalThis.bench !== undefined, { timeout: 10_000 });
    const subjects = await page.evaluate(() => globalThis.bench.subjects);
    await page.evaluate((o) => globalThis.bench.warmUp(o), { deltaChars });
    const results = Object.fromEntries(subjects.map((id) => [id, []]));
    for (let run = 0; run < runs; run++) {
      for (const mode of ['text', 'markdown']) {
        const pair = [`kit ${mode}`, `stand-in ${mode}`];
        if (run % 2 === 1) pair.reverse(); // a drift of the machine's load hits both alike
        for (const id of pair) {
          await page.evaluate((s) => globalThis.bench.mount(s), id);
          await page.tracing.start({ categories: FRAME_TRACE_CATEGORIES });
          let shown;
          try {
            shown = await page.evaluate((o) => globalThis.bench.stream(o), { bytes, deltaChars, prefix: PREFIX });
          } catch (error) {
            await page.tracing.stop();
            throw error;
          }
          const trace = JSON.parse(Buffer.from(await page.tracing.stop()).toString('utf8'));
          await page.evaluate(() => globalThis.bench.unmount());
          const frames = frameTimes(trace.traceEvents ?? trace, PREFIX);
          results[id].push({ ...phaseStats(frames, shown.deltas), domNodes: shown.domNodes, shown: shown.shown });
        }
      }
    }
    return { bytes, deltaChars, phases: PHASES, results };
  } finally {
    await page.close();
  }
}
