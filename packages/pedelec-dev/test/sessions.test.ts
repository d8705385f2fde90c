// Session lifetime across connections: auto-end on disconnect, resume of a persistent session from a
// new connection of the same origin only, and `ended` for the other routes when one page ends it; with
// today's protocol, reactivation of an ended session (`reactivate_session`) and the abort of a session
// the page refused (`abort_session_setup`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { DevCore } from '../src/index.js';
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
  assert.equal((await second.ok('resume_session', { sessionId })).sessionId, sessionId);
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
  assert.equal((await second.ok('resume_session', { sessionId })).sessionId, sessionId);
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
  assert.equal(
    (await second.ok('resume_session', { sessionId })).sessionId,
    sessionId,
    'resumable before the idle time',
  );
  await delay(250); // the resume stopped the clock: past the first 400 ms, still there
  assert.equal((await second.ok('resume_session', { sessionId })).sessionId, sessionId);
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

// ───────────────────────────── reactivate_session, abort_session_setup ─────────────────────────────

/** A page of another origin: its requests probe a session without ever reaching it. */
const STRANGER = 'http://127.0.0.1:1';

/** Polls (bounded) until an ended session is forgotten: a stranger's reactivation stops being refused as denied. */
function waitForgotten(client: BridgeClient, sessionId: string): Promise<Message> {
  return untilAnswer(
    () => client.request('reactivate_session', { sessionId, autoEndOnDisconnect: true }),
    (response) => !response.ok && response.error.code === 'THREAD_NOT_FOUND',
    `session ${sessionId} to be forgotten`,
    { everyMs: 20 },
  );
}

/** Sends reactivate_session and returns the messages it brought, up to and including its response. */
async function reactivate(page: BridgeClient, sessionId: string, autoEndOnDisconnect: boolean) {
  const from = page.mark();
  const response = await page.request('reactivate_session', { sessionId, autoEndOnDisconnect });
  return { response, messages: page.since(from) };
}

/** Opens a page of `origin` on `core`. */
const pageOf = (t: TestContext, core: DevCore, origin = 'http://localhost:4200') =>
  BridgeClient.open(t, core, { origin });

test('current: reactivate_session revives a session ended by end_session: the idle snapshot, then the ok response; tools, usage, seq and workspace are kept', async (t) => {
  const core = await startCore(t);
  const page = await pageOf(t, core);
  const created = await page.ok('create_session', {
    input: { provider: 'scripted', skills: undefined, autoEndOnDisconnect: false },
  });
  const { sessionId } = created;
  const withTools = await createSession(page, { autoEndOnDisconnect: false });
  let from = page.mark();
  await page.ok('send_text', { sessionId: withTools, text: '/call update_counter {"delta": 4}', operationId: 'op_1' });
  const call = await page.until((m) => m.type === 'tool_call', { from });
  await page.ok('submit_tool_result', {
    sessionId: withTools,
    toolRequestId: call.toolRequestId,
    result: { value: 4 },
  });
  const before = await page.turnEnd(withTools, from);
  const usage = before.find((m) => m.type === 'usage_updated')!.totalTokens;
  await page.ok('end_session', { sessionId: withTools });
  await page.ok('end_session', { sessionId });
  assert.equal((await page.request('send_text', { sessionId: withTools, text: 'hi' })).error.code, 'THREAD_NOT_FOUND');

  const { response, messages } = await reactivate(page, withTools, false);
  assert.deepEqual(
    messages.map((m) => m.type),
    ['session_snapshot', 'response'],
    'the idle snapshot comes before the response',
  );
  assert.deepEqual(response.result, { sessionId: withTools });
  const { snapshot, seq } = messages[0]!;
  assert.equal(seq, before.at(-1)!.seq + 2, 'seq goes on where it was (the ended event took one)');
  assert.deepEqual(
    [snapshot.threadId, snapshot.status, snapshot.usage, snapshot.lastCompletedOperation.operationId],
    [withTools, 'idle', { totalTokens: usage }, 'op_1'],
  );
  assert.equal(snapshot.activeOperation, undefined);

  // Its tools are still there: a call goes to the page again.
  from = page.mark();
  await page.ok('send_text', { sessionId: withTools, text: '/call update_counter {"delta": 1}' });
  const again = await page.until((m) => m.type === 'tool_call', { from });
  await page.ok('submit_tool_result', {
    sessionId: withTools,
    toolRequestId: again.toolRequestId,
    result: { value: 5 },
  });
  assert.match(chatText(await page.turnEnd(withTools, from)), /returned \{"value":5\}/);

  // The same workspace, and the flag the reactivation gave.
  await reactivate(page, sessionId, false);
  const other = await pageOf(t, core);
  const resumed = await other.ok('resume_session', { sessionId });
  assert.deepEqual(resumed, { sessionId, workspace: created.workspace, autoEndOnDisconnect: false });
});

test("current: a session Core ended when its page left is reactivated from a new page of its origin, with that page's autoEndOnDisconnect", async (t) => {
  const core = await startCore(t);
  const first = await pageOf(t, core);
  const sessionId = await createSession(first, { autoEndOnDisconnect: true });
  await first.close();
  const probe = await BridgeClient.open(t, core, { origin: STRANGER });
  await untilAnswer(
    () => probe.request('resume_session', { sessionId }),
    (response) => response.error?.code === 'THREAD_NOT_FOUND',
    'the session to end',
    { everyMs: 20 },
  );

  const second = await pageOf(t, core);
  const { response, messages } = await reactivate(second, sessionId, false);
  assert.equal(response.ok, true, JSON.stringify(response));
  assert.equal(messages[0]!.snapshot.status, 'idle');
  // Persistent now: it outlives this page too, and a third page resumes it.
  await second.close();
  const third = await pageOf(t, core);
  await untilAnswer(
    () => third.request('resume_session', { sessionId }),
    (answer) => answer.ok,
    'the session to be resumable',
    { everyMs: 20 },
  );
  const from = third.mark();
  await third.ok('send_text', { sessionId, text: 'hello' });
  assert.match(chatText(await third.turnEnd(sessionId, from)), /scripted development agent/);
});

test('current: reactivate_session of a session that has not ended joins the page to it and snapshots where it stands, before the ok', async (t) => {
  const core = await startCore(t);
  const owner = await pageOf(t, core);
  const sessionId = await createSession(owner, { autoEndOnDisconnect: false });
  const from = owner.mark();
  await owner.ok('send_text', { sessionId, text: '/call update_counter {"delta": 2}', operationId: 'op_live' });
  const call = await owner.until((m) => m.type === 'tool_call', { from });

  const other = await pageOf(t, core);
  const { response, messages } = await reactivate(other, sessionId, false);
  assert.deepEqual(
    messages.map((m) => m.type),
    ['session_snapshot', 'response'],
  );
  assert.deepEqual(response.result, { sessionId });
  assert.equal(messages[0]!.snapshot.status, 'waiting_tool_result', 'nothing revived: the turn goes on');
  assert.equal(messages[0]!.snapshot.pendingToolRequest.toolRequestId, call.toolRequestId);
  // The joined page answers the call and sees the turn end.
  const otherFrom = other.mark();
  await other.ok('submit_tool_result', { sessionId, toolRequestId: call.toolRequestId, result: { value: 2 } });
  await other.turnEnd(sessionId, otherFrom);
});

test("current: reactivate_session refuses an unknown id THREAD_NOT_FOUND and another origin's session THREAD_ACCESS_DENIED, ended or not", async (t) => {
  const core = await startCore(t);
  const owner = await pageOf(t, core);
  const live = await createSession(owner, { autoEndOnDisconnect: false });
  const ended = await createSession(owner, { autoEndOnDisconnect: false });
  await owner.ok('end_session', { sessionId: ended });
  const stranger = await BridgeClient.open(t, core, { origin: STRANGER });
  const from = owner.mark();
  for (const sessionId of [live, ended]) {
    const refused = await stranger.request('reactivate_session', { sessionId, autoEndOnDisconnect: true });
    assert.equal(refused.error.code, 'THREAD_ACCESS_DENIED', sessionId);
  }
  const unknown = await stranger.request('reactivate_session', {
    sessionId: 'session_nope',
    autoEndOnDisconnect: true,
  });
  assert.equal(unknown.error.code, 'THREAD_NOT_FOUND');
  assert.equal((await owner.request('reactivate_session', { sessionId: '' })).error.code, 'INVALID_INPUT');
  const badFlag = await owner.request('reactivate_session', { sessionId: ended, autoEndOnDisconnect: 'yes' });
  assert.equal(badFlag.error.code, 'INVALID_INPUT');
  assert.deepEqual(
    owner.since(from).filter((m) => m.type !== 'response'),
    [],
    'the refusals reached nothing',
  );
  // Still the owner's to reactivate.
  assert.equal((await reactivate(owner, ended, true)).response.ok, true);
});

test('current: an ended session stays reactivatable for the idle time, then is forgotten (THREAD_NOT_FOUND)', async (t) => {
  const core = await startCore(t, { sessionIdleMs: 300 });
  const page = await pageOf(t, core);
  const sessionId = await createSession(page, { autoEndOnDisconnect: false });
  await page.ok('end_session', { sessionId });
  assert.equal((await reactivate(page, sessionId, false)).response.ok, true);
  await page.ok('end_session', { sessionId });
  const probe = await BridgeClient.open(t, core, { origin: STRANGER });
  assert.equal(
    (await probe.request('reactivate_session', { sessionId, autoEndOnDisconnect: true })).error.code,
    'THREAD_ACCESS_DENIED',
    'kept for now',
  );
  await waitForgotten(probe, sessionId);
  assert.equal((await reactivate(page, sessionId, false)).response.error.code, 'THREAD_NOT_FOUND');
});

test('current: an origin keeps at most as many ended sessions as it may have live ones; one more forgets its oldest', async (t) => {
  const core = await startCore(t, { maxSessions: 10, maxSessionsPerOrigin: 2 });
  const page = await pageOf(t, core);
  const sessions = [await createSession(page), await createSession(page)];
  for (const sessionId of sessions) await page.ok('end_session', { sessionId });
  sessions.push(await createSession(page));
  await page.ok('end_session', { sessionId: sessions[2] });
  assert.equal((await reactivate(page, sessions[0]!, true)).response.error.code, 'THREAD_NOT_FOUND');
  assert.equal((await reactivate(page, sessions[1]!, true)).response.ok, true);
  assert.equal((await reactivate(page, sessions[2]!, true)).response.ok, true);
});

test('current: a reactivated session takes a live place again: SESSION_LIMIT_REACHED while its origin is full', async (t) => {
  const core = await startCore(t, { maxSessions: 10, maxSessionsPerOrigin: 2 });
  const page = await pageOf(t, core);
  const first = await createSession(page);
  const second = await createSession(page);
  await page.ok('end_session', { sessionId: first });
  await createSession(page);
  const refused = await reactivate(page, first, true);
  assert.equal(refused.response.error.code, 'SESSION_LIMIT_REACHED');
  assert.deepEqual(
    refused.messages.map((m) => m.type),
    ['response'],
    'no snapshot for a refusal',
  );
  await page.ok('end_session', { sessionId: second });
  assert.equal((await reactivate(page, first, true)).response.ok, true);
});

test('current: abort_session_setup ends and forgets the session create_session made: nothing more reaches the page, no reactivation, its place is free; nothing to abort is ok too', async (t) => {
  const core = await startCore(t, { maxSessions: 10, maxSessionsPerOrigin: 1 });
  const page = await pageOf(t, core);
  const { sessionId } = await page.ok('create_session', {
    callerSdkVersion: '0.4.6',
    input: { provider: 'codex', model: 'gpt-5', autoEndOnDisconnect: true },
  });
  const from = page.mark();
  assert.deepEqual(await page.ok('abort_session_setup', { sessionId }), {});
  assert.equal((await page.request('send_text', { sessionId, text: 'hi' })).error.code, 'THREAD_NOT_FOUND');
  assert.equal((await reactivate(page, sessionId, true)).response.error.code, 'THREAD_NOT_FOUND');
  assert.deepEqual(
    page.since(from).filter((m) => m.type !== 'response'),
    [],
    'no ended, no snapshot',
  );
  await createSession(page); // the origin's only place is free again
  assert.deepEqual(await page.ok('abort_session_setup', { sessionId }), {}, 'aborting twice is harmless');
  assert.deepEqual(await page.ok('abort_session_setup', { sessionId: 'session_nope' }), {});
  assert.equal((await page.request('abort_session_setup', {})).error.code, 'INVALID_INPUT');
});

test("current: abort_session_setup of another page's session is refused THREAD_ACCESS_DENIED and leaves it as it was", async (t) => {
  const core = await startCore(t);
  const owner = await pageOf(t, core);
  const sessionId = await createSession(owner, { autoEndOnDisconnect: false });
  const ended = await createSession(owner, { autoEndOnDisconnect: false });
  await owner.ok('end_session', { sessionId: ended });
  const stranger = await BridgeClient.open(t, core, { origin: STRANGER });
  for (const id of [sessionId, ended]) {
    const refused = await stranger.request('abort_session_setup', { sessionId: id });
    assert.equal(refused.error.code, 'THREAD_ACCESS_DENIED', id);
  }
  // Another page of the same origin did not create the live one either.
  const sibling = await pageOf(t, core);
  assert.equal((await sibling.request('abort_session_setup', { sessionId })).error.code, 'THREAD_ACCESS_DENIED');
  const from = owner.mark();
  await owner.ok('send_text', { sessionId, text: 'still here?' });
  assert.match(chatText(await owner.turnEnd(sessionId, from)), /scripted/);
  assert.equal((await reactivate(owner, ended, true)).response.ok, true, 'the ended one is still kept');
});

test('0.1: reactivate_session and abort_session_setup are unknown request types, as any other is', async (t) => {
  const core = await startCore(t, { protocol: '0.1' });
  const page = await pageOf(t, core);
  const sessionId = await createSession(page, { autoEndOnDisconnect: false });
  await page.ok('end_session', { sessionId });
  for (const type of ['reactivate_session', 'abort_session_setup']) {
    const refused = await page.request(type, { sessionId, autoEndOnDisconnect: true });
    assert.deepEqual(refused.error, {
      code: 'UNKNOWN_REQUEST_TYPE',
      message: 'unknown SDK request type',
      details: { type },
    });
  }
});
