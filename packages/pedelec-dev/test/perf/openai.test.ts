// The openai agent's parsing stays linear (its behaviour: ../openai.test.ts): the SSE reader on one long
// line sent in many pieces, and the tool-name mapping of thousands of names that share a long prefix.
// Each is timed on an input and on one 8 times larger, in the same run: linear work takes about 8 times
// as long, the quadratic work these tests were written against about 64 times.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseParser } from '../../src/agents/sse.js';
import { ToolNameMap } from '../../src/agents/tool-names.js';

/** How much larger the second input is. */
const SCALE = 8;
/** Room over the linear ratio, for noise in one of the two measurements. */
const SLACK = 3;
/** Absorbs the clock's granularity on the small input. */
const FLOOR_MS = 50;

/** The fastest of a few runs of `work`, in ms: the least disturbed by whatever else the machine does. */
function fastest(work: () => void, runs = 3): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    work();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/** Times `work(size)` and `work(size × SCALE)` after a warm-up, and checks the ratio. */
function assertLinear(
  t: { diagnostic(message: string): void },
  what: string,
  size: number,
  work: (size: number) => void,
) {
  work(size); // warm-up: compiled code, not the first run's compilation, is compared
  const small = fastest(() => work(size));
  const large = fastest(() => work(size * SCALE));
  t.diagnostic(`${what}: ${size} took ${small.toFixed(1)} ms, ${size * SCALE} took ${large.toFixed(1)} ms`);
  assert.ok(
    large < SCALE * SLACK * small + FLOOR_MS,
    `${what}: ${size * SCALE} took ${large.toFixed(0)} ms, ${size} took ${small.toFixed(1)} ms`,
  );
}

test('the SSE reader stays linear on a long line in pieces: 8 times the pieces take about 8 times as long', (t) => {
  const piece = 'x'.repeat(16 * 1024);
  // Up to 8 MiB in 16 KiB pieces: ~12 s when each piece rescanned (and copied) the whole line.
  assertLinear(t, 'pieces of 16 KiB', 64, (pieces) => {
    const parser = new SseParser();
    for (let i = 0; i < pieces; i++) parser.push(i === 0 ? `data: ${piece}` : piece);
    const [done] = parser.push('\n\n');
    assert.equal(done!.lines[0]!.length, pieces * piece.length);
  });
});

test('tool-name mapping stays linear when thousands of long names share their first 62 characters', (t) => {
  const stem = 'n'.repeat(62);
  const namesOf = (count: number) => Array.from({ length: count }, (_, i) => `${stem}${String(i).padStart(8, '0')}`);
  const inputs = new Map([500, 500 * SCALE].map((count) => [count, namesOf(count)]));
  assertLinear(t, 'names', 500, (count) => void new ToolNameMap(inputs.get(count)!));
});
