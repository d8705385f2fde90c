/**
 * Behaviour of `PedelecSession` (spec/sdk-api.md "PedelecSession", "Event contexts", "Error shape";
 * bridge-protocol.md §3), driven through `new Pedelec()` and the fake Chrome port.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import { expect } from '../support/expect.js';
import { Pedelec, PedelecSession } from '../../src/core/index.js';
import { isAssetPath } from '../../src/core/session-assets.js';
import { Toolbox } from '../../src/core/tools.js';
import type { SessionBridge } from '../../src/core/session.js';
import type { PedelecError } from '../../src/core/errors.js';
import type {
  ChatEventContext,
  EndedEventContext,
  ErrorEventContext,
  PedelecOptions,
  PedelecSessionStatus,
  StatusEventContext,
  ToolCallContext,
} from '../../src/core/types.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../support/fake-chrome.js';
import { rejection as rejectionOf, settled } from '../support/promises.js';
import { watchUnhandled } from '../support/unhandled.js';
import { currentTask, nextTask } from '../support/waits.js';

// ───────────────────────────── helpers ─────────────────────────────

let fake: FakePort;
let clients: Pedelec[] = [];

const PROVIDER = 'codex';
const MODEL = 'gpt-5';
const MiB = 1024 * 1024;

/** Settlement of a promise, observable without awaiting it (and never an unhandled rejection). */
type Tracked<T> = {
  promise: Promise<T>;
  settled: boolean;
  resolved: boolean;
  rejected: boolean;
  value?: T;
  error?: any;
};
function track<T>(promise: Promise<T>): Tracked<T> {
  const t: Tracked<T> = { promise, settled: false, resolved: false, rejected: false };
  promise.then(
    (value) => Object.assign(t, { settled: true, resolved: true, value }),
    (error) => Object.assign(t, { settled: true, rejected: true, error }),
  );
  return t;
}

/** A PedelecError: a plain object (not an Error) with string code and message. */
function expectPedelecError(error: any, code: string, details?: unknown): void {
  expect(error, 'error value').to.be.an('object');
  expect(error).not.to.be.instanceOf(Error);
  expect(Object.getPrototypeOf(error)).to.equal(Object.prototype);
  expect(error.code).to.equal(code);
  expect(error.message).to.be.a('string');
  if (details !== undefined) expect(error.details).to.deep.equal(details);
}

async function open(
  options: PedelecOptions = {},
  sessionId = 's1',
): Promise<{ client: Pedelec; session: PedelecSession }> {
  const client = new Pedelec(options);
  clients.push(client);
  const created = client.createSession({ provider: PROVIDER, model: MODEL });
  fake.respond({ sessionId }, fake.last('create_session'));
  return { client, session: await created };
}

/** Another session on an existing client (same fake port). */
async function openAnother(client: Pedelec, sessionId: string): Promise<PedelecSession> {
  const created = client.createSession({ provider: PROVIDER, model: MODEL });
  fake.respond({ sessionId }, fake.last('create_session'));
  return created;
}

type Rec = {
  status: { status: PedelecSessionStatus; ctx: StatusEventContext }[];
  chat: { text: string; ctx: ChatEventContext }[];
  errors: { error: PedelecError; ctx: ErrorEventContext }[];
  ended: EndedEventContext[];
  log: string[];
};
function record(session: PedelecSession): Rec {
  const rec: Rec = { status: [], chat: [], errors: [], ended: [], log: [] };
  session.onStatus((status, ctx) => {
    rec.status.push({ status, ctx });
    rec.log.push(`status:${status}`);
  });
  session.onChat((text, ctx) => {
    rec.chat.push({ text, ctx });
    rec.log.push(`chat:${text}`);
  });
  session.onError((error, ctx) => {
    rec.errors.push({ error, ctx });
    rec.log.push(`error:${error.code}`);
  });
  session.onEnded((ctx) => {
    rec.ended.push(ctx);
    rec.log.push('ended');
  });
  return rec;
}

const postedOf = (type: string) => fake.posted.filter((m) => m.type === type);

/** Starts a user turn and returns what identifies it (taken from the `running` status context). */
function startTurn(session: PedelecSession, rec: Rec, text = 'hello') {
  const before = rec.status.length;
  const sent = track(session.sendText(text));
  const running = rec.status.slice(before).find((s) => s.status === 'running');
  const request = fake.last('send_text');
  return { sent, request, turnId: running?.ctx.turnId, turnStartedAt: running?.ctx.turnStartedAt };
}

/**
 * A tool context without its live `signal` (an AbortSignal): assertion failures serialize the
 * object they are about, and serializing a DOM object can take the test page down.
 */
function plain(ctx: object): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(ctx))
    copy[key] = key === 'signal' ? '<AbortSignal>' : (ctx as Record<string, unknown>)[key];
  return copy;
}

const BASE_KEYS = ['sessionId', 'provider', 'model', 'sessionCreatedAt', 'eventEmittedAt', 'source', 'type'];
const TURN_KEYS = ['turnId', 'turnStartedAt', 'turnKind'];
function expectKeys(ctx: object, extra: string[]): void {
  expect(Object.keys(ctx).sort()).to.deep.equal([...BASE_KEYS, ...extra].sort());
}
function expectBase(ctx: any, session: PedelecSession, t0: number, t1 = Date.now()): void {
  expect(ctx.sessionId).to.equal(session.sessionId);
  expect(ctx.provider).to.equal(PROVIDER);
  expect(ctx.model).to.equal(MODEL);
  expect(ctx.sessionCreatedAt).to.equal(session.sessionCreatedAt);
  expect(ctx.eventEmittedAt).to.be.within(t0, t1);
}

/** A fake `fetch`, installed per test and restored afterwards. */
type FetchCall = { url: string; init: RequestInit };
let fetchCalls: FetchCall[] = [];
let fetchImpl: (url: string, init: RequestInit) => Promise<Response>;
const realFetch = globalThis.fetch;

const jsonResponse = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

beforeEach(() => {
  fake = installFakeChrome();
  clients = [];
  fetchCalls = [];
  fetchImpl = () => Promise.reject(new TypeError('no fetch expected in this test'));
  globalThis.fetch = ((url: RequestInfo | URL, init?: RequestInit) => {
    fetchCalls.push({ url: String(url), init: init ?? {} });
    return fetchImpl(String(url), init ?? {});
  }) as typeof fetch;
});

afterEach(() => {
  globalThis.fetch = realFetch;
  // Clears the request timers of whatever a test left unanswered (their promises are tracked).
  clients.forEach((client) => client.disconnect());
  uninstallFakeChrome();
});

// ───────────────────────────── fields and status ─────────────────────────────

describe('PedelecSession: fields and status', () => {
  it('carries sessionId, provider, model and sessionCreatedAt (construction time)', async () => {
    const t0 = Date.now();
    const { session } = await open({}, 'session-42');
    const t1 = Date.now();
    expect(session).to.be.instanceOf(PedelecSession);
    expect(session.sessionId).to.equal('session-42');
    expect(session.provider).to.equal(PROVIDER);
    expect(session.model).to.equal(MODEL);
    expect(session.sessionCreatedAt).to.be.a('number').and.within(t0, t1);
  });

  it('starts idle', async () => {
    const { session } = await open();
    expect(session.getStatus()).to.equal('idle');
  });

  it('gives each turn an id turn_<ms>_<random> and a start time', async () => {
    const { session } = await open();
    const rec = record(session);
    const t0 = Date.now();
    const a = startTurn(session, rec, 'one');
    const t1 = Date.now();
    const match = /^turn_(\d+)_(.+)$/.exec(a.turnId ?? '');
    expect(match, `turnId ${a.turnId}`).to.not.equal(null);
    expect(Number(match![1])).to.be.within(t0, t1);
    expect(a.turnStartedAt).to.be.within(t0, t1);

    fake.respond({}, a.request);
    fake.event('s1', 'done');
    await a.sent.promise;
    const b = startTurn(session, rec, 'two');
    expect(b.turnId).to.match(/^turn_\d+_.+$/);
    expect(b.turnId).to.not.equal(a.turnId);
  });
});

// ───────────────────────────── sendText ─────────────────────────────

describe('PedelecSession.sendText', () => {
  it('posts send_text { sessionId, text, operationId } before returning', async () => {
    const { session, client } = await open();
    const before = fake.posted.length;
    track(session.sendText('Hi there'));
    expect(fake.posted.length).to.equal(before + 1);
    const msg = fake.last();
    expect(Object.keys(msg).sort()).to.deep.equal([
      'channelId',
      'operationId',
      'requestId',
      'sessionId',
      'text',
      'type',
    ]);
    expect(msg).to.include({ channelId: client.channelId, type: 'send_text', sessionId: 's1', text: 'Hi there' });
    expect(msg.operationId).to.match(/^op_\d+_/);
  });

  it('sets status running synchronously: sdk_status_changed, source sdk, no eventReceivedAt', async () => {
    const { session } = await open();
    const rec = record(session);
    track(session.sendText('x'));
    expect(session.getStatus()).to.equal('running');
    expect(rec.status).to.have.length(1);
    const { status, ctx } = rec.status[0];
    expect(status).to.equal('running');
    expect(ctx).to.include({
      type: 'sdk_status_changed',
      source: 'sdk',
      status: 'running',
      previousStatus: 'idle',
      turnKind: 'user',
    });
    expect(ctx).to.not.have.property('eventReceivedAt');
  });

  it('resolves only after the request succeeded and then the turn finished (done)', async () => {
    const { session } = await open();
    const sent = track(session.sendText('x'));
    fake.respond({}, fake.last('send_text'));
    await nextTask();
    expect(sent.settled, 'settled before the turn finished').to.equal(false);
    fake.event('s1', 'done');
    await settled(sent.promise);
    expect(sent.resolved).to.equal(true);
    expect(sent.value).to.equal(undefined);
  });

  it('resolves only after the turn finished and then the request succeeded', async () => {
    const { session } = await open();
    const sent = track(session.sendText('x'));
    const request = fake.last('send_text');
    fake.event('s1', 'done');
    await nextTask();
    expect(sent.settled, 'settled before the request succeeded').to.equal(false);
    fake.respond({}, request);
    await settled(sent.promise);
    expect(sent.resolved).to.equal(true);
  });

  it('a status_changed: idle finishes the turn like done', async () => {
    const { session } = await open();
    const sent = track(session.sendText('x'));
    fake.respond({}, fake.last('send_text'));
    fake.event('s1', 'status_changed', { status: 'running' });
    fake.event('s1', 'status_changed', { status: 'waiting_tool_result' });
    await nextTask();
    expect(sent.settled, 'running/waiting_tool_result do not finish a turn').to.equal(false);
    fake.event('s1', 'status_changed', { status: 'idle' });
    await settled(sent.promise);
    expect(sent.resolved).to.equal(true);
    expect(session.getStatus()).to.equal('idle');
  });

  it('rejects when the request fails: emits it as sdk_error carrying the turn, leaves status, clears the turn', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    const failure = { code: 'PROVIDER_BUSY', message: 'busy', details: { retry: true } };
    fake.fail(failure, turn.request);
    const error = await rejectionOf(turn.sent.promise);
    expectPedelecError(error, 'PROVIDER_BUSY', { retry: true });
    expect(error).to.deep.equal(failure);

    expect(rec.errors).to.have.length(1);
    expect(rec.errors[0].error).to.deep.equal(failure);
    const ctx = rec.errors[0].ctx;
    expect(ctx).to.include({
      type: 'sdk_error',
      source: 'sdk',
      turnId: turn.turnId,
      turnStartedAt: turn.turnStartedAt,
      turnKind: 'user',
    });
    expect(ctx).to.not.have.property('eventReceivedAt');

    expect(session.getStatus(), 'status not changed by a failed send_text').to.equal('running');
    expect(rec.status.map((s) => s.status)).to.deep.equal(['running']);

    const again = track(session.sendText('again'));
    await nextTask();
    expect(again.rejected, 'turn must be cleared after the failure').to.equal(false);
    expect(fake.last().type).to.equal('send_text');
    expect(fake.last().text).to.equal('again');
  });

  it('a request that fails after the turn finished (done first) still rejects and is emitted as sdk_error', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    fake.event('s1', 'done');
    await nextTask();
    expect(turn.sent.settled).to.equal(false);
    const failure = { code: 'LATE_FAILURE', message: 'send_text was refused' };
    fake.fail(failure, turn.request);
    await settled(turn.sent.promise);
    expect(turn.sent.rejected).to.equal(true);
    expect(turn.sent.error).to.deep.equal(failure);
    expect(
      rec.errors.map((e) => e.error),
      'the failed request is emitted as an SDK error',
    ).to.deep.equal([failure]);
    expect(rec.errors[0].ctx).to.include({ type: 'sdk_error', source: 'sdk' });
  });

  it('a late failure of a finished turn carries that turn, not the one running now', async () => {
    const { session } = await open();
    const rec = record(session);
    const first = startTurn(session, rec);
    fake.event('s1', 'done');
    await nextTask();
    const second = startTurn(session, rec, 'next');
    expect(second.turnId).to.be.a('string').and.not.equal(first.turnId);
    fake.fail({ code: 'LATE_FAILURE', message: 'send_text was refused' }, first.request);
    await nextTask();
    expect(rec.errors).to.have.length(1);
    expect(rec.errors[0].ctx).to.include({
      type: 'sdk_error',
      turnId: first.turnId,
      turnStartedAt: first.turnStartedAt,
    });
    expect(second.sent.settled).to.equal(false);
  });

  it('a failed request whose error is not {code,message} becomes SDK_TRANSPORT_ERROR through the client and is kept', async () => {
    const { session } = await open();
    const rec = record(session);
    const sent = track(session.sendText('x'));
    fake.fail('nope', fake.last('send_text'));
    const error = await rejectionOf(sent.promise);
    expectPedelecError(error, 'SDK_TRANSPORT_ERROR');
    expect(rec.errors.map((e) => e.error.code)).to.deep.equal(['SDK_TRANSPORT_ERROR']);
  });

  it('rejects with the error of an error event, even before the request is answered', async () => {
    const { session } = await open();
    const sent = track(session.sendText('x'));
    const request = fake.last('send_text');
    const providerError = { code: 'PROVIDER_FAILED', message: 'model crashed', details: { exit: 1 } };
    fake.event('s1', 'error', { error: providerError, source: 'provider', provider: 'codex' });
    await settled(sent.promise);
    expect(sent.rejected, 'rejected before any response').to.equal(true);
    expectPedelecError(sent.error, 'PROVIDER_FAILED', { exit: 1 });
    expect(sent.error).to.deep.equal(providerError);
    fake.respond({}, request); // a late success changes nothing
    await nextTask();
    expect(sent.error).to.deep.equal(providerError);
  });

  it('rejects SESSION_ENDED when an ended event arrives mid-turn', async () => {
    const { session } = await open();
    const sent = track(session.sendText('x'));
    fake.respond({}, fake.last('send_text'));
    fake.event('s1', 'ended');
    await settled(sent.promise);
    expect(sent.rejected).to.equal(true);
    expectPedelecError(sent.error, 'SESSION_ENDED', { sessionId: 's1' });
  });

  it('rejects SESSION_ERROR on status_changed: error', async () => {
    const { session } = await open();
    const sent = track(session.sendText('x'));
    fake.respond({}, fake.last('send_text'));
    fake.event('s1', 'status_changed', { status: 'error' });
    await settled(sent.promise);
    expect(sent.rejected).to.equal(true);
    expectPedelecError(sent.error, 'SESSION_ERROR');
    expect(session.getStatus()).to.equal('error');
  });

  it('accepts new turns after an error event and after status_changed: error', async () => {
    const { session } = await open();
    const first = track(session.sendText('1'));
    fake.event('s1', 'error', { error: { code: 'E', message: 'e' } });
    await settled(first.promise);
    expect(first.rejected).to.equal(true);
    expect(session.getStatus()).to.equal('error');

    const second = track(session.sendText('2'));
    expect(fake.last().text).to.equal('2');
    expect(session.getStatus()).to.equal('running');
    fake.event('s1', 'status_changed', { status: 'error' });
    await settled(second.promise);
    expect(second.rejected).to.equal(true);

    const third = track(session.sendText('3'));
    expect(fake.last().text).to.equal('3');
    fake.respond({}, fake.last('send_text'));
    fake.event('s1', 'done');
    await settled(third.promise);
    expect(third.resolved).to.equal(true);
    expect(session.getStatus()).to.equal('idle');
  });

  it('rejects SESSION_BUSY while a turn is active, posting nothing', async () => {
    const { session } = await open();
    track(session.sendText('first'));
    const count = fake.posted.length;
    const error = await rejectionOf(session.sendText('second'));
    expectPedelecError(error, 'SESSION_BUSY');
    expect(fake.posted.length).to.equal(count);
  });

  it('rejects SESSION_ENDED (details { sessionId }) after end, posting nothing', async () => {
    const { session } = await open();
    const ending = session.end();
    fake.respond({}, fake.last('end_session'));
    await ending;
    const count = fake.posted.length;
    const error = await rejectionOf(session.sendText('late'));
    expectPedelecError(error, 'SESSION_ENDED', { sessionId: 's1' });
    expect(fake.posted.length).to.equal(count);
  });

  it('waits for an in-flight prepare(), then posts within microtasks (no timers)', async () => {
    const { session } = await open();
    const prepared = track(session.prepare());
    const prepareRequest = fake.last('prepare_session');
    const sent = track(session.sendText('after prepare'));
    await nextTask();
    expect(sent.settled, 'not SESSION_BUSY: it waits').to.equal(false);
    expect(postedOf('send_text')).to.have.length(0);
    const task = currentTask();
    fake.respond({}, prepareRequest);
    fake.event('s1', 'done');
    await fake.request('send_text');
    expect(task.ended, 'posted in the task that settled the prepare: no timer in between').to.equal(false);
    expect(prepared.resolved).to.equal(true);
    expect(postedOf('send_text')).to.have.length(1);
    expect(fake.last()).to.include({ type: 'send_text', sessionId: 's1', text: 'after prepare' });
    expect(sent.settled).to.equal(false);
  });

  it('waits for an in-flight prepare() that fails, then still posts', async () => {
    const { session } = await open();
    const prepared = track(session.prepare());
    const sent = track(session.sendText('anyway'));
    fake.fail({ code: 'PREPARE_BROKEN', message: 'no' }, fake.last('prepare_session'));
    await fake.request('send_text');
    expect(prepared.rejected).to.equal(true);
    expect(postedOf('send_text')).to.have.length(1);
    expect(fake.last()).to.include({ type: 'send_text', text: 'anyway' });
    fake.respond({}, fake.last('send_text'));
    fake.event('s1', 'done');
    await settled(sent.promise);
    expect(sent.resolved).to.equal(true);
  });

  it('after waiting for prepare(), rejects SESSION_ENDED if the session ended meanwhile', async () => {
    const { session } = await open();
    const prepared = track(session.prepare());
    const sent = track(session.sendText('x'));
    fake.event('s1', 'ended');
    await settled(sent.promise);
    expect(prepared.rejected).to.equal(true);
    expect(sent.rejected).to.equal(true);
    expectPedelecError(sent.error, 'SESSION_ENDED', { sessionId: 's1' });
    expect(postedOf('send_text')).to.have.length(0);
  });

  it('leaves no rejection unhandled, whichever side fails first', async () => {
    const unhandled = watchUnhandled();
    try {
      const { session } = await open();
      // The error event first, then the request fails.
      // (The returned promises are handled at once: only the SDK's inner promises are the subject.)
      const a = track(session.sendText('a'));
      const aRequest = fake.last('send_text');
      fake.event('s1', 'error', { error: { code: 'EVENT_FIRST', message: 'e' } });
      await nextTask();
      fake.fail({ code: 'REQUEST_SECOND', message: 'r' }, aRequest);
      await nextTask();
      expect(a.error?.code).to.equal('EVENT_FIRST');
      // The request fails first, while the turn is still pending.
      const b = track(session.sendText('b'));
      fake.fail({ code: 'REQUEST_FIRST', message: 'r' }, fake.last('send_text'));
      await nextTask();
      await nextTask();
      expect(b.error?.code).to.equal('REQUEST_FIRST');
    } finally {
      unhandled.stop();
    }
    expect(unhandled.events).to.deep.equal([]);
  });
});

// ───────────────────────────── prepare ─────────────────────────────

describe('PedelecSession.prepare', () => {
  it('posts prepare_session { sessionId } at once, sets running (sdk), resolves after the request and the turn', async () => {
    const { session } = await open();
    const rec = record(session);
    const prepared = track(session.prepare());
    const msg = fake.last();
    expect(msg).to.include({ type: 'prepare_session', sessionId: 's1' });
    expect(Object.keys(msg).sort()).to.deep.equal(['channelId', 'operationId', 'requestId', 'sessionId', 'type']);
    expect(rec.status).to.have.length(1);
    expect(rec.status[0].ctx).to.include({
      type: 'sdk_status_changed',
      source: 'sdk',
      status: 'running',
      turnKind: 'prepare',
    });
    fake.respond({}, msg);
    await nextTask();
    expect(prepared.settled).to.equal(false);
    fake.event('s1', 'done');
    await settled(prepared.promise);
    expect(prepared.resolved).to.equal(true);
    expect(session.getStatus()).to.equal('idle');
  });

  it('rejects SESSION_ENDED once ended, posting nothing', async () => {
    const { session } = await open();
    fake.event('s1', 'ended');
    const count = fake.posted.length;
    const error = await rejectionOf(session.prepare());
    expectPedelecError(error, 'SESSION_ENDED', { sessionId: 's1' });
    expect(fake.posted.length).to.equal(count);
  });

  it('rejects SESSION_BUSY while a user turn is active', async () => {
    const { session } = await open();
    track(session.sendText('x'));
    const count = fake.posted.length;
    const error = await rejectionOf(session.prepare());
    expectPedelecError(error, 'SESSION_BUSY');
    expect(fake.posted.length).to.equal(count);
  });

  it('resolves without a request once prepared', async () => {
    const { session } = await open();
    const first = session.prepare();
    fake.respond({}, fake.last('prepare_session'));
    fake.event('s1', 'done');
    await first;
    const count = fake.posted.length;
    const second = track(session.prepare());
    await settled(second.promise);
    expect(second.resolved).to.equal(true);
    expect(fake.posted.length).to.equal(count);
  });

  it('returns the same promise object while one is in flight', async () => {
    const { session } = await open();
    const first = session.prepare();
    track(first);
    const second = session.prepare();
    expect(second).to.equal(first);
    expect(postedOf('prepare_session')).to.have.length(1);
  });

  it('does not deliver chat deltas of the prepare turn; a user turn gets them', async () => {
    const { session } = await open();
    const rec = record(session);
    const prepared = session.prepare();
    fake.respond({}, fake.last('prepare_session'));
    fake.event('s1', 'chat_delta', { text: 'warming up' });
    fake.event('s1', 'done');
    await prepared;
    expect(rec.chat).to.deep.equal([]);
    expect(rec.errors, 'not a protocol error either').to.deep.equal([]);

    track(session.sendText('x'));
    fake.event('s1', 'chat_delta', { text: 'answer' });
    expect(rec.chat.map((c) => c.text)).to.deep.equal(['answer']);
  });

  it('handles tool calls of the prepare turn with ctx.turnKind "prepare"', async () => {
    const { session } = await open();
    const rec = record(session);
    const calls: { tool: string; args: unknown; ctx: ToolCallContext }[] = [];
    session.onTool((tool, args, ctx) => {
      calls.push({ tool, args, ctx });
      return { ok: 1 };
    });
    const prepared = track(session.prepare());
    const turnId = rec.status[0].ctx.turnId;
    fake.event('s1', 'tool_call', { toolRequestId: 'tr1', tool: 'look', args: { q: 1 } });
    expect(calls).to.have.length(1);
    expect(calls[0].tool).to.equal('look');
    expect(calls[0].args).to.deep.equal({ q: 1 });
    expect(plain(calls[0].ctx)).to.include({ turnKind: 'prepare', turnId, toolRequestId: 'tr1', tool: 'look' });
    expect(rec.status.at(-1)!.ctx).to.include({ status: 'waiting_tool_result', turnKind: 'prepare' });
    await fake.request('submit_tool_result');
    expect(fake.last()).to.include({ type: 'submit_tool_result', sessionId: 's1', toolRequestId: 'tr1' });
    expect(fake.last().result).to.deep.equal({ ok: 1 });
    expect(prepared.settled).to.equal(false);
  });

  it('on failure: sdk_error carrying the prepare turn, rejects, status unchanged, usable and retryable after', async () => {
    const { session } = await open();
    const rec = record(session);
    const prepared = track(session.prepare());
    const turnId = rec.status[0].ctx.turnId;
    fake.fail({ code: 'PREPARE_BROKEN', message: 'cannot warm up' }, fake.last('prepare_session'));
    const error = await rejectionOf(prepared.promise);
    expectPedelecError(error, 'PREPARE_BROKEN');
    expect(rec.errors).to.have.length(1);
    expect(rec.errors[0].error).to.deep.equal({ code: 'PREPARE_BROKEN', message: 'cannot warm up' });
    expect(rec.errors[0].ctx).to.include({ type: 'sdk_error', source: 'sdk', turnId, turnKind: 'prepare' });
    expect(session.getStatus()).to.equal('running');
    expect(rec.status.map((s) => s.status)).to.deep.equal(['running']);

    // No longer in flight, not prepared: a new prepare() posts again, with a new promise.
    const retry = session.prepare();
    track(retry);
    expect(retry).to.not.equal(prepared.promise);
    expect(postedOf('prepare_session')).to.have.length(2);
  });

  it('a failed prepare leaves the session usable for sendText', async () => {
    const { session } = await open();
    const prepared = track(session.prepare());
    fake.fail({ code: 'X', message: 'x' }, fake.last('prepare_session'));
    await settled(prepared.promise);
    expect(prepared.rejected).to.equal(true);
    const sent = track(session.sendText('x'));
    expect(fake.last()).to.include({ type: 'send_text', text: 'x' });
    fake.respond({}, fake.last('send_text'));
    fake.event('s1', 'done');
    await settled(sent.promise);
    expect(sent.resolved).to.equal(true);
  });

  it('an error event during prepare rejects it with that error; prepare can then run again', async () => {
    const { session } = await open();
    const prepared = track(session.prepare());
    fake.event('s1', 'error', { error: { code: 'PROVIDER_DOWN', message: 'down' } });
    await settled(prepared.promise);
    expect(prepared.rejected).to.equal(true);
    expect(prepared.error).to.deep.equal({ code: 'PROVIDER_DOWN', message: 'down' });
    track(session.prepare());
    expect(postedOf('prepare_session')).to.have.length(2);
  });
});

// ───────────────────────────── fallback codes (stub bridge) ─────────────────────────────

/**
 * Through `Pedelec`, every failed request is already a `{code,message}` error (the client turns
 * anything else into SDK_TRANSPORT_ERROR), so the fallback codes are only reachable with a bridge
 * whose request rejects with something else. PedelecSession documents construction for tests.
 */
describe('PedelecSession: fallback codes of failed requests', () => {
  function stubSession() {
    const calls: { type: string; payload: unknown; reject(e: unknown): void; resolve(v: unknown): void }[] = [];
    const bridge: SessionBridge = {
      request: <T>(type: string, payload?: Record<string, unknown>) =>
        new Promise<T>((resolve, reject) =>
          calls.push({ type, payload, resolve: resolve as (v: unknown) => void, reject }),
        ),
      release: () => {},
      warn: () => {},
    };
    const session = new PedelecSession(bridge, {
      sessionId: 'x1',
      provider: PROVIDER,
      model: MODEL,
      toolbox: new Toolbox(true),
    });
    return { session, calls, rec: record(session) };
  }

  it('send_text failing with an Error → SEND_TEXT_FAILED with its message, emitted and rejected', async () => {
    const { session, calls, rec } = stubSession();
    const sent = session.sendText('x');
    expect(calls.map((c) => c.type)).to.deep.equal(['send_text']);
    calls[0].reject(new Error('socket closed'));
    const error = await rejectionOf(sent);
    expect(error).to.deep.equal({ code: 'SEND_TEXT_FAILED', message: 'socket closed' });
    expectPedelecError(error, 'SEND_TEXT_FAILED');
    expect(rec.errors.map((e) => e.error)).to.deep.equal([error]);
    expect(rec.errors[0].ctx.turnKind).to.equal('user');
  });

  it('send_text failing with a non-error value → SEND_TEXT_FAILED with the value as details', async () => {
    const { session, calls } = stubSession();
    const sent = session.sendText('x');
    calls[0].reject(42);
    const error = await rejectionOf(sent);
    expectPedelecError(error, 'SEND_TEXT_FAILED', 42);
  });

  it('prepare_session failing with a string → PREPARE_FAILED with that message', async () => {
    const { session, calls, rec } = stubSession();
    const prepared = session.prepare();
    calls[0].reject('warm-up failed');
    const error = await rejectionOf(prepared);
    expect(error).to.deep.equal({ code: 'PREPARE_FAILED', message: 'warm-up failed' });
    expect(rec.errors.map((e) => e.error.code)).to.deep.equal(['PREPARE_FAILED']);
    expect(rec.errors[0].ctx.turnKind).to.equal('prepare');
  });

  it('end_session failing with nothing → END_SESSION_FAILED', async () => {
    const { session, calls, rec } = stubSession();
    const ending = session.end();
    calls[0].reject(undefined);
    const error = await rejectionOf(ending);
    expectPedelecError(error, 'END_SESSION_FAILED');
    expect(rec.errors.map((e) => e.error.code)).to.deep.equal(['END_SESSION_FAILED']);
    expect(rec.errors[0].ctx).to.include({ type: 'sdk_error', source: 'sdk' });
    expect(session.getStatus()).to.equal('idle');
  });
});

// ───────────────────────────── end ─────────────────────────────

describe('PedelecSession.end', () => {
  it('posts end_session { sessionId } at once; success → status ended (sdk) and onEnded once (sdk_ended)', async () => {
    const { session } = await open();
    const rec = record(session);
    const t0 = Date.now();
    const ending = track(session.end());
    const msg = fake.last();
    expect(Object.keys(msg).sort()).to.deep.equal(['channelId', 'requestId', 'sessionId', 'type']);
    expect(msg).to.include({ type: 'end_session', sessionId: 's1' });
    expect(session.getStatus(), 'not ended before the response').to.equal('idle');
    fake.respond({}, msg);
    await settled(ending.promise);
    expect(ending.resolved).to.equal(true);
    expect(session.getStatus()).to.equal('ended');
    expect(rec.status).to.have.length(1);
    expect(rec.status[0].ctx).to.include({
      type: 'sdk_status_changed',
      source: 'sdk',
      status: 'ended',
      previousStatus: 'idle',
    });
    expect(rec.status[0].ctx).to.not.have.property('eventReceivedAt');
    expect(rec.ended).to.have.length(1);
    const ctx = rec.ended[0];
    expectKeys(ctx, []);
    expect(ctx).to.include({ type: 'sdk_ended', source: 'sdk' });
    expectBase(ctx, session, t0);
  });

  it('mid-turn: onEnded carries the turn, then the turn rejects SESSION_ENDED', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    fake.respond({}, turn.request);
    const ending = session.end();
    fake.respond({}, fake.last('end_session'));
    await ending;
    expect(rec.ended).to.have.length(1);
    expect(rec.ended[0]).to.include({
      type: 'sdk_ended',
      turnId: turn.turnId,
      turnStartedAt: turn.turnStartedAt,
      turnKind: 'user',
    });
    const error = await rejectionOf(turn.sent.promise);
    expectPedelecError(error, 'SESSION_ENDED', { sessionId: 's1' });
  });

  it('resolves with no request while end() is in flight and once ended', async () => {
    const { session } = await open();
    const first = track(session.end());
    const second = track(session.end());
    await settled(second.promise);
    expect(second.resolved, 'resolves while the first end() is in flight').to.equal(true);
    expect(first.settled).to.equal(false);
    expect(postedOf('end_session')).to.have.length(1);
    fake.respond({}, fake.last('end_session'));
    await first.promise;
    await session.end();
    expect(postedOf('end_session')).to.have.length(1);
  });

  it('resolves with no request after an ended event', async () => {
    const { session } = await open();
    fake.event('s1', 'ended');
    const count = fake.posted.length;
    await session.end();
    expect(fake.posted.length).to.equal(count);
  });

  it('resolves when Core ends the session while end() is in flight, even if end_session is then refused', async () => {
    const { session } = await open();
    const rec = record(session);
    const ending = track(session.end());
    const request = fake.last('end_session');
    fake.event('s1', 'ended');
    fake.fail({ code: 'SESSION_NOT_FOUND', message: 'no such session' }, request);
    await settled(ending.promise);
    expect(ending.resolved).to.equal(true);
    expect(rec.errors).to.deep.equal([]);
    expect(rec.ended).to.have.length(1);
  });

  it('on failure: sdk_error, rejects, not ended — a later end() posts again', async () => {
    const { session } = await open();
    const rec = record(session);
    const first = session.end();
    const failure = { code: 'CORE_GONE', message: 'core unreachable' };
    fake.fail(failure, fake.last('end_session'));
    const error = await rejectionOf(first);
    expect(error).to.deep.equal(failure);
    expect(rec.errors.map((e) => e.error)).to.deep.equal([failure]);
    expect(rec.errors[0].ctx).to.include({ type: 'sdk_error', source: 'sdk' });
    expect(rec.errors[0].ctx).to.not.have.property('eventReceivedAt');
    expect(session.getStatus()).to.equal('idle');
    expect(rec.ended).to.have.length(0);

    // Still alive: turns and assets work, events arrive, and end() posts again.
    track(session.sendText('still here'));
    expect(fake.last()).to.include({ type: 'send_text', text: 'still here' });
    fake.event('s1', 'chat_delta', { text: 'yes' });
    expect(rec.chat.map((c) => c.text)).to.deep.equal(['yes']);
    const second = track(session.end());
    expect(postedOf('end_session')).to.have.length(2);
    fake.respond({}, fake.last('end_session'));
    await second.promise;
    expect(session.getStatus()).to.equal('ended');
  });

  it('after end, events for the session are ignored and the client forgets the handle', async () => {
    const { session, client } = await open();
    const rec = record(session);
    const same = await openAnother(client, 's1');
    expect(same, 'while alive the client returns the same handle').to.equal(session);
    const ending = session.end();
    fake.respond({}, fake.last('end_session'));
    await ending;
    const seen = rec.log.length;
    fake.event('s1', 'status_changed', { status: 'running' });
    fake.event('s1', 'chat_delta', { text: 'ghost' });
    fake.event('s1', 'tool_call', { toolRequestId: 'tr', tool: 't', args: {} });
    fake.event('s1', 'error', { error: { code: 'E', message: 'e' } });
    fake.event('s1', 'ended');
    await nextTask();
    expect(rec.log.slice(seen)).to.deep.equal([]);
    expect(session.getStatus()).to.equal('ended');
    expect(postedOf('submit_tool_result')).to.have.length(0);
    const fresh = await openAnother(client, 's1');
    expect(fresh, 'a new handle after the old one was unregistered').to.not.equal(session);
  });
});

// ───────────────────────────── listeners ─────────────────────────────

describe('PedelecSession listeners', () => {
  it('onChat, onStatus, onError and onEnded return working unsubscribe functions', async () => {
    const { session } = await open();
    const kept: string[] = [];
    const dropped: string[] = [];
    session.onChat((t) => kept.push(`chat:${t}`));
    session.onStatus((s) => kept.push(`status:${s}`));
    session.onError((e) => kept.push(`error:${e.code}`));
    session.onEnded(() => kept.push('ended'));
    const offs = [
      session.onChat((t) => dropped.push(`chat:${t}`)),
      session.onStatus((s) => dropped.push(`status:${s}`)),
      session.onError((e) => dropped.push(`error:${e.code}`)),
      session.onEnded(() => dropped.push('ended')),
    ];
    offs.forEach((off) => expect(off).to.be.a('function'));
    offs.forEach((off) => off());
    offs.forEach((off) => off()); // a second call is harmless

    track(session.sendText('x'));
    fake.event('s1', 'chat_delta', { text: 'a' });
    fake.event('s1', 'error', { error: { code: 'E', message: 'e' } });
    fake.event('s1', 'ended');
    expect(dropped).to.deep.equal([]);
    expect(kept).to.deep.equal(['status:running', 'chat:a', 'status:error', 'error:E', 'status:ended', 'ended']);
  });

  it('onTool returns a working unsubscribe function', async () => {
    const { session } = await open();
    const calls: string[] = [];
    const off = session.onTool((tool) => {
      calls.push(tool);
      return 'handled';
    });
    off();
    track(session.sendText('x'));
    fake.event('s1', 'tool_call', { toolRequestId: 'tr1', tool: 'lookup', args: {} });
    await fake.request('submit_tool_result');
    expect(calls).to.deep.equal([]);
    const submitted = fake.last('submit_tool_result');
    expect(submitted.result.error.code).to.equal('TOOL_HANDLER_NOT_FOUND');
  });

  it('onStatus is called only on real changes, with status and previousStatus', async () => {
    const { session } = await open();
    const rec = record(session);
    track(session.sendText('x'));
    fake.respond({}, fake.last('send_text'));
    fake.event('s1', 'status_changed', { status: 'running' }); // no change
    fake.event('s1', 'tool_call', { toolRequestId: 'a', tool: 't', args: {} });
    fake.event('s1', 'tool_call', { toolRequestId: 'b', tool: 't', args: {} }); // no change
    fake.event('s1', 'status_changed', { status: 'waiting_tool_result' }); // no change
    fake.event('s1', 'status_changed', { status: 'running' });
    fake.event('s1', 'done');
    fake.event('s1', 'status_changed', { status: 'idle' }); // no change
    fake.event('s1', 'done'); // no change
    expect(rec.status.map((s) => [s.status, s.ctx.status, s.ctx.previousStatus])).to.deep.equal([
      ['running', 'running', 'idle'],
      ['waiting_tool_result', 'waiting_tool_result', 'running'],
      ['running', 'running', 'waiting_tool_result'],
      ['idle', 'idle', 'running'],
    ]);
  });

  it('onEnded is called at most once: ended twice, end() then ended, status_changed ended then ended', async () => {
    const a = await open({}, 'a1');
    const recA = record(a.session);
    fake.event('a1', 'ended');
    fake.event('a1', 'ended');
    expect(recA.ended).to.have.length(1);
    expect(recA.ended[0]).to.include({ type: 'ended', source: 'core' });

    const b = await openAnother(a.client, 'b1');
    const recB = record(b);
    const ending = b.end();
    fake.respond({}, fake.last('end_session'));
    await ending;
    fake.event('b1', 'ended');
    await b.end();
    expect(recB.ended).to.have.length(1);

    const c = await openAnother(a.client, 'c1');
    const recC = record(c);
    fake.event('c1', 'status_changed', { status: 'ended' });
    fake.event('c1', 'ended');
    expect(recC.ended).to.have.length(1);
    expect(c.getStatus()).to.equal('ended');
    expect(recC.status.map((s) => s.status)).to.deep.equal(['ended']);
  });
});

// ───────────────────────────── incoming events ─────────────────────────────

describe('PedelecSession: incoming events', () => {
  it('chat_delta during a user turn reaches onChat with its text', async () => {
    const { session } = await open();
    const rec = record(session);
    track(session.sendText('x'));
    fake.event('s1', 'chat_delta', { text: 'Hel' });
    fake.event('s1', 'chat_delta', { text: 'lo' });
    expect(rec.chat.map((c) => c.text)).to.deep.equal(['Hel', 'lo']);
  });

  it('chat_delta outside a turn → sdk_error SDK_PROTOCOL_ERROR keeping eventReceivedAt; the delta is dropped', async () => {
    const { session } = await open();
    const rec = record(session);
    const t0 = Date.now();
    fake.event('s1', 'chat_delta', { seq: 3, text: 'stray' });
    const t1 = Date.now();
    expect(rec.chat).to.deep.equal([]);
    expect(rec.errors).to.have.length(1);
    expectPedelecError(rec.errors[0].error, 'SDK_PROTOCOL_ERROR');
    const ctx = rec.errors[0].ctx;
    expectKeys(ctx, ['eventReceivedAt']);
    expect(ctx).to.include({ type: 'sdk_error', source: 'sdk' });
    expect(ctx.eventReceivedAt).to.be.within(t0, t1);
    expect(session.getStatus()).to.equal('idle');
  });

  it('tool_call outside a turn → sdk_error SDK_PROTOCOL_ERROR keeping eventReceivedAt; no handler, no result, no status', async () => {
    const { session } = await open();
    const rec = record(session);
    const handled: string[] = [];
    session.onTool((tool) => handled.push(tool));
    const t0 = Date.now();
    fake.event('s1', 'tool_call', { toolRequestId: 'tr1', tool: 'lookup', args: {} });
    const t1 = Date.now();
    await nextTask();
    expect(handled).to.deep.equal([]);
    expect(postedOf('submit_tool_result')).to.have.length(0);
    expect(rec.status).to.deep.equal([]);
    expect(rec.errors).to.have.length(1);
    expectPedelecError(rec.errors[0].error, 'SDK_PROTOCOL_ERROR');
    expect(rec.errors[0].ctx).to.include({ type: 'sdk_error', source: 'sdk' });
    expect(rec.errors[0].ctx.eventReceivedAt).to.be.within(t0, t1);
  });

  it('tool_call sets waiting_tool_result (status_changed, core, eventReceivedAt, the turn)', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    const t0 = Date.now();
    fake.event('s1', 'tool_call', { toolRequestId: 'tr1', tool: 'lookup', args: {} });
    const t1 = Date.now();
    expect(session.getStatus()).to.equal('waiting_tool_result');
    const { ctx } = rec.status.at(-1)!;
    expectKeys(ctx, ['status', 'previousStatus', 'eventReceivedAt', ...TURN_KEYS]);
    expect(ctx).to.include({
      type: 'status_changed',
      source: 'core',
      status: 'waiting_tool_result',
      previousStatus: 'running',
      turnId: turn.turnId,
    });
    expect(ctx.eventReceivedAt).to.be.within(t0, t1);
  });

  it('done → idle (status_changed, core, eventReceivedAt) carrying the turn, and the turn finishes', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    fake.respond({}, turn.request);
    const t0 = Date.now();
    fake.event('s1', 'done', { seq: 1 });
    const t1 = Date.now();
    const { status, ctx } = rec.status.at(-1)!;
    expect(status).to.equal('idle');
    expectKeys(ctx, ['status', 'previousStatus', 'eventReceivedAt', ...TURN_KEYS]);
    expect(ctx).to.include({
      type: 'status_changed',
      source: 'core',
      previousStatus: 'running',
      turnId: turn.turnId,
      turnStartedAt: turn.turnStartedAt,
      turnKind: 'user',
    });
    expect(ctx.eventReceivedAt).to.be.within(t0, t1);
    await settled(turn.sent.promise);
    expect(turn.sent.resolved).to.equal(true);
    // The turn is over: later events carry no turn.
    fake.event('s1', 'status_changed', { status: 'running' });
    expect(rec.status.at(-1)!.ctx).to.not.have.any.keys(...TURN_KEYS);
  });

  it('status_changed idle / error carry the turn they finish', async () => {
    const { session } = await open();
    const rec = record(session);
    const a = startTurn(session, rec);
    fake.event('s1', 'status_changed', { status: 'idle' });
    expect(rec.status.at(-1)!.ctx).to.include({ status: 'idle', turnId: a.turnId, source: 'core' });
    await nextTask();
    const b = startTurn(session, rec);
    fake.event('s1', 'status_changed', { status: 'error' });
    expect(rec.status.at(-1)!.ctx).to.include({ status: 'error', turnId: b.turnId, source: 'core' });
  });

  it('error event → status error, onError (type error, source core, eventReceivedAt, the turn), turn rejected', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    const t0 = Date.now();
    const providerError = { code: 'PROVIDER_FAILED', message: 'boom', details: { line: 3 } };
    fake.event('s1', 'error', { seq: 4, error: providerError, source: 'provider', provider: 'codex' });
    const t1 = Date.now();
    expect(session.getStatus()).to.equal('error');
    const statusCtx = rec.status.at(-1)!.ctx;
    expect(statusCtx).to.include({
      type: 'status_changed',
      source: 'core',
      status: 'error',
      previousStatus: 'running',
      turnId: turn.turnId,
    });
    expect(statusCtx.eventReceivedAt).to.be.within(t0, t1);

    expect(rec.errors).to.have.length(1);
    expect(rec.errors[0].error).to.deep.equal(providerError);
    expectPedelecError(rec.errors[0].error, 'PROVIDER_FAILED');
    const ctx = rec.errors[0].ctx;
    expectKeys(ctx, ['eventReceivedAt', ...TURN_KEYS]);
    expect(ctx).to.include({
      type: 'error',
      source: 'core',
      turnId: turn.turnId,
      turnStartedAt: turn.turnStartedAt,
      turnKind: 'user',
    });
    expect(ctx.eventReceivedAt).to.be.within(t0, t1);
    await settled(turn.sent.promise);
    expect(turn.sent.rejected).to.equal(true);
    expect(turn.sent.error).to.deep.equal(providerError);
  });

  it('error event outside a turn → status error and onError without turn fields', async () => {
    const { session } = await open();
    const rec = record(session);
    fake.event('s1', 'error', { error: { code: 'CORE_ERR', message: 'x' } });
    expect(session.getStatus()).to.equal('error');
    expect(rec.errors).to.have.length(1);
    expectKeys(rec.errors[0].ctx, ['eventReceivedAt']);
    expect(rec.errors[0].ctx).to.include({ type: 'error', source: 'core' });
  });

  it('ended event → status ended (status_changed, core) and onEnded (type ended, core, eventReceivedAt)', async () => {
    const { session } = await open();
    const rec = record(session);
    const t0 = Date.now();
    fake.event('s1', 'ended', { seq: 9 });
    const t1 = Date.now();
    expect(session.getStatus()).to.equal('ended');
    expect(rec.status).to.have.length(1);
    expect(rec.status[0].ctx).to.include({
      type: 'status_changed',
      source: 'core',
      status: 'ended',
      previousStatus: 'idle',
    });
    expect(rec.ended).to.have.length(1);
    expectKeys(rec.ended[0], ['eventReceivedAt']);
    expect(rec.ended[0]).to.include({ type: 'ended', source: 'core' });
    expect(rec.ended[0].eventReceivedAt).to.be.within(t0, t1);
    expectBase(rec.ended[0], session, t0, t1);
  });

  it('ended event mid-turn: onEnded carries the turn before the turn rejects', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    fake.event('s1', 'ended');
    expect(rec.ended[0]).to.include({ turnId: turn.turnId, turnKind: 'user' });
    await settled(turn.sent.promise);
    expectPedelecError(turn.sent.error, 'SESSION_ENDED', { sessionId: 's1' });
  });

  it('ignores events addressed to another session', async () => {
    const { session } = await open();
    const rec = record(session);
    track(session.sendText('x'));
    const seen = rec.log.length;
    fake.event('other', 'chat_delta', { text: 'not mine' });
    fake.event('other', 'error', { error: { code: 'E', message: 'e' } });
    fake.event('other', 'ended');
    expect(rec.log.slice(seen)).to.deep.equal([]);
    expect(session.getStatus()).to.equal('running');
  });

  it('does not branch on the message source field', async () => {
    const { session } = await open();
    const rec = record(session);
    track(session.sendText('x'));
    fake.event('s1', 'chat_delta', { text: 'a', source: 'pedelec-sdk-extension' });
    expect(rec.chat.map((c) => c.text)).to.deep.equal(['a']);
  });
});

// ───────────────────────────── seq ─────────────────────────────

describe('PedelecSession: seq de-duplication', () => {
  async function chatting() {
    const { session, client } = await open();
    const rec = record(session);
    track(session.sendText('x'));
    const chat = (text: string, seq?: unknown) =>
      fake.event('s1', 'chat_delta', seq === undefined ? { text } : { text, seq });
    return { session, client, rec, chat, texts: () => rec.chat.map((c) => c.text) };
  }

  it('drops an event whose seq is ≤ the last seen seq', async () => {
    const { chat, texts } = await chatting();
    chat('a', 1);
    chat('b', 2);
    chat('b again', 2);
    chat('old', 1);
    chat('c', 5);
    chat('skipped back', 3);
    chat('d', 6);
    expect(texts()).to.deep.equal(['a', 'b', 'c', 'd']);
  });

  it('accepts seq 0 as the first seq', async () => {
    const { chat, texts } = await chatting();
    chat('zero', 0);
    chat('zero again', 0);
    expect(texts()).to.deep.equal(['zero']);
  });

  it('de-duplicates other event types too (a repeated error is not reported twice)', async () => {
    const { session, rec } = await chatting();
    fake.event('s1', 'error', { seq: 7, error: { code: 'E', message: 'e' } });
    fake.event('s1', 'error', { seq: 7, error: { code: 'E', message: 'e' } });
    expect(rec.errors).to.have.length(1);
    expect(session.getStatus()).to.equal('error');
  });

  it('always takes events without a numeric seq', async () => {
    const { chat, texts } = await chatting();
    chat('a', 5);
    chat('no seq');
    chat('no seq');
    chat('null seq', null);
    expect(texts()).to.deep.equal(['a', 'no seq', 'no seq', 'null seq']);
  });

  for (const bad of [-1, 1.5, '3', NaN, Infinity]) {
    it(`(ours) treats seq ${String(typeof bad === 'string' ? JSON.stringify(bad) : bad)} as absent, without poisoning de-duplication`, async () => {
      const { chat, texts } = await chatting();
      chat('first', 5);
      chat('bad', bad);
      chat('bad again', bad);
      chat('next', 6);
      chat('dup', 6);
      chat('older', 4);
      expect(texts()).to.deep.equal(['first', 'bad', 'bad again', 'next']);
    });
  }

  it('(ours) a malformed seq before any valid one does not swallow later events', async () => {
    const { chat, texts } = await chatting();
    chat('inf', Infinity);
    chat('big', 1e6 + 0.5);
    chat('zero', 0);
    chat('one', 1);
    chat('one again', 1);
    expect(texts()).to.deep.equal(['inf', 'big', 'zero', 'one']);
  });

  it('keeps seq per session', async () => {
    const { client, session: s1, rec: rec1 } = await chatting();
    const s2 = await openAnother(client, 's2');
    const rec2 = record(s2);
    track(s2.sendText('y'));
    fake.event('s1', 'chat_delta', { seq: 10, text: 's1-10' });
    fake.event('s2', 'chat_delta', { seq: 1, text: 's2-1' });
    fake.event('s2', 'chat_delta', { seq: 2, text: 's2-2' });
    fake.event('s1', 'chat_delta', { seq: 3, text: 's1-3' });
    fake.event('s2', 'chat_delta', { seq: 2, text: 's2-2 dup' });
    expect(rec1.chat.map((c) => c.text)).to.deep.equal(['s1-10']);
    expect(rec2.chat.map((c) => c.text)).to.deep.equal(['s2-1', 's2-2']);
    expect(s1).to.not.equal(s2);
  });
});

// ───────────────────────────── contexts ─────────────────────────────

describe('PedelecSession: event contexts', () => {
  it('chat context: exact keys, values, core-sourced with eventReceivedAt and the turn', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    const t0 = Date.now();
    fake.event('s1', 'chat_delta', { seq: 12, text: 'hi' });
    const t1 = Date.now();
    const ctx = rec.chat[0].ctx;
    expectKeys(ctx, ['eventReceivedAt', ...TURN_KEYS]);
    expectBase(ctx, session, t0, t1);
    expect(ctx).to.include({
      type: 'chat_delta',
      source: 'core',
      turnId: turn.turnId,
      turnStartedAt: turn.turnStartedAt,
      turnKind: 'user',
    });
    expect(ctx.eventReceivedAt).to.be.within(t0, t1);
    expect(ctx.eventEmittedAt).to.be.at.least(ctx.eventReceivedAt);
  });

  it('sdk_status_changed context: exact keys, no eventReceivedAt', async () => {
    const { session } = await open();
    const rec = record(session);
    const t0 = Date.now();
    track(session.sendText('x'));
    const ctx = rec.status[0].ctx;
    expectKeys(ctx, ['status', 'previousStatus', ...TURN_KEYS]);
    expectBase(ctx, session, t0);
    expect(ctx.turnStartedAt).to.be.within(t0, Date.now());
  });

  it('status_changed context outside a turn: no turn fields', async () => {
    const { session } = await open();
    const rec = record(session);
    fake.event('s1', 'status_changed', { seq: 1, status: 'running' });
    expectKeys(rec.status[0].ctx, ['status', 'previousStatus', 'eventReceivedAt']);
    expect(rec.status[0].ctx).to.include({
      type: 'status_changed',
      source: 'core',
      status: 'running',
      previousStatus: 'idle',
    });
  });

  it('tool call context: exact keys (deadline; signal a getter, made on first read), the turn, eventReceivedAt', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    let seen: ToolCallContext | undefined;
    session.onTool((_tool, _args, ctx) => {
      seen = ctx;
    });
    const t0 = Date.now();
    fake.event('s1', 'tool_call', { seq: 2, toolRequestId: 'tr9', tool: 'lookup', args: {} });
    const t1 = Date.now();
    expect(seen).to.not.equal(undefined);
    expectKeys(seen!, ['eventReceivedAt', 'toolRequestId', 'tool', 'deadline', 'via', ...TURN_KEYS]);
    // `signal` is an accessor the context inherits, so reading keys or serializing never makes it.
    expect('signal' in seen!).to.equal(true);
    expect(Object.getOwnPropertyDescriptor(Object.getPrototypeOf(seen!), 'signal')?.get).to.be.a('function');
    expect(JSON.parse(JSON.stringify(seen!))).to.not.have.property('signal');
    expect(seen!.signal).to.be.instanceOf(AbortSignal);
    expect(seen!.signal).to.equal(seen!.signal);
    // It works on what frameworks make of the context: a Proxy (Vue's reactive()), an object inheriting from it.
    expect(new Proxy(seen!, {}).signal).to.equal(seen!.signal);
    expect((Object.create(seen!) as ToolCallContext).signal).to.equal(seen!.signal);
    expectBase(plain(seen!), session, t0, t1);
    expect(plain(seen!)).to.include({
      type: 'tool_call',
      source: 'core',
      toolRequestId: 'tr9',
      tool: 'lookup',
      turnId: turn.turnId,
      turnKind: 'user',
      via: 'pedelec',
    });
    expect(seen!.eventReceivedAt).to.be.within(t0, t1);
  });

  it('never includes seq, whatever the event carried', async () => {
    const { session } = await open();
    const rec = record(session);
    const contexts: object[] = [];
    session.onTool((_t, _a, ctx) => {
      contexts.push(plain(ctx));
    });
    track(session.sendText('x'));
    fake.event('s1', 'chat_delta', { seq: 1, text: 'a' });
    fake.event('s1', 'tool_call', { seq: 2, toolRequestId: 'r', tool: 't', args: {} });
    fake.event('s1', 'status_changed', { seq: 3, status: 'running' });
    fake.event('s1', 'done', { seq: 4 });
    fake.event('s1', 'chat_delta', { seq: 5, text: 'outside' });
    fake.event('s1', 'error', { seq: 6, error: { code: 'E', message: 'e' } });
    fake.event('s1', 'ended', { seq: 7 });
    contexts.push(
      ...rec.chat.map((c) => c.ctx),
      ...rec.status.map((s) => s.ctx),
      ...rec.errors.map((e) => e.ctx),
      ...rec.ended,
    );
    expect(contexts.length).to.be.at.least(9);
    for (const ctx of contexts) expect(Object.keys(ctx)).to.not.include('seq');
  });

  it('the error event source/provider fields do not leak into the context', async () => {
    const { session } = await open();
    const rec = record(session);
    fake.event('s1', 'error', { error: { code: 'E', message: 'e' }, source: 'provider', provider: 'other' });
    expect(rec.errors[0].ctx.source).to.equal('core');
    expect(rec.errors[0].ctx.provider).to.equal(PROVIDER);
  });

  it('sdk_error of a failed send_text: exact keys, the turn, no eventReceivedAt', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    fake.fail({ code: 'F', message: 'f' }, turn.request);
    await settled(turn.sent.promise);
    expectKeys(rec.errors[0].ctx, TURN_KEYS);
    expect(rec.errors[0].ctx).to.include({ turnId: turn.turnId, turnStartedAt: turn.turnStartedAt, turnKind: 'user' });
  });

  it('sdk_error of a failed end(): exact keys, no turn, no eventReceivedAt', async () => {
    const { session } = await open();
    const rec = record(session);
    const ending = track(session.end());
    fake.fail({ code: 'F', message: 'f' }, fake.last('end_session'));
    await settled(ending.promise);
    expect(ending.rejected).to.equal(true);
    expectKeys(rec.errors[0].ctx, []);
  });
});

describe('PedelecSession: context types (checked by tsc)', () => {
  it('contexts have no index signature; chat and tool contexts require turn and receipt fields', async () => {
    const { session } = await open();
    const seen: unknown[] = [];
    const chatSeen: unknown[] = [];
    session.onChat((_text, ctx) => {
      const turnId: string = ctx.turnId;
      const turnStartedAt: number = ctx.turnStartedAt;
      const receivedAt: number = ctx.eventReceivedAt;
      // @ts-expect-error seq is protocol bookkeeping, never a context field
      chatSeen.push(turnId, turnStartedAt, receivedAt, ctx.seq);
    });
    session.onStatus((_status, ctx) => {
      // @ts-expect-error no index signature
      seen.push(ctx.seq);
    });
    session.onError((_error, ctx) => {
      // @ts-expect-error no index signature
      seen.push(ctx.anything);
    });
    session.onEnded((ctx) => {
      // @ts-expect-error no index signature
      seen.push(ctx.seq);
    });
    session.onTool((_tool, _args, ctx) => {
      const id: string = ctx.turnId;
      const receivedAt: number = ctx.eventReceivedAt;
      const deadline: number = ctx.deadline;
      // @ts-expect-error no index signature
      seen.push(id, receivedAt, deadline, ctx.seq);
    });
    track(session.sendText('x'));
    fake.event('s1', 'chat_delta', { seq: 1, text: 'a' });
    expect(chatSeen).to.have.length(4);
    expect(chatSeen[0]).to.be.a('string');
    expect(chatSeen[3], 'no seq at run time either').to.equal(undefined);
    expect(seen).to.deep.equal([undefined]);
  });
});

// ───────────────────────────── throwing listeners ─────────────────────────────

describe('PedelecSession: a listener that throws', () => {
  it('does not stop other listeners or the session, and becomes a LISTENER_ERROR warning', async () => {
    const warnings: PedelecError[] = [];
    const { session } = await open({ onWarning: (w) => warnings.push(w) });
    const consoleCalls: string[] = [];
    const saved = {
      log: console.log,
      warn: console.warn,
      error: console.error,
      info: console.info,
      debug: console.debug,
    };
    for (const level of Object.keys(saved) as (keyof typeof saved)[])
      console[level] = () => void consoleCalls.push(level);
    const other: string[] = [];
    session.onChat(() => {
      throw new Error('chat listener broke');
    });
    session.onChat((t) => other.push(t));
    const sent = track(session.sendText('x'));
    fake.respond({}, fake.last('send_text'));
    fake.event('s1', 'chat_delta', { text: 'a' });
    fake.event('s1', 'chat_delta', { text: 'b' });
    expect(other).to.deep.equal(['a', 'b']);
    expect(warnings).to.have.length(2);
    expectPedelecError(warnings[0], 'LISTENER_ERROR');
    expect(warnings[0].message).to.equal('chat listener broke');
    fake.event('s1', 'done');
    await settled(sent.promise);
    Object.assign(console, saved);
    expect(sent.resolved).to.equal(true);
    expect(consoleCalls, 'the SDK writes nothing to the console without debug').to.deep.equal([]);
  });

  it('a throwing onStatus listener does not make sendText throw or stop it posting', async () => {
    const warnings: PedelecError[] = [];
    const { session } = await open({ onWarning: (w) => warnings.push(w) });
    const statuses: string[] = [];
    session.onStatus(() => {
      throw new Error('status listener broke');
    });
    session.onStatus((s) => statuses.push(s));
    let sent: Tracked<void> | undefined;
    expect(() => {
      sent = track(session.sendText('x'));
    }).to.not.throw();
    expect(fake.last()).to.include({ type: 'send_text', text: 'x' });
    expect(statuses).to.deep.equal(['running']);
    fake.respond({}, fake.last('send_text'));
    fake.event('s1', 'done');
    await settled(sent!.promise);
    expect(sent!.resolved).to.equal(true);
    expect(statuses).to.deep.equal(['running', 'idle']);
    expect(warnings.map((w) => w.code)).to.deep.equal(['LISTENER_ERROR', 'LISTENER_ERROR']);
  });

  it('throwing onError / onEnded listeners do not break error handling or end()', async () => {
    const warnings: PedelecError[] = [];
    const { session } = await open({ onWarning: (w) => warnings.push(w) });
    session.onError(() => {
      throw new Error('error listener broke');
    });
    session.onEnded(() => {
      throw new Error('ended listener broke');
    });
    const ended: string[] = [];
    session.onEnded((ctx) => ended.push(ctx.type!));
    const sent = track(session.sendText('x'));
    fake.event('s1', 'error', { error: { code: 'E', message: 'e' } });
    await settled(sent.promise);
    expect(sent.rejected).to.equal(true);
    expect(sent.error.code).to.equal('E');
    const ending = track(session.end());
    fake.respond({}, fake.last('end_session'));
    await settled(ending.promise);
    expect(ending.resolved).to.equal(true);
    expect(ended).to.deep.equal(['sdk_ended']);
    expect(session.getStatus()).to.equal('ended');
    expect(warnings.map((w) => w.code)).to.deep.equal(['LISTENER_ERROR', 'LISTENER_ERROR']);
  });
});

// ───────────────────────────── transport-wide errors ─────────────────────────────

describe('PedelecSession: transport-wide errors (bridge-protocol §3)', () => {
  it('an error without sessionId fails the turn: status error (sdk), sdk_error without eventReceivedAt; usable after', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    fake.emit({ type: 'error', error: { code: 'NATIVE_HOST_UNAVAILABLE', message: 'native host gone' } });
    expect(session.getStatus()).to.equal('error');
    const statusCtx = rec.status.at(-1)!.ctx;
    expect(statusCtx).to.include({ type: 'sdk_status_changed', source: 'sdk', status: 'error' });
    expect(statusCtx).to.not.have.property('eventReceivedAt');
    expect(rec.errors).to.have.length(1);
    expect(rec.errors[0].error).to.deep.equal({ code: 'NATIVE_HOST_UNAVAILABLE', message: 'native host gone' });
    expectKeys(rec.errors[0].ctx, TURN_KEYS);
    expect(rec.errors[0].ctx).to.include({ type: 'sdk_error', source: 'sdk', turnId: turn.turnId });
    await settled(turn.sent.promise);
    expect(turn.sent.rejected).to.equal(true);
    expect(turn.sent.error.code).to.equal('NATIVE_HOST_UNAVAILABLE');

    const next = track(session.sendText('again'));
    expect(fake.last()).to.include({ type: 'send_text', text: 'again' });
    fake.respond({}, fake.last('send_text'));
    fake.event('s1', 'done');
    await settled(next.promise);
    expect(next.resolved).to.equal(true);
  });

  it('a malformed transport-wide error becomes SDK_TRANSPORT_ERROR', async () => {
    const { session } = await open();
    const rec = record(session);
    fake.emit({ type: 'error', error: 'garbled' });
    expect(rec.errors).to.have.length(1);
    expectPedelecError(rec.errors[0].error, 'SDK_TRANSPORT_ERROR');
  });

  it('a disconnect gives the session an sdk_error and rejects its turn with EXTENSION_DISCONNECTED', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    fake.disconnect();
    await settled(turn.sent.promise);
    expect(session.getStatus()).to.equal('error');
    expect(rec.errors.map((e) => e.error.code)).to.include('EXTENSION_DISCONNECTED');
    expect(rec.errors[0].ctx).to.include({ type: 'sdk_error', source: 'sdk' });
    expect(rec.errors[0].ctx).to.not.have.property('eventReceivedAt');
    expectPedelecError(turn.sent.error, 'EXTENSION_DISCONNECTED');
  });
});

// ───────────────────────────── assets ─────────────────────────────

describe('isAssetPath', () => {
  it('accepts rooted paths of non-empty segments', () => {
    for (const p of ['/a', '/a.txt', '/dir/file.json', '/a/b/c/d', '/with space/ü.txt', '/...', '/.hidden', '/a..b']) {
      expect(isAssetPath(p), p).to.equal(true);
    }
  });

  it('rejects everything else', () => {
    const bad: unknown[] = [
      '',
      '/',
      'a',
      'a/b',
      '//a',
      '/a//b',
      '/a/',
      '/.',
      '/..',
      '/a/./b',
      '/a/../b',
      '/a/..',
      '/a\\b',
      '\\a',
      '/a\u0000b',
      '/a\u001fb',
      '/a\nb',
      '/a\tb',
      42,
      null,
      undefined,
      ['/a'],
    ];
    for (const p of bad) expect(isAssetPath(p), JSON.stringify(p)).to.equal(false);
  });
});

describe('PedelecSession.listAssets', () => {
  const good = { name: 'notes.txt', path: '/docs/notes.txt', sizeBytes: 12, modifiedAt: 1_700_000_000_000 };

  it('posts list_assets { sessionId } at once and returns the entries', async () => {
    const { session } = await open();
    const listed = session.listAssets();
    const msg = fake.last();
    expect(msg).to.include({ type: 'list_assets', sessionId: 's1' });
    expect(Object.keys(msg).sort()).to.deep.equal(['channelId', 'requestId', 'sessionId', 'type']);
    const root = { name: 'a', path: '/a', sizeBytes: 0, modifiedAt: 0 };
    fake.respond({ assets: [good, root] }, msg);
    expect(await listed).to.deep.equal([good, root]);
  });

  it('accepts an empty list', async () => {
    const { session } = await open();
    const listed = session.listAssets();
    fake.respond({ assets: [] }, fake.last('list_assets'));
    expect(await listed).to.deep.equal([]);
  });

  const badEntries: [string, unknown][] = [
    ['empty name', { ...good, name: '', path: '/docs/' }],
    ['name with /', { ...good, name: 'a/b', path: '/a/b' }],
    ['name with \\', { ...good, name: 'a\\b', path: '/docs/a\\b' }],
    ['name .', { ...good, name: '.', path: '/docs/.' }],
    ['name ..', { ...good, name: '..', path: '/docs/..' }],
    ['name not a string', { ...good, name: 5 }],
    ['missing name', { path: good.path, sizeBytes: 1, modifiedAt: 1 }],
    ['invalid path', { ...good, path: 'docs/notes.txt' }],
    ['path with empty segment', { ...good, path: '/docs//notes.txt' }],
    ['last segment differs from name', { ...good, path: '/docs/other.txt' }],
    ['missing path', { name: 'x', sizeBytes: 1, modifiedAt: 1 }],
    ['negative sizeBytes', { ...good, sizeBytes: -1 }],
    ['fractional sizeBytes', { ...good, sizeBytes: 1.5 }],
    ['string sizeBytes', { ...good, sizeBytes: '12' }],
    ['negative modifiedAt', { ...good, modifiedAt: -5 }],
    ['fractional modifiedAt', { ...good, modifiedAt: 0.5 }],
    ['missing modifiedAt', { name: good.name, path: good.path, sizeBytes: 1 }],
    ['null entry', null],
    ['string entry', '/docs/notes.txt'],
  ];
  for (const [label, entry] of badEntries) {
    it(`rejects SDK_PROTOCOL_ERROR "list_assets response had an invalid shape" for ${label}`, async () => {
      const { session } = await open();
      const listed = session.listAssets();
      fake.respond({ assets: [good, entry] }, fake.last('list_assets'));
      const error = await rejectionOf(listed);
      expectPedelecError(error, 'SDK_PROTOCOL_ERROR');
      expect(error.message).to.equal('list_assets response had an invalid shape');
    });
  }

  it('rejects SDK_PROTOCOL_ERROR when assets is not an array', async () => {
    const { session } = await open();
    const listed = session.listAssets();
    fake.respond({ assets: { a: good } }, fake.last('list_assets'));
    const error = await rejectionOf(listed);
    expectPedelecError(error, 'SDK_PROTOCOL_ERROR');
    expect(error.message).to.equal('list_assets response had an invalid shape');
  });

  it('passes a failed request through', async () => {
    const { session } = await open();
    const listed = session.listAssets();
    fake.fail({ code: 'APPROVAL_REJECTED', message: 'no' }, fake.last('list_assets'));
    expect(await rejectionOf(listed)).to.deep.equal({ code: 'APPROVAL_REJECTED', message: 'no' });
  });
});

describe('PedelecSession.uploadAsset', () => {
  const ticket = { uploadId: 'u1', uploadUrl: 'http://127.0.0.1:9/upload/u1', token: 'tok-123' };
  const textFile = () => new File(['hello'], 'notes.txt', { type: 'text/plain' });

  it('rejects INVALID_INPUT for anything but a File with a name, posting nothing', async () => {
    const { session } = await open();
    const count = fake.posted.length;
    const notFiles: unknown[] = [
      new Blob(['x']),
      { name: 'a.txt', size: 1, type: 'text/plain' },
      null,
      undefined,
      'a.txt',
      new File(['x'], ''),
    ];
    for (const value of notFiles) {
      const error = await rejectionOf(session.uploadAsset(value as File));
      expectPedelecError(error, 'INVALID_INPUT');
    }
    expect(fake.posted.length).to.equal(count);
  });

  it('rejects ASSET_TOO_LARGE over 100 MiB; exactly 100 MiB is accepted', async () => {
    const { session } = await open();
    const count = fake.posted.length;
    const big = Object.defineProperty(new File(['x'], 'big.bin'), 'size', { value: 100 * MiB + 1 });
    expect(big).to.be.instanceOf(File);
    expectPedelecError(await rejectionOf(session.uploadAsset(big)), 'ASSET_TOO_LARGE');
    expect(fake.posted.length).to.equal(count);

    const limit = Object.defineProperty(new File(['x'], 'limit.bin'), 'size', { value: 100 * MiB });
    track(session.uploadAsset(limit));
    expect(fake.last()).to.include({ type: 'create_asset_upload', sizeBytes: 100 * MiB });
  });

  it('rejects ASSET_PATH_INVALID for a bad targetPath, posting nothing', async () => {
    const { session } = await open();
    const count = fake.posted.length;
    for (const target of ['notes.txt', '/', '/a//b', '/a/../b', '/a/./b', '/a\\b', '/a/', '', '/a\u0001b']) {
      expectPedelecError(await rejectionOf(session.uploadAsset(textFile(), target)), 'ASSET_PATH_INVALID');
    }
    expect(fake.posted.length).to.equal(count);
  });

  it('posts create_asset_upload { sessionId, filename, sizeBytes, mimeType, targetPath } at once', async () => {
    const { session, client } = await open();
    track(session.uploadAsset(textFile(), '/docs/notes.txt'));
    expect(fake.last()).to.deep.equal({
      channelId: client.channelId,
      type: 'create_asset_upload',
      requestId: fake.last().requestId,
      sessionId: 's1',
      filename: 'notes.txt',
      sizeBytes: 5,
      mimeType: 'text/plain',
      targetPath: '/docs/notes.txt',
    });
  });

  it('without targetPath the ticket request has no targetPath value', async () => {
    const { session } = await open();
    track(session.uploadAsset(textFile()));
    expect(fake.last()).to.include({
      type: 'create_asset_upload',
      filename: 'notes.txt',
      sizeBytes: 5,
      sessionId: 's1',
    });
    expect(fake.last().targetPath).to.equal(undefined);
  });

  it('PUTs the file to uploadUrl with the bearer token, its Content-Type and credentials omit; resolves { path }', async () => {
    const { session } = await open();
    fetchImpl = async () => jsonResponse({ path: '/docs/notes.txt' });
    const file = textFile();
    const uploaded = session.uploadAsset(file, '/docs/notes.txt');
    fake.respond(ticket, fake.last('create_asset_upload'));
    expect(await uploaded).to.deep.equal({ path: '/docs/notes.txt' });
    expect(fetchCalls).to.have.length(1);
    const { url, init } = fetchCalls[0];
    expect(url).to.equal(ticket.uploadUrl);
    expect(init.method).to.equal('PUT');
    const headers = new Headers(init.headers);
    expect(headers.get('Authorization')).to.equal('Bearer tok-123');
    expect(headers.get('Content-Type')).to.equal('text/plain');
    expect(init.body).to.equal(file);
    expect(init.credentials).to.equal('omit');
  });

  it('uses application/octet-stream when the file has no type, and accepts any valid path without targetPath', async () => {
    const { session } = await open();
    fetchImpl = async () => jsonResponse({ path: '/blob.bin' });
    const uploaded = session.uploadAsset(new File([new Uint8Array([1, 2, 3])], 'blob.bin'));
    fake.respond(ticket, fake.last('create_asset_upload'));
    expect(await uploaded).to.deep.equal({ path: '/blob.bin' });
    expect(new Headers(fetchCalls[0].init.headers).get('Content-Type')).to.equal('application/octet-stream');
  });

  const badBodies: [string, () => Response, string | undefined][] = [
    ['a path different from targetPath', () => jsonResponse({ path: '/docs/other.txt' }), '/docs/notes.txt'],
    ['an invalid path', () => jsonResponse({ path: 'docs/notes.txt' }), undefined],
    ['a path with ..', () => jsonResponse({ path: '/docs/../x' }), undefined],
    ['no path', () => jsonResponse({ ok: true }), undefined],
    ['a body that is not JSON', () => new Response('done', { status: 200 }), undefined],
  ];
  for (const [label, body, target] of badBodies) {
    it(`rejects SDK_PROTOCOL_ERROR when the upload response has ${label}`, async () => {
      const { session } = await open();
      fetchImpl = async () => body();
      const uploaded = session.uploadAsset(textFile(), target);
      fake.respond(ticket, fake.last('create_asset_upload'));
      expectPedelecError(await rejectionOf(uploaded), 'SDK_PROTOCOL_ERROR');
    });
  }

  it('an HTTP failure rejects with the response error when it has one', async () => {
    const { session } = await open();
    const quota = { code: 'ASSET_QUOTA_EXCEEDED', message: 'sandbox full', details: { limit: 10 } };
    fetchImpl = async () => jsonResponse({ error: quota }, 413);
    const uploaded = session.uploadAsset(textFile());
    fake.respond(ticket, fake.last('create_asset_upload'));
    expect(await rejectionOf(uploaded)).to.deep.equal(quota);
  });

  it('an HTTP failure without an error rejects ASSET_UPLOAD_FAILED', async () => {
    const { session } = await open();
    fetchImpl = async () => new Response('Internal error', { status: 500 });
    const uploaded = session.uploadAsset(textFile());
    fake.respond(ticket, fake.last('create_asset_upload'));
    expectPedelecError(await rejectionOf(uploaded), 'ASSET_UPLOAD_FAILED');
  });

  it('an HTTP failure whose error is malformed rejects ASSET_UPLOAD_FAILED', async () => {
    const { session } = await open();
    fetchImpl = async () => jsonResponse({ error: 'nope' }, 400);
    const uploaded = session.uploadAsset(textFile());
    fake.respond(ticket, fake.last('create_asset_upload'));
    expectPedelecError(await rejectionOf(uploaded), 'ASSET_UPLOAD_FAILED');
  });

  it('a network failure rejects ASSET_UPLOAD_FAILED', async () => {
    const { session } = await open();
    fetchImpl = () => Promise.reject(new TypeError('Failed to fetch'));
    const uploaded = session.uploadAsset(textFile());
    fake.respond(ticket, fake.last('create_asset_upload'));
    expectPedelecError(await rejectionOf(uploaded), 'ASSET_UPLOAD_FAILED');
  });

  it('allows one upload at a time (SESSION_BUSY), and another once it settled', async () => {
    const { session } = await open();
    const first = track(session.uploadAsset(textFile(), '/one.txt'));
    const count = fake.posted.length;
    expectPedelecError(await rejectionOf(session.uploadAsset(textFile(), '/two.txt')), 'SESSION_BUSY');
    expect(fake.posted.length).to.equal(count);

    fake.fail({ code: 'APPROVAL_REJECTED', message: 'no' }, fake.last('create_asset_upload'));
    await settled(first.promise);
    expect(first.rejected).to.equal(true);

    fetchImpl = async () => jsonResponse({ path: '/three.txt' });
    const third = session.uploadAsset(textFile(), '/three.txt');
    expect(postedOf('create_asset_upload')).to.have.length(2);
    fake.respond(ticket, fake.last('create_asset_upload'));
    expect(await third).to.deep.equal({ path: '/three.txt' });

    track(session.uploadAsset(textFile(), '/four.txt'));
    expect(postedOf('create_asset_upload')).to.have.length(3);
  });

  it('an upload of another session does not make this one busy', async () => {
    const { session, client } = await open();
    const other = await openAnother(client, 's2');
    track(other.uploadAsset(textFile()));
    track(session.uploadAsset(textFile()));
    expect(postedOf('create_asset_upload').map((m) => m.sessionId)).to.deep.equal(['s2', 's1']);
  });
});

describe('PedelecSession.readAsset', () => {
  const ticket = {
    downloadUrl: 'http://127.0.0.1:9/download/d1',
    token: 'dl-token',
    name: 'data.json',
    mimeType: 'application/json',
    modifiedAt: 1_700_000_000_000,
    path: '/docs/data.json',
  };
  const bytesResponse = (bytes: BlobPart) => new Response(new Blob([bytes]), { status: 200 });

  async function read(type: 'text' | 'json' | 'file', body: () => Response, t: object = ticket) {
    const { session } = await open();
    fetchImpl = async () => body();
    const reading = session.readAsset('/docs/data.json', type as 'text');
    fake.respond(t, fake.last('create_asset_download'));
    return { reading: reading as Promise<unknown>, session };
  }

  it('rejects ASSET_PATH_INVALID for a bad path or type, posting nothing', async () => {
    const { session } = await open();
    const count = fake.posted.length;
    for (const p of ['docs/a.txt', '/', '/a/../b', '/a//b', '/a\\b', '']) {
      expectPedelecError(await rejectionOf(session.readAsset(p, 'text')), 'ASSET_PATH_INVALID');
    }
    for (const type of ['blob', 'TEXT', '', undefined]) {
      expectPedelecError(await rejectionOf(session.readAsset('/a.txt', type as 'text')), 'ASSET_PATH_INVALID');
    }
    expect(fake.posted.length).to.equal(count);
  });

  it('posts create_asset_download { sessionId, path } at once', async () => {
    const { session } = await open();
    track(session.readAsset('/docs/data.json', 'text'));
    const msg = fake.last();
    expect(msg).to.include({ type: 'create_asset_download', sessionId: 's1', path: '/docs/data.json' });
    expect(Object.keys(msg).sort()).to.deep.equal(['channelId', 'path', 'requestId', 'sessionId', 'type']);
  });

  const badTickets: [string, object][] = [
    ['no downloadUrl', { ...ticket, downloadUrl: undefined }],
    ['no token', { ...ticket, token: undefined }],
    ['a non-string token', { ...ticket, token: 5 }],
    ['no name', { ...ticket, name: undefined }],
    ['an invalid path', { ...ticket, path: 'docs/data.json' }],
  ];
  for (const [label, bad] of badTickets) {
    it(`rejects SDK_PROTOCOL_ERROR for a ticket with ${label}, without fetching`, async () => {
      const { reading } = await read('text', () => bytesResponse('x'), bad);
      expectPedelecError(await rejectionOf(reading), 'SDK_PROTOCOL_ERROR');
      expect(fetchCalls).to.have.length(0);
    });
  }

  it('GETs downloadUrl with the bearer token and credentials omit; "text" resolves the text', async () => {
    const { reading } = await read('text', () => bytesResponse('héllo ✓'));
    expect(await reading).to.equal('héllo ✓');
    expect(fetchCalls).to.have.length(1);
    const { url, init } = fetchCalls[0];
    expect(url).to.equal(ticket.downloadUrl);
    expect((init.method ?? 'GET').toUpperCase()).to.equal('GET');
    expect(new Headers(init.headers).get('Authorization')).to.equal('Bearer dl-token');
    expect(init.credentials).to.equal('omit');
  });

  it('"json" resolves the parsed value', async () => {
    const { reading } = await read('json', () => bytesResponse('{"a":[1,2,{"b":null}],"c":"d"}'));
    expect(await reading).to.deep.equal({ a: [1, 2, { b: null }], c: 'd' });
  });

  it('"file" resolves a File named from the ticket with the bytes', async () => {
    const bytes = new Uint8Array([0xff, 0x00, 0x41, 0xfe]);
    const { reading } = await read('file', () => bytesResponse(bytes), {
      ...ticket,
      name: 'image.bin',
      mimeType: 'application/octet-stream',
    });
    const file = (await reading) as File;
    expect(file).to.be.instanceOf(File);
    expect(file.name).to.equal('image.bin');
    expect(Array.from(new Uint8Array(await file.arrayBuffer()))).to.deep.equal([0xff, 0x00, 0x41, 0xfe]);
  });

  it('invalid UTF-8 rejects ASSET_TEXT_DECODE_FAILED (text and json)', async () => {
    const invalid = () => bytesResponse(new Uint8Array([0x61, 0xff, 0xfe, 0x62]));
    expectPedelecError(await rejectionOf((await read('text', invalid)).reading), 'ASSET_TEXT_DECODE_FAILED');
    expectPedelecError(await rejectionOf((await read('json', invalid)).reading), 'ASSET_TEXT_DECODE_FAILED');
  });

  it('bad JSON rejects ASSET_INVALID_JSON', async () => {
    const { reading } = await read('json', () => bytesResponse('{"a":'));
    expectPedelecError(await rejectionOf(reading), 'ASSET_INVALID_JSON');
  });

  it('an HTTP failure rejects with the response error when it has one', async () => {
    const missing = { code: 'ASSET_NOT_FOUND', message: 'no such file' };
    const { reading } = await read('text', () => jsonResponse({ error: missing }, 404));
    expect(await rejectionOf(reading)).to.deep.equal(missing);
  });

  it('an HTTP failure without an error rejects ASSET_READ_FAILED', async () => {
    const { reading } = await read('text', () => new Response('gone', { status: 410 }));
    expectPedelecError(await rejectionOf(reading), 'ASSET_READ_FAILED');
  });

  it('a connection lost while the body streams in rejects ASSET_READ_FAILED (a PedelecError, not an Error)', async () => {
    const { session } = await open();
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"par'));
        controller.error(new TypeError('network connection lost'));
      },
    });
    fetchImpl = () => Promise.resolve(new Response(body, { status: 200 }));
    const reading = session.readAsset('/docs/data.json', 'text');
    fake.respond(ticket, fake.last('create_asset_download'));
    const error = await rejectionOf(reading);
    expect(error instanceof Error).to.equal(false);
    expectPedelecError(error, 'ASSET_READ_FAILED');
  });

  it('a network failure rejects ASSET_READ_FAILED', async () => {
    const { session } = await open();
    fetchImpl = () => Promise.reject(new TypeError('NetworkError when attempting to fetch resource.'));
    const reading = session.readAsset('/docs/data.json', 'text');
    fake.respond(ticket, fake.last('create_asset_download'));
    expectPedelecError(await rejectionOf(reading), 'ASSET_READ_FAILED');
  });
});

describe('PedelecSession assets once ended', () => {
  const file = () => new File(['x'], 'a.txt', { type: 'text/plain' });

  async function expectAllEnded(session: PedelecSession): Promise<void> {
    const count = fake.posted.length;
    for (const attempt of [
      () => session.listAssets(),
      () => session.uploadAsset(file(), '/a.txt'),
      () => session.readAsset('/a.txt', 'text'),
    ]) {
      expectPedelecError(await rejectionOf(attempt()), 'SESSION_ENDED', { sessionId: session.sessionId });
    }
    expect(fake.posted.length, 'nothing posted').to.equal(count);
    expect(fetchCalls).to.have.length(0);
  }

  it('reject SESSION_ENDED with no request after end()', async () => {
    const { session } = await open();
    const ending = session.end();
    fake.respond({}, fake.last('end_session'));
    await ending;
    await expectAllEnded(session);
  });

  it('reject SESSION_ENDED with no request after an ended event', async () => {
    const { session } = await open();
    fake.event('s1', 'ended');
    await expectAllEnded(session);
  });

  it('reject SESSION_ENDED with no request while end() is in flight', async () => {
    const { session } = await open();
    track(session.end());
    await expectAllEnded(session);
  });

  it('work again after a failed end()', async () => {
    const { session } = await open();
    const ending = track(session.end());
    fake.fail({ code: 'F', message: 'f' }, fake.last('end_session'));
    await settled(ending.promise);
    expect(ending.rejected).to.equal(true);
    track(session.listAssets());
    expect(fake.last()).to.include({ type: 'list_assets', sessionId: 's1' });
  });
});
