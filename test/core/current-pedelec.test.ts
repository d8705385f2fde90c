/**
 * The current Pedelec protocol (docs/design/current-pedelec.md), one rule per test, against a fake port that
 * answers the way today's extension and Desktop Core do: the handshake, settings without
 * `defaultModels`, `operationId` per turn, whole `chat_message`s, `operation_completed`,
 * `session_snapshot`, foreign operations, usage and artifacts. The 0.1.x behaviour stays covered by
 * the tests in test/core/client/ and test/core/session/.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import { expect } from '../support/expect.js';
import { Pedelec, PEDELEC_PROTOCOL_VERSION, type PedelecError, type PedelecSession } from '../../src/core/index.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort, type Posted } from '../support/fake-chrome.js';
import { rejection, track } from '../support/promises.js';
import { nextTask } from '../support/waits.js';

let fake: FakePort;
let clients: Pedelec[] = [];
let warnings: PedelecError[] = [];

beforeEach(() => {
  fake = installFakeChrome();
  warnings = [];
});
afterEach(() => {
  clients.forEach((c) => c.disconnect());
  clients = [];
  uninstallFakeChrome();
});

function client(): Pedelec {
  const c = new Pedelec({ onWarning: (w) => warnings.push(w) });
  clients.push(c);
  return c;
}

/** What a 0.1.x extension answers to each handshake message: a refusal that matches no request. */
const LEGACY_REFUSAL = {
  channelId: '',
  type: 'response',
  requestId: '',
  ok: false,
  error: { code: 'SDK_PROTOCOL_ERROR', message: 'requestId is required' },
};

/** A session as today's Core makes one: created, then its snapshot (status idle). */
async function currentSession(sessionId = 's1'): Promise<{ client: Pedelec; session: PedelecSession }> {
  const c = client();
  const created = c.createSession({ provider: 'codex', model: 'm' });
  fake.respond({ sessionId }, fake.last('create_session'));
  const session = await created;
  fake.event(sessionId, 'session_snapshot', { seq: 1, snapshot: { status: 'idle', latestSeq: 0 } });
  return { client: c, session };
}

/** Starts a user turn and returns it with the operationId its request carried (the request answered). */
function userTurn(session: PedelecSession, text = 'hi'): { turn: ReturnType<typeof track<void>>; operationId: string } {
  const turn = track(session.sendText(text));
  const request = fake.last('send_text');
  fake.respond({}, request);
  return { turn, operationId: request.operationId };
}

/** The end of a turn as today's Core sends it: idle, then the operation's completion. */
function completeTurn(sessionId: string, operationId: string, seq: number): void {
  fake.event(sessionId, 'status_changed', { seq, status: 'idle', operationId });
  fake.event(sessionId, 'operation_completed', { seq: seq + 1, operationId, operationKind: 'user', success: true });
}

const toolResults = (): Posted[] => fake.posted.filter((m) => m.type === 'submit_tool_result');

describe('current Pedelec: the handshake', () => {
  it('sdk_hello with the protocol version, then page_activity, right after connecting — before any request, without ids', () => {
    client();
    expect(fake.handshake.map((m) => m.type)).to.deep.equal(['sdk_hello', 'page_activity']);
    expect(fake.handshake[0]).to.deep.equal({ type: 'sdk_hello', sdkVersion: PEDELEC_PROTOCOL_VERSION });
    expect(Object.keys(fake.handshake[1]!).sort()).to.deep.equal(['active', 'type']);
    expect(fake.handshake[1]!.active).to.be.a('boolean');
    expect(fake.posted).to.have.length(0);
    expect(PEDELEC_PROTOCOL_VERSION).to.equal('0.4.6');
  });

  it('page_activity again when the window gets focus, and when the page is hidden', () => {
    client();
    fake.handshake.length = 0;
    window.dispatchEvent(new Event('focus'));
    expect(fake.handshake).to.deep.equal([{ type: 'page_activity', active: true }]);
    Object.defineProperty(document, 'hidden', { value: true, configurable: true });
    try {
      document.dispatchEvent(new Event('visibilitychange'));
      // Hidden once is said once.
      document.dispatchEvent(new Event('visibilitychange'));
    } finally {
      delete (document as { hidden?: unknown }).hidden;
    }
    expect(fake.handshake).to.deep.equal([
      { type: 'page_activity', active: true },
      { type: 'page_activity', active: false },
    ]);
  });

  it('a client that disconnected stops reporting page activity', () => {
    const c = client();
    c.disconnect();
    fake.handshake.length = 0;
    window.dispatchEvent(new Event('focus'));
    expect(fake.handshake).to.deep.equal([]);
  });

  it("a 0.1.x extension's refusals of the handshake are ignored: no warning, no error, requests unaffected", async () => {
    const c = client();
    const settings = c.getSettings();
    fake.emit(LEGACY_REFUSAL);
    fake.emit({ ...LEGACY_REFUSAL });
    fake.respond({ defaultProvider: 'codex', defaultModels: { codex: 'gpt-5' } }, fake.last('get_settings'));
    expect(await settings).to.deep.equal({ defaultProvider: 'codex' });
    expect(warnings).to.deep.equal([]);
    expect(c.legacyExtension, 'and the client knows it talks to a 0.1.x extension').to.equal(true);
  });
});

describe('current Pedelec: settings without defaultModels (profile mode)', () => {
  it('getSettings() accepts { defaultProvider } alone', async () => {
    const c = client();
    const settings = c.getSettings();
    fake.respond({ defaultProvider: 'codex' });
    expect(await settings).to.deep.equal({ defaultProvider: 'codex' });
  });

  it('createSession() resolves the default provider and sends no model', async () => {
    const c = client();
    const created = c.createSession();
    fake.respond({ defaultProvider: 'codex' }, fake.last('get_settings'));
    await nextTask();
    fake.respond(
      [{ name: 'Codex', code: 'codex', available: true, error: null, isDefault: true }],
      fake.last('list_providers'),
    );
    await nextTask();
    const request = fake.last('create_session');
    // On the wire (JSON, as a Chrome port carries it) there is no model at all: profile mode.
    expect(JSON.parse(JSON.stringify(request)).input).to.deep.equal({
      provider: 'codex',
      effortLevel: 'default',
      autoEndOnDisconnect: true,
    });
    fake.respond({ sessionId: 's1' }, request);
    const session = await created;
    expect(session.provider).to.equal('codex');
    expect(session.model).to.equal(undefined);
  });

  it('createSession({ provider }) sends no model either, and asks nothing first', async () => {
    const c = client();
    const created = c.createSession({ provider: 'claude' });
    const request = fake.last('create_session');
    expect(fake.posted.map((m) => m.type)).to.deep.equal(['create_session']);
    expect(JSON.parse(JSON.stringify(request)).input).to.deep.equal({
      provider: 'claude',
      effortLevel: 'default',
      autoEndOnDisconnect: true,
    });
    expect(request.callerSdkVersion).to.equal(PEDELEC_PROTOCOL_VERSION);
    fake.respond({ sessionId: 's1' }, request);
    await created;
  });

  it('effortLevel is sent as given (profile mode); effort with a model; anything else is INVALID_INPUT', async () => {
    const c = client();
    track(c.createSession({ provider: 'codex', effortLevel: 'high' }));
    expect(fake.last('create_session').input).to.include({ provider: 'codex', effortLevel: 'high' });
    track(c.createSession({ provider: 'codex', model: 'gpt-5', effort: 'xhigh' }));
    expect(fake.last('create_session').input).to.include({ model: 'gpt-5', effort: 'xhigh', effortLevel: undefined });
    const error = await rejection(c.createSession({ provider: 'codex', effort: 3 } as never));
    expect(error).to.include({ code: 'INVALID_INPUT', message: 'effort requires model' });
  });
});

describe('current Pedelec: turns', () => {
  it('send_text and prepare_session carry an operationId, a new one per turn', async () => {
    const { session } = await currentSession();
    const first = userTurn(session);
    completeTurn('s1', first.operationId, 2);
    await first.turn.promise;
    const second = userTurn(session);
    expect(first.operationId).to.be.a('string').and.not.equal(second.operationId);
    completeTurn('s1', second.operationId, 4);
    await second.turn.promise;
    const prepared = session.prepare();
    const request = fake.last('prepare_session');
    expect(request.operationId).to.be.a('string').and.not.equal(second.operationId);
    fake.respond({}, request);
    fake.event('s1', 'operation_completed', {
      seq: 6,
      operationId: request.operationId,
      operationKind: 'prepare',
      success: true,
    });
    await prepared;
  });

  it('an operation-aware session finishes a turn on its operation_completed, not on idle', async () => {
    const { session } = await currentSession();
    const { turn, operationId } = userTurn(session);
    fake.event('s1', 'status_changed', { seq: 2, status: 'idle', operationId });
    await nextTask();
    expect(turn.state).to.equal('pending');
    expect(session.getStatus()).to.equal('idle');
    fake.event('s1', 'operation_completed', { seq: 3, operationId, operationKind: 'user', success: true });
    await turn.promise;
    expect(turn.state).to.equal('fulfilled');
  });

  it('any event carrying an operationId makes a session operation-aware (no snapshot seen)', async () => {
    const c = client();
    const created = c.createSession({ provider: 'codex', model: 'm' });
    fake.respond({ sessionId: 's1' }, fake.last('create_session'));
    const session = await created;
    const { turn, operationId } = userTurn(session);
    fake.event('s1', 'chat_delta', { seq: 1, operationId, text: 'Hi' });
    fake.event('s1', 'status_changed', { seq: 2, status: 'idle' });
    await nextTask();
    expect(turn.state).to.equal('pending');
    fake.event('s1', 'operation_completed', { seq: 3, operationId, operationKind: 'user', success: true });
    await turn.promise;
  });

  it('operation_completed with success: false rejects the turn with its error; the session is in error; onError is not called', async () => {
    const { session } = await currentSession();
    const errors: PedelecError[] = [];
    session.onError((error) => errors.push(error));
    const { turn, operationId } = userTurn(session);
    fake.event('s1', 'operation_completed', {
      seq: 2,
      operationId,
      operationKind: 'user',
      success: false,
      error: { code: 'THREAD_BUSY', message: 'busy' },
    });
    const error = await rejection(turn.promise);
    expect(error).to.include({ code: 'THREAD_BUSY', message: 'busy' });
    expect(session.getStatus()).to.equal('error');
    expect(errors, 'the rejection says it; an error event would be reported').to.deep.equal([]);
  });

  it('operation_completed with success: true makes the session idle, whatever status came before', async () => {
    const { session } = await currentSession();
    const { turn, operationId } = userTurn(session);
    fake.event('s1', 'operation_completed', { seq: 2, operationId, operationKind: 'user', success: true });
    await turn.promise;
    expect(session.getStatus()).to.equal('idle');
  });

  it("another operation's operation_completed leaves the running turn running", async () => {
    const { session } = await currentSession();
    const { turn, operationId } = userTurn(session);
    fake.event('s1', 'operation_completed', { seq: 2, operationId: 'op_other', operationKind: 'user', success: true });
    await nextTask();
    expect(turn.state).to.equal('pending');
    completeTurn('s1', operationId, 3);
    await turn.promise;
  });

  it("an error event is reported; the turn ends on its completion, with the completion's error", async () => {
    const { session } = await currentSession();
    const errors: PedelecError[] = [];
    session.onError((error) => errors.push(error));
    const { turn, operationId } = userTurn(session);
    fake.event('s1', 'error', { seq: 2, operationId, error: { code: 'PROVIDER_UNAVAILABLE', message: 'down' } });
    await nextTask();
    expect(turn.state, 'still waiting for its operation_completed').to.equal('pending');
    fake.event('s1', 'operation_completed', {
      seq: 3,
      operationId,
      operationKind: 'user',
      success: false,
      error: { code: 'PROVIDER_UNAVAILABLE', message: 'down' },
    });
    expect((await rejection(turn.promise)).code).to.equal('PROVIDER_UNAVAILABLE');
    expect(errors.map((e) => e.code)).to.deep.equal(['PROVIDER_UNAVAILABLE']);
  });

  it("an error event of another operation is not this turn's: ignored", async () => {
    const { session } = await currentSession();
    const errors: PedelecError[] = [];
    session.onError((error) => errors.push(error));
    const { turn, operationId } = userTurn(session);
    fake.event('s1', 'error', { seq: 2, operationId: 'turn_other', error: { code: 'E', message: 'e' } });
    expect(errors).to.deep.equal([]);
    completeTurn('s1', operationId, 3);
    await turn.promise;
  });

  it('an error event naming no operation puts the session in error, and is reported', async () => {
    const { session } = await currentSession();
    const seen: string[] = [];
    session.onError((error) => seen.push(`error:${error.code}`));
    session.onStatus((status) => seen.push(`status:${status}`));
    fake.event('s1', 'error', { seq: 2, error: { code: 'CORE_DOWN', message: 'down' } });
    expect(seen).to.deep.equal(['error:CORE_DOWN', 'status:error']);
  });
});

describe('current Pedelec: chat — whole messages through onChat, fragments through onChatDelta', () => {
  async function replyWith(events: Array<[type: string, text: string]>): Promise<{ deltas: string[]; chat: string[] }> {
    const { session } = await currentSession();
    const deltas: string[] = [];
    const chat: string[] = [];
    session.onChatDelta((text) => deltas.push(text));
    session.onChat((text) => chat.push(text));
    const { turn, operationId } = userTurn(session);
    let seq = 2;
    for (const [type, text] of events) fake.event('s1', type, { seq: seq++, operationId, text });
    completeTurn('s1', operationId, seq);
    await turn.promise;
    return { deltas, chat };
  }

  it('fragments, then the whole message: the fragments as they came, the message once', async () => {
    expect(
      await replyWith([
        ['chat_delta', 'Hel'],
        ['chat_delta', 'lo'],
        ['chat_message', 'Hello'],
      ]),
    ).to.deep.equal({ deltas: ['Hel', 'lo'], chat: ['Hello'] });
  });

  it('the whole message only (a provider that does not stream): onChat only, nothing made up', async () => {
    expect(await replyWith([['chat_message', 'Hello there']])).to.deep.equal({ deltas: [], chat: ['Hello there'] });
  });

  it('two messages in one turn: each whole message once', async () => {
    expect(
      await replyWith([
        ['chat_delta', 'Sure.'],
        ['chat_message', 'Sure.'],
        ['chat_message', 'Done.'],
      ]),
    ).to.deep.equal({ deltas: ['Sure.'], chat: ['Sure.', 'Done.'] });
  });

  it('fragments that do not match their message: each channel has exactly what arrived', async () => {
    expect(
      await replyWith([
        ['chat_delta', 'Hi there'],
        ['chat_message', 'Hello there'],
      ]),
    ).to.deep.equal({ deltas: ['Hi there'], chat: ['Hello there'] });
  });

  it("a prepare turn's messages reach neither channel", async () => {
    const { session } = await currentSession();
    const seen: string[] = [];
    session.onChat((text) => seen.push(text));
    session.onChatDelta((text) => seen.push(text));
    const prepared = session.prepare();
    const request = fake.last('prepare_session');
    fake.respond({}, request);
    fake.event('s1', 'chat_delta', { seq: 2, operationId: request.operationId, text: 'warming' });
    fake.event('s1', 'chat_message', { seq: 3, operationId: request.operationId, text: 'warming up' });
    fake.event('s1', 'operation_completed', {
      seq: 4,
      operationId: request.operationId,
      operationKind: 'prepare',
      success: true,
    });
    await prepared;
    expect(seen).to.deep.equal([]);
  });
});

describe('current Pedelec: events of another operation', () => {
  it('chat and tool calls of another operation reach no listener: each is an SDK_PROTOCOL_ERROR', async () => {
    const { session } = await currentSession();
    const chat: string[] = [];
    const errors: Array<{ error: PedelecError; source: string }> = [];
    session.onChat((text) => chat.push(text));
    session.onChatDelta((text) => chat.push(text));
    session.onError((error, ctx) => errors.push({ error, source: ctx.source }));
    session.onTool('t', () => 'ran');
    const { turn, operationId } = userTurn(session);
    fake.event('s1', 'chat_delta', { seq: 2, operationId: 'turn_foreign', text: 'not yours' });
    fake.event('s1', 'chat_message', { seq: 3, operationId: 'turn_foreign', text: 'not yours' });
    fake.event('s1', 'tool_call', { seq: 4, operationId: 'turn_foreign', toolRequestId: 'r1', tool: 't', args: {} });
    expect(chat).to.deep.equal([]);
    expect(toolResults()).to.deep.equal([]);
    expect(errors.map(({ error }) => [error.code, error.message])).to.deep.equal([
      ['SDK_PROTOCOL_ERROR', 'chat_delta event did not match the active operation'],
      ['SDK_PROTOCOL_ERROR', 'chat_message event did not match the active operation'],
      ['SDK_PROTOCOL_ERROR', 'tool_call event did not match the active operation'],
    ]);
    expect(errors[0]!.error.details).to.deep.equal({ sessionId: 's1', operationId: 'turn_foreign' });
    expect(errors.every((e) => e.source === 'sdk')).to.equal(true);
    completeTurn('s1', operationId, 5);
    await turn.promise;
  });
});

describe('current Pedelec: session_snapshot', () => {
  it('sets the status (core-sourced) and the usage', async () => {
    const c = client();
    const created = c.createSession({ provider: 'codex', model: 'm' });
    fake.respond({ sessionId: 's1' }, fake.last('create_session'));
    const session = await created;
    const statuses: Array<{ status: string; source: string }> = [];
    session.onStatus((status, ctx) => statuses.push({ status, source: ctx.source }));
    fake.event('s1', 'session_snapshot', {
      seq: 5,
      snapshot: { status: 'running', latestSeq: 4, usage: { totalTokens: 120 } },
    });
    expect(statuses).to.deep.equal([{ status: 'running', source: 'core' }]);
    expect(session.usage).to.deep.equal({ totalTokens: 120 });
  });

  it("a snapshot made before the running turn's request reached Core leaves that turn and its status alone", async () => {
    const c = client();
    const created = c.createSession({ provider: 'codex', model: 'm' });
    fake.respond({ sessionId: 's1' }, fake.last('create_session'));
    const session = await created;
    // sendText at once, before the snapshot that followed the create response was read.
    const { turn, operationId } = userTurn(session);
    fake.event('s1', 'session_snapshot', { seq: 1, snapshot: { status: 'idle', latestSeq: 0 } });
    expect(session.getStatus()).to.equal('running');
    fake.event('s1', 'status_changed', { seq: 2, status: 'running', operationId });
    completeTurn('s1', operationId, 3);
    await turn.promise;
  });

  it('is taken even when its seq repeats the last one seen (a recovery)', async () => {
    const { session } = await currentSession();
    fake.event('s1', 'status_changed', { seq: 7, status: 'running' });
    fake.event('s1', 'session_snapshot', { seq: 7, snapshot: { status: 'idle', latestSeq: 7 } });
    expect(session.getStatus()).to.equal('idle');
  });

  it('after a resume, the pending tool request runs once its handler is registered, and the taken-over turn completes', async () => {
    const c = client();
    const resumed = c.resumeSession('s1');
    fake.respond({ sessionId: 's1' }, fake.last('resume_session'));
    const session = await resumed;
    const chat: string[] = [];
    session.onChat((text) => chat.push(text));
    fake.event('s1', 'session_snapshot', {
      seq: 9,
      snapshot: {
        status: 'waiting_tool_result',
        latestSeq: 8,
        activeOperation: { operationId: 'op_before_reload', operationKind: 'user' },
        pendingToolRequest: {
          toolRequestId: 'r7',
          tool: 'update_counter',
          args: { delta: 2 },
          operationId: 'op_before_reload',
        },
      },
    });
    // No handler yet: nothing is answered (TOOL_HANDLER_NOT_FOUND would be wrong: the page is still starting).
    expect(toolResults()).to.deep.equal([]);
    const seen: Array<{ args: unknown; toolRequestId: string; turnId: string }> = [];
    session.onTool('update_counter', (args, ctx) => {
      seen.push({ args, toolRequestId: ctx.toolRequestId, turnId: ctx.turnId });
      return { value: 2 };
    });
    expect(seen).to.have.length(1);
    expect(seen[0]).to.deep.include({ args: { delta: 2 }, toolRequestId: 'r7' });
    expect(toolResults()).to.have.length(1);
    expect(toolResults()[0]).to.include({ sessionId: 's1', toolRequestId: 'r7' });
    expect(toolResults()[0]!.result).to.deep.equal({ value: 2 });
    // The rest of that turn reaches this page, and its completion ends it here too.
    fake.event('s1', 'chat_message', { seq: 10, operationId: 'op_before_reload', text: 'Counter is 2.' });
    fake.event('s1', 'status_changed', { seq: 11, status: 'idle', operationId: 'op_before_reload' });
    fake.event('s1', 'operation_completed', {
      seq: 12,
      operationId: 'op_before_reload',
      operationKind: 'user',
      success: true,
    });
    expect(chat).to.deep.equal(['Counter is 2.']);
    const next = userTurn(session, 'again');
    completeTurn('s1', next.operationId, 13);
    await next.turn.promise;
  });

  it('a snapshot that arrives before the resume response still reaches the new handle', async () => {
    const c = client();
    const handled: unknown[] = [];
    const resumed = c.resumeSession('s1', {
      skills: {
        guidance: '',
        tools: [
          {
            name: 'ping',
            description: 'Ping.',
            argsSchema: { type: 'object', properties: {} },
            handler: (args) => (handled.push(args), 'pong'),
          },
        ],
      },
    });
    fake.event('s1', 'session_snapshot', {
      seq: 3,
      snapshot: {
        status: 'waiting_tool_result',
        latestSeq: 2,
        pendingToolRequest: { toolRequestId: 'r1', tool: 'ping', args: {}, operationId: 'op_1' },
      },
    });
    fake.respond({ sessionId: 's1' }, fake.last('resume_session'));
    const session = await resumed;
    expect(session.getStatus()).to.equal('waiting_tool_result');
    expect(handled).to.deep.equal([{}]);
    expect(toolResults().map((m) => m.result)).to.deep.equal(['pong']);
  });

  it('a snapshot for an unknown session, with no create or resume in flight, is ignored', async () => {
    const c = client();
    fake.event('s9', 'session_snapshot', { seq: 1, snapshot: { status: 'running', latestSeq: 0 } });
    const resumed = c.resumeSession('s9');
    fake.respond({ sessionId: 's9' }, fake.last('resume_session'));
    expect((await resumed).getStatus()).to.equal('idle');
  });

  it('a running call that the latest snapshot no longer lists is not submitted: its signal aborts and the page is told', async () => {
    const { session } = await currentSession();
    const errors: PedelecError[] = [];
    session.onError((error) => errors.push(error));
    let finish!: (value: unknown) => void;
    let signal!: AbortSignal;
    session.onTool('slow', (_args, ctx) => {
      signal = ctx.signal!;
      return new Promise((resolve) => (finish = resolve));
    });
    const { turn, operationId } = userTurn(session);
    fake.event('s1', 'tool_call', { seq: 2, operationId, toolRequestId: 'r1', tool: 'slow', args: {} });
    fake.event('s1', 'session_snapshot', {
      seq: 3,
      snapshot: { status: 'running', latestSeq: 2, activeOperation: { operationId, operationKind: 'user' } },
    });
    expect(signal.aborted).to.equal(true);
    expect((signal.reason as PedelecError).code).to.equal('TOOL_REQUEST_NOT_PENDING');
    finish('late');
    await nextTask();
    expect(toolResults()).to.deep.equal([]);
    expect(errors.map((e) => e.code)).to.deep.equal(['SUBMIT_TOOL_RESULT_FAILED']);
    expect((errors[0]!.details as { cause: PedelecError }).cause.code).to.equal('TOOL_REQUEST_NOT_PENDING');
    completeTurn('s1', operationId, 4);
    await turn.promise;
  });

  it("a snapshot whose lastCompletedOperation is the running turn's finishes it (its completion was missed)", async () => {
    const { session } = await currentSession();
    const { turn, operationId } = userTurn(session);
    fake.event('s1', 'session_snapshot', {
      seq: 4,
      snapshot: {
        status: 'idle',
        latestSeq: 3,
        lastCompletedOperation: { operationId, operationKind: 'user', success: true },
      },
    });
    await turn.promise;
    expect(turn.state).to.equal('fulfilled');
  });
});

describe('current Pedelec: usage and artifacts', () => {
  it('usage_updated sets session.usage and calls onUsage with a core-sourced context', async () => {
    const { session } = await currentSession();
    const seen: Array<{ totalTokens?: number; type?: string; source: string }> = [];
    session.onUsage((usage, ctx) => seen.push({ ...usage, type: ctx.type, source: ctx.source }));
    fake.event('s1', 'usage_updated', { seq: 2, totalTokens: 42 });
    expect(session.usage).to.deep.equal({ totalTokens: 42 });
    expect(seen).to.deep.equal([{ totalTokens: 42, type: 'usage_updated', source: 'core' }]);
  });

  it('provider_artifact during a user turn calls onArtifact with the artifact, checked and rebuilt', async () => {
    const { session } = await currentSession();
    const artifacts: Array<[unknown, Record<string, unknown>]> = [];
    const errors: PedelecError[] = [];
    session.onArtifact((artifact, ctx) => artifacts.push([artifact, { ...ctx }]));
    session.onError((error) => errors.push(error));
    const { turn, operationId } = userTurn(session);
    const artifact = {
      id: 'a1',
      provider: 'codex',
      path: '/artifacts/a1-report.md',
      name: 'report.md',
      mimeType: 'text/markdown',
      sizeBytes: 12,
      kind: 'file',
      source: 'provider_artifact',
      providerArtifactId: 'p1',
    };
    fake.event('s1', 'provider_artifact', { seq: 2, operationId, artifact: { ...artifact, extra: 'dropped' } });
    expect(artifacts.map(([a]) => a)).to.deep.equal([artifact]);
    expect(artifacts[0]![1]).to.include({
      type: 'provider_artifact',
      source: 'core',
      turnKind: 'user',
      turnId: operationId,
    });
    expect(errors).to.deep.equal([]);
    expect(turn.state, 'an artifact does not finish the turn').to.equal('pending');
    completeTurn('s1', operationId, 3);
    await turn.promise;
  });

  it('a malformed artifact is an SDK_PROTOCOL_ERROR, whatever turn it claims; nothing is delivered', async () => {
    const { session } = await currentSession();
    const artifacts: unknown[] = [];
    const errors: PedelecError[] = [];
    session.onArtifact((artifact) => artifacts.push(artifact));
    session.onError((error) => errors.push(error));
    const { operationId } = userTurn(session);
    const good = {
      id: 'a1',
      provider: 'codex',
      path: '/a.png',
      name: 'a.png',
      mimeType: 'image/png',
      sizeBytes: 3,
      kind: 'image',
      source: 'image_generation',
    };
    const bad: unknown[] = [
      'not an object',
      { ...good, path: '../etc/passwd' },
      { ...good, path: 'a.png' },
      { ...good, id: ' ' },
      { ...good, name: 'a/b.png' },
      { ...good, mimeType: '' },
      { ...good, sizeBytes: 1.5 },
      { ...good, sizeBytes: -1 },
      { ...good, kind: 'document' },
      { ...good, source: 'agent' },
      { ...good, providerArtifactId: ' ' },
      { ...good, toolCallId: 7 },
    ];
    bad.forEach((artifact, i) => fake.event('s1', 'provider_artifact', { seq: 2 + i, operationId, artifact }));
    expect(artifacts).to.deep.equal([]);
    expect(errors.map((e) => e.message)).to.deep.equal([
      'provider_artifact event had an invalid artifact object',
      ...bad.slice(1).map(() => 'provider_artifact event had an invalid artifact payload'),
    ]);
    expect(session.getStatus()).to.equal('running');
  });

  it("an artifact of another operation is an SDK_PROTOCOL_ERROR; a prepare turn's is dropped", async () => {
    const { session } = await currentSession();
    const artifacts: unknown[] = [];
    const errors: PedelecError[] = [];
    session.onArtifact((artifact) => artifacts.push(artifact));
    session.onError((error) => errors.push(error));
    const artifact = {
      id: 'a1',
      provider: 'codex',
      path: '/a.txt',
      name: 'a.txt',
      mimeType: 'text/plain',
      sizeBytes: 1,
      kind: 'file',
      source: 'tool_result',
    };
    const prepared = session.prepare();
    const request = fake.last('prepare_session');
    fake.respond({}, request);
    fake.event('s1', 'provider_artifact', { seq: 2, operationId: request.operationId, artifact });
    fake.event('s1', 'provider_artifact', { seq: 3, operationId: 'turn_stale', artifact });
    expect(artifacts).to.deep.equal([]);
    expect(errors.map((e) => e.message)).to.deep.equal(['provider_artifact event did not match the active operation']);
    fake.event('s1', 'operation_completed', { seq: 4, operationId: request.operationId, operationKind: 'prepare' });
    await prepared;
  });
});
