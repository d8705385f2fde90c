/**
 * Event contexts (docs/design/sdk-api.md "Event contexts"): the exact keys and values of each context, core-
 * or sdk-sourced, with or without the turn, never seq; and their types, checked by tsc.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import type { ToolCallContext } from '../../../src/core/types.js';
import {
  fake,
  PROVIDER,
  track,
  open,
  record,
  startTurn,
  plain,
  TURN_KEYS,
  expectKeys,
  expectBase,
  sessionHooks,
} from './harness.js';
import { settled } from '../../support/promises.js';

sessionHooks();

describe('PedelecSession: event contexts', () => {
  for (const [type, kind] of [
    ['chat_message', 'chat'],
    ['chat_delta', 'deltas'],
  ] as const) {
    it(`${type} context: exact keys, values, core-sourced with eventReceivedAt and the turn`, async () => {
      const { session } = await open();
      const rec = record(session);
      const turn = startTurn(session, rec);
      const t0 = Date.now();
      fake.event('s1', type, { seq: 12, text: 'hi' });
      const t1 = Date.now();
      const ctx = rec[kind][0]!.ctx;
      expectKeys(ctx, ['eventReceivedAt', ...TURN_KEYS]);
      expectBase(ctx, session, t0, t1);
      expect(ctx).to.include({
        type,
        source: 'core',
        turnId: turn.turnId,
        turnStartedAt: turn.turnStartedAt,
        turnKind: 'user',
      });
      expect(ctx.eventReceivedAt).to.be.within(t0, t1);
      expect(ctx.eventEmittedAt).to.be.at.least(ctx.eventReceivedAt);
    });
  }

  it('sdk_status_changed context: exact keys, no eventReceivedAt', async () => {
    const { session } = await open();
    const rec = record(session);
    const t0 = Date.now();
    track(session.sendText('x'));
    const ctx = rec.status[0].ctx;
    expectKeys(ctx, ['status', 'previousStatus', ...TURN_KEYS]);
    expectBase(ctx, session, t0);
    expect(ctx.turnStartedAt).to.be.within(t0, Date.now());
  });

  it('status_changed context outside a turn: no turn fields', async () => {
    const { session } = await open();
    const rec = record(session);
    fake.event('s1', 'status_changed', { seq: 1, status: 'running' });
    expectKeys(rec.status[0].ctx, ['status', 'previousStatus', 'eventReceivedAt']);
    expect(rec.status[0].ctx).to.include({
      type: 'status_changed',
      source: 'core',
      status: 'running',
      previousStatus: 'idle',
    });
  });

  it('tool call context: exact keys (deadline; signal a getter, made on first read), the turn, eventReceivedAt', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    let seen: ToolCallContext | undefined;
    session.onTool((_tool, _args, ctx) => {
      seen = ctx;
    });
    const t0 = Date.now();
    fake.event('s1', 'tool_call', { seq: 2, toolRequestId: 'tr9', tool: 'lookup', args: {} });
    const t1 = Date.now();
    expect(seen).to.not.equal(undefined);
    expectKeys(seen!, ['eventReceivedAt', 'toolRequestId', 'tool', 'deadline', 'via', ...TURN_KEYS]);
    // `signal` is an accessor the context inherits, so reading keys or serializing never makes it.
    expect('signal' in seen!).to.equal(true);
    expect(Object.getOwnPropertyDescriptor(Object.getPrototypeOf(seen!), 'signal')?.get).to.be.a('function');
    expect(JSON.parse(JSON.stringify(seen!))).to.not.have.property('signal');
    expect(seen!.signal).to.be.instanceOf(AbortSignal);
    expect(seen!.signal).to.equal(seen!.signal);
    // It works on what frameworks make of the context: a Proxy (Vue's reactive()), an object inheriting from it.
    expect(new Proxy(seen!, {}).signal).to.equal(seen!.signal);
    expect((Object.create(seen!) as ToolCallContext).signal).to.equal(seen!.signal);
    expectBase(plain(seen!), session, t0, t1);
    expect(plain(seen!)).to.include({
      type: 'tool_call',
      source: 'core',
      toolRequestId: 'tr9',
      tool: 'lookup',
      turnId: turn.turnId,
      turnKind: 'user',
      via: 'pedelec',
    });
    expect(seen!.eventReceivedAt).to.be.within(t0, t1);
  });

  it('never includes seq, whatever the event carried', async () => {
    const { session } = await open();
    const rec = record(session);
    const contexts: object[] = [];
    session.onTool((_t, _a, ctx) => {
      contexts.push(plain(ctx));
    });
    track(session.sendText('x'));
    fake.event('s1', 'chat_delta', { seq: 1, text: 'a' });
    fake.event('s1', 'tool_call', { seq: 2, toolRequestId: 'r', tool: 't', args: {} });
    fake.event('s1', 'status_changed', { seq: 3, status: 'running' });
    fake.event('s1', 'done', { seq: 4 });
    fake.event('s1', 'chat_delta', { seq: 5, text: 'outside' });
    fake.event('s1', 'error', { seq: 6, error: { code: 'E', message: 'e' } });
    fake.event('s1', 'ended', { seq: 7 });
    contexts.push(
      ...rec.chat.map((c) => c.ctx),
      ...rec.status.map((s) => s.ctx),
      ...rec.errors.map((e) => e.ctx),
      ...rec.ended,
    );
    expect(contexts.length).to.be.at.least(9);
    for (const ctx of contexts) expect(Object.keys(ctx)).to.not.include('seq');
  });

  it('the error event source/provider fields do not leak into the context', async () => {
    const { session } = await open();
    const rec = record(session);
    fake.event('s1', 'error', { error: { code: 'E', message: 'e' }, source: 'provider', provider: 'other' });
    expect(rec.errors[0].ctx.source).to.equal('core');
    expect(rec.errors[0].ctx.provider).to.equal(PROVIDER);
  });

  it('sdk_error of a failed send_text: exact keys, the turn, no eventReceivedAt', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    fake.fail({ code: 'F', message: 'f' }, turn.request);
    await settled(turn.sent.promise);
    expectKeys(rec.errors[0].ctx, TURN_KEYS);
    expect(rec.errors[0].ctx).to.include({ turnId: turn.turnId, turnStartedAt: turn.turnStartedAt, turnKind: 'user' });
  });

  it('sdk_error of a failed end(): exact keys, no turn, no eventReceivedAt', async () => {
    const { session } = await open();
    const rec = record(session);
    const ending = track(session.end());
    fake.fail({ code: 'F', message: 'f' }, fake.last('end_session'));
    await settled(ending.promise);
    expect(ending.rejected).to.equal(true);
    expectKeys(rec.errors[0].ctx, []);
  });
});

describe('PedelecSession: context types (checked by tsc)', () => {
  it('contexts have no index signature; chat and tool contexts require turn and receipt fields', async () => {
    const { session } = await open();
    const seen: unknown[] = [];
    const chatSeen: unknown[] = [];
    session.onChat((_text, ctx) => {
      const turnId: string = ctx.turnId;
      const turnStartedAt: number = ctx.turnStartedAt;
      const receivedAt: number = ctx.eventReceivedAt;
      // @ts-expect-error seq is protocol bookkeeping, never a context field
      chatSeen.push(turnId, turnStartedAt, receivedAt, ctx.seq);
    });
    session.onStatus((_status, ctx) => {
      // @ts-expect-error no index signature
      seen.push(ctx.seq);
    });
    session.onError((_error, ctx) => {
      // @ts-expect-error no index signature
      seen.push(ctx.anything);
    });
    session.onEnded((ctx) => {
      // @ts-expect-error no index signature
      seen.push(ctx.seq);
    });
    session.onTool((_tool, _args, ctx) => {
      const id: string = ctx.turnId;
      const receivedAt: number = ctx.eventReceivedAt;
      const deadline: number = ctx.deadline!;
      // @ts-expect-error no index signature
      seen.push(id, receivedAt, deadline, ctx.seq);
    });
    track(session.sendText('x'));
    fake.event('s1', 'chat_message', { seq: 1, text: 'a' });
    expect(chatSeen).to.have.length(4);
    expect(chatSeen[0]).to.be.a('string');
    expect(chatSeen[3], 'no seq at run time either').to.equal(undefined);
    expect(seen).to.deep.equal([undefined]);
  });
});
