// docs/design/reliability.md "Security": context ids are not used for authorization anywhere. In pedelec-dev
// a session id, a channel id or a tool request id learnt (or guessed) by another page grants nothing:
// access follows the connection and channel that created or resumed the session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BridgeClient, chatText, twoPages } from './helpers.js';

test("ids of another page's session grant nothing: its channel id, session id and tool request id are refused", async (t) => {
  const { a, b, sessionA, sessionB } = await twoPages(t);

  // A's turn waits for a tool result.
  const from = a.mark();
  await a.ok('send_text', { sessionId: sessionA, text: '/call update_counter {"delta": 3}' });
  const call = await a.until((m) => m.type === 'tool_call', { from });
  assert.equal(call.sessionId, sessionA);

  // B knows every id of that call (context ids are not secrets) and tries to answer it for A.
  const forgedChannel = new BridgeClient(b.socket, a.channelId);
  const attempts: [BridgeClient, string, string][] = [
    [b, sessionA, 'THREAD_ACCESS_DENIED'],
    [forgedChannel, sessionA, 'THREAD_ACCESS_DENIED'], // A's channel id, on B's connection
    [b, sessionB, 'TOOL_REQUEST_NOT_FOUND'], // B's own session: the request id is not one of its calls
  ];
  for (const [client, sessionId, expected] of attempts) {
    const response = await client.request('submit_tool_result', {
      sessionId,
      toolRequestId: call.toolRequestId,
      result: { value: 666 },
    });
    assert.equal(response.ok, false);
    assert.equal(response.error.code, expected, `${client === b ? 'b' : 'forged channel'} → ${sessionId}`);
  }
  const denied = await forgedChannel.request('send_text', { sessionId: sessionA, text: 'hi' });
  assert.equal(denied.error.code, 'THREAD_ACCESS_DENIED');

  // A's call was untouched: its own answer is the one the agent gets.
  await a.ok('submit_tool_result', { sessionId: sessionA, toolRequestId: call.toolRequestId, result: { value: 3 } });
  const events = await a.turnEnd(sessionA, from);
  assert.match(chatText(events), /returned \{"value":3\}/);
  assert.doesNotMatch(chatText(events), /666/);
  assert.ok(
    b.messages.every((m) => m.sessionId !== sessionA),
    'nothing of A reached B',
  );
});
