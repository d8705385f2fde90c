// Session lifetime across connections: auto-end on disconnect, resume of a persistent session from a
// new connection of the same origin only, and `ended` for the other routes when one page ends it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BridgeClient, chatText, createSession, delay, startCore, untilAnswer, type Message } from './helpers.js';

/**
 * Polls (bounded) until `sessionId` is gone from the server. The probe must come from another origin:
 * its resume is refused (THREAD_ACCESS_DENIED) while the session exists, so probing never adds a route.
 */
function waitGone(client: BridgeClient, sessionId: string): Promise<Message> {
  return untilAnswer(
    () => client.request('resume_session', { sessionId }),
    (response) => !response.ok && response.error.code === 'THREAD_NOT_FOUND',
    `session ${sessionId} to be gone`,
    { everyMs: 20 },
  );
}

test('a session with autoEndOnDisconnect ends when its last connection goes', async (t) => {
  const core = await startCore(t);
  const first = await BridgeClient.open(t, core);
  const sessionId = await createSession(first, { autoEndOnDisconnect: true });
  await first.close();
  const probe = await BridgeClient.open(t, core, { origin: 'http://127.0.0.1:1' });
  const gone = await waitGone(probe, sessionId);
  assert.equal(gone.error.code, 'THREAD_NOT_FOUND');
});

test('a session stays while another route (a resumed connection) is still there', async (t) => {
  const core = await startCore(t);
  const first = await BridgeClient.open(t, core);
  const second = await BridgeClient.open(t, core);
  const sessionId = await createSession(first, { autoEndOnDisconnect: true });
  assert.deepEqual(await second.ok('resume_session', { sessionId }), { sessionId });
  await first.close();
  await delay(50);
  const from = second.mark();
  await second.ok('send_text', { sessionId, text: 'still here?' });
  assert.match(chatText(await second.turnEnd(sessionId, from)), /scripted/);
  await second.close();
  const probe = await BridgeClient.open(t, core, { origin: 'http://127.0.0.1:1' });
  await waitGone(probe, sessionId);
});

test('a persistent session survives its page and is resumed from the same origin, with events routed to the new page', async (t) => {
  const core = await startCore(t);
  const first = await BridgeClient.open(t, core, { origin: 'http://localhost:4200' });
  const sessionId = await createSession(first, { autoEndOnDisconnect: false });
  await first.close();
  await delay(50);

  const second = await BridgeClient.open(t, core, { origin: 'http://localhost:4200' });
  assert.deepEqual(await second.ok('resume_session', { sessionId }), { sessionId });
  const from = second.mark();
  await second.ok('send_text', { sessionId, text: '/call update_counter {"delta": 5}' });
  const call = await second.until((m) => m.type === 'tool_call', { from });
  assert.equal(call.channelId, second.channelId);
  await second.ok('submit_tool_result', { sessionId, toolRequestId: call.toolRequestId, result: { value: 5 } });
  assert.match(chatText(await second.turnEnd(sessionId, from)), /returned \{"value":5\}/);
});

test('resume from another origin is refused with THREAD_ACCESS_DENIED and leaks nothing', async (t) => {
  const core = await startCore(t, { allowNoOrigin: true }); // for the client without Origin below
  const owner = await BridgeClient.open(t, core, { origin: 'http://localhost:4200' });
  const sessionId = await createSession(owner, { autoEndOnDisconnect: false });

  const stranger = await BridgeClient.open(t, core, { origin: 'http://127.0.0.1:9999' });
  const refused = await stranger.request('resume_session', { sessionId });
  assert.equal(refused.ok, false);
  assert.equal(refused.error.code, 'THREAD_ACCESS_DENIED');
  const send = await stranger.request('send_text', { sessionId, text: 'hi' });
  assert.equal(send.error.code, 'THREAD_ACCESS_DENIED');

  // A client without Origin (a local tool) is another origin too.
  const tool = await BridgeClient.open(t, core, { origin: null });
  assert.equal((await tool.request('resume_session', { sessionId })).error.code, 'THREAD_ACCESS_DENIED');

  // The owner's turn goes on, and the stranger saw none of it.
  const from = owner.mark();
  const strangerFrom = stranger.mark();
  await owner.ok('send_text', { sessionId, text: 'hello' });
  await owner.turnEnd(sessionId, from);
  assert.deepEqual(stranger.since(strangerFrom), []);

  assert.equal(
    (await stranger.request('resume_session', { sessionId: 'session_nope' })).error.code,
    'THREAD_NOT_FOUND',
  );
  assert.equal((await stranger.request('resume_session', { sessionId: '' })).error.code, 'INVALID_INPUT');
});

test('end_session by one page sends ended to the other routes only', async (t) => {
  const core = await startCore(t);
  const a = await BridgeClient.open(t, core);
  const b = await BridgeClient.open(t, core);
  const sessionId = await createSession(a, { autoEndOnDisconnect: false });
  await b.ok('resume_session', { sessionId });
  const fromA = a.mark();
  const fromB = b.mark();
  await a.ok('end_session', { sessionId });
  const ended = await b.until((m) => m.type === 'ended', { from: fromB });
  assert.equal(ended.sessionId, sessionId);
  assert.equal(ended.channelId, b.channelId);
  assert.equal(typeof ended.seq, 'number');
  await delay(50);
  assert.deepEqual(
    a.since(fromA).filter((m) => m.type !== 'response'),
    [],
  );
});

test('stopping the server ends open sessions: pages get ended, then the socket closes', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);
  const from = page.mark();
  await core.close();
  const closed = await page.closed;
  assert.equal(closed.code, 1001);
  assert.ok(page.since(from).some((m) => m.type === 'ended' && m.sessionId === sessionId));
});

test('finding 2: live sessions are capped per origin (20 by default) and in all (SESSION_LIMIT_REACHED); ending one makes room', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core, { origin: 'http://localhost:4200' });
  const persistent = { autoEndOnDisconnect: false };
  const sessions: string[] = [];
  for (let i = 0; i < 20; i++) sessions.push(await createSession(page, persistent));
  const refused = await page.request('create_session', {
    input: { provider: 'scripted', autoEndOnDisconnect: false },
  });
  assert.equal(refused.ok, false);
  assert.equal(refused.error.code, 'SESSION_LIMIT_REACHED');
  assert.deepEqual(refused.error.details, { limit: 20, scope: 'origin', origin: 'http://localhost:4200' });
  // Leaving does not free a place (the sessions persist); ending one does.
  await page.close();
  const back = await BridgeClient.open(t, core, { origin: 'http://localhost:4200' });
  assert.equal(
    (await back.request('create_session', { input: { provider: 'scripted' } })).error?.code,
    'SESSION_LIMIT_REACHED',
  );
  await back.ok('resume_session', { sessionId: sessions[0] });
  await back.ok('end_session', { sessionId: sessions[0] });
  await createSession(back);
  // Another origin has places of its own.
  const other = await BridgeClient.open(t, core, { origin: 'http://localhost:5173' });
  await createSession(other);

  // In all: here at most 3, at most 2 per origin.
  const small = await startCore(t, { maxSessions: 3, maxSessionsPerOrigin: 2 });
  const a = await BridgeClient.open(t, small, { origin: 'http://localhost:1' });
  const b = await BridgeClient.open(t, small, { origin: 'http://localhost:2' });
  await createSession(a);
  await createSession(a);
  await createSession(b);
  const full = await b.request('create_session', { input: { provider: 'scripted' } });
  assert.equal(full.error?.code, 'SESSION_LIMIT_REACHED');
  assert.deepEqual(full.error.details, { limit: 3, scope: 'all' });
});

test('finding 2: a session whose page is gone ends after the idle time, and can be resumed until then', async (t) => {
  const core = await startCore(t, { sessionIdleMs: 400 });
  const origin = 'http://localhost:4200';
  const first = await BridgeClient.open(t, core, { origin });
  const sessionId = await createSession(first, { autoEndOnDisconnect: false });
  const kept = await createSession(first, { autoEndOnDisconnect: false });
  await delay(600);
  // A session whose page is still there is not idle.
  const from = first.mark();
  await first.ok('send_text', { sessionId: kept, text: 'still here?' });
  await first.turnEnd(kept, from);

  await first.close();
  await delay(250);
  const second = await BridgeClient.open(t, core, { origin });
  assert.deepEqual(await second.ok('resume_session', { sessionId }), { sessionId }, 'resumable before the idle time');
  await delay(250); // the resume stopped the clock: past the first 400 ms, still there
  assert.deepEqual(await second.ok('resume_session', { sessionId }), { sessionId });
  await second.close();
  const probe = await BridgeClient.open(t, core, { origin: 'http://127.0.0.1:1' });
  await delay(400);
  const gone = await waitGone(probe, sessionId);
  assert.equal(gone.error.code, 'THREAD_NOT_FOUND');
  await waitGone(probe, kept);
});

test('a session can be reached from at most 64 routes (SESSION_ROUTE_LIMIT_REACHED)', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);
  const resume = (i: number) =>
    new Promise<Message>((resolve) => {
      const requestId = `route_${i}`;
      page.sendRaw({ channelId: `channel_${i}`, type: 'resume_session', requestId, sessionId });
      page.until((m) => m.requestId === requestId).then(resolve);
    });
  const answers = await Promise.all(Array.from({ length: 70 }, (_, i) => resume(i)));
  assert.equal(answers.filter((m) => m.ok).length, 63, 'the creating channel is the 64th');
  assert.equal(answers.find((m) => !m.ok)!.error.code, 'SESSION_ROUTE_LIMIT_REACHED');
});
