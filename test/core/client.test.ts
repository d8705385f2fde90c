/**
 * Behaviour tests of the `Pedelec` client (spec/sdk-api.md "new Pedelec", "createSession", "Other
 * client methods", "Error shape", "Testing"; spec/bridge-protocol.md §1–§3), driven through the
 * fake Chrome port of test/support/fake-chrome.ts.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import { expect } from '../support/expect.js';
import { Pedelec, PEDELEC_EXTENSION_ID, PEDELEC_PROTOCOL_VERSION } from '../../src/core/index.js';
import type { PedelecOptions, PedelecSession } from '../../src/core/index.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../support/fake-chrome.js';
import { rejection, settled, track, type Tracked } from '../support/promises.js';
import { currentTask, nextTask } from '../support/waits.js';

// ───────────────────────────── helpers ─────────────────────────────

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `fn` with setTimeout wrapped, returning the delays it asked for. The monotonic clock reads a
 * whole millisecond meanwhile, so a delay computed as `(now + ms) - now` is `ms` exactly: Node's clock
 * has sub-microsecond fractions, where that sum rounds (1234 came out as 1234.0000000000002).
 */
function timerDelays(fn: () => void): unknown[] {
  const original = globalThis.setTimeout;
  const delays: unknown[] = [];
  (globalThis as any).setTimeout = (handler: any, delay?: any, ...args: any[]) => {
    delays.push(delay);
    return (original as any)(handler, delay, ...args);
  };
  const wholeMs = Math.floor(performance.now());
  performance.now = () => wholeMs; // an own property over Performance.prototype.now, deleted below
  try {
    fn();
  } finally {
    globalThis.setTimeout = original;
    delete (performance as { now?: unknown }).now;
  }
  return delays;
}

const UNAVAILABLE = { code: 'EXTENSION_UNAVAILABLE', message: 'Pedelec extension is unavailable.' };
const DISCONNECTED = { code: 'EXTENSION_DISCONNECTED', message: 'Pedelec extension disconnected.' };
const CHANNEL_ID = /^pedelec_(\d+)_(.+)$/;
const REQUEST_ID = /^sdk_(\d+)_(\d+)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const APPROVAL_HELD = [
  'get_settings',
  'list_providers',
  'create_session',
  'resume_session',
  'prepare_session',
  'list_assets',
  'create_asset_upload',
  'create_asset_download',
];
const NOT_HELD = ['get_approval_status', 'send_text', 'submit_tool_result', 'end_session'];

let fake: FakePort;
let clients: Pedelec[] = [];

function client(options?: PedelecOptions): Pedelec {
  const c = new Pedelec(options);
  clients.push(c);
  return c;
}

/** Creates a session with provider and model given, answering create_session with `sessionId`. */
async function openSession(
  c: Pedelec,
  sessionId = 's1',
  input: Record<string, unknown> = { provider: 'codex', model: 'gpt-5' },
) {
  const p = c.createSession(input as any);
  fake.respond({ sessionId }, fake.last('create_session'));
  return p;
}

/** Starts a user turn and answers its send_text request; the turn finishes on `done`. */
function startTurn(session: PedelecSession<string>): Tracked<void> {
  const turn = track(session.sendText('hello'));
  fake.respond({}, fake.last('send_text'));
  return turn;
}

function types(): string[] {
  return fake.posted.map((m) => m.type);
}

beforeEach(() => {
  fake = installFakeChrome();
  clients = [];
});

afterEach(() => {
  // Clears pending timers (every promise a test leaves pending is tracked, so nothing is unhandled).
  clients.forEach((c) => {
    try {
      (c as any).disconnect?.();
    } catch {
      // not part of these tests
    }
  });
  uninstallFakeChrome();
});

// ───────────────────────────── connection ─────────────────────────────

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

  it('reads chrome.runtime.connect at construction time, not at request time', async () => {
    uninstallFakeChrome();
    const early = client();
    fake = installFakeChrome();
    expect(await rejection(early.request('get_settings'))).to.deep.equal(UNAVAILABLE);
    expect(fake.connectArgs).to.equal(null);
    expect(fake.posted).to.have.length(0);
    const late = client();
    expect(fake.connectArgs).to.not.equal(null);
    const p = track(late.request('get_settings'));
    expect(fake.posted).to.have.length(1);
    fake.respond({ ok: 1 });
    await settled(p.promise);
    expect(p.state).to.equal('fulfilled');
  });

  for (const [label, opts] of [
    ['missing', { noConnect: true }],
    ['throwing', { connectThrows: true }],
  ] as const) {
    it(`chrome.runtime.connect ${label} → every request rejects EXTENSION_UNAVAILABLE "Pedelec extension is unavailable."`, async () => {
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
        expect(t.error, name).to.deep.equal(UNAVAILABLE);
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

// ───────────────────────────── ids ─────────────────────────────

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
    const result = { defaultProvider: 'codex', defaultModels: {} };
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

// ───────────────────────────── posting ─────────────────────────────

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
    ['createSession({provider})', (c) => c.createSession({ provider: 'codex' }), { type: 'get_settings' }],
    [
      'createSession({provider, model})',
      (c) => c.createSession({ provider: 'codex', model: 'gpt-5' }),
      {
        type: 'create_session',
        input: { provider: 'codex', model: 'gpt-5', skills: undefined, autoEndOnDisconnect: true },
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

// ───────────────────────────── responses ─────────────────────────────

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
    expect(await rejection(p2)).to.deep.equal({ code: 'APPROVAL_REJECTED', message: 'Rejected' });
  });

  it('an unknown request type refused by the extension rejects with its error', async () => {
    const c = client();
    const p = c.request('no_such_type');
    fake.fail({ code: 'SDK_PROTOCOL_ERROR', message: 'unknown SDK request type' });
    expect(await rejection(p)).to.deep.equal({ code: 'SDK_PROTOCOL_ERROR', message: 'unknown SDK request type' });
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
    expect(await rejection(d)).to.deep.equal({ code: 'C', message: 'c' });
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

// ───────────────────────────── timeouts ─────────────────────────────

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
    const p = c.createSession({ provider: 'codex' });
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
    const started = Date.now();
    const p = c.request('create_session', { input: {} });
    const req = fake.last();
    const e = await rejection(p);
    expect(Date.now() - started).to.be.at.least(60);
    expect(e).to.deep.equal({
      code: 'SDK_BRIDGE_TIMEOUT',
      message: 'Pedelec extension did not respond.',
      details: { requestId: req.requestId, type: 'create_session' },
    });
  });
});

// ───────────────────────────── postMessage throwing ─────────────────────────────

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

// ───────────────────────────── disconnect ─────────────────────────────

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

// ───────────────────────────── createSession ─────────────────────────────

describe('Pedelec client: createSession', () => {
  const tool = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    description: `The ${name} tool`,
    argsSchema: { type: 'object', properties: { n: { type: 'number' } } },
    ...extra,
  });

  for (const [label, skills, message] of [
    ['skills not an object', 'nope', 'skills must be an object'],
    ['guidance not a string', { guidance: 1, tools: [] }, 'skills.guidance must be a string'],
    ['an invalid tool name', { guidance: 'g', tools: [tool('1bad')] }, 'tool name is invalid'],
  ] as const) {
    it(`bad skills (${label}) reject INVALID_INPUT before anything is posted, as a rejected promise`, async () => {
      const c = client();
      let p!: Promise<unknown>;
      expect(() => (p = c.createSession({ provider: 'codex', model: 'gpt-5', skills } as any))).to.not.throw();
      const t = track(p);
      expect(fake.posted).to.have.length(0);
      await settled(t.promise);
      expect(t.state).to.equal('rejected');
      expect(t.error.code).to.equal('INVALID_INPUT');
      expect(t.error.message).to.equal(message);
      expect(fake.posted).to.have.length(0);
    });
  }

  it('normalizes skills before checking model without provider', async () => {
    const c = client();
    const e = await rejection(c.createSession({ model: 'gpt-5', skills: 'nope' } as any));
    expect(e.code).to.equal('INVALID_INPUT');
    expect(e.message).to.equal('skills must be an object');
  });

  it('model without provider → INVALID_INPUT "model cannot be provided without provider" (rejected, not thrown, nothing posted)', async () => {
    const c = client();
    let p!: Promise<unknown>;
    expect(() => (p = c.createSession({ model: 'gpt-5' } as any))).to.not.throw();
    const e = await rejection(p);
    expect(e.code).to.equal('INVALID_INPUT');
    expect(e.message).to.equal('model cannot be provided without provider');
    expect(fake.posted).to.have.length(0);
  });

  it('provider and model → create_session posted at once with the four input keys; returns the session', async () => {
    const c = client();
    const p = c.createSession({ provider: 'codex', model: 'gpt-5' });
    expect(types()).to.deep.equal(['create_session']);
    const msg = fake.last();
    expect(msg).to.deep.equal({
      channelId: msg.channelId,
      type: 'create_session',
      requestId: msg.requestId,
      input: { provider: 'codex', model: 'gpt-5', skills: undefined, autoEndOnDisconnect: true },
      callerSdkVersion: PEDELEC_PROTOCOL_VERSION,
    });
    expect(Object.keys(msg.input).sort()).to.deep.equal(['autoEndOnDisconnect', 'model', 'provider', 'skills']);
    expect('skills' in msg.input).to.equal(true);
    fake.respond({ sessionId: 'sess-1' });
    const session = await p;
    expect(session.sessionId).to.equal('sess-1');
    expect(session.provider).to.equal('codex');
    expect(session.model).to.equal('gpt-5');
  });

  it('provider only → get_settings, then create_session with defaultModels[provider]', async () => {
    const c = client();
    const p = c.createSession({ provider: 'claude' });
    expect(types()).to.deep.equal(['get_settings']);
    fake.respond({ defaultProvider: 'codex', defaultModels: { codex: 'gpt-5', claude: 'sonnet' } });
    await fake.request('create_session');
    expect(types()).to.deep.equal(['get_settings', 'create_session']);
    expect(fake.last().input).to.deep.equal({
      provider: 'claude',
      model: 'sonnet',
      skills: undefined,
      autoEndOnDisconnect: true,
    });
    fake.respond({ sessionId: 's2' });
    const session = await p;
    expect([session.sessionId, session.provider, session.model]).to.deep.equal(['s2', 'claude', 'sonnet']);
  });

  it('provider only without a default model for it → model stays undefined, still an own key', async () => {
    const c = client();
    const p = c.createSession({ provider: 'brand-new-provider' });
    fake.respond({ defaultProvider: null, defaultModels: { codex: 'gpt-5' } });
    await fake.request('create_session');
    expect(types()).to.deep.equal(['get_settings', 'create_session']);
    const input = fake.last().input;
    expect(Object.keys(input).sort()).to.deep.equal(['autoEndOnDisconnect', 'model', 'provider', 'skills']);
    expect('model' in input).to.equal(true);
    expect(input.model).to.equal(undefined);
    expect(input.provider).to.equal('brand-new-provider');
    fake.respond({ sessionId: 's3' });
    const session = await p;
    expect(session.provider).to.equal('brand-new-provider');
    expect(session.model).to.equal(undefined);
  });

  it('a provider code that Object.prototype has (constructor, toString) finds no default model through it', async () => {
    for (const provider of ['constructor', 'toString', '__proto__']) {
      const c = client();
      const p = c.createSession({ provider });
      fake.respond({ defaultProvider: null, defaultModels: { codex: 'gpt-5' } });
      await fake.request('create_session', (m) => m.channelId === c.channelId);
      expect(fake.last().input.model, provider).to.equal(undefined);
      fake.respond({ sessionId: `s_${provider}` });
      await p;
    }
  });

  it('neither → get_settings, list_providers, then create_session with the default provider and its model', async () => {
    const c = client();
    const p = c.createSession();
    expect(types()).to.deep.equal(['get_settings']);
    fake.respond({ defaultProvider: 'ollama', defaultModels: { ollama: 'llama3', codex: 'gpt-5' } });
    await fake.request('list_providers');
    expect(types()).to.deep.equal(['get_settings', 'list_providers']);
    fake.respond([
      { name: 'Codex', code: 'codex', available: false, error: 'not installed' },
      { name: 'Ollama', code: 'ollama', available: true, error: null },
    ]);
    await fake.request('create_session');
    expect(types()).to.deep.equal(['get_settings', 'list_providers', 'create_session']);
    expect(fake.last().input).to.deep.equal({
      provider: 'ollama',
      model: 'llama3',
      skills: undefined,
      autoEndOnDisconnect: true,
    });
    fake.respond({ sessionId: 's4' });
    const session = await p;
    expect([session.sessionId, session.provider, session.model]).to.deep.equal(['s4', 'ollama', 'llama3']);
  });

  it('neither, default provider without a default model → model undefined as an own key', async () => {
    const c = client();
    const p = track(c.createSession({}));
    fake.respond({ defaultProvider: 'codex', defaultModels: {} });
    await fake.request('list_providers');
    fake.respond([{ name: 'Codex', code: 'codex', available: true, error: null }]);
    await fake.request('create_session');
    const input = fake.last('create_session').input;
    expect('model' in input).to.equal(true);
    expect(input.model).to.equal(undefined);
    fake.respond({ sessionId: 's5' });
    await settled(p.promise);
    expect(p.state).to.equal('fulfilled');
  });

  it('neither, defaultProvider null → DEFAULT_PROVIDER_NOT_SET, nothing more posted', async () => {
    const c = client();
    const p = c.createSession();
    fake.respond({ defaultProvider: null, defaultModels: { codex: 'gpt-5' } });
    const e = await rejection(p);
    expect(e.code).to.equal('DEFAULT_PROVIDER_NOT_SET');
    expect(e.message).to.be.a('string');
    await nextTask();
    expect(types()).to.deep.equal(['get_settings']);
  });

  for (const [label, providers] of [
    ['missing from list_providers', [{ name: 'Codex', code: 'codex', available: true, error: null }]],
    ['available: false', [{ name: 'Claude', code: 'claude', available: false, error: 'CLI missing' }]],
  ] as const) {
    it(`neither, default provider ${label} → DEFAULT_PROVIDER_UNAVAILABLE with details {provider}`, async () => {
      const c = client();
      const p = c.createSession();
      fake.respond({ defaultProvider: 'claude', defaultModels: { claude: 'sonnet' } });
      await fake.request('list_providers');
      fake.respond(providers);
      const e = await rejection(p);
      expect(e.code).to.equal('DEFAULT_PROVIDER_UNAVAILABLE');
      expect(e.message).to.be.a('string');
      expect(e.details).to.deep.equal({ provider: 'claude' });
      await nextTask();
      expect(types()).to.deep.equal(['get_settings', 'list_providers']);
    });
  }

  it('rejects with the error of a failing step (get_settings, create_session)', async () => {
    const c = client();
    const p1 = c.createSession();
    fake.fail({ code: 'APPROVAL_REJECTED', message: 'The user said no.' });
    expect(await rejection(p1)).to.deep.equal({ code: 'APPROVAL_REJECTED', message: 'The user said no.' });
    const p2 = c.createSession({ provider: 'codex', model: 'm' });
    fake.fail({ code: 'CREATE_SESSION_NOT_APPROVED', message: 'Not approved.' });
    expect(await rejection(p2)).to.deep.equal({ code: 'CREATE_SESSION_NOT_APPROVED', message: 'Not approved.' });
  });

  for (const [given, sent] of [
    [undefined, true],
    [true, true],
    [false, false],
  ] as const) {
    it(`autoEndOnDisconnect ${String(given)} → ${sent} on the wire`, () => {
      const c = client();
      const input: Record<string, unknown> = { provider: 'codex', model: 'm' };
      if (given !== undefined) input.autoEndOnDisconnect = given;
      track(c.createSession(input as any));
      expect(fake.last().input.autoEndOnDisconnect).to.equal(sent);
    });
  }

  it('sends the skills manifest: guidance, and per tool name, description, argsSchema, timeoutMs only when given, never handler', () => {
    const c = client();
    const handler = () => 1;
    track(
      c.createSession({
        provider: 'codex',
        model: 'm',
        skills: {
          guidance: 'Use the tools.',
          tools: [tool('plain', { handler }), tool('slow', { timeoutMs: 5000 })] as any,
        },
      }),
    );
    const skills = fake.last('create_session').input.skills;
    expect(skills).to.deep.equal({
      guidance: 'Use the tools.',
      tools: [
        {
          name: 'plain',
          description: 'The plain tool',
          argsSchema: { type: 'object', properties: { n: { type: 'number' } } },
        },
        {
          name: 'slow',
          description: 'The slow tool',
          argsSchema: { type: 'object', properties: { n: { type: 'number' } } },
          timeoutMs: 5000,
        },
      ],
    });
    expect(skills.tools[0]).to.not.have.property('handler');
    expect(skills.tools[0]).to.not.have.property('timeoutMs');
  });

  for (const [label, result] of [
    ['{}', {}],
    ['no result', undefined],
  ] as const) {
    it(`create_session answered with ${label} → SDK_PROTOCOL_ERROR "create_session response did not include sessionId"`, async () => {
      const c = client();
      const p = c.createSession({ provider: 'codex', model: 'm' });
      fake.respond(result);
      const e = await rejection(p);
      expect(e.code).to.equal('SDK_PROTOCOL_ERROR');
      expect(e.message).to.equal('create_session response did not include sessionId');
    });
  }

  it('the same sessionId twice returns the same handle with its inline handlers replaced', async () => {
    const c = client();
    const calls: string[] = [];
    const first = await openSession(c, 'same', {
      provider: 'codex',
      model: 'm',
      skills: { guidance: 'g', tools: [tool('pick', { handler: () => (calls.push('first'), 'first') })] },
    });
    const second = await openSession(c, 'same', {
      provider: 'codex',
      model: 'm',
      skills: { guidance: 'g', tools: [tool('pick', { handler: () => (calls.push('second'), 'second') })] },
    });
    expect(second).to.equal(first);
    const turn = startTurn(second);
    fake.event('same', 'tool_call', { toolRequestId: 'tr1', tool: 'pick', args: { n: 1 } });
    await fake.request('submit_tool_result');
    expect(calls).to.deep.equal(['second']);
    const submit = fake.last('submit_tool_result');
    expect(submit.toolRequestId).to.equal('tr1');
    expect(submit.result).to.equal('second');
    fake.respond({}, submit);
    fake.event('same', 'done');
    await settled(turn.promise);
    expect(turn.state).to.equal('fulfilled');
  });
});

// ───────────────────────────── listProviders ─────────────────────────────

describe('Pedelec client: listProviders', () => {
  it('returns validated providers with extra fields dropped; unknown (non-empty) codes are accepted', async () => {
    const c = client();
    const p = c.listProviders();
    fake.respond([
      { name: 'Codex', code: 'codex', available: true, error: null, path: '/usr/bin/codex', version: '1.2' },
      { name: 'Future', code: 'future-provider', available: false, error: 'Not installed', secret: 'x' },
    ]);
    const providers = await p;
    expect(providers).to.deep.equal([
      { name: 'Codex', code: 'codex', available: true, error: null },
      { name: 'Future', code: 'future-provider', available: false, error: 'Not installed' },
    ]);
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

// ───────────────────────────── getSettings ─────────────────────────────

describe('Pedelec client: getSettings', () => {
  it('returns only defaultProvider and defaultModels (credentials and other fields dropped)', async () => {
    const c = client();
    const p = c.getSettings();
    fake.respond({
      defaultProvider: 'codex',
      defaultModels: { codex: 'gpt-5', 'future-provider': 'f1' },
      apiKey: 'sk-secret',
      credentials: { claude: { token: 'secret' } },
    });
    const settings = await p;
    expect(settings).to.deep.equal({
      defaultProvider: 'codex',
      defaultModels: { codex: 'gpt-5', 'future-provider': 'f1' },
    });
  });

  it('accepts defaultProvider null and an unknown provider code', async () => {
    const c = client();
    const p1 = c.getSettings();
    fake.respond({ defaultProvider: null, defaultModels: {} });
    expect(await p1).to.deep.equal({ defaultProvider: null, defaultModels: {} });
    const p2 = c.getSettings();
    fake.respond({ defaultProvider: 'brand-new', defaultModels: { 'brand-new': 'x1' } });
    expect(await p2).to.deep.equal({ defaultProvider: 'brand-new', defaultModels: { 'brand-new': 'x1' } });
  });

  for (const [label, result] of [
    ['absent', undefined],
    ['null', null],
    ['an array', []],
    ['a string', 'codex'],
    ['missing defaultProvider', { defaultModels: {} }],
    ['a numeric defaultProvider', { defaultProvider: 1, defaultModels: {} }],
    ['an empty defaultProvider', { defaultProvider: '', defaultModels: {} }],
    ['defaultModels null', { defaultProvider: 'codex', defaultModels: null }],
    ['defaultModels an array', { defaultProvider: 'codex', defaultModels: ['gpt-5'] }],
    ['a non-string model', { defaultProvider: 'codex', defaultModels: { codex: 5 } }],
    // Codes are non-empty strings (bridge-protocol.md §2), as keys of defaultModels too.
    [
      'an empty provider code in defaultModels',
      { defaultProvider: 'codex', defaultModels: { codex: 'gpt-5', '': 'x' } },
    ],
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

// ───────────────────────────── getApprovalStatus ─────────────────────────────

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

  it('resolves the fallback when the port disconnects while it is pending, and after that', async () => {
    const c = client();
    const p = c.getApprovalStatus();
    fake.disconnect();
    expect(await p).to.deep.equal(fallback());
    expect(await c.getApprovalStatus()).to.deep.equal(fallback());
  });

  it('rejects on any other error (a refusal, a timeout)', async () => {
    const c = client({ bridgeTimeoutMs: 20 });
    const p = c.getApprovalStatus();
    fake.fail({ code: 'SOMETHING_ELSE', message: 'no' });
    expect(await rejection(p)).to.deep.equal({ code: 'SOMETHING_ELSE', message: 'no' });
    expect((await rejection(c.getApprovalStatus())).code).to.equal('SDK_BRIDGE_TIMEOUT');
  });
});

// ───────────────────────────── checkAvailability ─────────────────────────────

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
      error: { code: 'NATIVE_HOST_UNAVAILABLE', message: 'Desktop is not running.' },
    });
    expect(types()).to.deep.equal(['get_approval_status', 'get_settings']);
  });
});

// ───────────────────────────── resumeSession, request ─────────────────────────────

describe('Pedelec client: resumeSession and request', () => {
  for (const blank of ['', '   ']) {
    it(`resumeSession(${JSON.stringify(blank)}) rejects INVALID_INPUT without posting or throwing`, async () => {
      const c = client();
      let p!: Promise<unknown>;
      expect(() => (p = c.resumeSession(blank))).to.not.throw();
      const e = await rejection(p);
      expect(e.code).to.equal('INVALID_INPUT');
      expect(fake.posted).to.have.length(0);
    });
  }

  it('resumeSession posts resume_session {sessionId}; the handle has provider "" and model undefined, and gets its events', async () => {
    const c = client();
    const p = c.resumeSession('kept-1');
    const msg = fake.last();
    expect(msg).to.deep.equal({
      channelId: msg.channelId,
      type: 'resume_session',
      requestId: msg.requestId,
      sessionId: 'kept-1',
    });
    fake.respond({ sessionId: 'kept-1' });
    const session = await p;
    expect(session.sessionId).to.equal('kept-1');
    expect(session.provider).to.equal('');
    expect(session.model).to.equal(undefined);
    const statuses: string[] = [];
    session.onStatus((s) => statuses.push(s));
    fake.event('kept-1', 'status_changed', { status: 'running' });
    expect(statuses).to.deep.equal(['running']);
  });

  it('request() is the low-level request with the same rules', async () => {
    const c = client({ bridgeTimeoutMs: 20 });
    const ok = c.request<{ assets: unknown[] }>('list_assets', { sessionId: 's1' });
    expect(fake.last()).to.deep.include({ type: 'list_assets', sessionId: 's1' });
    fake.respond({ assets: [] });
    expect(await ok).to.deep.equal({ assets: [] });
    const failed = c.request('list_assets', { sessionId: 's1' });
    fake.fail({ code: 'THREAD_ACCESS_DENIED', message: 'denied' });
    expect(await rejection(failed)).to.deep.equal({ code: 'THREAD_ACCESS_DENIED', message: 'denied' });
    expect((await rejection(c.request('list_assets', { sessionId: 's1' }))).code).to.equal('SDK_BRIDGE_TIMEOUT');
  });
});

// ───────────────────────────── transport-wide errors ─────────────────────────────

describe('Pedelec client: transport-wide error messages', () => {
  async function twoSessions(c: Pedelec) {
    const s1 = await openSession(c, 's1');
    const s2 = await openSession(c, 's2');
    const log: any[] = [];
    for (const s of [s1, s2]) {
      s.onStatus((status, ctx) =>
        log.push({ id: s.sessionId, kind: 'status', status, type: ctx.type, source: ctx.source }),
      );
      s.onError((error, ctx) =>
        log.push({
          id: s.sessionId,
          kind: 'error',
          error,
          type: ctx.type,
          source: ctx.source,
          hasReceivedAt: 'eventReceivedAt' in ctx,
        }),
      );
    }
    return { s1, s2, log };
  }

  it('an error without sessionId fails every live session: sdk_status_changed error, sdk_error without eventReceivedAt, turn rejected', async () => {
    const c = client();
    const { s1, s2, log } = await twoSessions(c);
    const turn = startTurn(s1);
    log.length = 0;
    const error = { code: 'NATIVE_HOST_UNAVAILABLE', message: 'Native host missing', details: { host: 'x' } };
    fake.emit({ type: 'error', error });
    await settled(turn.promise);
    expect(turn.state).to.equal('rejected');
    expect(turn.error).to.deep.equal(error);
    for (const id of ['s1', 's2']) {
      expect(log).to.deep.include({ id, kind: 'status', status: 'error', type: 'sdk_status_changed', source: 'sdk' });
      expect(log).to.deep.include({ id, kind: 'error', error, type: 'sdk_error', source: 'sdk', hasReceivedAt: false });
    }
    expect(s1.getStatus()).to.equal('error');
    expect(s2.getStatus()).to.equal('error');
  });

  for (const [label, raw, expected] of [
    ['absent', undefined, { code: 'SDK_TRANSPORT_ERROR', message: 'Pedelec transport error' }],
    ['a string', 'native host crashed', { code: 'SDK_TRANSPORT_ERROR', message: 'native host crashed' }],
    ['an Error', new Error('native gone'), { code: 'SDK_TRANSPORT_ERROR', message: 'native gone' }],
    ['a number', 42, { code: 'SDK_TRANSPORT_ERROR', message: 'Pedelec transport error', details: 42 }],
    [
      'a code without message',
      { code: 'X' },
      { code: 'SDK_TRANSPORT_ERROR', message: 'Pedelec transport error', details: { code: 'X' } },
    ],
  ] as const) {
    it(`normalizes a transport-wide error that is ${label} (fallback SDK_TRANSPORT_ERROR "Pedelec transport error")`, async () => {
      const c = client();
      const { s1, log } = await twoSessions(c);
      const turn = startTurn(s1);
      log.length = 0;
      const message: Record<string, unknown> = { type: 'error' };
      if (raw !== undefined) message.error = raw;
      fake.emit(message);
      await settled(turn.promise);
      expect(turn.error).to.deep.equal(expected);
      expect(log.filter((e) => e.kind === 'error').map((e) => e.error)).to.deep.equal([expected, expected]);
    });
  }

  it('an error naming a session with a malformed id is ignored, not taken as transport-wide', async () => {
    const c = client();
    const { s1, log } = await twoSessions(c);
    const turn = startTurn(s1);
    for (const sessionId of [42, {}, false])
      fake.emit({ type: 'error', sessionId, error: { code: 'X', message: 'garbage' } });
    await nextTask();
    expect(log.filter((e) => e.kind === 'error')).to.deep.equal([]);
    expect(turn.state).to.equal('pending');
    // Absent or null: transport-wide.
    fake.emit({ type: 'error', sessionId: null, error: { code: 'X', message: 'real' } });
    await nextTask();
    expect(log.filter((e) => e.kind === 'error')).to.have.length(2);
  });

  it('accepts a transport-wide error carrying this channelId and ignores one with another channelId', async () => {
    const c = client();
    const { log } = await twoSessions(c);
    fake.emit({ channelId: 'pedelec_1_other', type: 'error', error: { code: 'E', message: 'm' } });
    expect(log).to.deep.equal([]);
    fake.emit({ channelId: fake.posted[0]!.channelId, type: 'error', error: { code: 'E', message: 'm' } });
    expect(log.filter((e) => e.kind === 'error')).to.have.length(2);
  });

  it('sessions stay usable afterwards: a new turn runs to completion', async () => {
    const c = client();
    const { s1 } = await twoSessions(c);
    const first = startTurn(s1);
    fake.emit({ type: 'error', error: { code: 'NATIVE_CONNECTION_CLOSED', message: 'closed' } });
    await settled(first.promise);
    expect(first.state).to.equal('rejected');
    const second = startTurn(s1);
    expect(fake.last().type).to.equal('send_text');
    expect(s1.getStatus()).to.equal('running');
    fake.event('s1', 'done');
    await settled(second.promise);
    expect(second.state).to.equal('fulfilled');
    expect(s1.getStatus()).to.equal('idle');
    const p = track(c.listProviders());
    fake.respond([]);
    await settled(p.promise);
    expect(p.state).to.equal('fulfilled');
  });

  it('does not touch sessions that have ended', async () => {
    const c = client();
    const { s1, s2, log } = await twoSessions(c);
    const ended = track(s2.end());
    fake.respond({}, fake.last('end_session'));
    await settled(ended.promise);
    expect(ended.state).to.equal('fulfilled');
    log.length = 0;
    fake.emit({ type: 'error', error: { code: 'E', message: 'm' } });
    expect(log.map((e) => e.id)).to.deep.equal(['s1', 's1']);
    expect(s1.getStatus()).to.equal('error');
    expect(s2.getStatus()).to.equal('ended');
  });
});

// ───────────────────────────── routing and garbage ─────────────────────────────

describe('Pedelec client: routing and garbage', () => {
  it('ignores events for unknown sessions', async () => {
    const c = client();
    const session = await openSession(c, 's1');
    const seen: string[] = [];
    session.onStatus((s) => seen.push(`status:${s}`));
    session.onError((e) => seen.push(`error:${e.code}`));
    session.onChat((t) => seen.push(`chat:${t}`));
    session.onEnded(() => seen.push('ended'));
    const turn = startTurn(session);
    seen.length = 0;
    const postedBefore = fake.posted.length;
    for (const [type, fields] of [
      ['chat_delta', { text: 'x', seq: 1 }],
      ['status_changed', { status: 'error', seq: 2 }],
      ['tool_call', { toolRequestId: 't1', tool: 'x', args: {}, seq: 3 }],
      ['error', { error: { code: 'E', message: 'm' }, seq: 4 }],
      ['done', { seq: 5 }],
      ['ended', { seq: 6 }],
    ] as const) {
      expect(() => fake.event('ghost', type, fields)).to.not.throw();
    }
    await nextTask();
    expect(seen).to.deep.equal([]);
    expect(fake.posted).to.have.length(postedBefore);
    expect(turn.state).to.equal('pending');
    fake.event('s1', 'chat_delta', { text: 'hi' });
    fake.event('s1', 'done');
    await settled(turn.promise);
    expect(seen).to.deep.equal(['chat:hi', 'status:idle']);
    expect(turn.state).to.equal('fulfilled');
  });

  it('ignores garbage messages without throwing and keeps working', async () => {
    const c = client();
    const session = await openSession(c, 's1');
    const seen: string[] = [];
    session.onStatus((s) => seen.push(`status:${s}`));
    session.onError((e) => seen.push(`error:${e.code}`));
    const pending = track(c.request('x'));
    const req = fake.last();
    const garbage: unknown[] = [
      null,
      undefined,
      'a string',
      '{"type":"response"}',
      42,
      NaN,
      true,
      [],
      [{ type: 'response', requestId: req.requestId, ok: true, result: 'array-wrapped' }],
      {},
      { type: 'response' },
      { type: 'response', requestId: 5, ok: true },
      { type: 'response', requestId: null, ok: false, error: null },
      { type: 42 },
      { type: 'chat_delta' },
      { type: 'status_changed', status: 'idle' },
      { type: 'tool_call', tool: 'x' },
      { type: 'done', sessionId: 99 },
      { sessionId: 's1' },
      { type: 'unknown_event', sessionId: 's1', seq: 1 },
      { requestId: req.requestId, ok: true, result: 'no type' },
      () => 'a function',
    ];
    for (const g of garbage) expect(() => fake.emit(g), String(g)).to.not.throw();
    await nextTask();
    expect(pending.state).to.equal('pending');
    expect(seen).to.deep.equal([]);
    fake.respond('ok', req);
    await settled(pending.promise);
    expect(pending.state).to.equal('fulfilled');
    expect(pending.value).to.equal('ok');
    const turn = startTurn(session);
    fake.event('s1', 'done');
    await settled(turn.promise);
    expect(turn.state).to.equal('fulfilled');
  });
});
