/**
 * A call to a `<pedelec-tool form>` (spec every-agent.md §3), in every browser: the form is the tool's
 * inline handler. It fills the controls (firing `input` and `change`), checks them with the browser's
 * `checkValidity()`, submits (`autosubmit`, `toolautosubmit`) or waits for the user
 * (`:state(awaiting-submit)`); the submit event carries `agentInvoked` and `respondWith()` on that
 * event only, and `respondWith` answers. A submit that would navigate, or no answer by 1 s before the
 * deadline, is `FORM_NOT_ANSWERED`.
 */
import { expect } from '@open-wc/testing';
import type { PedelecToolResultEvent } from '../../../src/index.js';
import { approvedStatus, beginTurn, callTool, finishTurn, record } from '../helpers.js';
import { until } from '../../support/waits.js';
import { bound, fake, formHooks, page } from './harness.js';

const FORM = `
  <form id="booking" action="/form-sink" target="sink">
    <input name="name" required>
    <input name="email" type="email">
    <input name="guests" type="number" min="1" max="12">
    <label><input type="checkbox" name="vip"> VIP</label>
    <select name="room"><option value="terrace">Terrace</option><option value="hall">Hall</option></select>
    <button>Book</button>
  </form>
  <iframe name="sink" title="Where a navigating submit lands"></iframe>`;

/** A page with the form and a session whose `book` tool names it (`attributes`: more on the tool). */
async function booking(attributes = 'autosubmit') {
  const found = await page(`${FORM}
    <pedelec-session provider="codex" model="m">
      <pedelec-tool name="book" description="Book a table." form="booking" ${attributes}></pedelec-tool>
    </pedelec-session>`);
  await bound(found.session, 'book', 'name');
  return found;
}

/** Answers every agent submit of `form` with `answer(event)` (after preventing the navigation). */
function answerSubmits(form: HTMLFormElement, answer: (event: any) => unknown): SubmitEvent[] {
  const seen: SubmitEvent[] = [];
  form.addEventListener('submit', (event: any) => {
    seen.push(event);
    if (!event.agentInvoked) return;
    event.preventDefault();
    event.respondWith(answer(event));
  });
  return seen;
}

describe('<pedelec-tool form>: a call', () => {
  formHooks();

  it('fills the controls, firing input and change, then submits: respondWith answers', async () => {
    const { session, form } = await booking();
    const changes: string[] = [];
    form.addEventListener('input', (e) => changes.push(`input ${(e.target as HTMLInputElement).name}`));
    form.addEventListener('change', (e) => changes.push(`change ${(e.target as HTMLInputElement).name}`));
    const submits = answerSubmits(form, () => {
      const data = new FormData(form);
      return {
        booked: data.get('name'),
        guests: Number(data.get('guests')),
        vip: data.get('vip'),
        room: data.get('room'),
      };
    });
    const answer = await session.invoke('book', { name: 'Ann', guests: 3, vip: true, room: 'hall' });
    expect(answer).to.deep.equal({ ok: true, result: { booked: 'Ann', guests: 3, vip: 'on', room: 'hall' } });
    expect(changes).to.deep.equal([
      'input name',
      'change name',
      'input guests',
      'change guests',
      'input vip',
      'change vip',
      'input room',
      'change room',
    ]);
    expect(submits).to.have.length(1);
  });

  it("agentInvoked and respondWith are that event's own: no prototype is patched, other submits are plain", async () => {
    const { session, form } = await booking();
    const submits = answerSubmits(form, () => 'ok');
    await session.invoke('book', { name: 'Ann' });
    const [agents] = submits;
    expect(Object.hasOwn(agents!, 'agentInvoked') && Object.hasOwn(agents!, 'respondWith')).to.equal(true);
    expect((agents as any).agentInvoked).to.equal(true);
    expect(Object.getOwnPropertyDescriptor(SubmitEvent.prototype, 'respondWith')?.value).to.not.equal(
      (agents as any).respondWith,
    );
    // The user submitting the form themselves: an ordinary event.
    form.addEventListener('submit', (e) => e.preventDefault(), { once: true });
    form.requestSubmit();
    const users = submits[1]!;
    expect(Object.hasOwn(users, 'agentInvoked') || Object.hasOwn(users, 'respondWith')).to.equal(false);
    expect(!!(users as any).agentInvoked).to.equal(false);
  });

  it("toolautosubmit on the form submits too; the form's toolname changes nothing here", async () => {
    const found = await page(`
      <form id="booking" toolname="book_table" tooldescription="Book." toolautosubmit><input name="name"></form>
      <pedelec-session><pedelec-tool name="book" description="Book a table." form="booking"></pedelec-tool></pedelec-session>`);
    await bound(found.session, 'book', 'name');
    answerSubmits(found.form, () => ({ done: true }));
    expect(await found.session.invoke('book', { name: 'Bo' })).to.deep.equal({ ok: true, result: { done: true } });
  });

  it("the browser's constraint check: TOOL_ARGS_INVALID naming the field with the browser's message, no submit", async () => {
    const { session, form } = await booking();
    const submits = answerSubmits(form, () => 'never');
    const email = form.querySelector('[name=email]') as HTMLInputElement;
    const answer = await session.invoke('book', { name: 'Ann', email: 'not an address' });
    expect(answer.ok).to.equal(false);
    const error = (answer as { error: any }).error;
    expect(error.code).to.equal('TOOL_ARGS_INVALID');
    expect(error.message).to.equal(`email: ${email.validationMessage}`);
    expect(email.validationMessage).to.not.equal('');
    // The keyword the browser's validity flag stands for: an address of the wrong form is `type`.
    expect(error.details.errors).to.deep.equal([
      { path: 'email', message: error.message, pointer: '/email', reason: 'type', schemaPath: '/type' },
    ]);
    expect(submits).to.deep.equal([]);
  });

  it('a submit whose default is not prevented (the browser navigates) is FORM_NOT_ANSWERED at once', async () => {
    // A deadline far past the test's own timeout: an answer at all means it did not wait for it.
    const { session, form } = await booking('autosubmit timeout-ms="600000"');
    form.addEventListener('submit', (e: any) => e.respondWith('too late: navigating'));
    const answer = await session.invoke('book', { name: 'Ann' });
    expect(answer.ok).to.equal(false);
    expect((answer as { error: any }).error.code).to.equal('FORM_NOT_ANSWERED');
  });

  it('no answer is FORM_NOT_ANSWERED 1 s before the deadline (not TOOL_TIMEOUT)', async () => {
    const { session, form } = await booking('autosubmit timeout-ms="1500"');
    form.addEventListener('submit', (e) => e.preventDefault()); // and no respondWith
    const answer = await session.invoke('book', { name: 'Ann' });
    // The form's own answer (a second before the deadline), not the deadline's TOOL_TIMEOUT.
    expect((answer as { error: any }).error.code).to.equal('FORM_NOT_ANSWERED');
  });

  it('without autosubmit: focuses the submit button, sets :state(awaiting-submit), waits for the user', async () => {
    const { session, form, tool } = await booking('');
    answerSubmits(form, () => ({ confirmed: (form.querySelector('[name=name]') as HTMLInputElement).value }));
    const call = session.invoke('book', { name: 'Cy' });
    await until(() => tool.matches(':state(awaiting-submit)'), 'the tool to await the submit');
    expect(document.activeElement).to.equal(form.querySelector('button'));
    (form.querySelector('button') as HTMLButtonElement).click(); // the user
    expect(await call).to.deep.equal({ ok: true, result: { confirmed: 'Cy' } });
    expect(tool.matches(':state(awaiting-submit)')).to.equal(false);
  });

  it('a form that submits to another origin is never submitted on an agent’s command, and says so in its schema', async () => {
    const found = await page(`
      <form id="booking" action="https://elsewhere.example/book" toolautosubmit><input name="name"><button>Book</button></form>
      <pedelec-session><pedelec-tool name="book" description="Book a table." form="booking" autosubmit></pedelec-tool></pedelec-session>`);
    await bound(found.session, 'book', 'name');
    const tool = found.session.querySelector('pedelec-tool')!;
    expect(found.session.manifest!.tools[0].argsSchema.description).to.equal(
      'Submitting sends this form to https://elsewhere.example: a person must press its button.',
    );
    const submits = answerSubmits(found.form, () => ({ sent: true }));
    const call = found.session.invoke('book', { name: 'Di' });
    // Despite autosubmit and toolautosubmit: it waits for a person, as without them.
    await until(() => tool.matches(':state(awaiting-submit)'), 'the tool to await the submit');
    expect(submits).to.deep.equal([]);
    (found.form.querySelector('button') as HTMLButtonElement).click(); // the person
    expect(await call).to.deep.equal({ ok: true, result: { sent: true } });
  });

  it('the resolution order is unchanged: a handler, an event listener, a named handler answer before the form', async () => {
    const { session, form, tool } = await booking();
    const submits = answerSubmits(form, () => 'form');
    session.fallback = () => 'fallback';
    tool.handler = () => 'handler';
    expect(await session.invoke('book', { name: 'A' })).to.deep.equal({ ok: true, result: 'handler' });
    tool.handler = undefined;
    const listener = (e: any) => e.respondWith('event');
    tool.addEventListener('pedelec-tool-call', listener);
    expect(await session.invoke('book', { name: 'A' })).to.deep.equal({ ok: true, result: 'event' });
    tool.removeEventListener('pedelec-tool-call', listener);
    const off = session.onTool('book', () => 'named');
    expect(await session.invoke('book', { name: 'A' })).to.deep.equal({ ok: true, result: 'named' });
    off();
    expect(submits).to.deep.equal([]);
    // With none of them, the form answers, before the fallback.
    expect(await session.invoke('book', { name: 'A' })).to.deep.equal({ ok: true, result: 'form' });
  });

  it("answers the Pedelec agent's call through the same path, with pedelec-tool-result", async () => {
    const { session, form } = await booking();
    answerSubmits(form, () => ({ booked: true }));
    const results = record<PedelecToolResultEvent>(session, 'pedelec-tool-result');
    const started = session.start();
    await fake.answer('get_approval_status', approvedStatus());
    await fake.answer('create_session', { sessionId: 's1' });
    await started;
    const { turn } = await beginTurn(session, fake);
    const submitted = await callTool(fake, 'book', { name: 'Dee', guests: 2 });
    expect(submitted.result).to.deep.equal({ booked: true });
    expect(results.map((e) => [e.detail.via, e.detail.ok])).to.deep.equal([['pedelec', true]]);
    await finishTurn(turn, fake);
  });

  it('a call whose tool is removed while it waits lets the form go: the state is cleared, later submits are plain', async () => {
    const { session, form, tool } = await booking('');
    const submits = answerSubmits(form, () => 'late');
    const call = session.invoke('book', { name: 'Ed' });
    await until(() => tool.matches(':state(awaiting-submit)'), 'the tool to await the submit');
    tool.remove();
    expect((await call).ok).to.equal(false);
    expect(tool.matches(':state(awaiting-submit)')).to.equal(false);
    form.addEventListener('submit', (e) => e.preventDefault());
    form.requestSubmit();
    expect(submits).to.have.length(1);
    expect(Object.hasOwn(submits[0]!, 'agentInvoked')).to.equal(false);
  });
});
