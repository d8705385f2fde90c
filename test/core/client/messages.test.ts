/**
 * The messages a Pedelec client exchanges (bridge-protocol.md §1–2): one channel id per client and
 * numbered request ids, flat requests posted synchronously and never re-addressed by their payload,
 * and responses — results, errors, unknown or repeated ones — whatever their source field.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import { Pedelec, PEDELEC_PROTOCOL_VERSION } from '../../../src/core/index.js';
import { CHANNEL_ID, REQUEST_ID, UUID, fake, client, openSession, clientHooks } from './harness.js';
import { uninstallFakeChrome } from '../../support/fake-chrome.js';
import { rejection, settled, track } from '../../support/promises.js';
import { nextTask } from '../../support/waits.js';

clientHooks();

describe('Pedelec client: channel and request ids', () => {
  it('puts one channel id pedelec_<Date.now()>_<random> on every message (randomUUID when present)', async () => {
    const before = Date.now();
    const c = client();
    const after = Date.now();
    track(c.getSettings());
    track(c.listProviders());
    track(c.getApprovalStatus());
    track(c.request('send_text', { sessionId: 'x', text: 't' }));
    expect(fake.posted).to.have.length(4);
    const channelId = fake.posted[0]!.channelId;
    const m = CHANNEL_ID.exec(channelId);
    expect(m, channelId).to.not.equal(null);
    expect(Number(m![1])).to.be.within(before, after);
    if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') expect(m![2]).to.match(UUID);
    fake.posted.forEach((msg) => expect(msg.channelId).to.equal(channelId));
  });

  it("a request payload cannot re-address it: channelId, type and requestId are the client's own", async () => {
    const c = client();
    const pending = track(c.request('get_settings', { channelId: 'other', type: 'x', requestId: 'mine' }));
    const posted = fake.last();
    expect(posted.type).to.equal('get_settings');
    expect(posted.channelId).to.not.equal('other');
    expect(posted.requestId).to.match(/^sdk_\d+_\d+$/);
    fake.respond({ defaultProvider: null, defaultModels: {} }, posted);
    await settled(pending.promise);
    expect(pending.state).to.equal('fulfilled');
  });

  it('gives each client its own channel id', () => {
    const a = client();
    const b = client();
    track(a.getSettings());
    track(b.getSettings());
    expect(fake.posted[0]!.channelId).to.match(CHANNEL_ID);
    expect(fake.posted[1]!.channelId).to.match(CHANNEL_ID);
    expect(fake.posted[0]!.channelId).to.not.equal(fake.posted[1]!.channelId);
  });

  it('numbers requests sdk_<Date.now()>_<n>, n starting at 1 and incrementing per client', () => {
    const a = client();
    const before = Date.now();
    track(a.getSettings());
    track(a.request('anything'));
    track(a.listProviders());
    const after = Date.now();
    const ids = fake.posted.map((msg) => REQUEST_ID.exec(msg.requestId));
    ids.forEach((m, i) => {
      expect(m, fake.posted[i]!.requestId).to.not.equal(null);
      expect(Number(m![1])).to.be.within(before, after);
    });
    expect(ids.map((m) => m![2])).to.deep.equal(['1', '2', '3']);
    const b = client();
    track(b.getSettings());
    expect(REQUEST_ID.exec(fake.posted[3]!.requestId)![2]).to.equal('1');
  });

  it('ignores messages whose channelId is present and different; accepts messages without channelId', async () => {
    const c = client();
    const p = track(c.getSettings());
    const req = fake.last();
    const result = { defaultProvider: 'codex' };
    fake.emit({ channelId: 'pedelec_1_other', type: 'response', requestId: req.requestId, ok: true, result });
    fake.emit({
      channelId: 'pedelec_1_other',
      type: 'response',
      requestId: req.requestId,
      ok: false,
      error: { code: 'X', message: 'x' },
    });
    await nextTask();
    expect(p.state).to.equal('pending');
    fake.emit({ type: 'response', requestId: req.requestId, ok: true, result });
    await settled(p.promise);
    expect(p.state).to.equal('fulfilled');
    expect(p.value).to.deep.equal(result);
  });

  it('routes session events without channelId, and ignores those with another channelId', async () => {
    const c = client();
    const session = await openSession(c, 's1');
    const statuses: string[] = [];
    session.onStatus((s) => statuses.push(s));
    fake.emit({ channelId: 'pedelec_1_other', type: 'status_changed', sessionId: 's1', status: 'running' });
    expect(statuses).to.deep.equal([]);
    fake.emit({ type: 'status_changed', sessionId: 's1', status: 'running' });
    expect(statuses).to.deep.equal(['running']);
  });
});

describe('Pedelec client: posted messages', () => {
  it('posts one flat object {channelId, type, requestId, ...payload} exactly as built', () => {
    const c = client();
    const ref = { nested: true };
    track(c.request('send_text', { sessionId: 's1', text: 'hi', extra: undefined, ref }));
    const msg = fake.last();
    expect(msg).to.deep.equal({
      channelId: msg.channelId,
      type: 'send_text',
      requestId: msg.requestId,
      sessionId: 's1',
      text: 'hi',
      extra: undefined,
      ref: { nested: true },
    });
    expect(Object.prototype.hasOwnProperty.call(msg, 'extra'), 'undefined-valued keys are kept').to.equal(true);
    expect(msg.ref, 'no JSON round-trip').to.equal(ref);
    expect(msg).to.not.have.property('payload');
  });

  it('a request without payload posts exactly {channelId, type, requestId}', () => {
    const c = client();
    track(c.request('get_approval_status'));
    const msg = fake.last();
    expect(Object.keys(msg).sort()).to.deep.equal(['channelId', 'requestId', 'type']);
    expect(msg.type).to.equal('get_approval_status');
  });

  const firstRequests: Array<[string, (c: Pedelec) => Promise<unknown>, Record<string, unknown>]> = [
    ['listProviders()', (c) => c.listProviders(), { type: 'list_providers' }],
    ['getSettings()', (c) => c.getSettings(), { type: 'get_settings' }],
    ['getApprovalStatus()', (c) => c.getApprovalStatus(), { type: 'get_approval_status' }],
    ['checkAvailability()', (c) => c.checkAvailability(), { type: 'get_approval_status' }],
    ['createSession()', (c) => c.createSession(), { type: 'get_settings' }],
    [
      'createSession({provider})',
      (c) => c.createSession({ provider: 'codex' }),
      {
        type: 'create_session',
        input: {
          provider: 'codex',
          model: undefined,
          effort: undefined,
          effortLevel: 'default',
          skills: undefined,
          autoEndOnDisconnect: true,
        },
        callerSdkVersion: PEDELEC_PROTOCOL_VERSION,
      },
    ],
    [
      'createSession({provider, model})',
      (c) => c.createSession({ provider: 'codex', model: 'gpt-5' }),
      {
        type: 'create_session',
        input: {
          provider: 'codex',
          model: 'gpt-5',
          effort: undefined,
          effortLevel: undefined,
          skills: undefined,
          autoEndOnDisconnect: true,
        },
        callerSdkVersion: PEDELEC_PROTOCOL_VERSION,
      },
    ],
    ['resumeSession(id)', (c) => c.resumeSession('s9'), { type: 'resume_session', sessionId: 's9' }],
    [
      'request(type, payload)',
      (c) => c.request('list_assets', { sessionId: 's9' }),
      { type: 'list_assets', sessionId: 's9' },
    ],
  ];
  for (const [name, call, expected] of firstRequests) {
    it(`${name} posts its first request synchronously, before returning`, () => {
      const c = client();
      expect(fake.posted).to.have.length(0);
      track(call(c));
      expect(fake.posted).to.have.length(1);
      const msg = fake.posted[0]!;
      expect(msg).to.deep.equal({ channelId: msg.channelId, requestId: msg.requestId, ...expected });
      expect(msg.channelId).to.match(CHANNEL_ID);
      expect(msg.requestId).to.match(REQUEST_ID);
    });
  }
});

describe('Pedelec client: responses', () => {
  it('ok: true resolves with result', async () => {
    const c = client();
    const p = c.request('list_assets', { sessionId: 's' });
    const result = { assets: [{ name: 'a' }] };
    fake.respond(result);
    expect(await p).to.equal(result);
  });

  it('ok: true without result resolves with {} (key absent or undefined)', async () => {
    const c = client();
    const p1 = c.request('end_session', { sessionId: 's' });
    fake.emit({ channelId: fake.last().channelId, type: 'response', requestId: fake.last().requestId, ok: true });
    expect(await p1).to.deep.equal({});
    const p2 = c.request('end_session', { sessionId: 's' });
    fake.respond(undefined);
    expect(await p2).to.deep.equal({});
  });

  it('ignores a response with an unknown requestId, and a second response to an answered request', async () => {
    const c = client();
    const p = track(c.request('x'));
    const req = fake.last();
    expect(() =>
      fake.emit({ channelId: req.channelId, type: 'response', requestId: 'sdk_1_999', ok: true, result: 1 }),
    ).to.not.throw();
    expect(() =>
      fake.emit({
        channelId: req.channelId,
        type: 'response',
        requestId: 'sdk_1_999',
        ok: false,
        error: { code: 'E', message: 'm' },
      }),
    ).to.not.throw();
    await nextTask();
    expect(p.state).to.equal('pending');
    fake.respond('first', req);
    await settled(p.promise);
    expect(() => fake.fail({ code: 'LATE', message: 'late' }, req)).to.not.throw();
    await nextTask();
    expect(p.state).to.equal('fulfilled');
    expect(p.value).to.equal('first');
  });

  it('ok: false passes through an error with string code and message (with details when present)', async () => {
    const c = client();
    const p1 = c.request('create_session', {});
    fake.fail({ code: 'CREATE_SESSION_NOT_APPROVED', message: 'Not approved', details: { origin: 'x' } });
    expect(await rejection(p1)).to.deep.equal({
      code: 'CREATE_SESSION_NOT_APPROVED',
      message: 'Not approved',
      details: { origin: 'x' },
    });
    const p2 = c.request('get_settings');
    fake.fail({ code: 'APPROVAL_REJECTED', message: 'Rejected' });
    // Without details: an own `details` key all the same, as the public SDK's copies have.
    expect(await rejection(p2)).to.deep.equal({ code: 'APPROVAL_REJECTED', message: 'Rejected', details: undefined });
  });

  it('an unknown request type refused by the extension rejects with its error', async () => {
    const c = client();
    const p = c.request('no_such_type');
    fake.fail({ code: 'SDK_PROTOCOL_ERROR', message: 'unknown SDK request type' });
    expect(await rejection(p)).to.deep.equal({
      code: 'SDK_PROTOCOL_ERROR',
      message: 'unknown SDK request type',
      details: undefined,
    });
  });

  for (const [label, error] of [
    ['absent', undefined],
    ['null', null],
    ['a string', 'bad thing'],
    ['a number code', { code: 5, message: 'x' }],
    ['without message', { code: 'X' }],
    ['without code', { message: 'only a message' }],
  ] as const) {
    it(`ok: false with an error ${label} → SDK_TRANSPORT_ERROR "SDK transport request failed"`, async () => {
      const c = client();
      const p = c.request('get_settings');
      const req = fake.last();
      const response: Record<string, unknown> = {
        channelId: req.channelId,
        type: 'response',
        requestId: req.requestId,
        ok: false,
      };
      if (error !== undefined) response.error = error;
      fake.emit(response);
      const e = await rejection(p);
      expect(e.code).to.equal('SDK_TRANSPORT_ERROR');
      expect(e.message).to.equal('SDK transport request failed');
    });
  }

  it('never filters on source: responses with source "pedelec-sdk-extension", another source, or none all settle', async () => {
    const c = client();
    const a = c.request('x');
    const ra = fake.last();
    const b = c.request('x');
    const rb = fake.last();
    const d = c.request('x');
    const rd = fake.last();
    fake.emit({
      channelId: ra.channelId,
      type: 'response',
      requestId: ra.requestId,
      ok: true,
      result: 'a',
      source: 'pedelec-sdk-extension',
    });
    fake.emit({ channelId: rb.channelId, type: 'response', requestId: rb.requestId, ok: true, result: 'b' });
    fake.emit({
      channelId: rd.channelId,
      type: 'response',
      requestId: rd.requestId,
      ok: false,
      error: { code: 'C', message: 'c' },
      source: 'elsewhere',
    });
    expect(await a).to.equal('a');
    expect(await b).to.equal('b');
    expect(await rejection(d)).to.deep.equal({ code: 'C', message: 'c', details: undefined });
  });

  it('never filters on source for session events either', async () => {
    const c = client();
    const session = await openSession(c, 's1');
    const statuses: string[] = [];
    session.onStatus((s) => statuses.push(s));
    fake.event('s1', 'status_changed', { status: 'running', source: 'pedelec-sdk-extension' });
    fake.event('s1', 'status_changed', { status: 'idle' });
    expect(statuses).to.deep.equal(['running', 'idle']);
  });

  it('rejections are plain PedelecError objects, not Error instances', async () => {
    const c = client({ bridgeTimeoutMs: 10 });
    const errors: any[] = [];
    const p1 = c.request('a');
    fake.fail({ code: 'E', message: 'm' });
    errors.push(await rejection(p1));
    const p2 = c.request('b');
    fake.fail('garbage');
    errors.push(await rejection(p2));
    errors.push(await rejection(c.request('c')));
    errors.push(await rejection(c.createSession({ model: 'm' } as any)));
    fake.throwOnPost = new Error('port closed');
    errors.push(await rejection(c.request('d')));
    fake.throwOnPost = undefined;
    uninstallFakeChrome();
    errors.push(await rejection(client().request('e')));
    for (const e of errors) {
      expect(e).to.not.be.instanceOf(Error);
      expect(Object.getPrototypeOf(e)).to.equal(Object.prototype);
      expect(e.code).to.be.a('string');
      expect(e.message).to.be.a('string');
    }
  });
});
