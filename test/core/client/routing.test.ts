/**
 * Routing incoming messages (bridge-protocol.md §3): a transport-wide error fails every live session
 * (normalized, this channel only, sessions usable afterwards, ended ones untouched); events for unknown
 * sessions and garbage are ignored without throwing.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import { Pedelec } from '../../../src/core/index.js';
import { fake, client, openSession, startTurn, clientHooks } from './harness.js';
import { settled, track } from '../../support/promises.js';
import { nextTask } from '../../support/waits.js';

clientHooks();

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
