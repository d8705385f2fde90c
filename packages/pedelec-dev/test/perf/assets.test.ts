// The asset store's bookkeeping under a flood of tickets (their rules: ../assets.test.ts): its cost
// grows with the number of tickets, not with its square. Measured as CPU time, against a smaller flood
// in the same run, so that neither the machine's speed nor its load decides the result.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AssetStore } from '../../src/assets/asset-store.js';

/** CPU time (ms) to create `count` upload tickets in one session of a fresh store. */
async function floodCpuMs(count: number): Promise<number> {
  // Limits lifted, to time the bookkeeping alone: every ticket used to sweep every other ticket.
  const store = new AssetStore({
    ttlMs: 60_000,
    maxBytes: 1024,
    quotaBytes: Infinity,
    maxTicketsPerSession: Infinity,
    baseUrl: 'http://127.0.0.1:1',
    originAllowed: () => true,
    sessionAlive: () => true,
  });
  try {
    // CPU time, not wall time: the bound is about the work done, whatever else the machine is doing.
    const before = process.cpuUsage();
    for (let i = 0; i < count; i++) store.createUpload('session_flood', { filename: 'f.txt', sizeBytes: 1 });
    const { user, system } = process.cpuUsage(before);
    return (user + system) / 1000;
  } finally {
    await store.dispose();
  }
}

/** Eight times the tickets: about 8× the CPU when linear, 64× with the old sweep (about 15 s for 40 000). */
const SCALE = 8;
/** Room over the linear ratio: a GC pause or a busy neighbour in one measurement only. */
const SLACK = 3;
/** Absorbs the clock's granularity on a small measurement. */
const FLOOR_MS = 50;

test('finding 1: an asset-ticket flood costs linear time (expired tickets are swept once per interval)', async (t) => {
  await floodCpuMs(5000); // warm-up: compiled code, not the first run's compilation, is compared
  const small = await floodCpuMs(5000);
  const large = await floodCpuMs(5000 * SCALE);
  t.diagnostic(`5 000 tickets: ${small.toFixed(0)} ms of CPU; 40 000: ${large.toFixed(0)} ms`);
  assert.ok(
    large < SCALE * SLACK * small + FLOOR_MS,
    `40 000 tickets took ${large.toFixed(0)} ms of CPU, 5 000 took ${small.toFixed(0)} ms`,
  );
});
