/**
 * How a Pedelec client connects (docs/design/sdk-api.md "new Pedelec()"): to the production extension id or
 * the given one, reading chrome.runtime.connect at construction; without it (missing, throwing, no
 * chrome at all) every request rejects EXTENSION_UNAVAILABLE while availability checks still answer.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import { Pedelec, PEDELEC_EXTENSION_ID } from '../../../src/core/index.js';
import { UNAVAILABLE, client, clientHooks } from './harness.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../../support/fake-chrome.js';
import { rejection, settled, track } from '../../support/promises.js';
import { nextTask } from '../../support/waits.js';

// The tests here replace the port, or remove chrome, themselves: this file keeps its own `fake`.
let fake: FakePort;

clientHooks((port) => (fake = port));

describe('Pedelec client: connection', () => {
  it('connects at construction to the production extension id with port name "pedelec-sdk-external"', () => {
    expect(PEDELEC_EXTENSION_ID).to.equal('ogccgaminlphbkeghldidiiimajfdpag');
    client();
    expect(fake.connectArgs).to.deep.equal(['ogccgaminlphbkeghldidiiimajfdpag', { name: 'pedelec-sdk-external' }]);
  });

  it('passes an overridden extensionId to chrome.runtime.connect', () => {
    client({ extensionId: 'abcdefghijklmnopabcdefghijklmnop' });
    expect(fake.connectArgs).to.deep.equal(['abcdefghijklmnopabcdefghijklmnop', { name: 'pedelec-sdk-external' }]);
  });

  it('a client that could not connect tries again on its next request (a failed connection stays retryable)', async () => {
    uninstallFakeChrome();
    const early = client();
    expect(await rejection(early.request('get_settings'))).to.deep.equal(UNAVAILABLE);
    fake = installFakeChrome();
    const p = track(early.request('get_settings'));
    expect(fake.connectCount, 'connected by the request').to.equal(1);
    expect(
      fake.handshake.map((m) => m.type),
      'the handshake first',
    ).to.deep.equal(['sdk_hello', 'page_activity']);
    expect(fake.posted.map((m) => m.type)).to.deep.equal(['get_settings']);
    fake.respond({ defaultProvider: null });
    await settled(p.promise);
    expect(p.state).to.equal('fulfilled');
  });

  for (const [label, opts, unavailable] of [
    ['missing', { noConnect: true }, UNAVAILABLE],
    // What connect threw, under the code: an Error keeps its message.
    [
      'throwing',
      { connectThrows: true },
      { code: 'EXTENSION_UNAVAILABLE', message: 'Could not establish connection.' },
    ],
  ] as const) {
    it(`chrome.runtime.connect ${label} → every request rejects EXTENSION_UNAVAILABLE (${unavailable.message})`, async () => {
      uninstallFakeChrome();
      fake = installFakeChrome(opts);
      let c!: Pedelec;
      expect(() => (c = client())).to.not.throw();
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['request', () => c.request('get_settings')],
        ['listProviders', () => c.listProviders()],
        ['getSettings', () => c.getSettings()],
        ['createSession()', () => c.createSession()],
        ['createSession(provider)', () => c.createSession({ provider: 'codex' })],
        ['createSession(provider, model)', () => c.createSession({ provider: 'codex', model: 'gpt-5' })],
        ['resumeSession', () => c.resumeSession('s1')],
      ];
      for (const [name, call] of calls) {
        let p!: Promise<unknown>;
        expect(() => (p = call()), name).to.not.throw();
        const t = track(p);
        await nextTask();
        expect(t.state, `${name} rejects at once`).to.equal('rejected');
        expect(t.error, name).to.deep.equal(unavailable);
      }
      expect(fake.posted).to.have.length(0);
    });
  }

  it('new Pedelec() does not throw when globalThis.chrome is absent (or has no runtime); requests reject EXTENSION_UNAVAILABLE', async () => {
    uninstallFakeChrome();
    expect('chrome' in globalThis).to.equal(false);
    let c!: Pedelec;
    expect(() => (c = client())).to.not.throw();
    expect(await rejection(c.listProviders())).to.deep.equal(UNAVAILABLE);
    (globalThis as any).chrome = {};
    expect(() => (c = client())).to.not.throw();
    expect(await rejection(c.getSettings())).to.deep.equal(UNAVAILABLE);
  });

  it('an unavailable client answers getApprovalStatus and checkAvailability without rejecting', async () => {
    uninstallFakeChrome();
    const c = client();
    expect(await c.getApprovalStatus()).to.deep.equal({
      installed: false,
      approved: false,
      origin: location.origin,
      appConnected: false,
    });
    expect(await c.checkAvailability()).to.deep.equal({
      available: false,
      extension: { available: false },
      approval: { approved: false, origin: location.origin },
      desktop: { available: false, launchAttempted: false },
    });
  });
});
