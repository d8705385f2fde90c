// The agent contract (agents/types.ts) seen from a session, with hand-made agents: failures become
// one `error` event (no idle after it), parallel tool calls reach the page one at a time, and ending
// the session aborts the agent and silences the session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../../../test/support/waits.js';
import { AgentError, DevCoreError, type AgentSession, type DevAgent } from '../src/index.js';
import { checkSkills } from '../src/bridge/manifest.js';
import { PatternChecks } from '../src/bridge/pattern-check.js';
import { protocolProfile, type ProtocolProfile } from '../src/bridge/protocol-profile.js';
import type { EventSink } from '../src/bridge/session-routes.js';
import { DevSession } from '../src/bridge/session.js';
import { skills, type Message } from './helpers.js';

/** The args checks of `checkSkills`: no tool here has a pattern, so it never starts its worker. */
const patterns = new PatternChecks();

/** A session with a hand-made agent and one route collecting its events; the 0.1 protocol unless told. */
function harness(
  turn: AgentSession['turn'],
  {
    protocol = protocolProfile('0.1'),
    prepare,
  }: { protocol?: ProtocolProfile; prepare?: AgentSession['prepare'] } = {},
) {
  const events: Message[] = [];
  const sink: EventSink = { id: 'sink', sendEvent: (m) => events.push(m) };
  const agent: DevAgent = {
    code: 'fake',
    name: 'Fake',
    defaultModel: 'fake-1',
    openSession: () => ({ turn, prepare }),
  };
  const session = new DevSession(
    {
      origin: 'http://localhost:1',
      provider: 'codex',
      model: 'm',
      agent,
      autoEndOnDisconnect: true,
      skills: checkSkills(skills(), patterns),
      defaultToolTimeoutMs: 1000,
      protocol,
    },
    { changed() {}, ended() {} },
  );
  session.addRoute(sink, 'chan');
  return { session, events, sink };
}

/** The first of `events` that `predicate` accepts, once there is one (bounded). */
const eventIn = (events: Message[], predicate: (m: Message) => unknown) =>
  until(
    () => events.find(predicate),
    () => `an event; got ${JSON.stringify(events)}`,
  );

const shape = (events: Message[]) => events.map((m) => (m.type === 'status_changed' ? m.status : m.type));

test('0.1: an AgentError ends the turn with one error event carrying source and provider, and no idle', async () => {
  const { session, events } = harness(async (_text, ctx) => {
    ctx.say('Thinking');
    throw new AgentError('PROVIDER_AUTH_FAILED', 'The endpoint refused the API key', {
      source: 'provider',
      details: { status: 401 },
    });
  });
  session.reserveTurn('user', 'hi')();
  const error = await eventIn(events, (m) => m.type === 'error');
  assert.deepEqual(error.error, {
    code: 'PROVIDER_AUTH_FAILED',
    message: 'The endpoint refused the API key',
    details: { status: 401 },
  });
  assert.equal(error.source, 'provider');
  assert.equal(error.provider, 'codex');
  assert.deepEqual(shape(events), ['running', 'chat_delta', 'error']);
  // The session is usable again at once.
  assert.equal(typeof session.reserveTurn('user', 'again'), 'function');
});

test('an unexpected exception in an agent is a core-sourced INTERNAL_ERROR', async () => {
  const { session, events } = harness(async () => {
    throw new TypeError('oops');
  });
  session.reserveTurn('user', 'hi')();
  const error = await eventIn(events, (m) => m.type === 'error');
  assert.equal(error.error.code, 'INTERNAL_ERROR');
  assert.equal(error.source, 'core');
});

test('0.1: parallel tool calls reach the page one at a time, in call order', async () => {
  let results: unknown[] = [];
  const { session, events } = harness(async (_text, ctx) => {
    results = await Promise.all([
      ctx.callTool('update_counter', { delta: 1 }),
      ctx.callTool('update_counter', { delta: 2 }),
      ctx.callTool('nope', {}),
    ]);
  });
  session.reserveTurn('user', 'go')();
  const first = await eventIn(events, (m) => m.type === 'tool_call');
  assert.equal(events.filter((m) => m.type === 'tool_call').length, 1, 'the second call waits for the first');
  session.submitToolResult(first.toolRequestId, { value: 1 });
  const second = await eventIn(events, (m) => m.type === 'tool_call' && m.toolRequestId !== first.toolRequestId);
  assert.deepEqual(second.args, { delta: 2 });
  session.submitToolResult(second.toolRequestId, { value: 3 });
  await eventIn(events, (m) => m.status === 'idle');
  assert.deepEqual(results.slice(0, 2), [{ value: 1 }, { value: 3 }]);
  assert.equal((results[2] as Message).error.code, 'TOOL_NOT_FOUND');
  assert.deepEqual(shape(events), [
    'running',
    'waiting_tool_result',
    'tool_call',
    'running',
    'waiting_tool_result',
    'tool_call',
    'running',
    'idle',
  ]);
  assert.ok(events.every((m, i) => m.seq === i + 1 && m.channelId === 'chan' && m.sessionId === session.id));
});

test('ending the session aborts the agent, rejects its pending call, and silences the ending route', async () => {
  let aborted = false;
  let rejection: unknown;
  let ctxRef: Parameters<AgentSession['turn']>[1] | undefined;
  const { session, events, sink } = harness(async (_text, ctx) => {
    ctxRef = ctx;
    ctx.signal.addEventListener('abort', () => (aborted = true));
    try {
      await ctx.callTool('update_counter', { delta: 1 });
    } catch (error) {
      rejection = error;
    }
  });
  session.reserveTurn('user', 'go')();
  await eventIn(events, (m) => m.type === 'tool_call');
  const before = events.length;
  session.end({ sink, channelId: 'chan' });
  await until(() => rejection, 'the pending call rejected');
  assert.equal(aborted, true);
  assert.ok(rejection instanceof DevCoreError);
  assert.equal(rejection.code, 'SESSION_ENDED');
  ctxRef!.say('too late');
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(events.length, before, 'nothing after end, not even ended, to the page that ended it');
  assert.throws(
    () => session.reserveTurn('user', 'x'),
    (error) => error instanceof DevCoreError && error.code === 'THREAD_NOT_FOUND',
  );
});

test('current: an AgentError ends the turn with the error event, then operation_completed carrying the same error', async () => {
  const { session, events } = harness(
    async (_text, ctx) => {
      ctx.say('Thinking');
      throw new AgentError('PROVIDER_AUTH_FAILED', 'The endpoint refused the API key', {
        source: 'provider',
        details: { status: 401 },
      });
    },
    { protocol: protocolProfile('current') },
  );
  session.reserveTurn('user', 'hi', 'op_1')();
  const completed = await eventIn(events, (m) => m.type === 'operation_completed');
  assert.deepEqual(shape(events), [
    'running',
    'chat_delta',
    'chat_message',
    'usage_updated',
    'error',
    'operation_completed',
  ]);
  const error = events.find((m) => m.type === 'error')!;
  assert.equal(error.source, 'provider');
  assert.deepEqual(completed, {
    channelId: 'chan',
    type: 'operation_completed',
    sessionId: session.id,
    seq: 6,
    operationId: 'op_1',
    operationKind: 'user',
    success: false,
    error: error.error,
  });
  assert.ok(events.every((m) => m.operationId === 'op_1'));
});

test('current: parallel tool calls still reach the page one at a time, each with the operationId', async () => {
  const { session, events } = harness(
    async (_text, ctx) => {
      await Promise.all([ctx.callTool('update_counter', { delta: 1 }), ctx.callTool('update_counter', { delta: 2 })]);
    },
    { protocol: protocolProfile('current') },
  );
  session.reserveTurn('user', 'go', 'op_p')();
  const first = await eventIn(events, (m) => m.type === 'tool_call');
  session.submitToolResult(first.toolRequestId, { value: 1 });
  const second = await eventIn(events, (m) => m.type === 'tool_call' && m.toolRequestId !== first.toolRequestId);
  session.submitToolResult(second.toolRequestId, { value: 3 });
  const completed = await eventIn(events, (m) => m.type === 'operation_completed');
  assert.deepEqual(shape(events), [
    'running',
    'waiting_tool_result',
    'tool_call',
    'running',
    'waiting_tool_result',
    'tool_call',
    'running',
    'usage_updated',
    'idle',
    'operation_completed',
  ]);
  assert.equal(completed.operationKind, 'user');
  assert.ok(events.every((m) => m.operationId === 'op_p'));
});

test("current: a prepare turn's say()s go out like a user turn's: fragments, then the whole message, then the end", async () => {
  const { session, events } = harness(async () => {}, {
    protocol: protocolProfile('current'),
    prepare: async (ctx) => {
      ctx.say('Warming ');
      ctx.say('up.');
    },
  });
  session.reserveTurn('prepare', '', 'op_warm')();
  const completed = await eventIn(events, (m) => m.type === 'operation_completed');
  assert.deepEqual(shape(events), [
    'running',
    'chat_delta',
    'chat_delta',
    'chat_message',
    'usage_updated',
    'idle',
    'operation_completed',
  ]);
  assert.equal(events.find((m) => m.type === 'chat_message')!.text, 'Warming up.');
  assert.deepEqual([completed.operationKind, completed.success], ['prepare', true]);
  assert.ok(events.every((m) => m.operationId === 'op_warm'));
});

test('without an asset store, publishArtifact rejects with ARTIFACTS_UNAVAILABLE and the turn goes on', async () => {
  let rejection: unknown;
  const { session, events } = harness(
    async (_text, ctx) => {
      rejection = await ctx.publishArtifact('a.txt', 'x').catch((error: unknown) => error);
      ctx.say('done');
    },
    { protocol: protocolProfile('current') },
  );
  session.reserveTurn('user', 'go', 'op_a')();
  await eventIn(events, (m) => m.type === 'operation_completed');
  assert.ok(rejection instanceof DevCoreError);
  assert.equal(rejection.code, 'ARTIFACTS_UNAVAILABLE');
  assert.ok(!events.some((m) => m.type === 'provider_artifact'));
});

test('a reactivated session keeps its agent session (closed only on release), and a turn from before its end stays silent', async () => {
  let opened = 0;
  let closed = 0;
  let openGate = () => {};
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  let lateSaid: () => void = () => {};
  const late = new Promise<void>((resolve) => (lateSaid = resolve));
  const agent: DevAgent = {
    code: 'fake',
    name: 'Fake',
    defaultModel: 'fake-1',
    openSession: () => {
      opened++;
      let turns = 0;
      return {
        turn: async (text, ctx) => {
          turns++;
          if (text !== 'slow') return ctx.say(`turn ${turns}`);
          await gate; // an agent that does not listen to its signal
          ctx.say('too late');
          lateSaid();
        },
        close: () => void closed++,
      };
    },
  };
  const events: Message[] = [];
  const sink: EventSink = { id: 'sink', sendEvent: (m) => events.push(m) };
  const session = new DevSession(
    {
      origin: 'http://localhost:1',
      provider: 'codex',
      model: 'm',
      agent,
      autoEndOnDisconnect: true,
      skills: checkSkills(skills(), patterns),
      defaultToolTimeoutMs: 1000,
      protocol: protocolProfile('current'),
    },
    { changed() {}, ended() {} },
  );
  session.addRoute(sink, 'chan');
  session.reserveTurn('user', 'slow', 'op_slow')();
  await eventIn(events, (m) => m.type === 'status_changed' && m.status === 'running');
  session.end();
  assert.equal(closed, 0, 'kept open for a reactivation');

  session.reactivate(false);
  session.addRoute(sink, 'chan');
  assert.deepEqual([session.isEnded, session.autoEndOnDisconnect], [false, false]);
  const from = events.length;
  openGate();
  await late;
  session.reserveTurn('user', 'hello', 'op_after')();
  await eventIn(events, (m) => m.type === 'operation_completed');
  const after = events.slice(from);
  assert.ok(
    after.every((m) => m.operationId === 'op_after'),
    `nothing of the turn from before the end: ${JSON.stringify(after)}`,
  );
  assert.equal(after.find((m) => m.type === 'chat_message')!.text, 'turn 2', 'the same agent session went on');
  assert.equal(opened, 1);

  session.end();
  session.release();
  assert.equal(closed, 1);
});
