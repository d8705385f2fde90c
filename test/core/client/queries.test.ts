/**
 * What a Pedelec client asks the extension about itself (docs/design/sdk-api.md): listProviders and
 * getSettings, validated and stripped to their documented fields; getApprovalStatus with its
 * not-installed fallback; checkAvailability in every state, never rejecting.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import { fake, client, types, clientHooks } from './harness.js';
import { rejection } from '../../support/promises.js';
import { currentTask, nextTask } from '../../support/waits.js';

clientHooks();

describe('Pedelec client: listProviders', () => {
  it('returns validated providers with extra fields dropped; unknown (non-empty) codes are accepted', async () => {
    const c = client();
    const p = c.listProviders();
    fake.respond([
      { name: 'Codex', code: 'codex', available: true, isDefault: true, error: null, path: '/usr/bin/codex' },
      { name: 'Future', code: 'future-provider', available: false, isDefault: false, error: 'Not installed', x: 1 },
    ]);
    const providers = await p;
    expect(providers).to.deep.equal([
      { name: 'Codex', code: 'codex', available: true, isDefault: true, error: null },
      { name: 'Future', code: 'future-provider', available: false, isDefault: false, error: 'Not installed' },
    ]);
    expect(types(), 'isDefault given: no settings asked').to.deep.equal(['list_providers']);
  });

  it('an older extension without isDefault: the settings say which provider is the default', async () => {
    const c = client();
    const p = c.listProviders();
    await fake.answer('list_providers', [
      { name: 'Codex', code: 'codex', available: true, error: null },
      { name: 'Claude', code: 'claude', available: true, error: null },
    ]);
    await fake.answer('get_settings', { defaultProvider: 'claude' });
    expect((await p).map((i) => [i.code, i.isDefault])).to.deep.equal([
      ['codex', false],
      ['claude', true],
    ]);
  });

  it('isDefault on some providers only: recomputed for all from the settings', async () => {
    const c = client();
    const p = c.listProviders();
    await fake.answer('list_providers', [
      { name: 'Codex', code: 'codex', available: true, isDefault: true, error: null },
      { name: 'Claude', code: 'claude', available: true, error: null },
    ]);
    await fake.answer('get_settings', { defaultProvider: 'claude' });
    expect((await p).map((i) => i.isDefault)).to.deep.equal([false, true]);
  });

  it('an isDefault that is not a boolean → SDK_PROTOCOL_ERROR, and no settings asked', async () => {
    const c = client();
    const p = c.listProviders();
    fake.respond([{ name: 'Codex', code: 'codex', available: true, isDefault: 'yes', error: null }]);
    expect(await rejection(p)).to.deep.include({
      code: 'SDK_PROTOCOL_ERROR',
      message: 'list_providers response had invalid provider data',
    });
    expect(types()).to.deep.equal(['list_providers']);
  });

  it('an empty array is an empty list', async () => {
    const c = client();
    const p = c.listProviders();
    fake.respond([]);
    expect(await p).to.deep.equal([]);
  });

  for (const [label, result] of [
    ['an object', { providers: [] }],
    ['a string', 'codex'],
    ['null', null],
    ['absent', undefined],
  ] as const) {
    it(`a result that is ${label} → SDK_PROTOCOL_ERROR "list_providers response was not an array"`, async () => {
      const c = client();
      const p = c.listProviders();
      fake.respond(result);
      const e = await rejection(p);
      expect(e.code).to.equal('SDK_PROTOCOL_ERROR');
      expect(e.message).to.equal('list_providers response was not an array');
    });
  }

  const good = { name: 'Codex', code: 'codex', available: true, error: null };
  for (const [label, item] of [
    ['null', null],
    ['a string', 'codex'],
    ['an array', ['Codex', 'codex']],
    ['an empty name', { ...good, name: '' }],
    ['a numeric name', { ...good, name: 3 }],
    ['a missing name', { code: 'codex', available: true, error: null }],
    ['an empty code', { ...good, code: '' }],
    ['a numeric code', { ...good, code: 7 }],
    ['a string available', { ...good, available: 'yes' }],
    ['a missing available', { name: 'Codex', code: 'codex', error: null }],
    ['a numeric error', { ...good, error: 0 }],
    ['a missing error', { name: 'Codex', code: 'codex', available: true }],
  ] as const) {
    it(`an item with ${label} → SDK_PROTOCOL_ERROR "list_providers response had invalid provider data"`, async () => {
      const c = client();
      const p = c.listProviders();
      fake.respond([good, item]);
      const e = await rejection(p);
      expect(e.code).to.equal('SDK_PROTOCOL_ERROR');
      expect(e.message).to.equal('list_providers response had invalid provider data');
    });
  }
});

describe('Pedelec client: getSettings', () => {
  it('returns only defaultProvider (default models, credentials and other fields dropped)', async () => {
    const c = client();
    const p = c.getSettings();
    fake.respond({
      defaultProvider: 'codex',
      defaultModels: { codex: 'gpt-5', 'future-provider': 'f1' },
      apiKey: 'sk-secret',
      credentials: { claude: { token: 'secret' } },
    });
    const settings = await p;
    expect(settings).to.deep.equal({ defaultProvider: 'codex' });
  });

  it('accepts defaultProvider null and an unknown provider code', async () => {
    const c = client();
    const p1 = c.getSettings();
    fake.respond({ defaultProvider: null });
    expect(await p1).to.deep.equal({ defaultProvider: null });
    const p2 = c.getSettings();
    fake.respond({ defaultProvider: 'brand-new', defaultModels: { 'brand-new': 'x1' } });
    expect(await p2).to.deep.equal({ defaultProvider: 'brand-new' });
  });

  for (const [label, result] of [
    ['absent', undefined],
    ['null', null],
    ['an array', []],
    ['a string', 'codex'],
    ['missing defaultProvider', { defaultModels: {} }],
    ['a numeric defaultProvider', { defaultProvider: 1, defaultModels: {} }],
    ['an empty defaultProvider', { defaultProvider: '', defaultModels: {} }],
  ] as const) {
    it(`a result with ${label} → SDK_PROTOCOL_ERROR "get_settings response had invalid shape"`, async () => {
      const c = client();
      const p = c.getSettings();
      fake.respond(result);
      const e = await rejection(p);
      expect(e.code).to.equal('SDK_PROTOCOL_ERROR');
      expect(e.message).to.equal('get_settings response had invalid shape');
    });
  }
});

describe('Pedelec client: getApprovalStatus', () => {
  it('resolves the status the extension reports', async () => {
    const c = client();
    const p = c.getApprovalStatus();
    fake.respond({ installed: true, approved: true, origin: 'https://app.example', appConnected: true });
    expect(await p).to.deep.equal({
      installed: true,
      approved: true,
      origin: 'https://app.example',
      appConnected: true,
    });
    const q = c.getApprovalStatus();
    fake.respond({ installed: true, approved: false, origin: null, appConnected: false });
    expect(await q).to.deep.equal({ installed: true, approved: false, origin: null, appConnected: false });
  });

  const fallback = () => ({ installed: false, approved: false, origin: location.origin, appConnected: false });

  for (const code of ['EXTENSION_UNAVAILABLE', 'EXTENSION_DISCONNECTED']) {
    it(`resolves the not-installed fallback when the request fails with ${code}`, async () => {
      const c = client();
      const p = c.getApprovalStatus();
      fake.fail({ code, message: 'gone' });
      expect(await p).to.deep.equal(fallback());
    });
  }

  it('resolves the fallback when the port disconnects while it is pending; the next call asks on a new port', async () => {
    const c = client();
    const p = c.getApprovalStatus();
    fake.disconnect();
    expect(await p).to.deep.equal(fallback());
    const next = c.getApprovalStatus();
    expect(fake.connectCount).to.equal(2);
    fake.respond(
      { installed: true, approved: true, origin: 'o', appConnected: true },
      fake.last('get_approval_status'),
    );
    expect((await next).approved).to.equal(true);
  });

  it('rejects on any other error (a refusal, a timeout)', async () => {
    const c = client({ bridgeTimeoutMs: 20 });
    const p = c.getApprovalStatus();
    fake.fail({ code: 'SOMETHING_ELSE', message: 'no' });
    expect(await rejection(p)).to.deep.equal({ code: 'SOMETHING_ELSE', message: 'no', details: undefined });
    expect((await rejection(c.getApprovalStatus())).code).to.equal('SDK_BRIDGE_TIMEOUT');
  });
});

describe('Pedelec client: checkAvailability', () => {
  it('getApprovalStatus rejected → unavailable with error, extension available, nothing else sent', async () => {
    const c = client();
    const p = c.checkAvailability();
    fake.fail({ code: 'SOME_FAILURE', message: 'It broke.', details: { n: 1 } });
    expect(await p).to.deep.equal({
      available: false,
      extension: { available: true },
      approval: { approved: false, origin: location.origin },
      desktop: { available: false, launchAttempted: false },
      error: { code: 'SOME_FAILURE', message: 'It broke.', details: { n: 1 } },
    });
    await nextTask();
    expect(types()).to.deep.equal(['get_approval_status']);
  });

  it('getApprovalStatus timed out → the same shape with the SDK_BRIDGE_TIMEOUT error; never rejects', async () => {
    const c = client({ bridgeTimeoutMs: 20 });
    const result = await c.checkAvailability();
    const req = fake.last();
    expect(result).to.deep.equal({
      available: false,
      extension: { available: true },
      approval: { approved: false, origin: location.origin },
      desktop: { available: false, launchAttempted: false },
      error: {
        code: 'SDK_BRIDGE_TIMEOUT',
        message: 'Pedelec extension did not respond.',
        details: { requestId: req.requestId, type: 'get_approval_status' },
      },
    });
    expect(types()).to.deep.equal(['get_approval_status']);
  });

  it('not installed (the extension is gone) → extension unavailable, no error key', async () => {
    const c = client();
    const p = c.checkAvailability();
    fake.fail({ code: 'EXTENSION_UNAVAILABLE', message: 'x' });
    const result = await p;
    expect(result).to.deep.equal({
      available: false,
      extension: { available: false },
      approval: { approved: false, origin: location.origin },
      desktop: { available: false, launchAttempted: false },
    });
    expect(result).to.not.have.property('error');
    const after = client();
    fake.disconnect();
    fake.connectThrows = true; // and cannot be reached again
    expect(await after.checkAvailability()).to.deep.equal(result);
  });

  for (const appConnected of [true, false]) {
    it(`installed, not approved (appConnected ${appConnected}) → desktop.available ${appConnected}, nothing else sent`, async () => {
      const c = client();
      const p = c.checkAvailability();
      fake.respond({ installed: true, approved: false, origin: 'https://app.example', appConnected });
      const result = await p;
      expect(result).to.deep.equal({
        available: false,
        extension: { available: true },
        approval: { approved: false, origin: 'https://app.example' },
        desktop: { available: appConnected, launchAttempted: true },
      });
      await nextTask();
      expect(types()).to.deep.equal(['get_approval_status']);
    });
  }

  // Only a missing extension's status falls back to the page's origin; an installed one's origin is
  // reported as the extension gave it, null included.
  it('installed with origin null → approval.origin null, approved or not (no page-origin fallback)', async () => {
    const c = client();
    const p = c.checkAvailability();
    fake.respond({ installed: true, approved: false, origin: null, appConnected: false });
    expect((await p).approval).to.deep.equal({ approved: false, origin: null });
    const q = c.checkAvailability();
    fake.respond(
      { installed: true, approved: true, origin: null, appConnected: true },
      fake.last('get_approval_status'),
    );
    await fake.request('get_settings');
    fake.respond({ defaultProvider: null, defaultModels: {} }, fake.last('get_settings'));
    expect(await q).to.deep.equal({
      available: true,
      extension: { available: true },
      approval: { approved: true, origin: null },
      desktop: { available: true, launchAttempted: true },
    });
  });

  it('approved → probes get_settings right after the status (microtasks only); success → available (appConnected ignored)', async () => {
    const c = client();
    const p = c.checkAvailability();
    const task = currentTask();
    fake.respond({ installed: true, approved: true, origin: 'https://app.example', appConnected: false });
    await fake.request('get_settings');
    expect(task.ended, 'get_settings posted in the same task as the status: no timer in between').to.equal(false);
    expect(types()).to.deep.equal(['get_approval_status', 'get_settings']);
    fake.respond({ defaultProvider: 'codex', defaultModels: {} });
    const result = await p;
    expect(result).to.deep.equal({
      available: true,
      extension: { available: true },
      approval: { approved: true, origin: 'https://app.example' },
      desktop: { available: true, launchAttempted: true },
    });
    expect(types()).to.have.length(2);
  });

  it('approved, get_settings fails → unavailable, desktop unavailable, with error', async () => {
    const c = client();
    const p = c.checkAvailability();
    fake.respond({ installed: true, approved: true, origin: 'https://app.example', appConnected: true });
    await fake.request('get_settings');
    fake.fail({ code: 'NATIVE_HOST_UNAVAILABLE', message: 'Desktop is not running.' });
    expect(await p).to.deep.equal({
      available: false,
      extension: { available: true },
      approval: { approved: true, origin: 'https://app.example' },
      desktop: { available: false, launchAttempted: true },
      error: { code: 'NATIVE_HOST_UNAVAILABLE', message: 'Desktop is not running.', details: undefined },
    });
    expect(types()).to.deep.equal(['get_approval_status', 'get_settings']);
  });
});
