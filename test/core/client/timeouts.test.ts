/**
 * Request timeouts (docs/design/sdk-api.md "bridgeTimeoutMs", "approvalTimeoutMs"): SDK_BRIDGE_TIMEOUT after
 * bridgeTimeoutMs (30 000 by default, clamped to 1), late answers ignored; the requests the extension
 * may hold for approval wait approvalTimeoutMs, and createSession's approval wait covers every step.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import { sleep, timerDelays, APPROVAL_HELD, NOT_HELD, fake, client, types, clientHooks } from './harness.js';
import { rejection, settled, track } from '../../support/promises.js';
import { nextTask } from '../../support/waits.js';

clientHooks();

describe('Pedelec client: timeouts', () => {
  it('an unanswered request rejects SDK_BRIDGE_TIMEOUT "Pedelec extension did not respond." with details {requestId, type}', async () => {
    const c = client({ bridgeTimeoutMs: 20 });
    const p = c.request('get_approval_status');
    const req = fake.last();
    expect(await rejection(p)).to.deep.equal({
      code: 'SDK_BRIDGE_TIMEOUT',
      message: 'Pedelec extension did not respond.',
      details: { requestId: req.requestId, type: 'get_approval_status' },
    });
    const q = c.listProviders();
    const reqQ = fake.last();
    expect(await rejection(q)).to.deep.equal({
      code: 'SDK_BRIDGE_TIMEOUT',
      message: 'Pedelec extension did not respond.',
      details: { requestId: reqQ.requestId, type: 'list_providers' },
    });
  });

  it('a response arriving within bridgeTimeoutMs is not timed out', async () => {
    // Generous: a background tab may clamp timers to 1 s, and the answer must still come first.
    const c = client({ bridgeTimeoutMs: 8000 });
    const p = track(c.request('get_settings'));
    await sleep(30);
    expect(p.state).to.equal('pending');
    fake.respond('in time');
    await settled(p.promise);
    expect(p.state).to.equal('fulfilled');
  });

  it('ignores a late answer after the timeout (the multi-step method does not continue)', async () => {
    const c = client({ bridgeTimeoutMs: 20 });
    const p = c.createSession();
    const req = fake.last('get_settings');
    expect((await rejection(p)).code).to.equal('SDK_BRIDGE_TIMEOUT');
    expect(() => fake.respond({ defaultProvider: 'codex', defaultModels: { codex: 'gpt-5' } }, req)).to.not.throw();
    await nextTask();
    expect(types()).to.deep.equal(['get_settings']);
  });

  it('bridgeTimeoutMs defaults to 30 000 ms', () => {
    const c = client();
    const delays = timerDelays(() => {
      track(c.request('get_settings'));
    });
    expect(delays).to.deep.equal([30000]);
    fake.respond({});
  });

  it('uses the given bridgeTimeoutMs for its timer', () => {
    const c = client({ bridgeTimeoutMs: 1234 });
    const delays = timerDelays(() => {
      track(c.request('send_text', { sessionId: 's', text: 't' }));
    });
    expect(delays).to.deep.equal([1234]);
    fake.respond({});
  });

  for (const value of [0, -5, 0.5]) {
    it(`bridgeTimeoutMs ${value} is clamped to 1 ms (a timeout still happens)`, async () => {
      const c = client({ bridgeTimeoutMs: value });
      let p!: Promise<unknown>;
      const delays = timerDelays(() => {
        p = c.request('get_settings');
      });
      expect(delays).to.deep.equal([1]);
      expect((await rejection(p)).code).to.equal('SDK_BRIDGE_TIMEOUT');
    });
  }

  it('approvalTimeoutMs unset: approval-held requests use bridgeTimeoutMs like everything else', async () => {
    const c = client({ bridgeTimeoutMs: 20 });
    const held = APPROVAL_HELD.map((type) => track(c.request(type)));
    await Promise.all(held.map((t) => t.promise.catch(() => {})));
    held.forEach((t, i) => expect(t.error?.code, APPROVAL_HELD[i]).to.equal('SDK_BRIDGE_TIMEOUT'));
  });

  it('approvalTimeoutMs applies only to the request types the extension may hold for approval', async () => {
    const c = client({ bridgeTimeoutMs: 20, approvalTimeoutMs: 8000 });
    const held = APPROVAL_HELD.map((type) => ({ type, t: track(c.request(type)), req: fake.last() }));
    const notHeld = NOT_HELD.map((type) => ({ type, t: track(c.request(type)), req: fake.last() }));
    await Promise.all(notHeld.map(({ t }) => t.promise.catch(() => {})));
    await sleep(100);
    notHeld.forEach(({ type, t }) => {
      expect(t.state, type).to.equal('rejected');
      expect(t.error.code, type).to.equal('SDK_BRIDGE_TIMEOUT');
    });
    held.forEach(({ type, t }) => expect(t.state, `${type} waits for approval`).to.equal('pending'));
    held.forEach(({ type, req }) => fake.respond({ answered: type }, req));
    await Promise.all(held.map(({ t }) => settled(t.promise)));
    held.forEach(({ type, t }) => {
      expect(t.state, type).to.equal('fulfilled');
      expect(t.value).to.deep.equal({ answered: type });
    });
  });

  it('an approval-held request still times out after approvalTimeoutMs', async () => {
    const c = client({ bridgeTimeoutMs: 10, approvalTimeoutMs: 80 });
    let p!: Promise<unknown>;
    // Its timer is set for approvalTimeoutMs, not bridgeTimeoutMs.
    expect(timerDelays(() => (p = c.request('create_session', { input: {} })))).to.deep.equal([80]);
    const req = fake.last();
    const e = await rejection(p);
    expect(e).to.deep.equal({
      code: 'SDK_BRIDGE_TIMEOUT',
      message: 'Pedelec extension did not respond.',
      details: { requestId: req.requestId, type: 'create_session' },
    });
  });
});

describe('createSession: the approval wait covers every held request', () => {
  for (const [label, input] of [
    ['no provider', {}],
    ['a model without provider', { model: 'gpt-5' }],
  ] as const) {
    it(`${label}: the approval-held get_settings waits requestTimeoutMs, not bridgeTimeoutMs`, () => {
      const c = client({ bridgeTimeoutMs: 20 });
      const delays = timerDelays(() => void track(c.createWiredSession(input, { requestTimeoutMs: 400 })));
      expect(fake.last().type).to.equal('get_settings');
      expect(delays).to.deep.equal([400]);
    });
  }
});
