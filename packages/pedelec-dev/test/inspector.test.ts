// The inspector: its page (CSP-safe, script in its own file), its live view of sessions and bridge
// messages, the operator agent driven from it, and approval prompts in --approval prompt mode.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import type { DevCore } from '../src/index.js';
import {
  BridgeClient,
  PAGE_ORIGIN,
  chatText,
  createSession,
  messageText,
  rawHttp,
  startCore,
  type Message,
} from './helpers.js';

async function openInspector(t: TestContext, core: DevCore): Promise<BridgeClient> {
  const socket = new WebSocket(`ws://127.0.0.1:${core.port}/_pedelec/inspector/socket?token=${core.inspectorToken}`, {
    origin: core.url,
  });
  const inspector = new BridgeClient(socket, null);
  t.after(() => inspector.close());
  await inspector.until((m) => m.type === 'hello');
  return inspector;
}

test('the inspector page loads its script from a separate file under a strict CSP', async (t) => {
  const core = await startCore(t);
  const page = await rawHttp(core, '/_pedelec/inspector');
  assert.equal(page.status, 200);
  assert.match(page.headers['content-type'] ?? '', /text\/html/);
  const csp = String(page.headers['content-security-policy'] ?? '');
  assert.match(csp, /script-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.match(csp, /frame-ancestors 'none'/);
  const scripts = [...page.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  assert.ok(scripts.length > 0);
  for (const [, attrs, body] of scripts) {
    assert.match(attrs!, /src="\/_pedelec\/inspector\/inspector\.js"/);
    assert.equal(body!.trim(), '', 'no inline script');
  }
  const script = await rawHttp(core, '/_pedelec/inspector/inspector.js');
  assert.equal(script.status, 200);
  assert.match(script.headers['content-type'] ?? '', /javascript/);
  assert.doesNotMatch(
    script.body,
    /\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|\beval\(|new Function/,
    'page data is only ever set as text',
  );
  // The token is kept in the fragment and in memory, never in storage a page the Core serves could read.
  assert.doesNotMatch(script.body, /\b(sessionStorage|localStorage)\s*[.[]/);
  assert.equal((await rawHttp(core, '/_pedelec/inspector/inspector.css')).status, 200);
});

test('the inspector sees sessions with origin, provider and manifest, and every bridge message both ways', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page, { provider: 'codex' });
  const inspector = await openInspector(t, core);
  const hello = inspector.messages.find((m) => m.type === 'hello')!;
  assert.equal(hello.server.agent, 'scripted');
  const summary = hello.sessions.find((s: Message) => s.sessionId === sessionId);
  assert.equal(summary.origin, PAGE_ORIGIN);
  assert.equal(summary.provider, 'codex');
  assert.equal(summary.agent, 'scripted');
  assert.equal(summary.skills.tools[0].name, 'update_counter');
  assert.ok(
    hello.log.some((e: Message) => e.dir === 'in' && e.type === 'create_session'),
    'history from before the inspector opened',
  );

  const from = inspector.mark();
  await page.ok('send_text', { sessionId, text: 'hello' });
  const entry = await inspector.until((m) => m.type === 'log' && m.entry.dir === 'in' && m.entry.type === 'send_text', {
    from,
  });
  assert.equal(entry.entry.sessionId, sessionId);
  assert.equal(typeof entry.entry.at, 'number');
  await inspector.until((m) => m.type === 'log' && m.entry.dir === 'out' && m.entry.type === 'chat_delta', { from });
  await inspector.until(
    (m) => m.type === 'session_updated' && m.session.sessionId === sessionId && m.session.status === 'idle',
    { from },
  );
  // The manifest (which a page may make many MiB large) came once; status updates leave it out, so
  // tiny frames from a page cannot make the Core resend it to the inspector with every change.
  const updates = inspector.since(from).filter((m) => m.type === 'session_updated');
  assert.ok(updates.length > 0);
  for (const update of updates) assert.equal('skills' in update.session, false);

  const endFrom = inspector.mark();
  await page.ok('end_session', { sessionId });
  await inspector.until((m) => m.type === 'session_ended' && m.sessionId === sessionId, { from: endFrom });
});

test('the operator agent: the page speaks, the operator replies, calls a tool (result + duration), ends the turn', async (t) => {
  const core = await startCore(t, { agent: 'operator' });
  const page = await BridgeClient.open(t, core);
  const inspector = await openInspector(t, core);
  const sessionId = await createSession(page, { provider: 'codex' });

  const noTurn = inspector.mark();
  inspector.sendRaw({ type: 'operator_call', callId: 0, sessionId, tool: 'update_counter', args: { delta: 1 } });
  const refused = await inspector.until((m) => m.type === 'operator_result' && m.callId === 0, { from: noTurn });
  assert.equal(refused.ok, false);
  assert.equal(refused.error.code, 'NO_OPERATOR_TURN');

  const from = page.mark();
  const iFrom = inspector.mark();
  await page.ok('send_text', { sessionId, text: 'please add two' });
  const opened = await inspector.until((m) => m.type === 'turn_opened', { from: iFrom });
  assert.deepEqual([opened.turn.sessionId, opened.turn.text], [sessionId, 'please add two']);

  inspector.sendRaw({ type: 'operator_say', sessionId, text: 'On it. ' });
  await page.until((m) => m.type === 'chat_delta' && m.text === 'On it. ', { from });

  inspector.sendRaw({ type: 'operator_call', callId: 7, sessionId, tool: 'update_counter', args: { delta: 2 } });
  const call = await page.until((m) => m.type === 'tool_call', { from });
  assert.deepEqual(call.args, { delta: 2 });
  await page.ok('submit_tool_result', { sessionId, toolRequestId: call.toolRequestId, result: { value: 2 } });
  const result = await inspector.until((m) => m.type === 'operator_result' && m.callId === 7, { from: iFrom });
  assert.equal(result.ok, true);
  assert.deepEqual(result.result, { value: 2 });
  assert.ok(result.durationMs >= 0);

  inspector.sendRaw({ type: 'operator_call', callId: 8, sessionId, tool: 'update_counter', args: { delta: 'x' } });
  const invalid = await inspector.until((m) => m.type === 'operator_result' && m.callId === 8, { from: iFrom });
  assert.equal(invalid.result.error.code, 'TOOL_ARGS_INVALID');

  inspector.sendRaw({ type: 'operator_end_turn', sessionId });
  const events = await page.turnEnd(sessionId, from);
  assert.equal(chatText(events), 'On it. ');
  assert.equal(messageText(events), 'On it. ', "the operator's message, whole, before the tool call");
  assert.deepEqual(events.at(-1), {
    ...events.at(-1),
    type: 'operation_completed',
    operationKind: 'user',
    success: true,
  });
  assert.equal(events.at(-2)!.status, 'idle');
  await inspector.until((m) => m.type === 'turn_closed' && m.sessionId === sessionId, { from: iFrom });
});

test('--approval prompt holds requests until the operator answers; rejection and timeout are reported', async (t) => {
  const core = await startCore(t, { approval: 'prompt', approvalTimeoutMs: 300 });
  const inspector = await openInspector(t, core);
  const page = await BridgeClient.open(t, core);
  assert.equal((await page.ok('get_approval_status')).approved, false);

  let from = inspector.mark();
  const rejected = page.request('get_settings');
  const prompt = await inspector.until((m) => m.type === 'approval_requested', { from });
  assert.equal(prompt.prompt.origin, PAGE_ORIGIN);
  inspector.sendRaw({ type: 'approve', id: prompt.prompt.id, approved: false });
  assert.equal((await rejected).error.code, 'APPROVAL_REJECTED');

  const timedOut = await page.request('list_providers');
  assert.equal(timedOut.error.code, 'APPROVAL_TIMEOUT');

  from = inspector.mark();
  const held = page.request('create_session', {
    input: { provider: 'scripted', skills: undefined, autoEndOnDisconnect: true },
  });
  const second = await inspector.until((m) => m.type === 'approval_requested', { from });
  // Requests that are never held are answered meanwhile.
  assert.equal((await page.request('get_approval_status')).ok, true);
  inspector.sendRaw({ type: 'approve', id: second.prompt.id, approved: true });
  const created = await held;
  assert.equal(created.ok, true);
  assert.equal((await page.ok('get_approval_status')).approved, true);
  assert.equal((await page.request('get_settings')).ok, true, 'approval is remembered');
});

test('--approval deny refuses held requests at once', async (t) => {
  const core = await startCore(t, { approval: 'deny' });
  const page = await BridgeClient.open(t, core);
  assert.equal((await page.ok('get_approval_status')).approved, false);
  for (const type of ['get_settings', 'list_providers', 'create_session']) {
    const response = await page.request(type, { input: { provider: 'scripted', autoEndOnDisconnect: true } });
    assert.equal(response.error.code, 'APPROVAL_REJECTED', type);
  }
});

test('a page that leaves while its request awaits approval gets no session afterwards', async (t) => {
  const core = await startCore(t, { approval: 'prompt' });
  const inspector = await openInspector(t, core);
  const page = await BridgeClient.open(t, core);
  const from = inspector.mark();
  page.sendRaw({
    channelId: page.channelId,
    requestId: 'sdk_1_1',
    type: 'create_session',
    input: { provider: 'scripted', autoEndOnDisconnect: true },
  });
  const prompt = await inspector.until((m) => m.type === 'approval_requested', { from });
  await page.close();
  await inspector.until((m) => m.type === 'log' && m.entry.dir === 'info' && /^closed/.test(m.entry.text), { from });
  inspector.sendRaw({ type: 'approve', id: prompt.prompt.id, approved: true });
  await inspector.until((m) => m.type === 'approval_resolved', { from });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(!inspector.since(from).some((m) => m.type === 'session_created'));
});
