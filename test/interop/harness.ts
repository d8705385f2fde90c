/**
 * What every framework interop test does with a mounted demo app: start its session through the fake
 * extension port, look at the manifest Core received, make agent tool calls, and watch a conditional
 * tool go away. Drives only the public surface (elements, events, the wire).
 */
import { expect } from '@open-wc/testing';
import type { PedelecSessionElement, PedelecToolElement, PedelecToolsChangedEvent } from 'pedelec-elements';
import { installFakeChrome, uninstallFakeChrome, type FakePort, type Posted } from '../support/fake-chrome.js';
import { until } from '../support/waits.js';

export { installFakeChrome, uninstallFakeChrome, type FakePort, type Posted };

/**
 * Starts `session` through the fake extension (approved origin; the user's settings if the SDK asks;
 * session `s1`) and returns the posted `create_session` request: what the bridge received.
 */
export async function startSession(session: PedelecSessionElement, fake: FakePort): Promise<Posted> {
  const started = session.start();
  await fake.answer('get_approval_status', {
    installed: true,
    approved: true,
    origin: location.origin,
    appConnected: true,
  });
  // The settings first when the session names no provider, else the session at once.
  const next = await Promise.race([fake.request('get_settings'), fake.request('create_session')]);
  if (next.type === 'get_settings')
    await fake.answer('get_settings', { defaultProvider: 'scripted', defaultModels: { scripted: 'scripted-1' } });
  const create = await fake.answer('create_session', { sessionId: 's1' });
  await started;
  return create;
}

let seq = 0;

/** Emits a session event from Core with the next sequence number. */
export function coreEvent(fake: FakePort, type: string, fields: Record<string, unknown> = {}): void {
  fake.event('s1', type, { seq: ++seq, ...fields });
}

/** One agent tool call over the wire (during a turn); resolves to the result the page submitted back to Core. */
export async function agentCall(fake: FakePort, tool: string, args: unknown): Promise<unknown> {
  const toolRequestId = `call_${seq + 1}`;
  coreEvent(fake, 'tool_call', { toolRequestId, tool, args });
  const submit = await fake.answer('submit_tool_result', {}, (m) => m.toolRequestId === toolRequestId);
  return submit.result;
}

/**
 * The user types `text` into the app's message box and submits its form (the framework calls
 * `sendText`); answers the `send_text` request so the turn runs.
 */
export async function userSays(root: ParentNode, fake: FakePort, text: string): Promise<void> {
  const input = root.querySelector<HTMLInputElement>('input[aria-label="Message"]')!;
  input.value = text;
  input.dispatchEvent(new Event('input', { bubbles: true }));
  input.form!.requestSubmit();
  const send = await fake.request('send_text');
  expect(send.text).to.equal(text);
  await fake.answer('send_text');
}

/** Ends the session (answering `end_session`) so the shared client is released between tests. */
export async function endSession(session: PedelecSessionElement, fake: FakePort): Promise<void> {
  if (!session.session) return;
  const ending = session.end();
  await fake.answer('end_session', {});
  await ending;
}

/** The tool element named `name` (tools are found by property: frameworks may set `name` without an attribute). */
export function toolNamed(root: ParentNode, name: string): PedelecToolElement | undefined {
  return [...root.querySelectorAll('pedelec-tool')].find((tool) => tool.name === name);
}

/**
 * The whole interop proof, for an app already mounted in `root` with the demo's three tools and the
 * checkbox that takes `reset_counter` away — by removing the element (frameworks' conditionals) or by
 * setting `disabled` (plain HTML). `counterText()` reads the counter the page renders.
 */
export async function proveCounterApp(
  root: ParentNode,
  fake: FakePort,
  counterText: () => string | null | undefined,
  conditional: 'removed' | 'disabled' = 'removed',
): Promise<void> {
  const session = await until(() => root.querySelector('pedelec-session'), 'the <pedelec-session>');
  await until(() => toolNamed(root, 'reset_counter'), 'the conditional tool');

  // The manifest sent to the bridge holds the declared tools.
  const create = await startSession(session, fake);
  const skills = create.input.skills;
  expect(skills.guidance).to.equal('Read the counter with get_counter before changing it with update_counter.');
  expect(skills.tools.map((t: { name: string }) => t.name)).to.deep.equal([
    'update_counter',
    'get_counter',
    'reset_counter',
  ]);
  expect(skills.tools[0]).to.deep.equal({
    name: 'update_counter',
    description: 'Change the counter by delta. Returns the new value.',
    argsSchema: {
      type: 'object',
      properties: { delta: { type: 'integer', minimum: -100, maximum: 100, description: 'How much to add.' } },
      required: ['delta'],
    },
  });

  // The user asks through the app's own form; the agent's reply and the status reach the page.
  await userSays(root, fake, 'count to three');
  coreEvent(fake, 'status_changed', { status: 'running' });
  coreEvent(fake, 'chat_delta', { text: 'On it.' });
  await until(() => root.querySelector('.reply')?.textContent === 'On it.', 'the reply to show');
  await until(() => root.querySelector('output.status')?.textContent?.trim() === 'running', 'the status to show');

  // The property handler answers, and the framework shows the new state.
  expect(await agentCall(fake, 'update_counter', { delta: 3 })).to.deep.equal({ value: 3 });
  await until(() => counterText()?.trim() === '3', 'the counter to show 3');
  // The event handler answers, with state written by the other handler.
  expect(await agentCall(fake, 'get_counter', {})).to.deep.equal({ value: 3 });
  // The conditional tool works while it is there.
  expect(await agentCall(fake, 'reset_counter', {})).to.deep.equal({ value: 0 });
  await until(() => counterText()?.trim() === '0', 'the counter to show 0');
  expect(await agentCall(fake, 'update_counter', { delta: 2 })).to.deep.equal({ value: 2 });

  // Unticking the box takes the tool away (the framework removes it): pedelec-tools-changed, then TOOL_UNAVAILABLE.
  const changes: PedelecToolsChangedEvent[] = [];
  session.addEventListener('pedelec-tools-changed', (event) => changes.push(event));
  const box = root.querySelector<HTMLInputElement>('input[type="checkbox"]')!;
  expect(box.checked).to.equal(true);
  box.click();
  await until(() => changes.length > 0, 'pedelec-tools-changed');
  if (conditional === 'removed') expect(toolNamed(root, 'reset_counter')).to.equal(undefined);
  else expect(toolNamed(root, 'reset_counter')?.disabled).to.equal(true);
  expect(changes.map((e) => e.detail)).to.deep.equal([
    { added: [], removed: ['reset_counter'], changed: [], config: [] },
  ]);
  expect(session.toolsStale).to.equal(true);
  const gone = (await agentCall(fake, 'reset_counter', {})) as { error: { code: string; details: unknown } };
  expect(gone.error.code).to.equal('TOOL_UNAVAILABLE');
  expect(gone.error.details).to.deep.include({ tool: 'reset_counter' });
  expect(counterText()?.trim(), 'the removed tool did not run').to.equal('2');

  // The other tools still answer.
  expect(await agentCall(fake, 'get_counter', {})).to.deep.equal({ value: 2 });
  coreEvent(fake, 'status_changed', { status: 'idle' });
  await until(() => root.querySelector('output.status')?.textContent?.trim() === 'idle', 'the turn to end');

  // The agent still has the tool in its manifest: the page says so, and the next message applies the
  // change by restarting the session (Core takes the manifest only at creation).
  const note = await until(staleNote(root), 'the page to say a restart applies the changed tools');
  expect(note.textContent).to.match(/tools changed.*next message restarts/i);
  await restartedBySending(root, fake, 'count again');
  await until(() => !staleNote(root)(), 'the note to go once the new session is ready');
  expect(session.toolsStale).to.equal(false);
  await endSession(session, fake);
}

/** The page's note that the tools changed since the session started, when it shows (else null). */
function staleNote(root: ParentNode): () => HTMLElement | null {
  return () => {
    const note = root.querySelector<HTMLElement>('.stale');
    return note && !note.hidden && getComputedStyle(note).display !== 'none' ? note : null;
  };
}

/**
 * The user sends `text` while the tools are stale: the app restarts the session first (`end_session`,
 * then a new `create_session` whose manifest lacks the removed tool), then sends the text to it.
 */
async function restartedBySending(root: ParentNode, fake: FakePort, text: string): Promise<void> {
  const input = root.querySelector<HTMLInputElement>('input[aria-label="Message"]')!;
  input.value = text;
  input.dispatchEvent(new Event('input', { bubbles: true }));
  input.form!.requestSubmit();
  await fake.answer('end_session', {});
  const approval = { installed: true, approved: true, origin: location.origin, appConnected: true };
  const types = ['get_approval_status', 'get_settings', 'create_session'];
  for (;;) {
    const next = await until(
      () => fake.posted.find((m) => types.includes(m.type) && !fake.answered.has(m)),
      'the restart to ask the bridge',
    );
    if (next.type === 'create_session') break;
    const settings = { defaultProvider: 'scripted', defaultModels: { scripted: 'scripted-1' } };
    await fake.answer(next.type, next.type === 'get_settings' ? settings : approval);
  }
  const create = await fake.answer('create_session', { sessionId: 's2' });
  expect(create.input.skills.tools.map((t: { name: string }) => t.name)).to.deep.equal([
    'update_counter',
    'get_counter',
  ]);
  const send = await fake.request('send_text');
  expect([send.sessionId, send.text]).to.deep.equal(['s2', text]);
  await fake.answer('send_text');
}
