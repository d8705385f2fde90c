// Property-based fuzzing of the development Core's `/bridge` socket (reliability.md, "Bridge faults"),
// a short run: random and mutated frames over a few page connections, one cut mid-stream, then a normal
// tool-calling turn (fuzz-bridge.ts says what is sent and checked). The long run, 10 000+ frames, is
// perf/fuzz.test.ts.
import { test } from 'node:test';
import { fuzzBridge } from './fuzz-bridge.js';

test(
  'the dev Core survives a short run of random and mutated bridge frames, then serves a normal turn',
  { timeout: 60_000 },
  (t) => fuzzBridge(t, { connections: 3, framesPerConnection: 400, abrupt: new Set([1]), minFrames: 1000 }),
);
