/**
 * PedelecSession fields and user turns (docs/design/sdk-api.md "PedelecSession", "sendText"): sessionId,
 * provider, model and turn ids; sendText() posts at once, sets running, resolves when both the request
 * and the turn are done, rejects (and reports) what fails, refuses SESSION_BUSY / SESSION_ENDED, waits
 * for a prepare() in flight; a send_text refused after status_changed: error is still reported.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import { PedelecSession } from '../../../src/core/index.js';
import type { PedelecError } from '../../../src/core/errors.js';
import {
  fake,
  PROVIDER,
  MODEL,
  track,
  expectPedelecError,
  open,
  record,
  postedOf,
  startTurn,
  openSession,
  sessionHooks,
} from './harness.js';
import { rejection as rejectionOf, settled, track as trackState } from '../../support/promises.js';
import { watchUnhandled } from '../../support/unhandled.js';
import { currentTask, nextTask } from '../../support/waits.js';

sessionHooks();

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
    expect(msg.operationId).to.match(/^turn_\d+_/);
  });

  it("the turn's id is its operationId on the wire: every context of the turn names it", async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    expect(turn.turnId).to.equal(turn.request.operationId);
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

  it('rejects when the request fails: emits it as sdk_error carrying the turn, status error, clears the turn', async () => {
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

    expect(session.getStatus(), 'a turn that failed to start leaves the session in error').to.equal('error');
    expect(rec.status.map((s) => s.status)).to.deep.equal(['running', 'error']);

    const again = track(session.sendText('again'));
    await nextTask();
    expect(again.rejected, 'turn must be cleared after the failure').to.equal(false);
    expect(fake.last().type).to.equal('send_text');
    expect(fake.last().text).to.equal('again');
  });

  for (const code of ['THREAD_BUSY', 'THREAD_ENDED', 'THREAD_ACCESS_DENIED', 'THREAD_NOT_FOUND', 'INVALID_INPUT']) {
    it(`a send_text Core refuses before the turn starts (${code}) leaves the status where it was`, async () => {
      const { session } = await open();
      const rec = record(session);
      const turn = startTurn(session, rec);
      fake.fail({ code, message: 'refused' }, turn.request);
      await settled(turn.sent.promise);
      expect(rec.status.map((s) => s.status)).to.deep.equal(['running', 'idle']);
    });
  }

  it('a request that fails after the turn finished (done first) still rejects and is emitted as sdk_error', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    fake.event('s1', 'done');
    await nextTask();
    expect(turn.sent.settled).to.equal(false);
    const failure = { code: 'LATE_FAILURE', message: 'send_text was refused', details: undefined };
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

describe('failed requests after status_changed: error', () => {
  // Tracked with test/support/promises.ts (`state`), on a session opened alone.
  const track = trackState;
  const open = openSession;

  it('a send_text refused after status_changed: error is still emitted through onError', async () => {
    const session = await open();
    const errors: PedelecError[] = [];
    session.onError((error) => errors.push(error));
    const sent = track(session.sendText('hi'));
    const request = fake.last('send_text');
    fake.event('s1', 'status_changed', { status: 'error' });
    await settled(sent.promise);
    expect(sent.state).to.equal('rejected'); // SESSION_ERROR, as specified
    const failure = { code: 'PROVIDER_START_FAILED', message: 'codex could not start', details: undefined };
    fake.fail(failure, request);
    await nextTask();
    // The error status is reported itself (SESSION_ERROR), then the request's failure.
    expect(errors.map((e) => e.code)).to.deep.equal(['SESSION_ERROR', 'PROVIDER_START_FAILED']);
    expect(errors[1], 'the request failure is reported').to.deep.equal(failure);
  });
});
