// How fast another page is answered while one page makes pedelec-dev run a catastrophic pattern (the
// behaviour, the budget's refusal and the other checks: ../bounds.test.ts). The pattern runs in a
// worker, so the server's own thread keeps answering: another page's answers during the attack are
// compared with its answers just before it, on the same machine in the same run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BridgeClient, chatText, createSession, startCoreChild } from '../helpers.js';

/** Sends `get_approval_status` from `page` and resolves with the round trip in ms. */
async function roundTrip(page: BridgeClient): Promise<number> {
  const started = performance.now();
  await page.ok('get_approval_status');
  return performance.now() - started;
}

/**
 * How much slower than before the attack an answer may be during it: with the floor, about the 100 ms
 * this test used to allow on a quiet machine (answers take 2–3 ms there), more on a busy one.
 */
const FACTOR = 15;
/** Absorbs the clock's granularity and a scheduling hiccup (a blocked thread costs the whole 1 000 ms budget). */
const FLOOR_MS = 50;
/** Round trips measured before the attack. */
const BASELINE_TRIPS = 20;
/** At most this many round trips during the attack (it ends within its 1 000 ms budget). */
const MAX_TRIPS = 2000;

test('finding 1: while a catastrophic pattern runs out its time budget, another page is answered about as fast as before', async (t) => {
  const core = await startCoreChild(t);
  const attacker = await BridgeClient.open(t, core);
  const sessionId = await createSession(attacker, {
    skills: {
      guidance: '',
      tools: [
        {
          name: 'catastrophic',
          description: 'Backtracks for ever on a run of a and a final !.',
          argsSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } }, required: ['s'] },
        },
      ],
    },
  });
  const other = await BridgeClient.open(t, core);
  await roundTrip(other); // connected and warm
  const before: number[] = [];
  for (let i = 0; i < BASELINE_TRIPS; i++) before.push(await roundTrip(other));

  const from = attacker.mark();
  await attacker.ok('send_text', { sessionId, text: `/call catastrophic {"s":"${'a'.repeat(40)}!"}` });
  let ended = false;
  const turn = attacker.turnEnd(sessionId, from).finally(() => (ended = true));
  // Round trips for as long as the check runs, so they cover the whole attack.
  const during: number[] = [];
  for (let i = 0; i < MAX_TRIPS && !ended; i++) during.push(await roundTrip(other));
  const reply = chatText(await turn);
  assert.match(reply, /catastrophic failed: TOOL_ARGS_INVALID — args: could not be checked within 1000 ms/);

  const baseline = Math.max(...before);
  const slowest = Math.max(...during);
  t.diagnostic(
    `before: slowest of ${before.length} answers ${baseline.toFixed(1)} ms; during: slowest of ${during.length} ${slowest.toFixed(1)} ms`,
  );
  assert.ok(
    slowest <= FACTOR * baseline + FLOOR_MS,
    `another page waited ${slowest.toFixed(0)} ms during the attack, at most ${baseline.toFixed(0)} ms before it`,
  );
  assert.equal(core.exit, null, 'the Core is still running');
});
