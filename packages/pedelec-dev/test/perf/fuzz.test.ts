// Property-based fuzzing of the development Core's `/bridge` socket (reliability.md, "Bridge faults";
// issue 9: "the same for the dev Core's socket with random frames"), the long run: with a fixed seed,
// at least 10 000 random and mutated frames over nine page connections, three cut mid-stream, plus the
// huge and raw-UTF-8 ones; then a normal tool-calling turn (../fuzz-bridge.ts says what is sent and
// checked). The default tier's short run is ../fuzz.test.ts.
import { test } from 'node:test';
import { fuzzBridge } from '../fuzz-bridge.js';

test(
  'the dev Core survives 10 000+ random and mutated bridge frames, then serves a normal turn',
  { timeout: 60_000 },
  (t) =>
    // ~12 000 fuzzed frames, plus the huge and raw-UTF-8 ones.
    fuzzBridge(t, { connections: 9, framesPerConnection: 1400, abrupt: new Set([2, 5, 7]), minFrames: 10_000 }),
);
