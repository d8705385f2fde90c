/**
 * SDK 0.4.6, turns on today's protocol (docs/design/sdk-0.4.md, current-pedelec.md §2): a turn is settled by
 * its own `operation_completed` (of the same kind), which also sets the status; a turn stays reserved
 * until both its request's answer and its completion came, and a completion that came first wins over
 * a failed answer; `status_changed` of another operation, or naming none while a turn runs, is
 * ignored; a transport-wide error does not reject today's turn (it does a 0.1.x one); `prepare()`
 * during a user turn is busy even when prepared. With the kit's rules: two overlapping tool calls are
 * both answered, and an artifact from a provider the SDK does not know is delivered. What
 * test/core/current-pedelec.test.ts and test/core/session/*.test.ts prove already is not repeated.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import type { PedelecError } from '../../../src/core/index.js';
import { rejection, settled, track } from '../../support/promises.js';
import { nextTask } from '../../support/waits.js';
import { artifact, client, clientHooks, created, fake, legacyClient, posted, userTurn } from './harness.js';

clientHooks();

describe('SDK 0.4.6 turns: operation_completed', () => {
  it('sendText resolves only after operation_completed — the answer alone does not — and the statuses are running, then idle', async () => {
    const { session, core } = await created(client());
    const statuses: string[] = [];
    session.onStatus((status) => statuses.push(status));
    const { turn, operationId } = userTurn(session);
    await nextTask();
    expect(turn.state, 'answered, not completed').to.equal('pending');
    core.completed(operationId);
    await turn.promise;
    expect(statuses).to.deep.equal(['running', 'idle']);
  });

  it("a failed user turn's operation_completed → status error, and sendText rejects with its error", async () => {
    const { session, core } = await created(client());
    const { turn, operationId } = userTurn(session);
    core.completed(operationId, 'user', {
      success: false,
      error: { code: 'PROVIDER_ERROR', message: 'model crashed' },
    });
    expect(await rejection(turn.promise)).to.deep.include({ code: 'PROVIDER_ERROR', message: 'model crashed' });
    expect(session.getStatus()).to.equal('error');
  });

  it("a failed prepare's operation_completed → status idle, and prepare() rejects with its error", async () => {
    const { session, core } = await created(client());
    const preparing = track(session.prepare());
    const request = await fake.answer('prepare_session');
    core.completed(request.operationId, 'prepare', {
      success: false,
      error: { code: 'PREPARE_ACK_INVALID', message: 'bad ack' },
    });
    expect(await rejection(preparing.promise)).to.deep.include({ code: 'PREPARE_ACK_INVALID' });
    expect(session.getStatus()).to.equal('idle');
  });

  it('a failed completion without an error rejects SESSION_ERROR "session operation failed"', async () => {
    const { session, core } = await created(client());
    const { turn, operationId } = userTurn(session);
    core.completed(operationId, 'user', { success: false });
    expect(await rejection(turn.promise)).to.deep.include({
      code: 'SESSION_ERROR',
      message: 'session operation failed',
    });
  });

  it("operation_completed must match the turn's kind: a prepare-kind completion with the user turn's id is ignored", async () => {
    const { session, core } = await created(client());
    const { turn, operationId } = userTurn(session);
    core.completed(operationId, 'prepare');
    await nextTask();
    expect(turn.state).to.equal('pending');
    expect(session.getStatus()).to.equal('running');
    core.completed(operationId, 'user');
    await turn.promise;
  });

  it("a turn stays reserved until both its request's answer and its completion came: sendText in between → SESSION_BUSY", async () => {
    const { session, core } = await created(client());
    const first = track(session.sendText('one'));
    const request = fake.last('send_text');
    core.completed(request.operationId);
    const between = track(session.sendText('two'));
    await nextTask();
    expect(posted('send_text'), 'nothing more posted').to.have.length(1);
    expect(between.state).to.equal('rejected');
    expect(between.error).to.deep.include({ code: 'SESSION_BUSY', details: { sessionId: 's1' } });
    fake.respond({}, request);
    await first.promise;
    const { turn, operationId } = userTurn(session, 'three');
    core.completed(operationId);
    await turn.promise;
  });

  it("a completion that came before a failed answer wins: the turn settles with the completion's outcome; the failure is still reported", async () => {
    const { session, core } = await created(client());
    const errors: Array<[string, string | undefined]> = [];
    session.onError((error, ctx) => errors.push([error.code, ctx.type]));
    const turn = track(session.sendText('hi'));
    const request = fake.last('send_text');
    core.completed(request.operationId);
    fake.fail({ code: 'NATIVE_HOST_UNAVAILABLE', message: 'late' }, request);
    await settled(turn.promise);
    expect(turn.state).to.equal('fulfilled');
    expect(session.getStatus()).to.equal('idle');
    expect(errors).to.deep.equal([['NATIVE_HOST_UNAVAILABLE', 'sdk_error']]);
  });
});

describe('SDK 0.4.6 turns: status_changed', () => {
  it('a status_changed of another operation is ignored', async () => {
    const { session, core } = await created(client());
    const { turn, operationId } = userTurn(session);
    core.event('status_changed', { status: 'idle', operationId: 'turn_other' });
    core.event('status_changed', { status: 'waiting_tool_result', operationId: 'turn_other' });
    expect(session.getStatus()).to.equal('running');
    core.completed(operationId);
    await turn.promise;
  });

  it('a status_changed naming no operation while a turn runs is ignored', async () => {
    const { session, core } = await created(client());
    const { turn, operationId } = userTurn(session);
    core.event('status_changed', { status: 'idle' });
    expect(session.getStatus()).to.equal('running');
    core.completed(operationId);
    await turn.promise;
  });

  it('a status_changed naming no operation with no turn running is taken', async () => {
    const { session, core } = await created(client());
    core.event('status_changed', { status: 'running' });
    expect(session.getStatus()).to.equal('running');
  });

  it('status_changed error → onError SESSION_ERROR "session entered error status" { sessionId }; the turn waits for its completion', async () => {
    const { session, core } = await created(client());
    const errors: PedelecError[] = [];
    session.onError((error) => errors.push(error));
    const { turn, operationId } = userTurn(session);
    core.event('status_changed', { status: 'error', operationId });
    expect(session.getStatus()).to.equal('error');
    expect(errors).to.deep.equal([
      { code: 'SESSION_ERROR', message: 'session entered error status', details: { sessionId: 's1' } },
    ]);
    await nextTask();
    expect(turn.state).to.equal('pending');
    core.completed(operationId, 'user', { success: false, error: { code: 'PROVIDER_ERROR', message: 'x' } });
    expect((await rejection(turn.promise)).code).to.equal('PROVIDER_ERROR');
  });
});

describe('SDK 0.4.6 turns: failures around a turn', () => {
  it('a send_text refused with an admission code puts the status back where it was — error stays error', async () => {
    const { session, core } = await created(client());
    core.event('error', { error: { code: 'CORE_DOWN', message: 'down' } });
    expect(session.getStatus()).to.equal('error');
    const statuses: string[] = [];
    session.onStatus((status) => statuses.push(status));
    const turn = track(session.sendText('hi'));
    fake.fail({ code: 'THREAD_BUSY', message: 'busy' }, fake.last('send_text'));
    expect((await rejection(turn.promise)).code).to.equal('THREAD_BUSY');
    expect(statuses).to.deep.equal(['running', 'error']);
  });

  it("a transport-wide error on today's protocol: onError and status error, the turn not rejected — it waits for its completion", async () => {
    const { session, core } = await created(client());
    const errors: string[] = [];
    session.onError((error) => errors.push(error.code));
    const { turn, operationId } = userTurn(session);
    fake.emit({ type: 'error', error: { code: 'NATIVE_HOST_UNAVAILABLE', message: 'native host gone' } });
    expect(errors).to.deep.equal(['NATIVE_HOST_UNAVAILABLE']);
    expect(session.getStatus()).to.equal('error');
    await nextTask();
    expect(turn.state).to.equal('pending');
    core.completed(operationId);
    await turn.promise;
    expect(session.getStatus()).to.equal('idle');
  });

  it('(kit) a transport-wide error with a 0.1.x extension rejects the turn with it', async () => {
    const c = await legacyClient();
    const pending = c.createSession({ provider: 'codex', model: 'gpt-5' });
    await fake.answer('create_session', { sessionId: 's1' });
    const session = await pending;
    const turn = track(session.sendText('hi'));
    fake.respond({}, fake.last('send_text'));
    fake.emit({ type: 'error', error: { code: 'NATIVE_HOST_UNAVAILABLE', message: 'native host gone' } });
    expect((await rejection(turn.promise)).code).to.equal('NATIVE_HOST_UNAVAILABLE');
    expect(session.getStatus()).to.equal('error');
  });

  it('prepare() during a user turn → SESSION_BUSY, even when the session is prepared', async () => {
    const { session, core } = await created(client());
    const preparing = session.prepare();
    const request = await fake.answer('prepare_session');
    core.completed(request.operationId, 'prepare');
    await preparing;
    const { turn, operationId } = userTurn(session);
    const error = await rejection(session.prepare());
    expect(error).to.deep.include({ code: 'SESSION_BUSY', details: { sessionId: 's1' } });
    core.completed(operationId);
    await turn.promise;
    await session.prepare();
    expect(posted('prepare_session'), 'prepared: nothing sent afterwards').to.have.length(1);
  });
});

describe('SDK 0.4.6 turns: tool calls and artifacts', () => {
  it('(kit) two overlapping tool calls of a turn are both answered', async () => {
    const { session, core } = await created(client());
    const finish: Record<string, (value: unknown) => void> = {};
    session.onTool('slow', (args: { id: string }) => new Promise((resolve) => (finish[args.id] = resolve)));
    const { turn, operationId } = userTurn(session);
    core.event('tool_call', { operationId, toolRequestId: 'r1', tool: 'slow', args: { id: 'a' } });
    core.event('tool_call', { operationId, toolRequestId: 'r2', tool: 'slow', args: { id: 'b' } });
    await nextTask();
    finish.a!('first');
    finish.b!('second');
    await fake.request('submit_tool_result', (m) => m.toolRequestId === 'r2');
    expect(posted('submit_tool_result').map((m) => [m.toolRequestId, m.result])).to.deep.equal([
      ['r1', 'first'],
      ['r2', 'second'],
    ]);
    core.completed(operationId);
    await turn.promise;
  });

  it('a tool result that finishes after its operation completed is not submitted: Core no longer waits for it', async () => {
    const { session, core } = await created(client());
    let finish!: (value: unknown) => void;
    session.onTool('slow', () => new Promise((resolve) => (finish = resolve)));
    const { turn, operationId } = userTurn(session);
    core.event('tool_call', { operationId, toolRequestId: 'r1', tool: 'slow', args: {} });
    core.completed(operationId);
    await turn.promise;
    finish('too late');
    await nextTask();
    expect(posted('submit_tool_result')).to.deep.equal([]);
  });

  it('(kit) an artifact from a provider code the SDK does not know (scripted) is delivered', async () => {
    const { session, core } = await created(client(), { provider: 'scripted' });
    const artifacts: unknown[] = [];
    const errors: PedelecError[] = [];
    session.onArtifact((a) => artifacts.push(a));
    session.onError((error) => errors.push(error));
    const { turn, operationId } = userTurn(session);
    core.event('provider_artifact', { operationId, artifact: artifact({ provider: 'scripted' }) });
    expect(errors).to.deep.equal([]);
    expect(artifacts).to.deep.equal([artifact({ provider: 'scripted' })]);
    core.completed(operationId);
    await turn.promise;
  });

  it('an artifact\'s context names the user turn: turnKind "user", source "core", its turnId and turnStartedAt', async () => {
    const { session, core } = await created(client());
    const contexts: Array<Record<string, unknown>> = [];
    const statusContexts: Array<Record<string, unknown>> = [];
    session.onStatus((_s, ctx) => statusContexts.push({ ...ctx }));
    session.onArtifact((_a, ctx) => contexts.push({ ...ctx }));
    const { turn, operationId } = userTurn(session);
    core.event('provider_artifact', { operationId, artifact: artifact() });
    expect(contexts).to.have.length(1);
    expect(contexts[0]).to.deep.include({
      type: 'provider_artifact',
      source: 'core',
      turnKind: 'user',
      turnId: operationId,
      turnStartedAt: statusContexts[0]!.turnStartedAt,
    });
    expect(contexts[0]!.eventReceivedAt).to.be.a('number');
    core.completed(operationId);
    await turn.promise;
  });
});
