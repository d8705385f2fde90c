/**
 * Shared fixtures for the element tests (test/elements/*.test.ts). Kept small and stable: other test
 * files import them. Everything here drives the public surface only (elements, events, the fake
 * Chrome port of test/support/fake-chrome.ts).
 */
import { fixture, html } from '@open-wc/testing';
import type { PedelecSessionElement } from '../../src/index.js';
import { flush, type FakePort, type Posted } from '../support/fake-chrome.js';

export { installFakeChrome, uninstallFakeChrome, flush, type FakePort, type Posted } from '../support/fake-chrome.js';

/** What `get_approval_status` answers for an installed extension whose origin is approved. */
export function approvedStatus(): Record<string, unknown> {
  return { installed: true, approved: true, origin: location.origin, appConnected: true };
}

/** A tag name no other test uses (for elements defined late, inside the test). */
export function uniqueTag(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * Lets every pending microtask run, however many hops a batch takes (a zero-delay task boundary,
 * not a sleep: no time passes that a test depends on).
 */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
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

/** The last request of `type` the page posted (throws when there is none). */
function lastOf(fake: FakePort, type: string): Posted {
  const found = [...fake.posted].reverse().find((m) => m.type === type);
  if (!found)
    throw new Error(`expected a ${type} request; posted: ${fake.posted.map((m) => m.type).join(', ') || 'nothing'}`);
  return found;
}

/**
 * Starts `session` through the fake extension: answers `get_approval_status` (approved) and then
 * `create_session` with `sessionId`. The session element needs both `provider` and `model` (otherwise
 * the SDK first asks for the settings). Returns the posted `create_session` request.
 */
export async function startSession(session: PedelecSessionElement, fake: FakePort, sessionId = 's1'): Promise<Posted> {
  const started = session.start();
  await flush();
  fake.respond(approvedStatus(), lastOf(fake, 'get_approval_status'));
  await flush();
  const create = lastOf(fake, 'create_session');
  fake.respond({ sessionId }, create);
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
  await flush();
  fake.respond({}, lastOf(fake, 'send_text'));
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
  await flush();
  const submit = [...fake.posted]
    .reverse()
    .find((m) => m.type === 'submit_tool_result' && m.toolRequestId === toolRequestId);
  if (!submit)
    throw new Error(`no submit_tool_result for ${toolRequestId}; posted: ${fake.posted.map((m) => m.type).join(', ')}`);
  fake.respond({}, submit);
  await flush();
  return submit;
}

/**
 * Ends the session cleanly (answers `end_session`), so the shared client is released when the
 * fixture is removed and the next test starts from a fresh connection.
 */
export async function endSession(session: PedelecSessionElement, fake: FakePort): Promise<void> {
  if (!session.session) return;
  const before = fake.posted.length;
  const ending = session.end();
  await flush();
  const request = fake.posted.slice(before).find((m) => m.type === 'end_session');
  if (request) fake.respond({}, request);
  await ending;
}

/**
 * Answers the page's requests by type, each once, for tests that drive a whole sequence. `request`
 * waits (bounded: microtasks, then tasks) for the first unanswered request of `type` (and `where`);
 * `answer` / `refuse` respond to it; `answered` holds what was answered (add one answered by hand).
 * `port` gives the fake port installed now (tests install a fresh one each).
 */
export function replier(port: () => FakePort) {
  const answered = new WeakSet<Posted>();
  const request = async (type: string, where?: (m: Posted) => boolean): Promise<Posted> => {
    for (let i = 0; i < 400; i++) {
      const found = port().posted.find((m) => m.type === type && !answered.has(m) && (!where || where(m)));
      if (found) return found;
      await (i < 300 ? Promise.resolve() : nextTask());
    }
    throw new Error(
      `no ${type} request; posted: ${port()
        .posted.map((m) => m.type)
        .join(', ')}`,
    );
  };
  const reply =
    (how: 'respond' | 'fail') =>
    async (type: string, value: unknown = {}, where?: (m: Posted) => boolean): Promise<Posted> => {
      const req = await request(type, where);
      answered.add(req);
      port()[how](value, req);
      return req;
    };
  return { request, answer: reply('respond'), refuse: reply('fail'), answered };
}
