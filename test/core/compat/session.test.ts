/**
 * Drop-in compatibility with the public Pedelec SDK (sdk-compat.md §1): a `PedelecSession`'s turns
 * and what they report through `onError`. Each rule is one test, written as an SDK user's page calls
 * the API, on the fake Chrome port.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import { settled } from '../../support/promises.js';
import { nextTask } from '../../support/waits.js';
import { fake, open, record, startTurn, sessionHooks } from '../session/harness.js';

sessionHooks();

describe('SDK compatibility: the session', () => {
  it('status_changed: error calls onError with SESSION_ERROR "session entered error status" and rejects the turn', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    fake.respond({}, turn.request);
    const received = Date.now();
    fake.event('s1', 'status_changed', { status: 'error' });
    expect(session.getStatus()).to.equal('error');
    expect(rec.errors.map((e) => e.error)).to.deep.equal([
      { code: 'SESSION_ERROR', message: 'session entered error status', details: { sessionId: 's1' } },
    ]);
    // Core's event, reported while the turn is still the current one.
    expect(rec.errors[0].ctx).to.include({ type: 'error', source: 'core', turnId: turn.turnId });
    expect(rec.errors[0].ctx.eventReceivedAt).to.be.at.least(received);
    expect(rec.log).to.deep.equal(['status:running', 'status:error', 'error:SESSION_ERROR']);
    await settled(turn.sent.promise);
    expect(turn.sent.error).to.deep.equal(rec.errors[0].error);
  });

  it('a request that fails after an error event is still reported through onError', async () => {
    const { session } = await open();
    const rec = record(session);
    // sendText: the error event rejects the turn; then send_text itself is refused.
    const turn = startTurn(session, rec);
    fake.event('s1', 'error', { error: { code: 'PROVIDER_DOWN', message: 'down' } });
    await settled(turn.sent.promise);
    expect(turn.sent.error.code).to.equal('PROVIDER_DOWN');
    fake.fail({ code: 'PROVIDER_START_FAILED', message: 'codex could not start' }, turn.request);
    await nextTask();
    expect(rec.errors.map((e) => e.error.code)).to.deep.equal(['PROVIDER_DOWN', 'PROVIDER_START_FAILED']);
    expect(rec.errors[1].ctx).to.include({ type: 'sdk_error', source: 'sdk' });

    // prepare(): the same.
    const prepared = session.prepare();
    const request = fake.last('prepare_session');
    fake.event('s1', 'error', { error: { code: 'PROVIDER_DOWN', message: 'down again' } });
    fake.fail({ code: 'PREPARE_BROKEN', message: 'cannot warm up' }, request);
    await settled(prepared);
    await nextTask();
    expect(rec.errors.map((e) => e.error.code).slice(2)).to.deep.equal(['PROVIDER_DOWN', 'PREPARE_BROKEN']);
  });
});
