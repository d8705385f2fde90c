/**
 * PedelecSession.prepare() (docs/design/sdk-api.md "prepare"): posts prepare_session at once, runs as a
 * turn of its own (no chat deltas, tool calls with turnKind "prepare"), one at a time, once; failures
 * reported and retryable; a prepare_session refused after status_changed: error is still reported, and
 * a prepare is in flight from its first callback.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import type { PedelecError } from '../../../src/core/errors.js';
import type { ToolCallContext } from '../../../src/core/types.js';
import {
  fake,
  track,
  expectPedelecError,
  open,
  record,
  postedOf,
  plain,
  openSession,
  sessionHooks,
} from './harness.js';
import {
  rejection as rejectionOf,
  settled,
  track as trackState,
  type Tracked as TrackedState,
} from '../../support/promises.js';
import { nextTask } from '../../support/waits.js';

sessionHooks();

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
    expect(rec.deltas).to.deep.equal([]);
    expect(rec.chat, 'nor the message they built').to.deep.equal([]);
    expect(rec.errors, 'not a protocol error either').to.deep.equal([]);

    track(session.sendText('x'));
    fake.event('s1', 'chat_delta', { text: 'answer' });
    expect(rec.deltas.map((c) => c.text)).to.deep.equal(['answer']);
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

  it('on failure: sdk_error carrying the prepare turn, rejects, status back to what it was, usable and retryable after', async () => {
    const { session } = await open();
    const rec = record(session);
    const prepared = track(session.prepare());
    const turnId = rec.status[0].ctx.turnId;
    fake.fail({ code: 'PREPARE_BROKEN', message: 'cannot warm up' }, fake.last('prepare_session'));
    const error = await rejectionOf(prepared.promise);
    expectPedelecError(error, 'PREPARE_BROKEN');
    expect(rec.errors).to.have.length(1);
    expect(rec.errors[0].error).to.deep.equal({
      code: 'PREPARE_BROKEN',
      message: 'cannot warm up',
      details: undefined,
    });
    expect(rec.errors[0].ctx).to.include({ type: 'sdk_error', source: 'sdk', turnId, turnKind: 'prepare' });
    expect(session.getStatus()).to.equal('idle');
    expect(rec.status.map((s) => s.status)).to.deep.equal(['running', 'idle']);

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
    expect(prepared.error).to.deep.equal({ code: 'PROVIDER_DOWN', message: 'down', details: undefined });
    track(session.prepare());
    expect(postedOf('prepare_session')).to.have.length(2);
  });
});

describe('failed requests after status_changed: error', () => {
  // Tracked with test/support/promises.ts (`state`), on a session opened alone.
  const track = trackState;
  const open = openSession;

  it('a prepare_session refused after status_changed: error is still emitted through onError', async () => {
    const session = await open();
    const errors: PedelecError[] = [];
    session.onError((error) => errors.push(error));
    const prepared = track(session.prepare());
    const request = fake.last('prepare_session');
    fake.event('s1', 'status_changed', { status: 'error' });
    await settled(prepared.promise);
    expect(prepared.state).to.equal('rejected');
    const failure = { code: 'PROVIDER_START_FAILED', message: 'codex could not start', details: undefined };
    fake.fail(failure, request);
    await nextTask();
    // The error status is reported itself (SESSION_ERROR), then the request's failure.
    expect(errors.map((e) => e.code)).to.deep.equal(['SESSION_ERROR', 'PROVIDER_START_FAILED']);
    expect(errors[1], 'the request failure is reported').to.deep.equal(failure);
  });
});

describe('prepare() is in flight from its first callback', () => {
  // Tracked with test/support/promises.ts (`state`), on a session opened alone.
  type Tracked<T> = TrackedState<T>;
  const track = trackState;
  const open = openSession;

  it('sendText()/prepare() called from the running callback of a prepare wait for / share it (no SESSION_BUSY)', async () => {
    const session = await open();
    let sent: Tracked<void> | undefined;
    let again: Tracked<void> | undefined;
    session.onStatus((status, ctx) => {
      if (status === 'running' && ctx.turnKind === 'prepare' && !sent) {
        sent = track(session.sendText('after prepare'));
        again = track(session.prepare());
      }
    });
    const prepared = track(session.prepare());
    await nextTask();
    expect(again!.state, `prepare(): ${again!.error?.code}`).to.equal('pending');
    expect(again!.promise, 'the same promise object').to.equal(prepared.promise);
    expect(sent!.state, `sendText: ${sent!.error?.code}`).to.equal('pending');
    fake.respond({}, fake.last('prepare_session'));
    fake.event('s1', 'done');
    await fake.request('send_text');
    expect(prepared.state).to.equal('fulfilled');
    expect(fake.last().type, 'sendText posted once the prepare settled').to.equal('send_text');
  });
});
