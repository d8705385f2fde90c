/**
 * SDK 0.4.6, bringing sessions back (docs/design/sdk-0.4.md "Sessions and connection"): `session.resume()`
 * reactivates the same handle after an end (`reactivate_session`, resolved once Core's idle snapshot
 * came), keeping what the page set up; `pedelec.resumeSession(id)` only reattaches; after the port
 * drops, old handles are detached for good and `resumeSession` on the new port makes a new handle.
 * With the kit's rules: an ended session ignores later events but the snapshot a resume waits for,
 * `onEnded` fires on every transition into ended, a late tool result never goes out on a later
 * connection, `disconnect()` closes a client for good. Lazy reconnection itself is in
 * test/core/client/disconnect.test.ts.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import type { PedelecError, PedelecSession } from '../../../src/core/index.js';
import { rejection, settled, track } from '../../support/promises.js';
import { nextTask } from '../../support/waits.js';
import { Core, client, clientHooks, created, fake, posted, resumeReply, resumed, userTurn } from './harness.js';

clientHooks();

/** The page ends its session; Core agrees. */
async function endIt(session: PedelecSession): Promise<void> {
  const ending = session.end();
  await fake.answer('end_session');
  await ending;
}

/**
 * `session.resume()` answered as today's Core answers it: the idle snapshot first (unless
 * `snapshot` is false), then the reply. Returns the request.
 */
async function reactivate(
  session: PedelecSession,
  core: Core,
  { snapshot = {}, reply }: { snapshot?: Record<string, unknown> | false; reply?: unknown } = {},
): Promise<Record<string, any>> {
  const resuming = session.resume();
  const request = await fake.request('reactivate_session');
  if (snapshot) core.snapshot({ status: 'idle', ...snapshot });
  fake.answered.add(request);
  fake.respond(reply ?? { sessionId: session.sessionId }, request);
  await resuming;
  return request;
}

describe('SDK 0.4.6 session.resume(): the same handle again', () => {
  it('resume() posts reactivate_session { sessionId, autoEndOnDisconnect } with the flag the session was created with', async () => {
    const c = client();
    const kept = await created(c, { provider: 'codex' }, 's1');
    const notKept = await created(c, { provider: 'codex', autoEndOnDisconnect: false }, 's2');
    for (const { session } of [kept, notKept]) await endIt(session);
    const first = await reactivate(kept.session, kept.core);
    const second = await reactivate(notKept.session, notKept.core);
    expect(first).to.deep.include({ type: 'reactivate_session', sessionId: 's1', autoEndOnDisconnect: true });
    expect(second).to.deep.include({ type: 'reactivate_session', sessionId: 's2', autoEndOnDisconnect: false });
  });

  for (const flag of [false, true]) {
    it(`a resumed handle's resume() sends the autoEndOnDisconnect of its resume reply (${flag})`, async () => {
      const { session, core } = await resumed(client(), 's1', {}, resumeReply('s1', { autoEndOnDisconnect: flag }));
      core.event('ended');
      const request = await reactivate(session, core);
      expect(request).to.deep.include({ sessionId: 's1', autoEndOnDisconnect: flag });
    });
  }

  it('resume() resolves only after the idle snapshot — which comes before the response — made the status idle', async () => {
    const { session, core } = await created(client());
    await endIt(session);
    const statuses: Array<[string, string, string | undefined]> = [];
    session.onStatus((status, ctx) => statuses.push([status, ctx.source, ctx.type]));
    const resuming = track(session.resume());
    const request = await fake.request('reactivate_session');
    await nextTask();
    expect(session.getStatus(), 'still ended until Core says otherwise').to.equal('ended');
    core.snapshot({ status: 'idle' });
    expect(statuses).to.deep.equal([['idle', 'core', 'status_changed']]);
    await nextTask();
    expect(resuming.state, 'waits for the response too').to.equal('pending');
    fake.respond({ sessionId: 's1' }, request);
    expect(await resuming.promise).to.equal(undefined);
    expect(session.getStatus()).to.equal('idle');
  });

  it('the same handle comes back with its handlers, usage, prepared state, workspace, provider, effortLevel and creation time', async () => {
    const c = client();
    const { session, core } = await created(c, { provider: 'codex', effortLevel: 'high' });
    const chat: string[] = [];
    const tools: string[] = [];
    session.onChat((text) => chat.push(text));
    session.onTool('pick', (args) => (tools.push(JSON.stringify(args)), 'picked'));
    const preparing = session.prepare();
    const prepare = await fake.answer('prepare_session');
    core.completed(prepare.operationId, 'prepare');
    await preparing;
    core.event('usage_updated', { totalTokens: 30 });
    const before = {
      workspace: session.workspace,
      usage: session.usage,
      provider: session.provider,
      effortLevel: session.effortLevel,
      sessionCreatedAt: session.sessionCreatedAt,
    };
    await endIt(session);
    await reactivate(session, core, { snapshot: { usage: { totalTokens: 42 } } });
    expect({
      workspace: session.workspace,
      usage: session.usage,
      provider: session.provider,
      effortLevel: session.effortLevel,
      sessionCreatedAt: session.sessionCreatedAt,
    }).to.deep.equal(before);
    expect(session.workspace).to.equal(before.workspace);
    expect(session.usage).to.equal(before.usage);
    expect(session.usage.totalTokens, 'hydrated from the idle snapshot').to.equal(42);
    const sent = fake.posted.length;
    await session.prepare();
    expect(fake.posted.length, 'prepared already: nothing sent').to.equal(sent);
    const { turn, operationId } = userTurn(session, 'again');
    core.event('chat_message', { operationId, text: 'Welcome back.' });
    core.event('tool_call', { operationId, toolRequestId: 'r1', tool: 'pick', args: { n: 1 } });
    await fake.answer('submit_tool_result');
    core.completed(operationId);
    await turn.promise;
    expect(chat).to.deep.equal(['Welcome back.']);
    expect(tools).to.deep.equal(['{"n":1}']);
  });

  it('concurrent resume() calls share one request: the same promise', async () => {
    const { session, core } = await created(client());
    await endIt(session);
    const first = session.resume();
    const second = session.resume();
    expect(second).to.equal(first);
    const request = await fake.request('reactivate_session');
    core.snapshot({ status: 'idle' });
    fake.respond({ sessionId: 's1' }, request);
    await Promise.all([first, second]);
    expect(posted('reactivate_session')).to.have.length(1);
  });

  it('a second end/resume cycle sends a new reactivate_session', async () => {
    const { session, core } = await created(client());
    await endIt(session);
    await reactivate(session, core);
    await endIt(session);
    await reactivate(session, core);
    expect(posted('reactivate_session')).to.have.length(2);
    expect(session.getStatus()).to.equal('idle');
  });

  it('onEnded fires once per transition into ended, across resume cycles', async () => {
    const { session, core } = await created(client());
    const ended: Array<string | undefined> = [];
    session.onEnded((ctx) => ended.push(ctx.type));
    await endIt(session);
    expect(ended).to.deep.equal(['sdk_ended']);
    await reactivate(session, core);
    core.event('ended');
    core.event('ended');
    expect(ended).to.deep.equal(['sdk_ended', 'ended']);
    await reactivate(session, core);
    await endIt(session);
    expect(ended).to.deep.equal(['sdk_ended', 'ended', 'sdk_ended']);
  });

  it('a response before the idle snapshot → SDK_PROTOCOL_ERROR "reactivate_session resolved before the authoritative idle snapshot" { sessionId }; the status stays ended', async () => {
    const { session, core } = await created(client());
    await endIt(session);
    const errors: PedelecError[] = [];
    session.onError((error) => errors.push(error));
    const error = await rejection(reactivate(session, core, { snapshot: false }));
    const expected = {
      code: 'SDK_PROTOCOL_ERROR',
      message: 'reactivate_session resolved before the authoritative idle snapshot',
      details: { sessionId: 's1' },
    };
    expect(error).to.deep.equal(expected);
    expect(errors).to.deep.equal([expected]);
    expect(session.getStatus()).to.equal('ended');
  });

  for (const [label, reply] of [
    ['no sessionId', {}],
    ['another sessionId', { sessionId: 's2' }],
  ] as const) {
    it(`a response with ${label} → SDK_PROTOCOL_ERROR "reactivate_session response did not include sessionId"`, async () => {
      const { session, core } = await created(client());
      await endIt(session);
      expect(await rejection(reactivate(session, core, { reply }))).to.deep.include({
        code: 'SDK_PROTOCOL_ERROR',
        message: 'reactivate_session response did not include sessionId',
      });
    });
  }

  it('a final failure (WORKSPACE_OPEN_FAILED) rejects with it, reported to onError; the status stays ended; a retry sends reactivate_session again', async () => {
    const { session, core } = await created(client());
    await endIt(session);
    const errors: string[] = [];
    session.onError((error) => errors.push(error.code));
    const failing = session.resume();
    await fake.refuse('reactivate_session', { code: 'WORKSPACE_OPEN_FAILED', message: 'The folder is gone.' });
    expect(await rejection(failing)).to.deep.include({ code: 'WORKSPACE_OPEN_FAILED', message: 'The folder is gone.' });
    expect(errors).to.deep.equal(['WORKSPACE_OPEN_FAILED']);
    expect(session.getStatus()).to.equal('ended');
    await reactivate(session, core);
    expect(posted('reactivate_session')).to.have.length(2);
    expect(session.getStatus()).to.equal('idle');
  });

  for (const status of ['idle', 'error'] as const) {
    it(`resume() of a session that has not ended (${status}) resolves at once, posting nothing`, async () => {
      const { session, core } = await created(client());
      if (status === 'error') core.event('error', { error: { code: 'CORE_DOWN', message: 'down' } });
      expect(session.getStatus()).to.equal(status);
      expect(await session.resume()).to.equal(undefined);
      expect(posted('reactivate_session')).to.deep.equal([]);
    });
  }

  it('resume() after Core ended the session (an ended event) reactivates it the same way', async () => {
    const { session, core } = await created(client());
    core.event('ended');
    const request = await reactivate(session, core);
    expect(request).to.deep.include({ sessionId: 's1', autoEndOnDisconnect: true });
    expect(session.getStatus()).to.equal('idle');
    const { turn, operationId } = userTurn(session);
    core.completed(operationId);
    await turn.promise;
  });

  it('(kit) a session Core ended ignores later events — status, usage, chat, an idle snapshot — except the idle snapshot a resume() waits for', async () => {
    const { session, core } = await created(client());
    core.event('usage_updated', { totalTokens: 5 });
    core.event('ended');
    const calls: string[] = [];
    session.onStatus((status) => calls.push(`status ${status}`));
    session.onChat((text) => calls.push(`chat ${text}`));
    session.onError((error) => calls.push(`error ${error.code}`));
    core.event('status_changed', { status: 'running' });
    core.event('usage_updated', { totalTokens: 99 });
    core.event('chat_message', { operationId: 'turn_x', text: 'late' });
    core.snapshot({ status: 'idle', usage: { totalTokens: 99 } });
    expect(calls).to.deep.equal([]);
    expect(session.getStatus()).to.equal('ended');
    expect(session.usage.totalTokens).to.equal(5);
    await reactivate(session, core);
    expect(calls).to.deep.equal(['status idle']);
  });

  it('(kit) onEnded fires on every transition into ended: also status_changed ended and an ended snapshot', async () => {
    const { session, core } = await created(client());
    const ended: Array<string | undefined> = [];
    session.onEnded((ctx) => ended.push(ctx.type));
    core.event('status_changed', { status: 'ended' });
    expect(ended).to.deep.equal(['ended']);
    await reactivate(session, core);
    core.snapshot({ status: 'ended' });
    expect(ended).to.deep.equal(['ended', 'ended']);
    expect(session.getStatus()).to.equal('ended');
  });
});

describe('SDK 0.4.6 pedelec.resumeSession(id): reattachment only', () => {
  it('resumeSession(id) of a handle Core ended returns that same handle and leaves it ended; nothing is reactivated', async () => {
    const c = client();
    const { session, core } = await created(c);
    const ended: string[] = [];
    session.onEnded(() => ended.push('ended'));
    core.event('ended');
    const again = await resumed(c, 's1', { status: 'ended' });
    expect(again.session).to.equal(session);
    expect(session.getStatus()).to.equal('ended');
    expect(ended).to.have.length(1);
    expect(posted('reactivate_session')).to.deep.equal([]);
  });

  it('a fresh resumed handle knows no provider and has no effortLevel', async () => {
    const { session, core } = await resumed(client());
    expect([session.provider, session.effortLevel]).to.deep.equal(['', undefined]);
    const contexts: object[] = [];
    session.onStatus((_status, ctx) => contexts.push(ctx));
    const { turn, operationId } = userTurn(session);
    core.completed(operationId);
    await turn.promise;
    expect(contexts).to.have.length(2);
    expect(contexts.filter((ctx) => 'effortLevel' in ctx)).to.deep.equal([]);
  });

  it("resumeSession(id) after the page's end() makes a new handle", async () => {
    const c = client();
    const { session } = await created(c);
    await endIt(session);
    const again = await resumed(c, 's1');
    expect(again.session).to.not.equal(session);
    expect(again.session.getStatus()).to.equal('idle');
  });

  for (const blank of ['', '   ']) {
    it(`resumeSession(${JSON.stringify(blank)}) → INVALID_INPUT "sessionId is required", nothing posted`, async () => {
      const c = client();
      expect(await rejection(c.resumeSession(blank))).to.deep.include({
        code: 'INVALID_INPUT',
        message: 'sessionId is required',
      });
      expect(fake.posted).to.deep.equal([]);
    });
  }

  for (const [label, reply, message] of [
    [
      'no autoEndOnDisconnect',
      { sessionId: 's1', workspace: { workspaceId: 'ws-s1', path: null } },
      'resume_session response had an invalid shape',
    ],
    [
      'a non-boolean autoEndOnDisconnect',
      { sessionId: 's1', workspace: { workspaceId: 'ws-s1', path: null }, autoEndOnDisconnect: 'yes' },
      'resume_session response had an invalid shape',
    ],
    [
      'a bad workspace',
      resumeReply('s1', { workspace: { workspaceId: '', path: null } }),
      'resume_session response had an invalid Workspace shape',
    ],
    ['another sessionId', resumeReply('s2'), 'resume_session response did not match sessionId'],
  ] as const) {
    it(`a 0.4-shaped resume reply with ${label} → SDK_PROTOCOL_ERROR "${message}"`, async () => {
      const c = client();
      const pending = c.resumeSession('s1');
      await fake.answer('resume_session', reply);
      expect(await rejection(pending)).to.deep.include({ code: 'SDK_PROTOCOL_ERROR', message });
    });
  }

  it('resumeSession(id) of a held handle whose reply names another workspace → SDK_PROTOCOL_ERROR "resume_session response returned a different Workspace"', async () => {
    const c = client();
    const { core } = await created(c);
    core.event('ended');
    const pending = c.resumeSession('s1');
    await fake.answer('resume_session', resumeReply('s1', { workspace: { workspaceId: 'ws-other', path: null } }));
    expect(await rejection(pending)).to.deep.include({
      code: 'SDK_PROTOCOL_ERROR',
      message: 'resume_session response returned a different Workspace',
    });
  });

  it('(kit) a 0.1.x-shaped resume reply (sessionId only) is accepted; the handle has a workspace with path null', async () => {
    const c = client();
    const pending = c.resumeSession('s1');
    await fake.answer('resume_session', { sessionId: 's1' });
    const session = await pending;
    expect(session.sessionId).to.equal('s1');
    expect(session.workspace.path).to.equal(null);
  });
});

describe('SDK 0.4.6 after the extension port drops', () => {
  it('the old handle is detached: status error, exactly one onError EXTENSION_DISCONNECTED (sdk), its running turn rejected with it', async () => {
    const { session } = await created(client());
    const errors: Array<[string, string]> = [];
    const statuses: Array<[string, string]> = [];
    session.onError((error, ctx) => errors.push([error.code, ctx.source]));
    session.onStatus((status, ctx) => statuses.push([status, ctx.source]));
    const { turn } = userTurn(session);
    fake.disconnect();
    await settled(turn.promise);
    expect(turn.error).to.deep.include({ code: 'EXTENSION_DISCONNECTED' });
    expect(errors).to.deep.equal([['EXTENSION_DISCONNECTED', 'sdk']]);
    expect(statuses.at(-1)).to.deep.equal(['error', 'sdk']);
    expect(session.getStatus()).to.equal('error');
  });

  it('every later method of a detached handle rejects SESSION_ENDED { sessionId } without posting or reconnecting — end() and resume() too', async () => {
    const { session } = await created(client());
    fake.disconnect();
    const sent = fake.posted.length;
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['sendText', () => session.sendText('hi')],
      ['prepare', () => session.prepare()],
      ['end', () => session.end()],
      ['resume', () => session.resume()],
      ['uploadAsset', () => session.uploadAsset(new File(['x'], 'x.txt'))],
      ['listAssets', () => session.listAssets()],
      ['readAsset', () => session.readAsset('/x.txt', 'text')],
    ];
    for (const [name, call] of calls) {
      const error = await rejection(call());
      expect([name, error.code, error.details]).to.deep.equal([name, 'SESSION_ENDED', { sessionId: 's1' }]);
    }
    expect(fake.posted.length, 'nothing posted').to.equal(sent);
    expect(fake.connectCount, 'no new connection').to.equal(1);
    expect(session.getStatus()).to.equal('error');
  });

  it('resumeSession(id) on the new port makes a new handle, whose workspace path comes from the reply; the old handle keeps its own', async () => {
    const c = client();
    const { session: old } = await created(c);
    fake.disconnect();
    const pending = c.resumeSession('s1');
    expect(fake.connectCount, 'the request opened a new port').to.equal(2);
    const core = new Core('s1');
    core.snapshot();
    await fake.answer(
      'resume_session',
      resumeReply('s1', { workspace: { workspaceId: 'ws-s1', path: '/Users/ada/project' } }),
    );
    const session = await pending;
    expect(session).to.not.equal(old);
    expect(session.workspace.path).to.equal('/Users/ada/project');
    expect(old.workspace.path).to.equal(null);
    expect(old.getStatus()).to.equal('error');
    const { turn, operationId } = userTurn(session);
    core.completed(operationId);
    await turn.promise;
  });

  it('(kit) the port dropping while resume() gets ready: the handle is detached like any other, and resumeSession(id) makes a new one', async () => {
    const c = client();
    const { session: old, core } = await created(c);
    core.event('ended');
    expect(old.getStatus()).to.equal('ended');
    const resuming = track(old.resume());
    fake.disconnect();
    const error = await rejection(resuming.promise);
    expect(error.code).to.equal('EXTENSION_DISCONNECTED');
    const pending = c.resumeSession('s1');
    new Core('s1').snapshot();
    await fake.answer('resume_session', resumeReply('s1'));
    const session = await pending;
    expect(session, 'a new handle, not the detached one').to.not.equal(old);
    expect(await rejection(old.sendText('hi'))).to.include({ code: 'SESSION_ENDED' });
  });

  it('(kit) a tool result finished after the port dropped is not sent on a later connection: SUBMIT_TOOL_RESULT_FAILED on the old handle', async () => {
    const c = client();
    const { session, core } = await created(c);
    let finish!: (value: unknown) => void;
    let signal: AbortSignal | undefined;
    session.onTool('slow', (_args, ctx) => {
      signal = ctx.signal;
      return new Promise((resolve) => (finish = resolve));
    });
    const errors: PedelecError[] = [];
    session.onError((error) => errors.push(error));
    const { turn, operationId } = userTurn(session);
    core.event('tool_call', { operationId, toolRequestId: 'r1', tool: 'slow', args: {} });
    fake.disconnect();
    await settled(turn.promise);
    expect(signal?.aborted, "the handler's signal says so").to.equal(true);
    const reattaching = c.resumeSession('s1');
    await fake.answer('resume_session', resumeReply('s1'));
    await reattaching;
    finish({ late: true });
    await nextTask();
    expect(posted('submit_tool_result')).to.deep.equal([]);
    const failed = errors.filter((e) => e.code === 'SUBMIT_TOOL_RESULT_FAILED');
    expect(failed).to.have.length(1);
    expect((failed[0]!.details as { cause: PedelecError }).cause.code).to.equal('EXTENSION_DISCONNECTED');
  });

  it('(kit) disconnect() closes a client for good: its sessions are detached and later requests reject without reconnecting', async () => {
    const c = client();
    const { session } = await created(c);
    c.disconnect();
    expect(session.getStatus()).to.equal('error');
    expect((await rejection(c.getSettings())).code).to.equal('EXTENSION_DISCONNECTED');
    expect((await rejection(c.createSession({ provider: 'codex' }))).code).to.equal('EXTENSION_DISCONNECTED');
    expect((await rejection(c.resumeSession('s1'))).code).to.equal('EXTENSION_DISCONNECTED');
    expect(fake.connectCount).to.equal(1);
  });
});
