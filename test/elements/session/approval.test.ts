/**
 * Consequential tools on `<pedelec-session>` (docs/tools.md "Consequential tools"), the Pedelec agent's
 * side: nothing runs until the page answers `pedelec-tool-approval` (on the tool, bubbling; on the
 * session for a JS tool); a rejection reaches the agent with its reason; nobody to ask fails at once
 * with `TOOL_APPROVAL_UNAVAILABLE` and one console error; the wait has its own time; every decision is
 * a `pedelec-tool-approval-decided`; `invoke()` needs no approval.
 */
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../../src/define.js';
import type {
  PedelecSessionElement,
  PedelecToolApprovalDecidedEvent,
  PedelecToolApprovalEvent,
  ToolApprovalAnswer,
} from '../../../src/index.js';
import { agentCall, fake, openTurn, restorers, sessionHooks, started, toolOf } from './harness.js';
import { record } from '../helpers.js';
import { until } from '../../support/waits.js';

/** A session with one consequential tool `clear` (its handler's runs kept), started, a turn open. */
async function consequentialSession(attributes = '') {
  const el = await fixture<PedelecSessionElement>(html`<pedelec-session provider="codex" model="m"></pedelec-session>`);
  el.innerHTML = `<pedelec-tool name="clear" description="Clears the list." consequential ${attributes}>
      <pedelec-arg name="keep" type="integer" minimum="0"></pedelec-arg>
    </pedelec-tool>`;
  const runs: unknown[] = [];
  toolOf(el, 'clear').handler = (args: unknown) => (runs.push(args), { cleared: true });
  await started(el);
  await openTurn(el);
  const decided = record<PedelecToolApprovalDecidedEvent>(el, 'pedelec-tool-approval-decided');
  return { el, runs, decided };
}

/** Answers every `pedelec-tool-approval` under `target` with `answer(event)`. */
function answerWith(
  target: EventTarget,
  answer: (event: PedelecToolApprovalEvent) => ToolApprovalAnswer | Promise<ToolApprovalAnswer>,
) {
  const asked: PedelecToolApprovalEvent[] = [];
  const listener = (event: Event) => {
    const approval = event as PedelecToolApprovalEvent;
    asked.push(approval);
    approval.respondWith(answer(approval));
  };
  target.addEventListener('pedelec-tool-approval', listener);
  restorers.push(() => target.removeEventListener('pedelec-tool-approval', listener));
  return asked;
}

describe('<pedelec-session>: consequential tools, the Pedelec agent’s calls', () => {
  sessionHooks();

  it('nothing runs until the page approves; then the handler runs once with the agent’s args', async () => {
    const { el, runs, decided } = await consequentialSession();
    let approve: (answer: ToolApprovalAnswer) => void = () => {};
    const asked = answerWith(document, () => new Promise((resolve) => (approve = resolve)));
    const askedOnce = oneEvent(el, 'pedelec-tool-approval');
    const result = agentCall('s1', 'clear', { keep: 1 });
    await askedOnce;
    expect(asked.map((e) => [e.detail.tool, e.detail.args, e.detail.via, e.detail.editable])).to.deep.equal([
      ['clear', { keep: 1 }, 'pedelec', false],
    ]);
    expect(asked[0]!.composed && asked[0]!.bubbles, 'bubbles out of shadow roots').to.equal(true);
    expect(asked[0]!.target, 'fired on the tool').to.equal(toolOf(el, 'clear'));
    expect(runs).to.deep.equal([]);
    approve(true);
    expect(await result).to.deep.equal({ cleared: true });
    expect(runs).to.deep.equal([{ keep: 1 }]);
    expect(decided.map((e) => ({ ...e.detail, at: typeof e.detail.at }))).to.deep.equal([
      { tool: 'clear', args: { keep: 1 }, via: 'pedelec', decidedBy: 'page', approved: true, at: 'number' },
    ]);
    expect(asked[0]!.detail.signal.aborted, 'the question is over').to.equal(true);
  });

  it('a rejection reaches the agent as TOOL_APPROVAL_REJECTED with the reason; the handler never runs', async () => {
    const { el, runs, decided } = await consequentialSession();
    answerWith(el, () => ({ approved: false, reason: 'not today' }));
    const result = await agentCall('s1', 'clear', {});
    expect(result.error.code).to.equal('TOOL_APPROVAL_REJECTED');
    expect(result.error.details).to.deep.equal({ tool: 'clear', reason: 'not today' });
    expect(runs).to.deep.equal([]);
    expect(decided.map((e) => [e.detail.decidedBy, e.detail.approved, e.detail.reason])).to.deep.equal([
      ['page', false, 'not today'],
    ]);
  });

  it('with nobody to ask the call fails at once (TOOL_APPROVAL_UNAVAILABLE), with one console error naming the fix', async () => {
    const { runs } = await consequentialSession();
    const errors: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    restorers.push(() => (console.error = original));
    const result = await agentCall('s1', 'clear', {});
    expect(result.error.code).to.equal('TOOL_APPROVAL_UNAVAILABLE');
    expect(runs).to.deep.equal([]);
    // The line comes with the console lines' chunk, a moment later.
    await until(() => errors.length > 0, 'the console error');
    expect(errors).to.have.length(1);
    expect(String(errors[0]![0])).to.match(/clear is consequential.*<pedelec-chat>.*pedelec-tool-approval/);
  });

  it('the wait has its own time (the session’s approval-timeout-ms): TOOL_APPROVAL_TIMEOUT, and Core is told to wait that long too', async () => {
    const el = await fixture<PedelecSessionElement>(
      html`<pedelec-session provider="codex" model="m" approval-timeout-ms="150">
        <pedelec-tool name="clear" description="Clears." consequential timeout-ms="1000"></pedelec-tool>
      </pedelec-session>`,
    );
    toolOf(el, 'clear').handler = () => ({ cleared: true });
    await started(el);
    const sent = fake.posted.find((m) => m.type === 'create_session')!.input.skills.tools[0];
    expect(sent.timeoutMs, 'the wait plus the handler’s own time').to.equal(1150);
    await openTurn(el);
    const asked = answerWith(el, () => new Promise(() => {}));
    const result = await agentCall('s1', 'clear', {});
    expect(result.error.code).to.equal('TOOL_APPROVAL_TIMEOUT');
    expect(asked[0]!.detail.signal.aborted).to.equal(true);
  });

  it('edited arguments run where the tool allows it (approval-editable), checked against its schema again', async () => {
    const { el, runs } = await consequentialSession('approval-editable');
    answerWith(el, (event) => ({ approved: true, args: event.detail.editable ? { keep: 3 } : undefined }));
    expect(await agentCall('s1', 'clear', { keep: 1 })).to.deep.equal({ cleared: true });
    expect(runs).to.deep.equal([{ keep: 3 }]);
    restorers.pop()!();
    answerWith(el, () => ({ approved: true, args: { keep: -1 } }));
    const invalid = await agentCall('s1', 'clear', { keep: 1 });
    expect(invalid.error.code).to.equal('TOOL_ARGS_INVALID');
    expect(runs).to.have.length(1);
  });

  it('invoke() needs no approval: the page itself calls', async () => {
    const { el, runs } = await consequentialSession();
    const asked = answerWith(el, () => false);
    expect(await el.invoke('clear', {})).to.deep.include({ ok: true });
    expect(runs).to.deep.equal([{}]);
    expect(asked).to.deep.equal([]);
  });

  it('a JS tool asks on the session; answering after dispatch throws, and the call is answered from the promise', async () => {
    const el = await fixture<PedelecSessionElement>(
      html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
    );
    const runs: unknown[] = [];
    el.tools = [
      {
        name: 'send_mail',
        description: 'Sends a mail.',
        argsSchema: { type: 'object', properties: {} },
        consequential: true,
        handler: () => (runs.push(1), 'sent'),
      },
    ];
    await started(el);
    await openTurn(el);
    let late: unknown;
    const asked = answerWith(el, (event) => {
      queueMicrotask(() => {
        try {
          event.respondWith(true);
        } catch (error) {
          late = error;
        }
      });
      return Promise.resolve(true);
    });
    expect(await agentCall('s1', 'send_mail', {})).to.equal('sent');
    expect(asked[0]!.target).to.equal(el);
    expect((late as DOMException).name).to.equal('InvalidStateError');
    expect(runs).to.deep.equal([1]);
  });
});
