/**
 * PedelecSession.end() (docs/design/sdk-api.md "end"): posts end_session at once, ends the session once (also
 * mid-turn, also when Core ends it meanwhile), resolves without a request when already ending or
 * ended, and on failure reports, rejects and stays usable.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import {
  fake,
  track,
  expectPedelecError,
  open,
  openAnother,
  record,
  postedOf,
  startTurn,
  expectKeys,
  expectBase,
  sessionHooks,
} from './harness.js';
import { rejection as rejectionOf, settled } from '../../support/promises.js';
import { nextTask } from '../../support/waits.js';

sessionHooks();

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
    const failure = { code: 'CORE_GONE', message: 'core unreachable', details: undefined };
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
    expect(rec.deltas.map((c) => c.text)).to.deep.equal(['yes']);
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
