/**
 * SDK 0.4.6, chat and usage (docs/design/sdk-0.4.md "Chat and usage"): `onChat` gets each whole assistant
 * message and `onChatDelta` the fragments exactly as they arrive, nothing synthesized on today's
 * protocol; with a 0.1.x extension the kit gives `onChat` the text the fragments built, once the turn
 * ends or a tool call starts; `onChatMessage` is a deprecated alias of `onChat`; the chat and delta
 * contexts. `session.usage` is always an object that only grows, from `usage_updated` and snapshots,
 * ignoring invalid values silently; the kit's `onUsage` fires on a change only.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import type { PedelecError, PedelecSession } from '../../../src/core/index.js';
import { track } from '../../support/promises.js';
import { client, clientHooks, created, fake, legacyClient, resumed, userTurn } from './harness.js';

clientHooks();

/** A session on a 0.1.x extension (which refused the handshake), with a turn running. */
async function legacySession(): Promise<PedelecSession> {
  const c = await legacyClient();
  const pending = c.createSession({ provider: 'codex', model: 'gpt-5' });
  await fake.answer('create_session', { sessionId: 's1' });
  return pending;
}

/** Starts a 0.1.x turn: its request answered; its events carry no operationId. */
function legacyTurn(session: PedelecSession) {
  const turn = track(session.sendText('hi'));
  fake.respond({}, fake.last('send_text'));
  return turn;
}

describe('SDK 0.4.6 chat: onChat and onChatDelta on today’s protocol', () => {
  it('onChat gets each whole message once; onChatDelta each fragment exactly as it arrived', async () => {
    const { session, core } = await created(client());
    const chat: string[] = [];
    const deltas: string[] = [];
    session.onChat((text) => chat.push(text));
    session.onChatDelta((text) => deltas.push(text));
    const { turn, operationId } = userTurn(session);
    core.event('chat_delta', { operationId, text: 'Hel' });
    core.event('chat_delta', { operationId, text: 'lo ' });
    core.event('chat_message', { operationId, text: 'Hello ' });
    core.event('chat_message', { operationId, text: 'Done.' });
    core.completed(operationId);
    await turn.promise;
    expect(deltas).to.deep.equal(['Hel', 'lo ']);
    expect(chat).to.deep.equal(['Hello ', 'Done.']);
  });

  it('fragments without a whole message: onChat gets nothing made up from them', async () => {
    const { session, core } = await created(client());
    const chat: string[] = [];
    session.onChat((text) => chat.push(text));
    const { turn, operationId } = userTurn(session);
    core.event('chat_delta', { operationId, text: 'Hel' });
    core.event('chat_delta', { operationId, text: 'lo' });
    core.event('tool_call', { operationId, toolRequestId: 'r1', tool: 'noop', args: {} });
    core.completed(operationId);
    await turn.promise;
    expect(chat).to.deep.equal([]);
  });

  it('a whole message without fragments: onChatDelta gets nothing made up from it', async () => {
    const { session, core } = await created(client());
    const deltas: string[] = [];
    session.onChatDelta((text) => deltas.push(text));
    const { turn, operationId } = userTurn(session);
    core.event('chat_message', { operationId, text: 'Hello there' });
    core.completed(operationId);
    await turn.promise;
    expect(deltas).to.deep.equal([]);
  });

  it('a chat event naming no operation is an SDK_PROTOCOL_ERROR { sessionId, operationId: undefined }, delivered nowhere', async () => {
    const { session, core } = await created(client());
    const chat: string[] = [];
    const errors: PedelecError[] = [];
    session.onChat((text) => chat.push(text));
    session.onChatDelta((text) => chat.push(text));
    session.onError((error) => errors.push(error));
    const { turn, operationId } = userTurn(session);
    core.event('chat_delta', { text: 'stray' });
    core.event('chat_message', { text: 'stray' });
    expect(chat).to.deep.equal([]);
    expect(errors).to.deep.equal([
      {
        code: 'SDK_PROTOCOL_ERROR',
        message: 'chat_delta event did not match the active operation',
        details: { sessionId: 's1', operationId: undefined },
      },
      {
        code: 'SDK_PROTOCOL_ERROR',
        message: 'chat_message event did not match the active operation',
        details: { sessionId: 's1', operationId: undefined },
      },
    ]);
    core.completed(operationId);
    await turn.promise;
  });

  it('each session gets its own chat events, and a repeated seq is dropped', async () => {
    const c = client();
    const one = await created(c, { provider: 'codex' }, 's1');
    const two = await created(c, { provider: 'codex' }, 's2');
    const seen: string[] = [];
    for (const { session } of [one, two]) {
      session.onChat((text) => seen.push(`${session.sessionId} chat ${text}`));
      session.onChatDelta((text) => seen.push(`${session.sessionId} delta ${text}`));
    }
    const turns = [userTurn(one.session), userTurn(two.session)];
    fake.event('s1', 'chat_delta', { seq: 5, operationId: turns[0]!.operationId, text: 'a' });
    fake.event('s1', 'chat_delta', { seq: 5, operationId: turns[0]!.operationId, text: 'a' });
    fake.event('s2', 'chat_message', { seq: 5, operationId: turns[1]!.operationId, text: 'b' });
    fake.event('s2', 'chat_message', { seq: 5, operationId: turns[1]!.operationId, text: 'b' });
    expect(seen).to.deep.equal(['s1 delta a', 's2 chat b']);
  });

  it('the chat context is type "chat_message", the delta context "chat_delta": Core-sourced, naming the turn, no seq', async () => {
    const { session, core } = await created(client());
    const contexts: Array<Record<string, unknown>> = [];
    session.onChat((_text, ctx) => contexts.push({ ...ctx }));
    session.onChatDelta((_text, ctx) => contexts.push({ ...ctx }));
    const { turn, operationId } = userTurn(session);
    core.event('chat_delta', { operationId, text: 'Hi' });
    core.event('chat_message', { operationId, text: 'Hi' });
    core.completed(operationId);
    await turn.promise;
    expect(contexts.map((ctx) => ctx.type)).to.deep.equal(['chat_delta', 'chat_message']);
    for (const ctx of contexts) {
      expect(ctx).to.deep.include({
        sessionId: 's1',
        provider: 'codex',
        source: 'core',
        turnId: operationId,
        turnKind: 'user',
      });
      expect(ctx.turnStartedAt).to.be.a('number');
      expect(ctx.eventReceivedAt).to.be.a('number');
      expect(ctx.eventEmittedAt).to.be.a('number');
      expect(ctx).to.not.have.property('seq');
      expect(ctx).to.not.have.property('operationId');
    }
  });

  it('onChatMessage (deprecated) is onChat: the same whole messages and contexts; its unsubscribe works', async () => {
    const { session, core } = await created(client());
    const viaAlias: Array<[string, string | undefined]> = [];
    const viaChat: Array<[string, string | undefined]> = [];
    const off = session.onChatMessage((text, ctx) => viaAlias.push([text, ctx.type]));
    session.onChat((text, ctx) => viaChat.push([text, ctx.type]));
    const { turn, operationId } = userTurn(session);
    core.event('chat_delta', { operationId, text: 'One' });
    core.event('chat_message', { operationId, text: 'One.' });
    off();
    core.event('chat_message', { operationId, text: 'Two.' });
    core.completed(operationId);
    await turn.promise;
    expect(viaAlias).to.deep.equal([['One.', 'chat_message']]);
    expect(viaChat).to.deep.equal([
      ['One.', 'chat_message'],
      ['Two.', 'chat_message'],
    ]);
  });
});

describe('SDK 0.4.6 chat: (kit) with a 0.1.x extension', () => {
  it('(kit) 0.1.x: events without operationId are taken; onChat gets the text the fragments built when the turn ends (done), before the idle status', async () => {
    const session = await legacySession();
    const log: string[] = [];
    session.onChatDelta((text) => log.push(`delta ${text}`));
    session.onChat((text, ctx) => log.push(`chat ${text} (${ctx.type})`));
    session.onStatus((status) => log.push(`status ${status}`));
    session.onError((error) => log.push(`error ${error.code}`));
    const turn = legacyTurn(session);
    fake.event('s1', 'chat_delta', { seq: 1, text: 'Hel' });
    fake.event('s1', 'chat_delta', { seq: 2, text: 'lo' });
    fake.event('s1', 'done', { seq: 3 });
    await turn.promise;
    expect(log).to.deep.equal(['status running', 'delta Hel', 'delta lo', 'chat Hello (chat_message)', 'status idle']);
  });

  it('(kit) 0.1.x: a status_changed idle ends the turn and the message alike', async () => {
    const session = await legacySession();
    const chat: string[] = [];
    session.onChat((text) => chat.push(text));
    const turn = legacyTurn(session);
    fake.event('s1', 'chat_delta', { seq: 1, text: 'All ' });
    fake.event('s1', 'chat_delta', { seq: 2, text: 'set.' });
    fake.event('s1', 'status_changed', { seq: 3, status: 'idle' });
    await turn.promise;
    expect(chat).to.deep.equal(['All set.']);
  });

  it('(kit) 0.1.x: a tool call starting ends the message so far; the fragments after it make the next one', async () => {
    const session = await legacySession();
    const log: string[] = [];
    session.onChat((text) => log.push(`chat ${text}`));
    session.onTool('look', () => (log.push('tool look'), 'seen'));
    const turn = legacyTurn(session);
    fake.event('s1', 'chat_delta', { seq: 1, text: 'Let me ' });
    fake.event('s1', 'chat_delta', { seq: 2, text: 'look.' });
    fake.event('s1', 'tool_call', { seq: 3, toolRequestId: 'r1', tool: 'look', args: {} });
    await fake.answer('submit_tool_result');
    fake.event('s1', 'chat_delta', { seq: 4, text: 'Found it.' });
    fake.event('s1', 'done', { seq: 5 });
    await turn.promise;
    expect(log).to.deep.equal(['chat Let me look.', 'tool look', 'chat Found it.']);
  });

  it('(kit) 0.1.x: a turn without fragments gives onChat nothing', async () => {
    const session = await legacySession();
    const chat: string[] = [];
    session.onChat((text) => chat.push(text));
    const turn = legacyTurn(session);
    fake.event('s1', 'done', { seq: 1 });
    await turn.promise;
    expect(chat).to.deep.equal([]);
  });
});

describe('SDK 0.4.6 usage: session.usage', () => {
  it('session.usage is an object before any report: {}, its totalTokens undefined', async () => {
    const { session } = await created(client());
    expect(session.usage).to.deep.equal({});
    expect(session.usage.totalTokens).to.equal(undefined);
  });

  it('usage_updated raises totalTokens; session.usage stays the same object', async () => {
    const { session, core } = await created(client());
    const usage = session.usage;
    core.event('usage_updated', { totalTokens: 12 });
    expect(session.usage.totalTokens).to.equal(12);
    core.event('usage_updated', { totalTokens: 20 });
    expect(session.usage).to.equal(usage);
    expect(usage).to.deep.equal({ totalTokens: 20 });
  });

  it("a resumed handle's usage comes from its snapshot, and later snapshots raise it", async () => {
    const { session, core } = await resumed(client(), 's1', { usage: { totalTokens: 42 } });
    expect(session.usage.totalTokens).to.equal(42);
    core.snapshot({ usage: { totalTokens: 50 } });
    expect(session.usage.totalTokens).to.equal(50);
  });

  it('usage never goes down: a lower usage_updated, a lower snapshot or one without usage leaves it', async () => {
    const { session, core } = await resumed(client(), 's1', { usage: { totalTokens: 42 } });
    core.event('usage_updated', { totalTokens: 4 });
    core.snapshot({ usage: { totalTokens: 7 } });
    core.snapshot();
    expect(session.usage.totalTokens).to.equal(42);
    core.event('usage_updated', { totalTokens: 42 });
    expect(session.usage.totalTokens).to.equal(42);
  });

  it('invalid totals are ignored silently — no error, status, chat or end — and change nothing', async () => {
    const { session, core } = await created(client());
    core.event('usage_updated', { totalTokens: 10 });
    const calls: string[] = [];
    session.onError((error) => calls.push(`error ${error.code}`));
    session.onStatus((status) => calls.push(`status ${status}`));
    session.onChat((text) => calls.push(`chat ${text}`));
    session.onEnded(() => calls.push('ended'));
    for (const totalTokens of [-1, Number.NaN, 1.5, '30', null, Number.POSITIVE_INFINITY, undefined, {}]) {
      core.event('usage_updated', { totalTokens });
      core.snapshot({ usage: { totalTokens } });
    }
    core.event('usage_updated');
    expect(calls).to.deep.equal([]);
    expect(session.usage).to.deep.equal({ totalTokens: 10 });
  });

  it('usage_updated calls no lifecycle callback', async () => {
    const { session, core } = await created(client());
    const calls: string[] = [];
    session.onError(() => calls.push('error'));
    session.onStatus(() => calls.push('status'));
    session.onChat(() => calls.push('chat'));
    session.onChatDelta(() => calls.push('delta'));
    session.onEnded(() => calls.push('ended'));
    core.event('usage_updated', { totalTokens: 12 });
    core.event('usage_updated', { totalTokens: 20 });
    expect(calls).to.deep.equal([]);
    expect(session.usage.totalTokens).to.equal(20);
  });

  it('a usage_updated whose seq was seen already is dropped', async () => {
    const { session } = await created(client());
    fake.event('s1', 'usage_updated', { seq: 5, totalTokens: 50 });
    fake.event('s1', 'usage_updated', { seq: 4, totalTokens: 100 });
    expect(session.usage.totalTokens).to.equal(50);
    fake.event('s1', 'usage_updated', { seq: 6, totalTokens: 60 });
    expect(session.usage.totalTokens).to.equal(60);
  });

  it('(kit) onUsage is called only when the total changes: not for a repeat, a lower or an invalid value', async () => {
    const { session, core } = await created(client());
    const seen: Array<[number | undefined, string | undefined, string]> = [];
    session.onUsage((usage, ctx) => seen.push([usage.totalTokens, ctx.type, ctx.source]));
    core.event('usage_updated', { totalTokens: 12 });
    core.event('usage_updated', { totalTokens: 12 });
    core.event('usage_updated', { totalTokens: 5 });
    core.event('usage_updated', { totalTokens: 'many' });
    core.snapshot({ usage: { totalTokens: 12 } });
    core.snapshot({ usage: { totalTokens: 30 } });
    expect(seen).to.deep.equal([
      [12, 'usage_updated', 'core'],
      [30, 'usage_updated', 'core'],
    ]);
  });
});
