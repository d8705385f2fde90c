/**
 * Turns and listeners (spec/sdk-api.md), found in review; each test failed before its fix: a request
 * refused after `status_changed: error` is still reported; prepare() is in flight from its first
 * callback; status changes made by a status listener arrive in order; an unsubscribed listener is not
 * called later in the same emit.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import { expect } from '../support/expect.js';
import { Pedelec, PedelecSession } from '../../src/core/index.js';
import type { PedelecError } from '../../src/core/errors.js';
import type { PedelecSessionStatus } from '../../src/core/types.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../support/fake-chrome.js';
import { settled, track, type Tracked } from '../support/promises.js';
import { nextTask } from '../support/waits.js';

let fake: FakePort;
let clients: Pedelec[] = [];

async function open(sessionId = 's1'): Promise<PedelecSession> {
  const client = new Pedelec();
  clients.push(client);
  const created = client.createSession({ provider: 'codex', model: 'gpt-5' });
  fake.respond({ sessionId }, fake.last('create_session'));
  return created;
}

beforeEach(() => {
  fake = installFakeChrome();
  clients = [];
});
afterEach(() => {
  clients.forEach((client) => client.disconnect());
  uninstallFakeChrome();
});

describe('failed requests after status_changed: error', () => {
  it('a send_text refused after status_changed: error is still emitted through onError', async () => {
    const session = await open();
    const errors: PedelecError[] = [];
    session.onError((error) => errors.push(error));
    const sent = track(session.sendText('hi'));
    const request = fake.last('send_text');
    fake.event('s1', 'status_changed', { status: 'error' });
    await settled(sent.promise);
    expect(sent.state).to.equal('rejected'); // SESSION_ERROR, as specified
    const failure = { code: 'PROVIDER_START_FAILED', message: 'codex could not start' };
    fake.fail(failure, request);
    await nextTask();
    expect(errors, 'the request failure is reported').to.deep.equal([failure]);
  });

  it('a prepare_session refused after status_changed: error is still emitted through onError', async () => {
    const session = await open();
    const errors: PedelecError[] = [];
    session.onError((error) => errors.push(error));
    const prepared = track(session.prepare());
    const request = fake.last('prepare_session');
    fake.event('s1', 'status_changed', { status: 'error' });
    await settled(prepared.promise);
    expect(prepared.state).to.equal('rejected');
    const failure = { code: 'PROVIDER_START_FAILED', message: 'codex could not start' };
    fake.fail(failure, request);
    await nextTask();
    expect(errors, 'the request failure is reported').to.deep.equal([failure]);
  });
});

describe('prepare() is in flight from its first callback', () => {
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

describe('listeners changed during an emit', () => {
  it('a status change made by a status listener reaches the other listeners after the current one, not before', async () => {
    const session = await open();
    fake.event('s1', 'error', { error: { code: 'E', message: 'e' } }); // status error, no turn
    session.onStatus((status) => {
      if (status === 'idle') track(session.sendText('queued')); // "when idle, send the next message"
    });
    const seen: [PedelecSessionStatus, PedelecSessionStatus][] = [];
    session.onStatus((status, ctx) => seen.push([status, ctx.previousStatus]));
    fake.event('s1', 'status_changed', { status: 'idle' });
    expect(session.getStatus()).to.equal('running');
    expect(seen).to.deep.equal([
      ['idle', 'error'],
      ['running', 'idle'],
    ]);
  });

  it('a listener unsubscribed by an earlier listener of the same emit is not called', async () => {
    const session = await open();
    const calls: string[] = [];
    let offB = () => {};
    session.onStatus(() => {
      calls.push('A');
      offB();
    });
    offB = session.onStatus(() => calls.push('B'));
    track(session.sendText('x'));
    expect(calls).to.deep.equal(['A']);
  });
});
