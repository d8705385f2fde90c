// pedelec-dev's safety rules where the point is a bound on time or memory (the rules themselves:
// ../security.test.ts): a half-sent message is waited for as long as its configured timeout, not
// less; the message log keeps a copy of a cut frame, not the frame; a page that stops reading cannot
// make the Core buffer for it without bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { until } from '../../../../test/support/waits.js';
import type { ToolManifest } from '../../src/agents/types.js';
import { MessageLog } from '../../src/inspector/message-log.js';
import { BridgeClient, clientFrame, closeOf, createSession, netSocketOf, skills, startCore } from '../helpers.js';

/** The partial-frame timeout configured below. */
const PARTIAL_FRAME_TIMEOUT_MS = 500;
/** What the two clocks (the test's and the server's timer) may disagree by. */
const CLOCK_MS = 50;

test('finding 4: a half-sent message is waited for its whole partial-frame timeout before the close (1008)', async (t) => {
  const core = await startCore(t, { partialFrameTimeoutMs: PARTIAL_FRAME_TIMEOUT_MS });
  const request = JSON.stringify({ channelId: 'c', requestId: 'r', type: 'get_approval_status' });
  for (const [what, bytes] of [
    ['a frame with part of its payload', clientFrame(request, { declared: 1000 }).subarray(0, 20)],
    ['half a frame header', clientFrame(request, { declared: 1000 }).subarray(0, 3)],
    ['a fragmented message without its last frame', clientFrame(request, { fin: false })],
  ] as const) {
    const page = await BridgeClient.open(t, core);
    const started = Date.now();
    netSocketOf(page.socket).write(bytes); // under ws, to send what no well-behaved client would
    const closed = await closeOf(page.socket);
    const elapsed = Date.now() - started;
    assert.equal(closed.code, 1008, what);
    assert.ok(elapsed >= PARTIAL_FRAME_TIMEOUT_MS - CLOCK_MS, `${what}: closed after ${elapsed} ms`);
  }
});

test('the message log keeps its own copy of a cut frame, not the whole frame (bounded memory)', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const log = new MessageLog();
  const MiB = 1024 * 1024;
  gc();
  const before = process.memoryUsage().heapUsed;
  // 24 frames of 8 MiB: ~200 MiB if each cut text kept its frame alive, a few hundred KiB if not.
  for (let i = 0; i < 24; i++) log.record('in', 'c', null, `${i}`.padEnd(8 * MiB, 'x'));
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  assert.equal(log.recent().length, 24);
  assert.ok(log.recent().every((entry) => entry.truncated && entry.text.length === 16 * 1024));
  assert.ok(grown < 32 * MiB, `heap grew by ${(grown / MiB).toFixed(1)} MiB`);
});

// dev-core.md Safety: never a crash — a page that stops reading is closed rather than buffered for without bound.
test(
  'bridge: a page that stops reading cannot make the Core buffer without bound (slow consumer)',
  { timeout: 60_000 },
  async (t) => {
    const core = await startCore(t);
    // One tool with a 1 MiB description: every `/tools` (a ~150-byte request) streams ~1 MiB back.
    const word = 'a'.repeat(4000);
    const description = Array.from({ length: 256 }, () => word).join(' ');
    const big: ToolManifest = { name: 'big', description, argsSchema: { type: 'object', properties: {} } };
    const reader = await BridgeClient.open(t, core);
    const sessionId = await createSession(reader, { skills: skills(big) });
    // A second connection of the same origin drives the turns; the first one stops reading.
    const driver = await BridgeClient.open(t, core);
    await driver.ok('resume_session', { sessionId });
    let closedByServer: number | null = null;
    reader.socket.once('close', (code) => (closedByServer = code));
    netSocketOf(reader.socket).pause();
    const TURNS = 40;
    for (let i = 0; i < TURNS; i++) {
      const from = driver.mark();
      await driver.ok('send_text', { sessionId, text: '/tools' });
      await driver.turnEnd(sessionId, from);
    }
    // Count what the server kept for the reader: everything it delivers once the reader reads again.
    let bytes = 0;
    reader.socket.on('message', (data: Buffer) => (bytes += data.length));
    netSocketOf(reader.socket).resume();
    // Until the server has closed the reader or delivered every turn. A server that dropped frames
    // instead never gets there: after the wait, it is judged by what it delivered, as any other.
    const settled = await until(
      () =>
        closedByServer !== null ||
        reader.messages.filter((m) => m.type === 'status_changed' && m.status === 'idle').length >= TURNS,
      'the reader closed or every turn delivered',
      { timeoutMs: 20_000, everyMs: 50 },
    ).then(
      () => true,
      () => false,
    );
    t.diagnostic(
      `delivered ${(bytes / 2 ** 20).toFixed(1)} MiB to a socket that read nothing for ${TURNS} turns; closed by server: ${closedByServer}${settled ? '' : ' (still delivering after 20 s)'}`,
    );
    assert.ok(
      closedByServer !== null || bytes < 16 * 2 ** 20,
      `the Core held ${(bytes / 2 ** 20).toFixed(1)} MiB for a page that did not read`,
    );
  },
);
