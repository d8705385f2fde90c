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
    const t = track(c.createSession());
    const settings = await fake.request('get_settings');
    fake.throwOnPost = new Error('gone');
    fake.respond({ defaultProvider: 'codex' }, settings);
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
    expect(c.unavailableReason, 'why, until a request connects again').to.deep.equal(t.error);
  });

  it('keeps any other chrome.runtime.lastError as details of EXTENSION_DISCONNECTED', async () => {
    const c = client();
    const t = track(c.request('a'));
    const lastError = { message: 'Could not establish connection. Receiving end does not exist.' };
    fake.disconnect(lastError);
    await settled(t.promise);
    expect(t.error).to.deep.equal({ ...DISCONNECTED, details: lastError });
  });

  it('the next request opens a new port (handshake first) and goes out on it; nothing pending is replayed', async () => {
    const c = client();
    const old = track(c.request('get_settings'));
    fake.disconnect();
    await settled(old.promise);
    expect(old.error).to.deep.equal(DISCONNECTED);
    expect(fake.connectCount).to.equal(1);
    const sentBefore = fake.posted.length;
    const handshakeBefore = fake.handshake.length;
    const next = track(c.getSettings());
    expect(fake.connectCount, 'connected again by the request').to.equal(2);
    expect(fake.handshake.slice(handshakeBefore).map((m) => m.type)).to.deep.equal(['sdk_hello', 'page_activity']);
    const posted = fake.posted.slice(sentBefore);
    expect(
      posted.map((m) => m.type),
      'the new request only',
    ).to.deep.equal(['get_settings']);
    expect(posted[0]!.requestId).to.not.equal(fake.posted[0]!.requestId);
    fake.respond({ defaultProvider: null }, posted[0]);
    expect(await next.promise).to.deep.equal({ defaultProvider: null });
  });

  it('requests made at once after a drop share one new port', async () => {
    const c = client();
    fake.disconnect();
    const both = [track(c.getSettings()), track(c.listProviders())];
    expect(fake.connectCount).to.equal(2);
    fake.respond({ defaultProvider: null }, fake.last('get_settings'));
    fake.respond([], fake.last('list_providers'));
    await Promise.all(both.map((t) => t.promise));
  });

  it('a failed reconnection rejects that request EXTENSION_UNAVAILABLE; the next one tries again', async () => {
    const c = client();
    fake.disconnect();
    fake.connectThrows = true;
    expect((await rejection(c.getSettings())).code).to.equal('EXTENSION_UNAVAILABLE');
    fake.connectThrows = false;
    const next = track(c.getSettings());
    fake.respond({ defaultProvider: 'codex' }, fake.last('get_settings'));
    expect(await next.promise).to.deep.equal({ defaultProvider: 'codex' });
  });

  it("an old port's disconnect, heard after a new port opened, changes nothing", async () => {
    const c = client();
    fake.disconnect();
    const next = track(c.getSettings());
    fake.disconnectPort(0);
    expect(c.unavailableReason, 'still connected on the new port').to.equal(null);
    fake.respond({ defaultProvider: null }, fake.last('get_settings'));
    expect(await next.promise).to.deep.equal({ defaultProvider: null });
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
