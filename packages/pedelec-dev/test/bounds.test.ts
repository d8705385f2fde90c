// What one page or agent sends costs pedelec-dev work in proportion, with caps — never the whole
// server. Each test here reproduces one of the attacks that used to exhaust it (the other findings'
// tests sit with their topics: scripted, assets, sessions, security). How fast another page is
// answered meanwhile is measured in perf/bounds.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BridgeClient, chatText, createSession, delay, startCore, startCoreChild } from './helpers.js';

test('finding 1: a catastrophic pattern reached through /call is stopped by its time budget; others keep being answered', async (t) => {
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
        {
          name: 'word',
          description: 'A lowercase word.',
          argsSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^[a-z]+$' } }, required: ['s'] },
        },
      ],
    },
  });
  const other = await BridgeClient.open(t, core);
  await other.ok('get_approval_status'); // connected and warm

  // Without a budget this never came back, and nobody else got an answer again.
  let from = attacker.mark();
  await attacker.ok('send_text', { sessionId, text: `/call catastrophic {"s":"${'a'.repeat(40)}!"}` });
  const turn = attacker.turnEnd(sessionId, from);
  // Another page is answered meanwhile (each request's wait is bounded).
  for (let i = 0; i < 10; i++) assert.equal((await other.ok('get_approval_status')).approved, true);
  let reply = chatText(await turn);
  assert.match(reply, /catastrophic failed: TOOL_ARGS_INVALID — args: could not be checked within 1000 ms/);

  // Before any pattern runs, an over-long string is refused.
  from = attacker.mark();
  await attacker.ok('send_text', { sessionId, text: `/call word {"s":"${'a'.repeat(10_001)}"}` });
  reply = chatText(await attacker.turnEnd(sessionId, from));
  assert.match(reply, /word failed: TOOL_ARGS_INVALID — s: is longer than 10000 characters/);

  // Patterns still work: a mismatch is refused, a match reaches the page.
  from = attacker.mark();
  await attacker.ok('send_text', { sessionId, text: '/call word {"s":"ABC"}' });
  reply = chatText(await attacker.turnEnd(sessionId, from));
  assert.match(reply, /word failed: TOOL_ARGS_INVALID — s: must match pattern \^\[a-z\]\+\$/);

  from = attacker.mark();
  await attacker.ok('send_text', { sessionId, text: '/call word {"s":"abc"}' });
  const call = await attacker.until((m) => m.type === 'tool_call', { from });
  assert.deepEqual(call.args, { s: 'abc' });
  await attacker.ok('submit_tool_result', { sessionId, toolRequestId: call.toolRequestId, result: { ok: true } });
  reply = chatText(await attacker.turnEnd(sessionId, from));
  assert.match(reply, /word returned \{"ok":true\}/);
  assert.equal(core.exit, null, 'the Core is still running');
});

test('a burst of 5 000 requests from one page does not hold up another page: each connection takes its turn', async (t) => {
  const core = await startCore(t);
  const flooder = await BridgeClient.open(t, core);
  const other = await BridgeClient.open(t, core);
  for (let i = 0; i < 5000; i++) {
    flooder.sendRaw({ channelId: 'c', requestId: `flood_${i}`, type: 'get_approval_status' });
  }
  await delay(5); // the burst is on its way
  const answer = other.request('get_approval_status');
  await answer;
  // Counted, not timed: the other page's answer came long before the burst's last one.
  const floodAnswered = flooder.messages.length;
  assert.ok(floodAnswered < 2500, `the other page waited for ${floodAnswered} of the 5 000`);
  await flooder.until((m) => m.requestId === 'flood_4999', { timeout: 20_000 });
});

test('a schema of 16 000 properties creates the session and is validated: no INTERNAL_ERROR, no stack on the console', async (t) => {
  // The validator used to recurse once per four properties: RangeError, INTERNAL_ERROR to the page and a
  // 10 000-line stack on the Core's console.
  const bugs: unknown[] = [];
  const core = await startCore(t, { onBug: (error) => bugs.push(error) });
  const page = await BridgeClient.open(t, core);
  const count = 16_000;
  const properties = Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, { type: 'integer' }]));
  const wide = { name: 'wide', description: 'Takes many numbers.', argsSchema: { type: 'object', properties } };
  const sessionId = await createSession(page, { skills: { guidance: '', tools: [wide] } });
  const from = page.mark();
  await page.ok('send_text', { sessionId, text: `/call wide {"p${count - 1}":"x"}` });
  assert.match(chatText(await page.turnEnd(sessionId, from)), new RegExp(`TOOL_ARGS_INVALID — p${count - 1}: must be`));
  assert.deepEqual(bugs, []);
});
