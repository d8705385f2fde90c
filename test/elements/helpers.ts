/**
 * Shared fixtures for the element tests (test/elements/ and its folders). Kept small and stable: other test
 * files import them. Everything here drives the public surface only (elements, events, the fake
 * Chrome port of test/support/fake-chrome.ts).
 */
import { fixture, html } from '@open-wc/testing';
import type { PedelecSessionElement } from '../../src/index.js';
import type { FakePort, Posted } from '../support/fake-chrome.js';

export { installFakeChrome, uninstallFakeChrome, type FakePort, type Posted } from '../support/fake-chrome.js';
export { nextTask } from '../support/waits.js';

/** What `get_approval_status` answers for an installed extension whose origin is approved. */
export function approvedStatus(): Record<string, unknown> {
  return { installed: true, approved: true, origin: location.origin, appConnected: true };
}

/** A tag name no other test uses (for elements defined late, inside the test). */
export function uniqueTag(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Records every `type` event reaching `target` (listen before acting). */
export function record<E extends Event = Event>(target: EventTarget, type: string): E[] {
  const seen: E[] = [];
  target.addEventListener(type, (event) => seen.push(event as E));
  return seen;
}

/**
 * Parses `markup` the way a page's HTML is parsed (innerHTML into a fixture `<div>`, so inline
 * `<script type="application/json">` stays inert) and returns the host. open-wc removes the host
 * after the test. Attach listeners to the host *before* calling `host.innerHTML = …` when events
 * fired during connection matter: use {@link mountHost} then.
 */
export async function mount(markup: string): Promise<HTMLDivElement> {
  const host = await mountHost();
  host.innerHTML = markup;
  return host;
}

/**
 * Two `<pedelec-session provider="codex" model="m">`s side by side in a connected fixture: on the same
 * bridge, they share one client, so either keeps it open for the other.
 */
export async function twoSessions(): Promise<[PedelecSessionElement, PedelecSessionElement]> {
  const host = await mount('<pedelec-session provider="codex" model="m"></pedelec-session>'.repeat(2));
  return [...host.querySelectorAll<PedelecSessionElement>('pedelec-session')] as [
    PedelecSessionElement,
    PedelecSessionElement,
  ];
}

/** An empty, connected fixture `<div>` (removed after the test). */
export function mountHost(): Promise<HTMLDivElement> {
  return fixture<HTMLDivElement>(html`<div></div>`);
}

/** The tool names of a session's manifest, in order (empty when it has no manifest). */
export function toolNames(session: PedelecSessionElement): string[] {
  return (session.manifest?.tools ?? []).map((tool) => tool.name);
}

/** The manifest entry of one tool (throws when it is not in the manifest). */
export function manifestTool(session: PedelecSessionElement, name: string) {
  const found = session.manifest?.tools.find((tool) => tool.name === name);
  if (!found) throw new Error(`tool ${name} is not in the manifest (has: ${toolNames(session).join(', ') || 'none'})`);
  return found;
}

/**
 * Starts `session` through the fake extension: answers `get_approval_status` (approved) and then
 * `create_session` with `sessionId`. The session element needs both `provider` and `model` (otherwise
 * the SDK first asks for the settings). Returns the posted `create_session` request.
 */
export async function startSession(session: PedelecSessionElement, fake: FakePort, sessionId = 's1'): Promise<Posted> {
  const started = session.start();
  await fake.answer('get_approval_status', approvedStatus());
  const create = await fake.answer('create_session', { sessionId });
  await started;
  return create;
}

/**
 * Sends `text` and answers the `send_text` request, so the turn runs. Resolves to `{ turn }` (an
 * object, because an async function cannot resolve to a promise): settle it with {@link finishTurn}.
 */
export async function beginTurn(
  session: PedelecSessionElement,
  fake: FakePort,
  text = 'hi',
): Promise<{ turn: Promise<void> }> {
  const turn = session.sendText(text);
  await fake.answer('send_text');
  return { turn };
}

/** Ends the running turn from Core's side (`status_changed` → idle) and awaits it. */
export async function finishTurn(turn: Promise<void>, fake: FakePort, sessionId = 's1', seq = 100): Promise<void> {
  fake.event(sessionId, 'status_changed', { seq, status: 'idle' });
  await turn;
}

/**
 * Emits a `tool_call` and returns the `submit_tool_result` the page posts for it (answering that
 * request so nothing stays pending).
 */
export async function callTool(
  fake: FakePort,
  tool: string,
  args: unknown,
  {
    sessionId = 's1',
    seq = 1,
    toolRequestId = `t${seq}`,
  }: { sessionId?: string; seq?: number; toolRequestId?: string } = {},
): Promise<Posted> {
  fake.event(sessionId, 'tool_call', { seq, toolRequestId, tool, args });
  return fake.answer('submit_tool_result', {}, (m) => m.toolRequestId === toolRequestId);
}

/**
 * Ends the session cleanly (answers its `end_session`), so the shared client is released when the
 * fixture is removed and the next test starts from a fresh connection.
 */
export async function endSession(session: PedelecSessionElement, fake: FakePort): Promise<void> {
  if (!session.session) return;
  const { sessionId } = session.session;
  const ending = session.end();
  await fake.answer('end_session', {}, (m) => m.sessionId === sessionId);
  await ending;
}
