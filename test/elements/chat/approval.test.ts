/**
 * <pedelec-chat>'s approval card for consequential tools (docs/chat.md "Approving a tool's call"): the
 * Pedelec agent's call shows a card where it arrived, and nothing runs until the person approves; a
 * card answers once; a rejection reaches the agent with its reason; editable arguments; keyboard only,
 * focus in and back; withdrawn when the wait is over; the page's own answer wins; a row per decision;
 * offered to the session while bound and connected.
 */
import { expect, fixture, html } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../../src/define.js';
import type {
  PedelecChatElement,
  PedelecSessionElement,
  PedelecToolApprovalDecidedEvent,
  PedelecToolApprovalEvent,
  PedelecToolElement,
} from '../../../src/index.js';
import { approvalSurfaceOf } from '../../../src/elements/approval-surfaces.js';
import { record } from '../helpers.js';
import { until } from '../../support/waits.js';
import {
  fake,
  available,
  start,
  core,
  pageTurn,
  shadow,
  sendTexts,
  update,
  enter,
  focused,
  chatHooks,
} from './harness.js';

type Mounted = {
  host: HTMLDivElement;
  session: PedelecSessionElement;
  chat: PedelecChatElement;
  tool: PedelecToolElement;
  /** The arguments of each run of the tool's handler. */
  runs: unknown[];
  decided: PedelecToolApprovalDecidedEvent[];
};

/**
 * A session with a consequential `update_counter` (with the tool's extra attributes) and a chat, a
 * button before them, started, with a turn open. The handler adds `delta` to a counter.
 */
async function mountApproval(toolAttrs = '', sessionAttrs = ''): Promise<Mounted> {
  const host = await fixture<HTMLDivElement>(html`<div></div>`);
  host.innerHTML = `<button id="before">Before</button>
    <pedelec-session provider="codex" model="m" ${sessionAttrs}>
      <pedelec-tool name="update_counter" description="Change the visible counter by delta." consequential ${toolAttrs}>
        <pedelec-arg name="delta" type="integer" required minimum="-100" maximum="100"></pedelec-arg>
      </pedelec-tool>
      <div class="panel"><pedelec-chat></pedelec-chat></div>
      <div class="other"></div>
    </pedelec-session>`;
  const session = host.querySelector('pedelec-session')!;
  const chat = host.querySelector('pedelec-chat')!;
  const tool = host.querySelector('pedelec-tool')!;
  const runs: unknown[] = [];
  let counter = 0;
  tool.handler = (args) => {
    runs.push(args);
    return { value: (counter += (args as { delta: number }).delta) };
  };
  const decided = record<PedelecToolApprovalDecidedEvent>(session, 'pedelec-tool-approval-decided');
  await available();
  await start(session);
  await pageTurn(session, 'go');
  return { host, session, chat, tool, runs, decided };
}

let calls = 0;
/** The agent calls update_counter; `result()` waits for what the page sends back to the agent (call it once the call can end). */
function agentCalls(args: unknown): { result: () => Promise<any> } {
  const id = `call_${++calls}`;
  core('tool_call', { toolRequestId: id, tool: 'update_counter', args });
  return {
    result: async () => (await fake.answer('submit_tool_result', {}, (m) => m.toolRequestId === id)).result,
  };
}

const cards = (chat: Element) => [...shadow(chat).querySelectorAll<HTMLElement>('[part~=approval]')];
/** The newest card, once it shows. */
const cardOf = (chat: Element) => until(() => cards(chat).at(-1), 'an approval card');
const button = (card: Element, name: 'Approve' | 'Reject') =>
  [...card.querySelectorAll('button')].find((b) => b.textContent!.trim() === name)!;
const reasonField = (card: Element) => card.querySelector('input')!;
const argsField = (card: Element) => card.querySelector('textarea');
const heading = (card: Element) => card.querySelector('h3')!;
const outcome = (card: Element) => card.querySelector('.outcome')!.textContent!.trim();
/** The card's state part: waiting, approved, rejected or withdrawn. */
const state = (card: Element) => card.getAttribute('part')!.split(' ')[1];
/** The composer's text field (the card may hold a text field too). */
const composer = (chat: Element) => shadow(chat).querySelector<HTMLTextAreaElement>('[part=input]')!;
/** The kind of each row of the log, by its first part: "tool", "approval", "decision", "message"… */
const rowKinds = (chat: Element) =>
  [...shadow(chat).querySelectorAll('.page > *')].map((row) => row.getAttribute('part')!.split(' ')[0]);
const decisionRows = (chat: Element) =>
  [...shadow(chat).querySelectorAll('[part~=decision]')].map((row) => row.textContent!.trim());
/** Types into a field as a person would (an input event per change). */
function type(field: HTMLInputElement | HTMLTextAreaElement, text: string): void {
  field.value = text;
  field.dispatchEvent(new Event('input', { bubbles: true }));
}
/** Resolves with `label`'s id target text: what an accessible name or description reads. */
const referenced = (card: Element, attribute: string) =>
  card
    .getAttribute(attribute)!
    .split(' ')
    .map((id) => (card.getRootNode() as ShadowRoot).getElementById(id)!.textContent!.replace(/\s+/g, ' ').trim())
    .join(' ');

describe('<pedelec-chat>: approving a consequential tool’s call', () => {
  chatHooks();

  it('shows a card where the call arrived, and nothing runs until Approve', async () => {
    const { chat, runs, decided } = await mountApproval();
    const call = agentCalls({ delta: 2 });
    const card = await cardOf(chat);
    await update(chat);
    // The tool's row, then its card: the call's place in the conversation.
    expect(rowKinds(chat)).to.deep.equal(['message', 'tool', 'approval']);
    expect(card.getAttribute('role')).to.equal('group');
    expect(referenced(card, 'aria-labelledby')).to.equal('Run update_counter?');
    expect(referenced(card, 'aria-describedby')).to.contain('Change the visible counter by delta.');
    expect(card.querySelector('pre')!.textContent).to.equal('{\n  "delta": 2\n}');
    expect(argsField(card), 'not editable: no field for the arguments').to.equal(null);
    expect(state(card)).to.equal('waiting');
    expect(runs).to.deep.equal([]);
    expect(fake.posted.some((m) => m.type === 'submit_tool_result')).to.equal(false);

    button(card, 'Approve').click();
    expect(await call.result()).to.deep.equal({ value: 2 });
    expect(runs).to.deep.equal([{ delta: 2 }]);
    expect(state(card)).to.equal('approved');
    expect(outcome(card)).to.equal('Approved.');
    expect([...card.querySelectorAll('button, input')].every((control) => (control as HTMLButtonElement).disabled)).to
      .be.true;
    expect(decided.map((e) => [e.detail.decidedBy, e.detail.approved, e.detail.args])).to.deep.equal([
      ['chat', true, { delta: 2 }],
    ]);
    await update(chat);
    expect(decisionRows(chat)).to.deep.equal(['Approved update_counter (by you in the chat)']);
    // The result shows under the tool's row (tool-results.test.ts), before the card that let it run.
    expect(rowKinds(chat)).to.deep.equal(['message', 'tool', 'tool-result', 'approval', 'decision']);
    expect(shadow(chat).querySelector('[part~=tool]')!.getAttribute('part')).to.equal('tool done');
  });

  it('answers once: Approve clicked twice, then Reject, runs the handler once', async () => {
    const { chat, runs, decided } = await mountApproval();
    const call = agentCalls({ delta: 3 });
    const card = await cardOf(chat);
    button(card, 'Approve').click();
    button(card, 'Approve').click();
    button(card, 'Reject').click();
    expect(await call.result()).to.deep.equal({ value: 3 });
    expect(runs).to.deep.equal([{ delta: 3 }]);
    expect(decided).to.have.length(1);
    expect(state(card)).to.equal('approved');
  });

  it('Reject with a reason: the agent gets TOOL_APPROVAL_REJECTED with the reason, and nothing runs', async () => {
    const { chat, runs } = await mountApproval();
    const call = agentCalls({ delta: 50 });
    const card = await cardOf(chat);
    type(reasonField(card), '  not today  ');
    button(card, 'Reject').click();
    const { error } = await call.result();
    expect(error.code).to.equal('TOOL_APPROVAL_REJECTED');
    expect(error.message).to.contain('not today');
    expect(error.details).to.deep.equal({ tool: 'update_counter', reason: 'not today' });
    expect(runs).to.deep.equal([]);
    expect(state(card)).to.equal('rejected');
    expect(outcome(card)).to.equal('Rejected: not today');
    await update(chat);
    expect(shadow(chat).querySelector('[part~=tool]')!.getAttribute('part')).to.equal('tool failed');
    expect(decisionRows(chat)).to.deep.equal(['Rejected update_counter (by you in the chat): not today']);
  });

  it('Reject without a reason rejects with none', async () => {
    const { chat } = await mountApproval();
    const call = agentCalls({ delta: 1 });
    button(await cardOf(chat), 'Reject').click();
    const { error } = await call.result();
    expect(error.code).to.equal('TOOL_APPROVAL_REJECTED');
    expect(error.details).to.deep.equal({ tool: 'update_counter' });
    await update(chat);
    expect(decisionRows(chat)).to.deep.equal(['Rejected update_counter (by you in the chat)']);
  });

  describe('editable arguments (approval-editable)', () => {
    it('the edited arguments reach the handler; invalid JSON is said, and the card stays open', async () => {
      const { chat, runs, decided } = await mountApproval('approval-editable');
      const call = agentCalls({ delta: 2 });
      const card = await cardOf(chat);
      const field = argsField(card)!;
      expect(field.value).to.equal('{\n  "delta": 2\n}');
      expect(card.querySelector(`label[for="${field.id}"]`)!.textContent).to.contain('Arguments');

      type(field, '{"delta": ');
      button(card, 'Approve').click();
      await update(chat);
      expect(state(card), 'still waiting').to.equal('waiting');
      expect(field.getAttribute('aria-invalid')).to.equal('true');
      const invalid = (card.getRootNode() as ShadowRoot).getElementById(field.getAttribute('aria-describedby')!)!;
      expect(invalid.textContent).to.contain('not valid JSON');
      expect(focused(chat), 'focus on the field to correct').to.equal(field);
      expect(runs).to.deep.equal([]);
      expect(decided).to.have.length(0);

      type(field, '{ "delta": 7 }');
      button(card, 'Approve').click();
      expect(await call.result()).to.deep.equal({ value: 7 });
      expect(runs).to.deep.equal([{ delta: 7 }]);
      expect(decided.map((e) => e.detail.args)).to.deep.equal([{ delta: 7 }]);
      expect(outcome(card)).to.equal('Approved with your changes.');
      expect(field.getAttribute('aria-invalid')).to.equal('false');
    });

    it('arguments left as they were are sent as the agent gave them; edited ones are checked again by the kit', async () => {
      const { chat, runs } = await mountApproval('approval-editable');
      const first = agentCalls({ delta: 4 });
      button(await cardOf(chat), 'Approve').click();
      expect(await first.result()).to.deep.equal({ value: 4 });
      const second = agentCalls({ delta: 4 });
      await until(() => cards(chat).length === 2, 'a second card');
      const card = cards(chat)[1]!;
      type(argsField(card)!, '{"delta": 1000}');
      button(card, 'Approve').click();
      const { error } = await second.result();
      expect(error.code).to.equal('TOOL_ARGS_INVALID');
      expect(runs).to.deep.equal([{ delta: 4 }]);
    });

    it('the composer still sends its own text while an editable card is in the log', async () => {
      const { session, chat } = await mountApproval('approval-editable');
      const call = agentCalls({ delta: 2 });
      button(await cardOf(chat), 'Approve').click();
      await call.result();
      core('status_changed', { status: 'idle' });
      await until(() => session.status === 'idle', 'the turn to end');
      await update(chat);
      composer(chat).value = 'next question';
      enter(composer(chat));
      await fake.answer('send_text');
      expect(sendTexts()).to.deep.equal(['go', 'next question']);
    });
  });

  describe('keyboard and focus', () => {
    it('approves and rejects with the keyboard alone; focus moves to the card and back to the composer', async () => {
      const { chat, runs } = await mountApproval();
      composer(chat).focus();
      const first = agentCalls({ delta: 5 });
      const card = await cardOf(chat);
      await until(() => focused(chat) === heading(card), 'focus on the card’s heading');
      await sendKeys({ press: 'Tab' });
      expect(focused(chat)).to.equal(reasonField(card));
      await sendKeys({ press: 'Tab' });
      expect(focused(chat)).to.equal(button(card, 'Approve'));
      await sendKeys({ press: 'Enter' });
      expect(await first.result()).to.deep.equal({ value: 5 });
      expect(focused(chat), 'back where it was').to.equal(composer(chat));

      const second = agentCalls({ delta: 6 });
      await until(() => cards(chat).length === 2, 'a second card');
      const next = cards(chat)[1]!;
      await until(() => focused(chat) === heading(next), 'focus on the second card');
      await sendKeys({ press: 'Tab' });
      await sendKeys({ type: 'too much' });
      await sendKeys({ press: 'Tab' });
      await sendKeys({ press: 'Tab' });
      expect(focused(chat)).to.equal(button(next, 'Reject'));
      await sendKeys({ press: ' ' }); // Space
      const { error } = await second.result();
      expect(error.details.reason).to.equal('too much');
      expect(runs).to.deep.equal([{ delta: 5 }]);
      expect(focused(chat)).to.equal(composer(chat));
    });

    it('focus goes back to where it was on the page, and stays where the person moved it', async () => {
      const { host, chat } = await mountApproval();
      const before = host.querySelector<HTMLButtonElement>('#before')!;
      before.focus();
      const first = agentCalls({ delta: 1 });
      const card = await cardOf(chat);
      await until(() => focused(chat) === heading(card), 'focus on the card');
      button(card, 'Approve').focus();
      button(card, 'Approve').click();
      await first.result();
      expect(document.activeElement, 'back to the page’s button').to.equal(before);

      // Moved away while the card waits: answering it does not pull focus back.
      const second = agentCalls({ delta: 1 });
      await until(() => cards(chat).length === 2, 'a second card');
      const next = cards(chat)[1]!;
      await until(() => focused(chat) === heading(next), 'focus on the second card');
      before.focus();
      button(next, 'Reject').click();
      await second.result();
      expect(document.activeElement).to.equal(before);
    });
  });

  it('is withdrawn when the approval times out: disabled, "no longer waiting", and answers nothing after', async () => {
    const { chat, runs, decided } = await mountApproval('approval-timeout-ms="200"');
    composer(chat).focus();
    const call = agentCalls({ delta: 9 });
    const card = await cardOf(chat);
    await until(() => focused(chat) === heading(card), 'focus on the card');
    // The approval's own time is the subject: waited for as the card changes, not slept.
    await until(() => state(card) === 'withdrawn', 'the card withdrawn', 3000);
    expect(outcome(card)).to.match(/no longer waiting/i);
    expect(button(card, 'Approve').disabled && button(card, 'Reject').disabled).to.equal(true);
    expect(focused(chat), 'focus back to the composer').to.equal(composer(chat));
    const { error } = await call.result();
    expect(error.code).to.equal('TOOL_APPROVAL_TIMEOUT');
    button(card, 'Approve').click();
    await update(chat);
    expect(runs).to.deep.equal([]);
    expect(decided).to.have.length(0);
    expect(decisionRows(chat)).to.deep.equal([]);
  });

  it('a page that answers pedelec-tool-approval itself wins: no card, and the decision row names the page', async () => {
    const { host, chat, runs } = await mountApproval();
    const answers = [true, { approved: false, reason: 'the page says no' }];
    host.addEventListener('pedelec-tool-approval', (event: PedelecToolApprovalEvent) =>
      event.respondWith(answers.shift()!),
    );
    const approved = agentCalls({ delta: 2 });
    expect(await approved.result()).to.deep.equal({ value: 2 });
    const rejected = agentCalls({ delta: 3 });
    expect((await rejected.result()).error.code).to.equal('TOOL_APPROVAL_REJECTED');
    await update(chat);
    expect(cards(chat)).to.have.length(0);
    expect(runs).to.deep.equal([{ delta: 2 }]);
    expect(decisionRows(chat)).to.deep.equal([
      'Approved update_counter (by the page)',
      'Rejected update_counter (by the page): the page says no',
    ]);
  });

  it('a WebMCP call of the same tool neither shows nor takes the waiting card; Approve approves only the Pedelec call (Chromium)', async function () {
    const context = (document as any).modelContext;
    if (!context?.executeTool) return this.skip(); // the browser's agent's surface: Chromium's WebMCP
    const { chat, runs, decided, tool } = await mountApproval('', 'webmcp="expose consequential"');
    const call = agentCalls({ delta: 2 });
    const card = await cardOf(chat);
    // The browser's agent's call runs while the card waits, and is slow enough to click during it.
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const plain = tool.handler!;
    tool.handler = async (args, ctx) => {
      if ((ctx as { via?: string }).via === 'webmcp') await released;
      return plain(args, ctx);
    };
    const listed = await until(
      async () => ((await context.getTools()) as any[]).find((t) => t.name === 'update_counter' && t.window === window),
      'update_counter registered with WebMCP',
    );
    const browserCall = context.executeTool(listed, { delta: 5 });
    await until(() => decided.some((e) => e.detail.via === 'webmcp'), 'the WebMCP call decided');
    expect(cards(chat), 'no card for the browser’s agent').to.have.length(1);
    expect(state(card)).to.equal('waiting');
    button(card, 'Approve').click();
    expect(await call.result()).to.deep.equal({ value: 2 });
    release();
    expect(JSON.parse(await browserCall).structuredContent).to.deep.equal({ value: 7 });
    expect(runs, 'each call with its own arguments').to.deep.equal([{ delta: 2 }, { delta: 5 }]);
    expect(decided.map((e) => [e.detail.via, e.detail.decidedBy, e.detail.args])).to.deep.equal([
      ['webmcp', 'browser-hint', { delta: 5 }],
      ['pedelec', 'chat', { delta: 2 }],
    ]);
  });

  it('is accessible while a card waits, editable or not', async () => {
    const { chat } = await mountApproval('approval-editable');
    agentCalls({ delta: 2 });
    const card = await cardOf(chat);
    await update(chat);
    await expect(chat).to.be.accessible();
    type(argsField(card)!, 'not json');
    button(card, 'Approve').click();
    await update(chat);
    await expect(chat).to.be.accessible();
  });

  describe('the surface the session asks', () => {
    it('is offered as soon as the chat is bound — before its view renders — and withdrawn when it leaves', async () => {
      const host = await fixture<HTMLDivElement>(html`<div></div>`);
      const session = document.createElement('pedelec-session');
      const chat = document.createElement('pedelec-chat');
      session.append(chat);
      host.append(session);
      expect(approvalSurfaceOf(session), 'offered on connection').to.be.a('function');
      chat.remove();
      expect(approvalSurfaceOf(session), 'withdrawn on removal').to.equal(undefined);
      session.append(chat);
      expect(approvalSurfaceOf(session)).to.be.a('function');
      const other = document.createElement('pedelec-session');
      host.append(other);
      chat.forElement = other;
      await chat.updateComplete;
      expect(approvalSurfaceOf(session), 'bound elsewhere').to.equal(undefined);
      expect(approvalSurfaceOf(other)).to.be.a('function');
      await available();
    });

    it('a card waiting while its chat moves within the session stays, and still answers', async () => {
      const { host, chat, runs } = await mountApproval();
      const call = agentCalls({ delta: 8 });
      await cardOf(chat);
      host.querySelector('.other')!.append(chat);
      await update(chat);
      const card = cards(chat)[0]!;
      expect(state(card)).to.equal('waiting');
      button(card, 'Approve').click();
      expect(await call.result()).to.deep.equal({ value: 8 });
      expect(runs).to.deep.equal([{ delta: 8 }]);
    });

    it('without its chat in the page, the session has no one to ask: TOOL_APPROVAL_UNAVAILABLE', async () => {
      const { chat, runs } = await mountApproval();
      const logged: unknown[][] = [];
      const original = console.error;
      console.error = (...args: unknown[]) => void logged.push(args);
      try {
        chat.remove();
        const call = agentCalls({ delta: 1 });
        expect((await call.result()).error.code).to.equal('TOOL_APPROVAL_UNAVAILABLE');
        // The line comes with the console lines' chunk, a moment later.
        await until(() => logged.length > 0, 'the console error');
      } finally {
        console.error = original;
      }
      expect(logged, 'the kit names the two ways to give the tool a surface').to.have.length(1);
      expect(runs).to.deep.equal([]);
    });
  });
});
