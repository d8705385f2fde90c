/**
 * The harness of the <pedelec-session> tests (test/elements/session/*.test.ts): the fake Chrome port of
 * test/support/fake-chrome.ts with every `chrome.runtime.connect` recorded, requests answered by type,
 * and the hooks each file runs its tests under (`sessionHooks()`): a fresh port and empty
 * sessionStorage before each test; afterwards every session torn down, its end_session answered,
 * wrapped globals restored, and a shared client left open recorded in `leaks` (checked after the file).
 * WebSockets are only ever opened to a closed loopback port.
 */
import { expect, html, oneEvent } from '@open-wc/testing';
import type { PedelecSession, PedelecSessionElement, PedelecToolElement } from '../../../src/index.js';
import { openClientCount } from '../../../src/elements/session/client-pool.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../../support/fake-chrome.js';
import { nextTask } from '../../support/waits.js';

export const DEFAULT_EXTENSION_ID = 'ogccgaminlphbkeghldidiiimajfdpag';
export const PORT_NAME = 'pedelec-sdk-external';
/** Nothing listens here: a WebSocket to it fails at once (connection refused). */
export const CLOSED_PORT = 65001;
export const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export let fake: FakePort;
/** Arguments of every `chrome.runtime.connect` call in this test. */
export let connects: unknown[][];
/** Undo functions for globals a test wrapped. */
export const restorers: Array<() => void> = [];
/** Tests after which a shared client was still open. */
export const leaks: string[] = [];
let toolSeq = 0;

export function install(): void {
  fake = installFakeChrome();
  connects = [];
  const runtime = (globalThis as any).chrome.runtime;
  const connect = runtime.connect;
  runtime.connect = (...args: unknown[]) => {
    connects.push(args);
    return connect(...args);
  };
}

export const APPROVED = () => ({ installed: true, approved: true, origin: location.origin, appConnected: true });
export const j = (value: unknown) => JSON.parse(JSON.stringify(value));

export const postedOf = (type: string) => fake.posted.filter((m) => m.type === type);
/** Answers the end_session requests nobody answered yet (teardown posts them a microtask after removal). */
export function answerEnds(): void {
  for (const req of postedOf('end_session').filter((m) => !fake.answered.has(m))) {
    fake.answered.add(req);
    fake.respond({}, req);
  }
}

/** A session-addressed message from Core, on the channel of the newest client. */
export function coreEvent(sessionId: string, type: string, fields: Record<string, unknown> = {}): void {
  const channelId = fake.posted[fake.posted.length - 1]?.channelId;
  fake.emit({ channelId, type, sessionId, ...fields });
}

/** start(): approval, then create_session answered with `sessionId`. Needs provider + model in markup. */
export async function started(el: PedelecSessionElement, sessionId = 's1'): Promise<PedelecSession> {
  const p = el.start();
  await fake.answer('get_approval_status', APPROVED());
  await fake.answer('create_session', { sessionId });
  return p;
}

/** end(), with its end_session answered. */
export async function ended(el: PedelecSessionElement): Promise<void> {
  const ending = el.end();
  await fake.answer('end_session');
  await ending;
}

/** restart() after the old session is gone: approval, then create_session answered with `sessionId`. */
export async function restarted(el: PedelecSessionElement, sessionId: string): Promise<PedelecSession> {
  const restarting = el.restart();
  await fake.answer('get_approval_status', APPROVED());
  await fake.answer('create_session', { sessionId });
  return restarting;
}

/** Starts a user turn on a started element; `outcome` settles with the turn ('done' or the error). */
export async function openTurn(
  el: PedelecSessionElement,
  sessionId = 's1',
  text = 'hi',
): Promise<{ outcome: Promise<any> }> {
  const outcome = el.sendText(text).then(
    () => 'done',
    (e) => e,
  );
  await fake.answer('send_text', {}, (m) => m.sessionId === sessionId);
  return { outcome }; // wrapped: an async function would otherwise wait for the turn itself
}

/** A tool call from the agent during an open turn; resolves to the result submitted to Core. */
export async function agentCall(sessionId: string, tool: string, args: unknown): Promise<any> {
  const id = `call_${++toolSeq}`;
  coreEvent(sessionId, 'tool_call', { toolRequestId: id, tool, args });
  const submit = await fake.answer('submit_tool_result', {}, (m) => m.toolRequestId === id);
  expect(submit.sessionId).to.equal(sessionId);
  return submit.result;
}

/**
 * What a promise did by the next task: for answers that must be immediate (no bridge round trip — the
 * fake port answers nothing on its own, so only what needs no answer can settle by then).
 */
export async function soon<T>(p: Promise<T>): Promise<{ settled: boolean; value?: T; error?: any }> {
  let out: { settled: boolean; value?: T; error?: any } = { settled: false };
  p.then(
    (value) => (out = { settled: true, value }),
    (error) => (out = { settled: true, error }),
  );
  await nextTask();
  return out;
}

/** An agent tool call during an open turn; resolves once its handler runs (pedelec-tool-start). */
export async function toolCallStarted(el: PedelecSessionElement, sessionId: string, fields: Record<string, unknown>) {
  const started = oneEvent(el, 'pedelec-tool-start');
  coreEvent(sessionId, 'tool_call', fields);
  await started;
}

export function collect<T extends Event>(target: EventTarget, type: string): T[] {
  const seen: T[] = [];
  const listener = (e: Event) => seen.push(e as T);
  target.addEventListener(type, listener);
  restorers.push(() => target.removeEventListener(type, listener));
  return seen;
}

/**
 * Wraps window.WebSocket with a recording subclass. A socket to a non-loopback name is recorded and
 * then pointed at a closed loopback port, so no test ever reaches a foreign host.
 */
export function watchWebSockets(): string[] {
  const Real = window.WebSocket;
  const urls: string[] = [];
  class Watched extends Real {
    constructor(url: string | URL, protocols?: string | string[]) {
      const text = String(url);
      urls.push(text);
      super(LOOPBACK.has(new URL(text).hostname) ? text : `ws://127.0.0.1:${CLOSED_PORT}/`, protocols);
    }
  }
  window.WebSocket = Watched;
  restorers.push(() => {
    window.WebSocket = Real;
  });
  return urls;
}

export function makeTool(name: string, description: string, attrs: Record<string, string> = {}): PedelecToolElement {
  const tool = document.createElement('pedelec-tool') as PedelecToolElement;
  tool.setAttribute('name', name);
  tool.setAttribute('description', description);
  for (const [k, v] of Object.entries(attrs)) tool.setAttribute(k, v);
  return tool;
}
export const toolOf = (el: Element, name: string) =>
  el.querySelector(`pedelec-tool[name="${name}"]`) as PedelecToolElement;

export const statesSupported = (() => {
  try {
    return CSS.supports('selector(:state(x))');
  } catch {
    return false;
  }
})();

export const persistKeyFor = (scope: string) => `pedelec-elements:v1:ext::${scope}`;

/**
 * Registers the hooks of the session tests in the calling `describe`: install() and an empty
 * sessionStorage before each test; after it, every session removed (teardown ends its agent session),
 * the end_session requests that produces answered, anything still pending failed by a disconnect,
 * wrapped globals restored, and a shared client still open recorded in `leaks`, which must be empty
 * once the file's tests ran.
 */
export function sessionHooks(): void {
  beforeEach(() => {
    install();
    sessionStorage.clear();
  });

  afterEach(async function () {
    // Tear down every session this test left (teardown ends its agent session), answer the
    // end_session requests that produces, then fail anything still pending.
    for (const el of Array.from(document.querySelectorAll('pedelec-session'))) el.remove();
    await nextTask();
    answerEnds();
    await nextTask();
    fake.disconnect();
    await nextTask();
    restorers
      .splice(0)
      .reverse()
      .forEach((restore) => restore());
    uninstallFakeChrome();
    sessionStorage.clear();
    if (openClientCount() !== 0) leaks.push(this.currentTest?.fullTitle() ?? '?');
  });

  after(() => {
    expect(leaks, 'tests after which a shared client was still open').to.deep.equal([]);
  });
}

/** A session whose one tool, `hang`, times out after 100 ms (give it a handler that never answers). */
export const hangingKit = () =>
  html`<pedelec-session provider="codex" model="m">
    <pedelec-tool name="hang" description="Never answers." timeout-ms="100"></pedelec-tool>
  </pedelec-session>`;
