/**
 * A port that fails (bridge-protocol.md §4, reliability.md "Bridge faults"): postMessage throwing
 * rejects at once; a disconnect rejects every pending and later request EXTENSION_DISCONNECTED (or
 * chrome.runtime.lastError) and gives every live session an SDK-sourced error.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import { DISCONNECTED, fake, client, openSession, startTurn, clientHooks } from './harness.js';
import { rejection, settled, track } from '../../support/promises.js';
import { nextTask } from '../../support/waits.js';

clientHooks();

describe('Pedelec client: postMessage throwing', () => {
  it('rejects at once with EXTENSION_DISCONNECTED when postMessage throws an Error', async () => {
    const c = client();
    fake.throwOnPost = new Error('Attempting to use a disconnected port object');
    let p!: Promise<unknown>;
    expect(() => (p = c.request('get_settings'))).to.not.throw();
    const t = track(p);
    await nextTask();
    expect(t.state).to.equal('rejected');
    expect(t.error.code).to.equal('EXTENSION_DISCONNECTED');
    expect(t.error.message).to.be.a('string').and.not.equal('');
    expect(t.error).to.not.be.instanceOf(Error);
  });

  it('rejects at once with the thrown value when it is a {code, message} error', async () => {
    const c = client();
    fake.throwOnPost = { code: 'PORT_CLOSED', message: 'The port closed.', details: { why: 'test' } };
    const t = track(c.listProviders());
    await nextTask();
    expect(t.state).to.equal('rejected');
    expect(t.error).to.deep.equal({ code: 'PORT_CLOSED', message: 'The port closed.', details: { why: 'test' } });
  });

  it('a createSession follow-up whose post throws rejects createSession', async () => {
    const c = client();
    const t = track(c.createSession({ provider: 'codex' }));
    fake.throwOnPost = new Error('gone');
    fake.respond({ defaultProvider: null, defaultModels: {} });
    await settled(t.promise);
    expect(t.state).to.equal('rejected');
    expect(t.error.code).to.equal('EXTENSION_DISCONNECTED');
  });
});

describe('Pedelec client: disconnect', () => {
  it('rejects every pending request with {code: "EXTENSION_DISCONNECTED", message: "Pedelec extension disconnected."}', async () => {
    const c = client();
    const pending = [
      track(c.request('a')),
      track(c.getSettings()),
      track(c.listProviders()),
      track(c.createSession({ provider: 'codex', model: 'm' })),
    ];
    fake.disconnect();
    await Promise.all(pending.map((t) => settled(t.promise)));
    pending.forEach((t) => {
      expect(t.state).to.equal('rejected');
      expect(t.error).to.deep.equal(DISCONNECTED);
    });
  });

  it('uses chrome.runtime.lastError itself when it has string code and message', async () => {
    const c = client();
    const t = track(c.request('a'));
    fake.disconnect({ code: 'NATIVE_HOST_UNAVAILABLE', message: 'Native host is gone', details: { exit: 1 } });
    await settled(t.promise);
    expect(t.error).to.deep.equal({
      code: 'NATIVE_HOST_UNAVAILABLE',
      message: 'Native host is gone',
      details: { exit: 1 },
    });
    expect(await rejection(c.request('b'))).to.deep.equal({
      code: 'NATIVE_HOST_UNAVAILABLE',
      message: 'Native host is gone',
      details: { exit: 1 },
    });
  });

  it('keeps any other chrome.runtime.lastError as details of EXTENSION_DISCONNECTED', async () => {
    const c = client();
    const t = track(c.request('a'));
    const lastError = { message: 'Could not establish connection. Receiving end does not exist.' };
    fake.disconnect(lastError);
    await settled(t.promise);
    expect(t.error).to.deep.equal({ ...DISCONNECTED, details: lastError });
  });

  it('rejects every later request at once with the same error, posting nothing', async () => {
    const c = client();
    fake.disconnect({ message: 'Extension context invalidated.' });
    const expected = { ...DISCONNECTED, details: { message: 'Extension context invalidated.' } };
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['request', () => c.request('get_settings')],
      ['listProviders', () => c.listProviders()],
      ['getSettings', () => c.getSettings()],
      ['createSession()', () => c.createSession()],
      ['createSession(provider, model)', () => c.createSession({ provider: 'codex', model: 'm' })],
      ['resumeSession', () => c.resumeSession('s1')],
    ];
    for (const [name, call] of calls) {
      const t = track(call());
      await nextTask();
      expect(t.state, name).to.equal('rejected');
      expect(t.error, name).to.deep.equal(expected);
    }
    expect(fake.posted).to.have.length(0);
  });

  it('gives every live session an SDK-sourced error: status error, sdk_error, active turn rejected', async () => {
    const c = client();
    const s1 = await openSession(c, 's1');
    const s2 = await openSession(c, 's2');
    const log: any[] = [];
    for (const s of [s1, s2]) {
      s.onStatus((status, ctx) => log.push({ id: s.sessionId, status, type: ctx.type, source: ctx.source }));
      s.onError((error, ctx) =>
        log.push({ id: s.sessionId, error, type: ctx.type, source: ctx.source, received: 'eventReceivedAt' in ctx }),
      );
    }
    const turn = startTurn(s1);
    log.length = 0;
    fake.disconnect();
    await settled(turn.promise);
    expect(turn.state).to.equal('rejected');
    expect(turn.error).to.deep.equal(DISCONNECTED);
    for (const id of ['s1', 's2']) {
      expect(log).to.deep.include({ id, status: 'error', type: 'sdk_status_changed', source: 'sdk' });
      expect(log).to.deep.include({ id, error: DISCONNECTED, type: 'sdk_error', source: 'sdk', received: false });
    }
  });
});
