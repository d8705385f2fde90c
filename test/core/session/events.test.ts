/**
 * What a PedelecSession does with Core's events (bridge-protocol.md §3): chat_delta, tool_call, done,
 * status_changed, error and ended, inside and outside a turn, only its own; and seq de-duplication.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import {
  fake,
  track,
  expectPedelecError,
  open,
  openAnother,
  record,
  postedOf,
  startTurn,
  TURN_KEYS,
  expectKeys,
  expectBase,
  sessionHooks,
} from './harness.js';
import { settled } from '../../support/promises.js';
import { nextTask } from '../../support/waits.js';

sessionHooks();

describe('PedelecSession: incoming events', () => {
  it('chat_delta during a user turn reaches onChatDelta with its text, as it came', async () => {
    const { session } = await open();
    const rec = record(session);
    track(session.sendText('x'));
    fake.event('s1', 'chat_delta', { text: 'Hel' });
    fake.event('s1', 'chat_delta', { text: 'lo' });
    expect(rec.deltas.map((c) => c.text)).to.deep.equal(['Hel', 'lo']);
  });

  it('chat_delta outside a turn → sdk_error SDK_PROTOCOL_ERROR keeping eventReceivedAt; the delta is dropped', async () => {
    const { session } = await open();
    const rec = record(session);
    const t0 = Date.now();
    fake.event('s1', 'chat_delta', { seq: 3, text: 'stray' });
    const t1 = Date.now();
    expect(rec.deltas).to.deep.equal([]);
    expect(rec.errors).to.have.length(1);
    expectPedelecError(rec.errors[0].error, 'SDK_PROTOCOL_ERROR');
    const ctx = rec.errors[0].ctx;
    expectKeys(ctx, ['eventReceivedAt']);
    expect(ctx).to.include({ type: 'sdk_error', source: 'sdk' });
    expect(ctx.eventReceivedAt).to.be.within(t0, t1);
    expect(session.getStatus()).to.equal('idle');
  });

  it('tool_call outside a turn → sdk_error SDK_PROTOCOL_ERROR keeping eventReceivedAt; no handler, no result, no status', async () => {
    const { session } = await open();
    const rec = record(session);
    const handled: string[] = [];
    session.onTool((tool) => handled.push(tool));
    const t0 = Date.now();
    fake.event('s1', 'tool_call', { toolRequestId: 'tr1', tool: 'lookup', args: {} });
    const t1 = Date.now();
    await nextTask();
    expect(handled).to.deep.equal([]);
    expect(postedOf('submit_tool_result')).to.have.length(0);
    expect(rec.status).to.deep.equal([]);
    expect(rec.errors).to.have.length(1);
    expectPedelecError(rec.errors[0].error, 'SDK_PROTOCOL_ERROR');
    expect(rec.errors[0].ctx).to.include({ type: 'sdk_error', source: 'sdk' });
    expect(rec.errors[0].ctx.eventReceivedAt).to.be.within(t0, t1);
  });

  it('tool_call sets waiting_tool_result (status_changed, core, eventReceivedAt, the turn)', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    const t0 = Date.now();
    fake.event('s1', 'tool_call', { toolRequestId: 'tr1', tool: 'lookup', args: {} });
    const t1 = Date.now();
    expect(session.getStatus()).to.equal('waiting_tool_result');
    const { ctx } = rec.status.at(-1)!;
    expectKeys(ctx, ['status', 'previousStatus', 'eventReceivedAt', ...TURN_KEYS]);
    expect(ctx).to.include({
      type: 'status_changed',
      source: 'core',
      status: 'waiting_tool_result',
      previousStatus: 'running',
      turnId: turn.turnId,
    });
    expect(ctx.eventReceivedAt).to.be.within(t0, t1);
  });

  it('done → idle (status_changed, core, eventReceivedAt) carrying the turn, and the turn finishes', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    fake.respond({}, turn.request);
    const t0 = Date.now();
    fake.event('s1', 'done', { seq: 1 });
    const t1 = Date.now();
    const { status, ctx } = rec.status.at(-1)!;
    expect(status).to.equal('idle');
    expectKeys(ctx, ['status', 'previousStatus', 'eventReceivedAt', ...TURN_KEYS]);
    expect(ctx).to.include({
      type: 'status_changed',
      source: 'core',
      previousStatus: 'running',
      turnId: turn.turnId,
      turnStartedAt: turn.turnStartedAt,
      turnKind: 'user',
    });
    expect(ctx.eventReceivedAt).to.be.within(t0, t1);
    await settled(turn.sent.promise);
    expect(turn.sent.resolved).to.equal(true);
    // The turn is over: later events carry no turn.
    fake.event('s1', 'status_changed', { status: 'running' });
    expect(rec.status.at(-1)!.ctx).to.not.have.any.keys(...TURN_KEYS);
  });

  it('status_changed idle / error carry the turn they finish', async () => {
    const { session } = await open();
    const rec = record(session);
    const a = startTurn(session, rec);
    fake.event('s1', 'status_changed', { status: 'idle' });
    expect(rec.status.at(-1)!.ctx).to.include({ status: 'idle', turnId: a.turnId, source: 'core' });
    await nextTask();
    const b = startTurn(session, rec);
    fake.event('s1', 'status_changed', { status: 'error' });
    expect(rec.status.at(-1)!.ctx).to.include({ status: 'error', turnId: b.turnId, source: 'core' });
  });

  it('error event → status error, onError (type error, source core, eventReceivedAt, the turn), turn rejected', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    const t0 = Date.now();
    const providerError = { code: 'PROVIDER_FAILED', message: 'boom', details: { line: 3 } };
    fake.event('s1', 'error', { seq: 4, error: providerError, source: 'provider', provider: 'codex' });
    const t1 = Date.now();
    expect(session.getStatus()).to.equal('error');
    const statusCtx = rec.status.at(-1)!.ctx;
    expect(statusCtx).to.include({
      type: 'status_changed',
      source: 'core',
      status: 'error',
      previousStatus: 'running',
      turnId: turn.turnId,
    });
    expect(statusCtx.eventReceivedAt).to.be.within(t0, t1);

    expect(rec.errors).to.have.length(1);
    expect(rec.errors[0].error).to.deep.equal(providerError);
    expectPedelecError(rec.errors[0].error, 'PROVIDER_FAILED');
    const ctx = rec.errors[0].ctx;
    expectKeys(ctx, ['eventReceivedAt', ...TURN_KEYS]);
    expect(ctx).to.include({
      type: 'error',
      source: 'core',
      turnId: turn.turnId,
      turnStartedAt: turn.turnStartedAt,
      turnKind: 'user',
    });
    expect(ctx.eventReceivedAt).to.be.within(t0, t1);
    await settled(turn.sent.promise);
    expect(turn.sent.rejected).to.equal(true);
    expect(turn.sent.error).to.deep.equal(providerError);
  });

  it('error event outside a turn → status error and onError without turn fields', async () => {
    const { session } = await open();
    const rec = record(session);
    fake.event('s1', 'error', { error: { code: 'CORE_ERR', message: 'x' } });
    expect(session.getStatus()).to.equal('error');
    expect(rec.errors).to.have.length(1);
    expectKeys(rec.errors[0].ctx, ['eventReceivedAt']);
    expect(rec.errors[0].ctx).to.include({ type: 'error', source: 'core' });
  });

  it('ended event → status ended (status_changed, core) and onEnded (type ended, core, eventReceivedAt)', async () => {
    const { session } = await open();
    const rec = record(session);
    const t0 = Date.now();
    fake.event('s1', 'ended', { seq: 9 });
    const t1 = Date.now();
    expect(session.getStatus()).to.equal('ended');
    expect(rec.status).to.have.length(1);
    expect(rec.status[0].ctx).to.include({
      type: 'status_changed',
      source: 'core',
      status: 'ended',
      previousStatus: 'idle',
    });
    expect(rec.ended).to.have.length(1);
    expectKeys(rec.ended[0], ['eventReceivedAt']);
    expect(rec.ended[0]).to.include({ type: 'ended', source: 'core' });
    expect(rec.ended[0].eventReceivedAt).to.be.within(t0, t1);
    expectBase(rec.ended[0], session, t0, t1);
  });

  it('ended event mid-turn: onEnded carries the turn before the turn rejects', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    fake.event('s1', 'ended');
    expect(rec.ended[0]).to.include({ turnId: turn.turnId, turnKind: 'user' });
    await settled(turn.sent.promise);
    expectPedelecError(turn.sent.error, 'SESSION_ENDED', { sessionId: 's1' });
  });

  it('ignores events addressed to another session', async () => {
    const { session } = await open();
    const rec = record(session);
    track(session.sendText('x'));
    const seen = rec.log.length;
    fake.event('other', 'chat_delta', { text: 'not mine' });
    fake.event('other', 'error', { error: { code: 'E', message: 'e' } });
    fake.event('other', 'ended');
    expect(rec.log.slice(seen)).to.deep.equal([]);
    expect(session.getStatus()).to.equal('running');
  });

  it('does not branch on the message source field', async () => {
    const { session } = await open();
    const rec = record(session);
    track(session.sendText('x'));
    fake.event('s1', 'chat_delta', { text: 'a', source: 'pedelec-sdk-extension' });
    expect(rec.deltas.map((c) => c.text)).to.deep.equal(['a']);
  });
});

describe('PedelecSession: seq de-duplication', () => {
  async function chatting() {
    const { session, client } = await open();
    const rec = record(session);
    track(session.sendText('x'));
    const chat = (text: string, seq?: unknown) =>
      fake.event('s1', 'chat_delta', seq === undefined ? { text } : { text, seq });
    return { session, client, rec, chat, texts: () => rec.deltas.map((c) => c.text) };
  }

  it('drops an event whose seq is ≤ the last seen seq', async () => {
    const { chat, texts } = await chatting();
    chat('a', 1);
    chat('b', 2);
    chat('b again', 2);
    chat('old', 1);
    chat('c', 5);
    chat('skipped back', 3);
    chat('d', 6);
    expect(texts()).to.deep.equal(['a', 'b', 'c', 'd']);
  });

  it('accepts seq 0 as the first seq', async () => {
    const { chat, texts } = await chatting();
    chat('zero', 0);
    chat('zero again', 0);
    expect(texts()).to.deep.equal(['zero']);
  });

  it('de-duplicates other event types too (a repeated error is not reported twice)', async () => {
    const { session, rec } = await chatting();
    fake.event('s1', 'error', { seq: 7, error: { code: 'E', message: 'e' } });
    fake.event('s1', 'error', { seq: 7, error: { code: 'E', message: 'e' } });
    expect(rec.errors).to.have.length(1);
    expect(session.getStatus()).to.equal('error');
  });

  it('always takes events without a numeric seq', async () => {
    const { chat, texts } = await chatting();
    chat('a', 5);
    chat('no seq');
    chat('no seq');
    chat('null seq', null);
    expect(texts()).to.deep.equal(['a', 'no seq', 'no seq', 'null seq']);
  });

  for (const bad of [-1, 1.5, '3', NaN, Infinity]) {
    it(`(ours) treats seq ${String(typeof bad === 'string' ? JSON.stringify(bad) : bad)} as absent, without poisoning de-duplication`, async () => {
      const { chat, texts } = await chatting();
      chat('first', 5);
      chat('bad', bad);
      chat('bad again', bad);
      chat('next', 6);
      chat('dup', 6);
      chat('older', 4);
      expect(texts()).to.deep.equal(['first', 'bad', 'bad again', 'next']);
    });
  }

  it('(ours) a malformed seq before any valid one does not swallow later events', async () => {
    const { chat, texts } = await chatting();
    chat('inf', Infinity);
    chat('big', 1e6 + 0.5);
    chat('zero', 0);
    chat('one', 1);
    chat('one again', 1);
    expect(texts()).to.deep.equal(['inf', 'big', 'zero', 'one']);
  });

  it('keeps seq per session', async () => {
    const { client, session: s1, rec: rec1 } = await chatting();
    const s2 = await openAnother(client, 's2');
    const rec2 = record(s2);
    track(s2.sendText('y'));
    fake.event('s1', 'chat_delta', { seq: 10, text: 's1-10' });
    fake.event('s2', 'chat_delta', { seq: 1, text: 's2-1' });
    fake.event('s2', 'chat_delta', { seq: 2, text: 's2-2' });
    fake.event('s1', 'chat_delta', { seq: 3, text: 's1-3' });
    fake.event('s2', 'chat_delta', { seq: 2, text: 's2-2 dup' });
    expect(rec1.deltas.map((c) => c.text)).to.deep.equal(['s1-10']);
    expect(rec2.deltas.map((c) => c.text)).to.deep.equal(['s2-1', 's2-2']);
    expect(s1).to.not.equal(s2);
  });
});
