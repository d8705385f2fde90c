/**
 * SDK 0.4.6, session snapshots (docs/design/sdk-0.4.md "Sessions and connection"): Core-spelled statuses
 * mapped to the SDK's, an unknown one read as `error`; a snapshot of another thread ignored; the
 * pending tool request of a snapshot (in Core's field names or the development Core's) run once a
 * handler is registered; a turn taken over from a snapshot — its id and start time, its live tool
 * calls waiting for their handler, replaced or retired by later snapshots. With the kit's rules: a
 * snapshot without `threadId` is the session's own, and one that does not mention the page's own
 * running turn is ignored.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import type { PedelecError } from '../../../src/core/index.js';
import { rejection } from '../../support/promises.js';
import { nextTask } from '../../support/waits.js';
import { client, clientHooks, Core, created, fake, posted, resumed, resumeReply, userTurn } from './harness.js';

clientHooks();

const STARTED_AT = '2025-03-04T05:06:07.000Z';
const operation = (operationId: string, operationKind: 'user' | 'prepare' = 'user') => ({
  operationId,
  operationKind,
  startedAt: STARTED_AT,
});
/** A pending tool request as today's Core names its fields. */
const pendingRequest = (requestId: string, operationId: string, toolName = 'pick', args: unknown = { n: 1 }) => ({
  requestId,
  threadId: 's1',
  operationId,
  toolName,
  args,
  createdAt: STARTED_AT,
  timeoutMs: 60_000,
});

describe('SDK 0.4.6 snapshots: statuses', () => {
  for (const [coreStatus, status] of [
    ['waitingToolResult', 'waiting_tool_result'],
    ['starting', 'running'],
    ['stopping', 'running'],
  ] as const) {
    it(`a snapshot status "${coreStatus}" (Core's spelling) becomes "${status}", Core-sourced`, async () => {
      const { session, core } = await resumed(client());
      const seen: Array<[string, string, string | undefined]> = [];
      session.onStatus((s, ctx) => seen.push([s, ctx.source, ctx.type]));
      core.snapshot({ status: coreStatus, activeOperation: operation('op_1') });
      expect(seen).to.deep.equal([[status, 'core', 'status_changed']]);
      expect(session.getStatus()).to.equal(status);
    });
  }

  for (const status of ['running', 'error', 'idle'] as const) {
    it(`a snapshot status "${status}" is taken as it is`, async () => {
      const { session, core } = await resumed(client(), 's1', { status: status === 'idle' ? 'running' : 'idle' });
      core.snapshot({ status });
      expect(session.getStatus()).to.equal(status);
    });
  }

  it("(kit) the SDK's own spelling waiting_tool_result, which the development Core sends, is kept", async () => {
    const { session, core } = await resumed(client());
    core.snapshot({ status: 'waiting_tool_result', activeOperation: operation('op_1') });
    expect(session.getStatus()).to.equal('waiting_tool_result');
  });

  for (const status of ['paused', 'WAITING', 42]) {
    it(`an unknown snapshot status (${JSON.stringify(status)}) is read as "error"`, async () => {
      const { session, core } = await resumed(client());
      core.snapshot({ status });
      expect(session.getStatus()).to.equal('error');
    });
  }

  it('a snapshot naming another threadId is ignored: status and usage unchanged', async () => {
    const { session } = await resumed(client(), 's1', { usage: { totalTokens: 10 } });
    const statuses: string[] = [];
    session.onStatus((s) => statuses.push(s));
    fake.event('s1', 'session_snapshot', {
      seq: 3,
      snapshot: { threadId: 's2', status: 'running', latestSeq: 3, usage: { totalTokens: 99 } },
    });
    expect(statuses).to.deep.equal([]);
    expect(session.getStatus()).to.equal('idle');
    expect(session.usage.totalTokens).to.equal(10);
  });

  it("(kit) a snapshot without threadId is the session's own", async () => {
    const { session } = await resumed(client());
    fake.event('s1', 'session_snapshot', {
      seq: 3,
      snapshot: { status: 'running', latestSeq: 3, usage: { totalTokens: 7 } },
    });
    expect(session.getStatus()).to.equal('running');
    expect(session.usage.totalTokens).to.equal(7);
  });
});

describe('SDK 0.4.6 snapshots: the pending tool request', () => {
  it("a pendingToolRequest in Core's field names (requestId, toolName) runs after a resume, once a handler is registered", async () => {
    const { session } = await resumed(client(), 's1', {
      status: 'waitingToolResult',
      activeOperation: operation('op_1'),
      pendingToolRequest: pendingRequest('tool-recovered', 'op_1'),
    });
    expect(session.getStatus()).to.equal('waiting_tool_result');
    await nextTask();
    expect(posted('submit_tool_result'), 'nothing answered before a handler exists').to.deep.equal([]);
    const seen: Array<Record<string, unknown>> = [];
    session.onTool('pick', (args, ctx) => {
      seen.push({ args, toolRequestId: ctx.toolRequestId, tool: ctx.tool, turnId: ctx.turnId });
      return { recovered: true };
    });
    const submit = await fake.request('submit_tool_result');
    expect(seen).to.deep.equal([{ args: { n: 1 }, toolRequestId: 'tool-recovered', tool: 'pick', turnId: 'op_1' }]);
    expect(submit).to.deep.include({ sessionId: 's1', toolRequestId: 'tool-recovered' });
    expect(submit.result).to.deep.equal({ recovered: true });
  });

  it('(kit) a recovered call of a consequential tool is asked again from scratch: nothing of the old page’s wait carries over', async () => {
    const asked: unknown[] = [];
    const skills = {
      guidance: '',
      tools: [
        {
          name: 'pick',
          description: 'Picks.',
          argsSchema: { type: 'object', properties: { n: { type: 'integer' } } },
          consequential: true,
          handler: () => ({ picked: true }),
        },
      ],
    };
    const c = client({ onApproval: (request) => (asked.push(request.args), { approved: false, reason: 'not now' }) });
    const pending = c.resumeSession('s1', { skills } as never);
    new Core('s1').snapshot({
      status: 'waitingToolResult',
      activeOperation: operation('op_1'),
      pendingToolRequest: pendingRequest('tool-recovered', 'op_1'),
    });
    await fake.answer('resume_session', resumeReply('s1'));
    const session = await pending;
    const submit = await fake.request('submit_tool_result');
    expect(asked, 'asked, with the recovered call’s arguments').to.deep.equal([{ n: 1 }]);
    expect(submit.result.error.code).to.equal('TOOL_APPROVAL_REJECTED');
    expect(session.sessionId).to.equal('s1');
  });

  it("(kit) a pendingToolRequest in the development Core's field names (toolRequestId, tool) runs the same way", async () => {
    const { session } = await resumed(client(), 's1', {
      status: 'waitingToolResult',
      activeOperation: operation('op_1'),
      pendingToolRequest: { toolRequestId: 'r7', tool: 'pick', args: { n: 2 }, operationId: 'op_1' },
    });
    const seen: unknown[] = [];
    session.onTool((tool, args) => (seen.push([tool, args]), 'ok'));
    const submit = await fake.request('submit_tool_result');
    expect(seen).to.deep.equal([['pick', { n: 2 }]]);
    expect(submit).to.deep.include({ toolRequestId: 'r7', result: 'ok' });
  });

  it('a recovered call Core no longer waits for (a later idle snapshot) is dropped: registering the handler submits nothing', async () => {
    const { session, core } = await resumed(client(), 's1', {
      status: 'waitingToolResult',
      activeOperation: operation('op_1'),
      pendingToolRequest: pendingRequest('tool-old', 'op_1'),
    });
    core.snapshot({
      status: 'idle',
      lastCompletedOperation: { operationId: 'op_1', operationKind: 'user', success: true, completedAt: STARTED_AT },
    });
    const ran: unknown[] = [];
    session.onTool('pick', (args) => (ran.push(args), 'late'));
    await nextTask();
    expect(ran).to.deep.equal([]);
    expect(posted('submit_tool_result')).to.deep.equal([]);
  });

  it('a recovered call runs once: a later snapshot naming it again does not run it again', async () => {
    const snapshot = {
      status: 'waitingToolResult',
      activeOperation: operation('op_1'),
      pendingToolRequest: pendingRequest('tool-1', 'op_1'),
    };
    const { session, core } = await resumed(client(), 's1', snapshot);
    let runs = 0;
    session.onTool('pick', () => ++runs);
    await fake.request('submit_tool_result');
    core.snapshot(snapshot);
    await nextTask();
    expect(runs).to.equal(1);
    expect(posted('submit_tool_result')).to.have.length(1);
  });
});

describe('SDK 0.4.6 snapshots: turns taken over from a snapshot', () => {
  it('a live tool_call of a turn taken over from a snapshot waits for its handler, and runs when onTool registers one', async () => {
    const { session, core } = await resumed(client(), 's1', { status: 'running', activeOperation: operation('op_1') });
    core.event('tool_call', { operationId: 'op_1', toolRequestId: 'r2', tool: 'pick', args: { n: 3 } });
    await nextTask();
    expect(posted('submit_tool_result'), 'no TOOL_HANDLER_NOT_FOUND while the page is starting').to.deep.equal([]);
    session.onTool('pick', (args) => ({ got: args }));
    const submit = await fake.request('submit_tool_result');
    expect(submit).to.deep.include({ toolRequestId: 'r2' });
    expect(submit.result).to.deep.equal({ got: { n: 3 } });
  });

  it("a tool_call of the page's own turn with no handler is answered TOOL_HANDLER_NOT_FOUND at once", async () => {
    const { session, core } = await created(client());
    const { operationId } = userTurn(session);
    core.event('tool_call', { operationId, toolRequestId: 'r1', tool: 'pick', args: {} });
    const submit = await fake.request('submit_tool_result');
    expect(submit.toolRequestId).to.equal('r1');
    expect(submit.result.error).to.deep.include({ code: 'TOOL_HANDLER_NOT_FOUND', details: { tool: 'pick' } });
    expect(submit.result.error.message).to.equal('No tool handler registered for pick');
  });

  it('an external turn is replaced by a snapshot naming another active operation: the call it waited for is dropped', async () => {
    const { session, core } = await resumed(client(), 's1', {
      status: 'waitingToolResult',
      activeOperation: operation('op-a'),
      pendingToolRequest: pendingRequest('tool-a', 'op-a'),
    });
    core.snapshot({
      status: 'waitingToolResult',
      activeOperation: operation('op-b'),
      pendingToolRequest: pendingRequest('tool-b', 'op-b'),
    });
    const seen: Array<[string, string]> = [];
    session.onTool('pick', (_args, ctx) => (seen.push([ctx.toolRequestId, ctx.turnId]), 'done'));
    await fake.request('submit_tool_result');
    await nextTask();
    expect(seen).to.deep.equal([['tool-b', 'op-b']]);
    expect(posted('submit_tool_result').map((m) => m.toolRequestId)).to.deep.equal(['tool-b']);
  });

  it('an external turn is retired by a snapshot naming no active operation: status idle, and the page may send', async () => {
    const { session, core } = await resumed(client(), 's1', { status: 'running', activeOperation: operation('op-a') });
    core.snapshot({
      status: 'idle',
      lastCompletedOperation: { operationId: 'op-a', operationKind: 'user', success: true, completedAt: STARTED_AT },
    });
    expect(session.getStatus()).to.equal('idle');
    const { turn, operationId } = userTurn(session);
    expect(posted('send_text')).to.have.length(1);
    core.completed(operationId);
    await turn.promise;
  });

  it('while an external turn runs, sendText and prepare reject SESSION_BUSY, posting nothing', async () => {
    const { session } = await resumed(client(), 's1', { status: 'running', activeOperation: operation('op-a') });
    for (const call of [() => session.sendText('hi'), () => session.prepare()]) {
      const error = await rejection(call());
      expect(error).to.deep.include({ code: 'SESSION_BUSY', details: { sessionId: 's1' } });
    }
    expect(posted('send_text').concat(posted('prepare_session'))).to.deep.equal([]);
  });

  it("the taken-over turn's turnId is the operation's id and its turnStartedAt the operation's startedAt", async () => {
    const { session, core } = await resumed(client(), 's1', { status: 'running', activeOperation: operation('op_1') });
    const contexts: Array<Record<string, unknown>> = [];
    session.onChat((_text, ctx) => contexts.push({ ...ctx }));
    core.event('chat_message', { operationId: 'op_1', text: 'Still here.' });
    expect(contexts).to.have.length(1);
    expect(contexts[0]).to.deep.include({
      turnId: 'op_1',
      turnStartedAt: Date.parse(STARTED_AT),
      turnKind: 'user',
      type: 'chat_message',
    });
  });

  it('the taken-over turn ends on its operation_completed: status idle', async () => {
    const { session, core } = await resumed(client(), 's1', { status: 'running', activeOperation: operation('op_1') });
    core.completed('op_1');
    expect(session.getStatus()).to.equal('idle');
    const { turn, operationId } = userTurn(session);
    core.completed(operationId);
    await turn.promise;
  });
});

describe("SDK 0.4.6 snapshots: the page's own running turn", () => {
  it("a snapshot whose activeOperation is the page's own turn keeps it running, with the snapshot's status", async () => {
    const { session, core } = await created(client());
    const { turn, operationId } = userTurn(session);
    core.snapshot({ status: 'waitingToolResult', activeOperation: { ...operation(operationId) } });
    await nextTask();
    expect(turn.state).to.equal('pending');
    expect(session.getStatus()).to.equal('waiting_tool_result');
    core.completed(operationId);
    await turn.promise;
  });

  it("a snapshot's pending call of the page's own turn is run by its handler", async () => {
    const { session, core } = await created(client());
    session.onTool('pick', (args) => ({ echoed: args }));
    const { turn, operationId } = userTurn(session);
    core.snapshot({
      status: 'waitingToolResult',
      activeOperation: operation(operationId),
      pendingToolRequest: pendingRequest('r9', operationId, 'pick', { n: 9 }),
    });
    const submit = await fake.request('submit_tool_result');
    expect(submit).to.deep.include({ toolRequestId: 'r9' });
    expect(submit.result).to.deep.equal({ echoed: { n: 9 } });
    fake.answered.add(submit);
    fake.respond({}, submit);
    core.completed(operationId);
    await turn.promise;
  });

  it("a snapshot whose lastCompletedOperation is the page's own turn settles it (success → idle)", async () => {
    const { session, core } = await created(client());
    const { turn, operationId } = userTurn(session);
    core.snapshot({
      status: 'idle',
      lastCompletedOperation: { operationId, operationKind: 'user', success: true, completedAt: STARTED_AT },
    });
    await turn.promise;
    expect(session.getStatus()).to.equal('idle');
  });

  it("(kit) a snapshot naming another operation while the page's own turn runs is ignored — no SDK_LIFECYCLE_SYNC_ERROR — and the turn goes on", async () => {
    const { session, core } = await created(client());
    const errors: PedelecError[] = [];
    session.onError((error) => errors.push(error));
    const { turn, operationId } = userTurn(session);
    core.snapshot({ status: 'running', activeOperation: operation('op_someone_else') });
    core.snapshot({ status: 'idle' });
    await nextTask();
    expect(errors).to.deep.equal([]);
    expect(turn.state).to.equal('pending');
    expect(session.getStatus()).to.equal('running');
    core.completed(operationId);
    await turn.promise;
  });
});
