// The development Core's bridge, driven as a page's client would: every request type of
// bridge-protocol.md §2, the turn's event sequence, seq, THREAD_BUSY and the tool-call rules. (How long
// a tool's own timeout takes is measured in perf/bridge.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ToolManifest } from '../src/agents/types.js';
import {
  BridgeClient,
  PAGE_ORIGIN,
  chatText,
  createSession,
  delay,
  skills,
  startCore,
  twoPages,
  type Message,
} from './helpers.js';

test('0.1: approval status, settings and providers have the 0.1 Core shapes', async (t) => {
  const core = await startCore(t, { protocol: '0.1' });
  const page = await BridgeClient.open(t, core);
  assert.deepEqual(await page.ok('get_approval_status'), {
    installed: true,
    approved: true,
    origin: PAGE_ORIGIN,
    appConnected: true,
  });
  assert.deepEqual(await page.ok('get_settings'), {
    defaultProvider: 'scripted',
    defaultModels: { scripted: 'scripted' },
  });
  const providers: Message[] = await page.ok('list_providers');
  assert.deepEqual(
    providers.map((p) => [p.code, p.available]),
    [
      ['scripted', true],
      ['operator', true],
      ['openai', false],
    ],
  );
  for (const p of providers) {
    assert.deepEqual(Object.keys(p).sort(), ['available', 'code', 'error', 'name']);
    assert.equal(typeof p.name, 'string');
  }
  assert.match(providers[2]!.error, /PEDELEC_DEV_BASE_URL/);
});

test('a response echoes channelId and requestId; an unknown type is refused and the socket stays usable', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const response = await page.request('launch_rockets', { sessionId: 'x' });
  assert.equal(response.channelId, page.channelId);
  assert.equal(response.ok, false);
  assert.equal(response.error.code, 'UNKNOWN_REQUEST_TYPE');
  assert.equal(response.error.message, 'unknown SDK request type');
  assert.equal((await page.request('get_settings')).ok, true);
});

test('0.1: a full turn: response first, then running, deltas, waiting_tool_result, tool_call, running, idle — never done', async (t) => {
  const core = await startCore(t, { protocol: '0.1' });
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);
  assert.match(sessionId, /^session_/);

  const from = page.mark();
  const response = await page.request('send_text', { sessionId, text: '/call update_counter {"delta": 2}' });
  assert.deepEqual(response.result, {});
  const call = await page.until((m) => m.type === 'tool_call', { from });
  assert.equal(call.channelId, page.channelId);
  assert.equal(call.sessionId, sessionId);
  assert.equal(call.tool, 'update_counter');
  assert.deepEqual(call.args, { delta: 2 });
  assert.equal(typeof call.toolRequestId, 'string');
  assert.deepEqual(
    await page.ok('submit_tool_result', { sessionId, toolRequestId: call.toolRequestId, result: { value: 2 } }),
    {},
  );
  const events = await page.turnEnd(sessionId, from);

  // The response precedes every event of the turn.
  const all = page.since(from);
  assert.equal(
    all.findIndex((m) => m.requestId === response.requestId),
    0,
  );

  const shape: string[] = events.map((m) => (m.type === 'status_changed' ? m.status : m.type));
  const collapsed = shape.filter((s, i) => s !== 'chat_delta' || shape[i - 1] !== 'chat_delta');
  assert.deepEqual(collapsed, [
    'running',
    'chat_delta',
    'waiting_tool_result',
    'tool_call',
    'running',
    'chat_delta',
    'idle',
  ]);
  assert.ok(!events.some((m) => m.type === 'done'), 'the real Core sends no done');
  assert.ok(shape.filter((s) => s === 'chat_delta').length >= 3, 'the reply streams in several pieces');
  assert.match(chatText(events), /update_counter returned \{"value":2\}/);

  // seq: per session, increasing by one, on every event.
  const seqs: number[] = events.map((m) => m.seq);
  assert.ok(
    seqs.every((s, i) => i === 0 || s === seqs[i - 1]! + 1),
    `seq increases: ${seqs}`,
  );

  // The next turn continues the numbering.
  const next = page.mark();
  await page.ok('send_text', { sessionId, text: 'hello' });
  const second = await page.turnEnd(sessionId, next);
  assert.equal(second[0]!.seq, seqs[seqs.length - 1]! + 1);
});

test('one turn at a time: THREAD_BUSY while a turn runs, accepted again after idle', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);
  const from = page.mark();
  await page.ok('send_text', { sessionId, text: '/call update_counter {"delta": 1}' });
  const call = await page.until((m) => m.type === 'tool_call', { from });

  const busy = await page.request('send_text', { sessionId, text: 'again' });
  assert.equal(busy.ok, false);
  assert.equal(busy.error.code, 'THREAD_BUSY');
  const busyPrepare = await page.request('prepare_session', { sessionId });
  assert.equal(busyPrepare.error.code, 'THREAD_BUSY');

  await page.ok('submit_tool_result', { sessionId, toolRequestId: call.toolRequestId, result: { value: 1 } });
  await page.turnEnd(sessionId, from);
  assert.equal((await page.request('send_text', { sessionId, text: 'again' })).ok, true);
});

test('0.1: prepare_session runs a prepare turn: running then idle', async (t) => {
  const core = await startCore(t, { protocol: '0.1' });
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);
  const from = page.mark();
  assert.deepEqual(await page.ok('prepare_session', { sessionId }), {});
  const events = await page.turnEnd(sessionId, from);
  assert.deepEqual(
    events.map((m) => m.status),
    ['running', 'idle'],
  );
});

test('TOOL_NOT_FOUND and TOOL_ARGS_INVALID go to the agent, and the page sees no tool_call', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);

  let from = page.mark();
  await page.ok('send_text', { sessionId, text: '/call launch_rockets {}' });
  let events = await page.turnEnd(sessionId, from);
  assert.ok(!events.some((m) => m.type === 'tool_call'));
  assert.match(chatText(events), /launch_rockets failed: TOOL_NOT_FOUND/);

  from = page.mark();
  await page.ok('send_text', { sessionId, text: '/call update_counter {"delta": "two"}' });
  events = await page.turnEnd(sessionId, from);
  assert.ok(!events.some((m) => m.type === 'tool_call'));
  assert.match(chatText(events), /update_counter failed: TOOL_ARGS_INVALID — delta: must be an integer/);

  from = page.mark();
  await page.ok('send_text', { sessionId, text: '/call update_counter {"delta": 1000}' });
  events = await page.turnEnd(sessionId, from);
  assert.match(chatText(events), /TOOL_ARGS_INVALID/);
});

test('a tool that does not answer in timeoutMs fails with TOOL_TIMEOUT; late and repeated results are refused', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const slow: ToolManifest = {
    name: 'slow',
    description: 'Never answers in time.',
    argsSchema: { type: 'object' },
    timeoutMs: 60,
  };
  const sessionId = await createSession(page, { skills: skills(slow) });

  let from = page.mark();
  await page.ok('send_text', { sessionId, text: '/call slow {}' });
  const late = await page.until((m) => m.type === 'tool_call', { from });
  const events = await page.turnEnd(sessionId, from);
  assert.match(chatText(events), /slow failed: TOOL_TIMEOUT/);
  const statuses = events.filter((m) => m.type === 'status_changed').map((m) => m.status);
  assert.deepEqual(statuses, ['running', 'waiting_tool_result', 'running', 'idle']);

  const tooLate = await page.request('submit_tool_result', {
    sessionId,
    toolRequestId: late.toolRequestId,
    result: 'finally',
  });
  assert.equal(tooLate.ok, false);
  assert.equal(tooLate.error.code, 'TOOL_TIMEOUT');

  from = page.mark();
  await page.ok('send_text', { sessionId, text: '/call update_counter {"delta": 3}' });
  const call = await page.until((m) => m.type === 'tool_call', { from });
  await page.ok('submit_tool_result', { sessionId, toolRequestId: call.toolRequestId, result: { value: 3 } });
  const again = await page.request('submit_tool_result', {
    sessionId,
    toolRequestId: call.toolRequestId,
    result: { value: 4 },
  });
  assert.equal(again.ok, false);
  assert.equal(again.error.code, 'TOOL_RESULT_ALREADY_SUBMITTED');
  const turn = await page.turnEnd(sessionId, from);
  assert.match(chatText(turn), /returned \{"value":3\}/, 'the first result stands');

  const unknown = await page.request('submit_tool_result', {
    sessionId,
    toolRequestId: 'toolreq_made_up',
    result: null,
  });
  assert.equal(unknown.error.code, 'TOOL_REQUEST_NOT_FOUND');
});

test('the default tool timeout applies when a tool declares none', async (t) => {
  const core = await startCore(t, { defaultToolTimeoutMs: 50 });
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);
  const from = page.mark();
  await page.ok('send_text', { sessionId, text: '/call update_counter {"delta": 1}' });
  assert.match(
    chatText(await page.turnEnd(sessionId, from)),
    /TOOL_TIMEOUT — Tool update_counter did not answer within 50 ms/,
  );
});

test('end_session answers {} and the ending page gets no further event, even mid-call', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);
  const from = page.mark();
  await page.ok('send_text', { sessionId, text: '/call update_counter {"delta": 1}' });
  const call = await page.until((m) => m.type === 'tool_call', { from });

  const response = await page.request('end_session', { sessionId });
  assert.deepEqual(response.result, {});
  const after = page.mark();
  await delay(100);
  assert.deepEqual(page.since(after), [], 'no ended, no status, no delta');

  const refused = await page.request('submit_tool_result', { sessionId, toolRequestId: call.toolRequestId, result: 1 });
  assert.equal(refused.error.code, 'THREAD_NOT_FOUND');
  assert.equal((await page.request('send_text', { sessionId, text: 'hi' })).error.code, 'THREAD_NOT_FOUND');
});

test('create_session checks its input and the manifest like Core', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const cases: [Message, RegExp][] = [
    [{}, /input must be an object/],
    [{ input: { provider: '', skills: undefined } }, /provider/],
    [{ input: { provider: 'scripted', skills: { guidance: 1, tools: [] } } }, /skills.guidance must be a string/],
    [
      {
        input: {
          provider: 'scripted',
          skills: { guidance: '', tools: [{ name: '9x', description: 'd', argsSchema: { type: 'object' } }] },
        },
      },
      /tool name is invalid/,
    ],
    [
      {
        input: {
          provider: 'scripted',
          skills: { guidance: '', tools: [{ name: 'a', description: 'd', argsSchema: { type: 'string' } }] },
        },
      },
      /must describe an object/,
    ],
  ];
  for (const [payload, message] of cases) {
    const response = await page.request('create_session', payload);
    assert.equal(response.ok, false, JSON.stringify(payload));
    assert.equal(response.error.code, 'INVALID_INPUT');
    assert.match(response.error.message, message);
  }
  // No skills at all is fine, and the scripted agent says there is nothing to call.
  const { sessionId } = await page.ok('create_session', { input: { provider: 'scripted', autoEndOnDisconnect: true } });
  const from = page.mark();
  await page.ok('send_text', { sessionId, text: '/tools' });
  assert.match(chatText(await page.turnEnd(sessionId, from)), /no tools/);
});

test('any provider code is served by the selected agent; --strict-providers refuses foreign codes', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  for (const provider of ['codex', 'operator', 'openai']) {
    const sessionId = await createSession(page, { provider, model: 'gpt-x' });
    const from = page.mark();
    await page.ok('send_text', { sessionId, text: 'hello' });
    assert.match(chatText(await page.turnEnd(sessionId, from)), /scripted development agent/, provider);
  }

  const strict = await startCore(t, { strictProviders: true });
  const strictPage = await BridgeClient.open(t, strict);
  const refused = await strictPage.request('create_session', {
    input: { provider: 'codex', skills: undefined, autoEndOnDisconnect: true },
  });
  assert.equal(refused.error.code, 'PROVIDER_NOT_FOUND');
  assert.equal(
    (await strictPage.request('create_session', { input: { provider: 'scripted', autoEndOnDisconnect: true } })).ok,
    true,
  );
});

test('a session is reachable only from the connection and channel that created or resumed it', async (t) => {
  const { a, b, sessionA, sessionB } = await twoPages(t);

  const requests: [string, Message][] = [
    ['send_text', { sessionId: sessionA, text: 'hi' }],
    ['prepare_session', { sessionId: sessionA }],
    ['list_assets', { sessionId: sessionA }],
    ['create_asset_download', { sessionId: sessionA, path: '/x' }],
    ['submit_tool_result', { sessionId: sessionA, toolRequestId: 'x', result: 1 }],
    ['end_session', { sessionId: sessionA }],
  ];
  for (const [type, payload] of requests) {
    const response = await b.request(type, payload);
    assert.equal(response.ok, false, type);
    assert.equal(response.error.code, 'THREAD_ACCESS_DENIED', type);
  }

  // Another channel on the same socket is another client.
  const otherChannel = new BridgeClient(a.socket, 'pedelec_other');
  const denied = await otherChannel.request('send_text', { sessionId: sessionA, text: 'hi' });
  assert.equal(denied.error.code, 'THREAD_ACCESS_DENIED');

  // Events of A's turn never reach B.
  const fromB = b.mark();
  const fromA = a.mark();
  await a.ok('send_text', { sessionId: sessionA, text: 'hello' });
  await a.turnEnd(sessionA, fromA);
  assert.ok(b.since(fromB).every((m) => m.sessionId !== sessionA));
  assert.ok(a.since(fromA).every((m) => m.sessionId !== sessionB));
});

test('script rules: first match wins, templating reads results, timeoutMs in args is stripped', async (t) => {
  const { parseScript } = await import('../src/index.js');
  const script = parseScript({
    rules: [
      {
        match: { regex: 'count by (\\d+)' },
        steps: [
          { say: 'Counting…' },
          { call: 'update_counter', args: { delta: 1 } },
          { say: 'Now {{result.value}} (asked for {{match.1}}).' },
        ],
      },
      { match: { regex: 'count' }, steps: [{ say: 'never reached for "count by"' }] },
      // Shorter than the tool's own 40 ms: stripped, and the tool's deadline stands.
      {
        match: { regex: 'slow' },
        steps: [
          { call: 'slow', args: { timeoutMs: 20, note: '{{text}}' } },
          { say: 'slow said {{result.error.code}}: {{result.error.message}}' },
        ],
      },
    ],
  });
  const core = await startCore(t, { script });
  const page = await BridgeClient.open(t, core);
  const slow: ToolManifest = {
    name: 'slow',
    description: 'Slow.',
    argsSchema: { type: 'object', properties: { note: { type: 'string' } } },
    timeoutMs: 40,
  };
  const sessionId = await createSession(page, { skills: skills(slow) });

  let from = page.mark();
  await page.ok('send_text', { sessionId, text: 'please Count by 5' });
  const call = await page.until((m) => m.type === 'tool_call', { from });
  assert.deepEqual(call.args, { delta: 1 });
  await page.ok('submit_tool_result', { sessionId, toolRequestId: call.toolRequestId, result: { value: 42 } });
  assert.equal(chatText(await page.turnEnd(sessionId, from)), 'Counting…Now 42 (asked for 5).');

  from = page.mark();
  await page.ok('send_text', { sessionId, text: 'slow please' });
  const slowCall = await page.until((m) => m.type === 'tool_call', { from });
  assert.deepEqual(slowCall.args, { note: 'slow please' }, 'timeoutMs is not part of the args the page sees');
  // The turn ends within turnEnd's bounded wait, and the error names the deadline that applied: the
  // tool's 40 ms, neither the agent's 20 ms nor the default 60 s.
  const events = await page.turnEnd(sessionId, from);
  assert.equal(chatText(events), 'slow said TOOL_TIMEOUT: Tool slow did not answer within 40 ms');
});

// bridge-protocol.md §3: "an agent may also *extend* one call by passing a `timeoutMs` argument".
test('an agent timeoutMs argument extends a call; it never shortens the tool’s own timeoutMs', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const slow: ToolManifest = {
    name: 'slow',
    description: 'Answers slowly.',
    argsSchema: { type: 'object' },
    timeoutMs: 5000,
  };
  const quick: ToolManifest = {
    name: 'quick',
    description: 'Has a short deadline.',
    argsSchema: { type: 'object' },
    timeoutMs: 30,
  };
  const sessionId = await createSession(page, { skills: skills(slow, quick) });
  // The scripted agent passes the args as given: `timeoutMs: 1` must not cut slow's 5 s to 1 ms, and
  // `timeoutMs: 5000` gives quick's one call 5 s instead of 30 ms.
  for (const text of ['/call slow {"timeoutMs": 1}', '/call quick {"timeoutMs": 5000}']) {
    const from = page.mark();
    await page.ok('send_text', { sessionId, text });
    const call = await page.until((m) => m.type === 'tool_call' && m.sessionId === sessionId, { from });
    await delay(200);
    const after = page.since(from).filter((m) => m.seq > call.seq);
    assert.deepEqual(after, [], `${text}: the call was given up: ${JSON.stringify(after).slice(0, 300)}`);
    const submitted = await page.request('submit_tool_result', {
      sessionId,
      toolRequestId: call.toolRequestId,
      result: { ok: true },
    });
    assert.equal(submitted.ok, true, JSON.stringify(submitted.error));
    await page.turnEnd(sessionId, from);
  }
});
