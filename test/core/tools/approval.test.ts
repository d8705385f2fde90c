/**
 * Consequential tools in the core (docs/tools.md "Consequential tools"): an agent's call waits for
 * `onApproval` before its handler runs — approved, rejected with the reason, timed out, edited and
 * checked again, or refused at once when nobody can be asked — and the manifest's `timeoutMs` covers
 * the wait plus the handler's own time, so a long wait still runs the handler.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import type { ToolApprovalAnswer, ToolApprovalDecision, ToolApprovalRequest } from '../../../src/core/index.js';
import { callLocally } from '../../../src/core/local-call.js';
import { Toolbox, type ToolCall } from '../../../src/core/toolbox.js';
import { normalizeSkills } from '../../../src/core/tools.js';
import { counterTool, fake, newClient, open, skillsOf, startTurn, submitted, toolCall, toolHooks } from './harness.js';

toolHooks();

/** A session whose one tool is consequential, its approvals answered by `answer`, its handler's calls kept. */
async function consequential(
  answer: ((request: ToolApprovalRequest) => ToolApprovalAnswer | Promise<ToolApprovalAnswer>) | undefined,
  tool: Record<string, unknown> = {},
) {
  const ran: unknown[] = [];
  const asked: ToolApprovalRequest[] = [];
  let heard: (request: ToolApprovalRequest) => void = () => {};
  const firstAsked = new Promise<ToolApprovalRequest>((resolve) => (heard = resolve));
  const { session } = await open(
    skillsOf(
      counterTool({
        consequential: true,
        handler: (args: unknown) => (ran.push(args), { ok: true }),
        ...tool,
      }),
    ),
    answer && {
      onApproval: (request) => {
        asked.push(request);
        heard(request);
        return answer(request);
      },
    },
  );
  void startTurn(session);
  return { ran, asked, firstAsked };
}

const resultFor = async (id: string) => (await submitted(id)).result as { error?: { code: string; message: string } };

describe('consequential tools: the agent’s call waits for a person', () => {
  it('runs once approved, with the agent’s arguments; the request says who called and what', async () => {
    let approve: (answer: ToolApprovalAnswer) => void = () => {};
    const { ran, asked, firstAsked } = await consequential(() => new Promise((resolve) => (approve = resolve)));
    toolCall('r1', 'update_counter', { delta: 2 });
    const result = submitted('r1');
    await firstAsked;
    expect(asked.map(({ tool, args, via, editable }) => ({ tool, args, via, editable }))).to.deep.equal([
      { tool: 'update_counter', args: { delta: 2 }, via: 'pedelec', editable: false },
    ]);
    expect(ran, 'nothing runs before the answer').to.deep.equal([]);
    approve(true);
    expect((await result).result).to.deep.equal({ ok: true });
    expect(ran).to.deep.equal([{ delta: 2 }]);
    expect(asked[0]!.signal.aborted, 'the question is withdrawn once answered').to.equal(true);
  });

  it('a rejection is TOOL_APPROVAL_REJECTED with the reason; the handler never runs', async () => {
    const { ran } = await consequential(() => ({ approved: false, reason: 'too many' }));
    toolCall('r1', 'update_counter', { delta: 9 });
    const { error } = await resultFor('r1');
    expect(error?.code).to.equal('TOOL_APPROVAL_REJECTED');
    expect(error?.message).to.equal('A person rejected update_counter: too many');
    expect(ran).to.deep.equal([]);
  });

  it('nobody answering within approvalTimeoutMs is TOOL_APPROVAL_TIMEOUT, and the question is withdrawn', async () => {
    const { ran, asked } = await consequential(() => new Promise(() => {}), { approvalTimeoutMs: 30 });
    toolCall('r1', 'update_counter', { delta: 1 });
    const { error } = await resultFor('r1');
    expect(error?.code).to.equal('TOOL_APPROVAL_TIMEOUT');
    expect(ran).to.deep.equal([]);
    expect(asked[0]!.signal.aborted).to.equal(true);
  });

  it('without onApproval the call fails at once with TOOL_APPROVAL_UNAVAILABLE', async () => {
    const { ran } = await consequential(undefined);
    toolCall('r1', 'update_counter', { delta: 1 });
    const { error } = await resultFor('r1');
    expect(error?.code).to.equal('TOOL_APPROVAL_UNAVAILABLE');
    expect(ran).to.deep.equal([]);
  });

  it('edited arguments are used where the tool allows editing', async () => {
    const { ran } = await consequential(() => ({ approved: true, args: { delta: 5 } }), { approvalEditable: true });
    toolCall('r1', 'update_counter', { delta: 1 });
    await submitted('r1');
    expect(ran).to.deep.equal([{ delta: 5 }]);
  });

  it('edited arguments are checked again: invalid ones are TOOL_ARGS_INVALID and nothing runs', async () => {
    const { ran } = await consequential(() => ({ approved: true, args: { delta: 'five' } }), {
      approvalEditable: true,
    });
    toolCall('r1', 'update_counter', { delta: 1 });
    const { error } = await resultFor('r1');
    expect(error?.code).to.equal('TOOL_ARGS_INVALID');
    expect(error?.message).to.match(/^The edited arguments: /);
    expect(ran).to.deep.equal([]);
  });

  it('where editing is not allowed, the agent’s arguments run whatever the answer carries', async () => {
    const { ran } = await consequential(() => ({ approved: true, args: { delta: 7 } }));
    toolCall('r1', 'update_counter', { delta: 1 });
    await submitted('r1');
    expect(ran).to.deep.equal([{ delta: 1 }]);
  });

  it('an approval that fails (the surface threw or rejected) is TOOL_APPROVAL_UNAVAILABLE, not a person’s rejection', async () => {
    const { ran } = await consequential(() => Promise.reject(new Error('the dialog did not load')));
    toolCall('r1', 'update_counter', { delta: 1 });
    const { error } = await resultFor('r1');
    expect(error?.code).to.equal('TOOL_APPROVAL_UNAVAILABLE');
    expect(error?.message).to.equal(
      "update_counter needs a person's approval, and asking for it failed: the dialog did not load",
    );
    expect(ran).to.deep.equal([]);
  });

  it('invalid arguments are refused before anyone is asked', async () => {
    const { asked } = await consequential(() => true);
    toolCall('r1', 'update_counter', { delta: 'x' });
    const { error } = await resultFor('r1');
    expect(error?.code).to.equal('TOOL_ARGS_INVALID');
    expect(asked).to.deep.equal([]);
  });

  it('the manifest’s timeoutMs covers the wait plus the handler’s time; a wait past the handler’s own time still runs it', async () => {
    const { ran } = await consequential(() => new Promise((resolve) => setTimeout(() => resolve(true), 80)), {
      timeoutMs: 20,
      approvalTimeoutMs: 1000,
    });
    const manifest = fake.last('create_session').input.skills.tools[0];
    expect(manifest.timeoutMs).to.equal(1020);
    expect(manifest).not.to.have.property('consequential');
    toolCall('r1', 'update_counter', { delta: 3 });
    expect((await submitted('r1')).result).to.deep.equal({ ok: true });
    expect(ran).to.deep.equal([{ delta: 3 }]);
  });

  it('one approval runs one call: each call is asked about', async () => {
    const { ran, asked } = await consequential(() => true);
    toolCall('r1', 'update_counter', { delta: 1 });
    await submitted('r1');
    toolCall('r2', 'update_counter', { delta: 1 });
    await submitted('r2');
    expect(asked).to.have.length(2);
    expect(ran).to.have.length(2);
  });

  it('a bad approvalTimeoutMs is INVALID_INPUT', async () => {
    const created = newClient().createSession({
      provider: 'codex',
      model: 'm',
      skills: skillsOf(counterTool({ consequential: true, approvalTimeoutMs: -1 })),
    } as never);
    const error = await created.then(
      () => null,
      (thrown: { code: string; message: string }) => thrown,
    );
    expect(error?.code).to.equal('INVALID_INPUT');
    expect(error?.message).to.equal('tool approvalTimeoutMs must be a positive integer');
  });

  it('a foreign agent’s call runs only as approved where that agent lives: approvedBy, else TOOL_APPROVAL_UNAVAILABLE', async () => {
    const [tool] = normalizeSkills(skillsOf(counterTool({ consequential: true })))!.tools;
    const ran: unknown[] = [];
    const decisions: ToolApprovalDecision[] = [];
    const toolbox = new Toolbox(true, () => true); // a page that would approve anything: never asked here
    toolbox.setTools([{ ...tool!, handler: (args) => (ran.push(args), 'done') }]);
    toolbox.hooks.decided = (decision) => decisions.push(decision);
    const call = (approvedBy?: ToolCall['approvedBy']) =>
      callLocally(toolbox, {
        tool: 'update_counter',
        args: { delta: 1 },
        via: 'mcp',
        id: 'mcp_1',
        session: { sessionId: '', provider: '', model: undefined, sessionCreatedAt: 0 },
        approvedBy,
      });
    const refused = await call();
    expect(refused.ok ? null : refused.error.code).to.equal('TOOL_APPROVAL_UNAVAILABLE');
    expect(ran).to.deep.equal([]);
    expect(await call('operator')).to.deep.include({ ok: true, result: 'done' });
    expect(decisions.map(({ via, decidedBy, approved }) => [via, decidedBy, approved])).to.deep.equal([
      ['mcp', 'operator', true],
    ]);
  });
});
