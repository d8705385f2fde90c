/**
 * The harness of the tool tests (test/core/tools/*.test.ts): sessions with tools on the fake Chrome
 * port of test/support/fake-chrome.ts, tool calls from the agent and the results the page submits,
 * and the tools the tests declare; `toolHooks()` registers a fresh port (and seq) before each test and
 * disconnects every client after it, releasing bridge timers and running handlers.
 */
import { afterEach, beforeEach } from 'node:test';
import { expect } from '../../support/expect.js';
import {
  Pedelec,
  type ErrorEventContext,
  type PedelecError,
  type PedelecOptions,
  type PedelecSession,
} from '../../../src/core/index.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort, type Posted } from '../../support/fake-chrome.js';

export let fake: FakePort;
export let clients: Pedelec[] = [];
let seq = 0;

export function newClient(options: PedelecOptions = {}): Pedelec {
  const client = new Pedelec(options);
  clients.push(client);
  return client;
}

export type AnySession = PedelecSession<string>;

/** createSession with provider + model (posts create_session at once), answered with `s1`. */
export async function open(
  skills?: unknown,
  options: PedelecOptions = {},
): Promise<{ client: Pedelec; session: AnySession }> {
  const client = newClient(options);
  const pending = client.createSession({ provider: 'codex', model: 'gpt-test', skills } as any) as Promise<AnySession>;
  fake.respond({ sessionId: 's1' }, fake.last('create_session'));
  const session = await pending;
  return { client, session };
}

/** Starts a user turn; its eventual rejection (session end, disconnect) is expected and swallowed. */
export function startTurn(session: AnySession): Promise<void> {
  const turn = session.sendText('hi');
  turn.catch(() => {});
  return turn;
}

/** Emits a tool_call for session s1 with a fresh seq. */
export function toolCall(toolRequestId: string, tool: string, args: unknown = {}): void {
  fake.event('s1', 'tool_call', { seq: ++seq, toolRequestId, tool, args });
}

export function submits(toolRequestId?: string): Posted[] {
  return fake.posted.filter(
    (m) => m.type === 'submit_tool_result' && (toolRequestId === undefined || m.toolRequestId === toolRequestId),
  );
}

/** The result of the one submit_tool_result posted for that request. */
export function resultOf(toolRequestId: string): any {
  const list = submits(toolRequestId);
  expect(list, `submit_tool_result for ${toolRequestId}`).to.have.length(1);
  return list[0]!.result;
}

/** The submit_tool_result for that request, once the page posts it (an async handler's outcome). */
export const submitted = (toolRequestId: string): Promise<Posted> =>
  fake.request('submit_tool_result', (m) => m.toolRequestId === toolRequestId);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function thrownBy(fn: () => unknown): any {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw, but it returned');
}

/** Resolves when the signal aborts; fails after `ms`. */
export function aborted(signal: AbortSignal, ms = 3000): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`signal not aborted within ${ms} ms`)), ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export function collectErrors(session: AnySession): Array<{ error: PedelecError; ctx: ErrorEventContext }> {
  const errors: Array<{ error: PedelecError; ctx: ErrorEventContext }> = [];
  session.onError((error, ctx) => errors.push({ error, ctx }));
  return errors;
}

export const counterSchema = () => ({
  type: 'object',
  properties: { delta: { type: 'integer' } },
  required: ['delta'],
});

export const counterTool = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'update_counter',
  description: 'Update the visible counter by delta.',
  argsSchema: counterSchema(),
  ...over,
});

export const pageTool = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'get_current_page',
  description: 'Read the current page.',
  argsSchema: { type: 'object', properties: {} },
  ...over,
});

export const skillsOf = (...tools: unknown[]) => ({ guidance: 'Read current state before making changes.', tools });

/** A session on a new client (provider codex, model m) answered with `s1`, a user turn running. */
export async function openInTurn(): Promise<PedelecSession<string>> {
  const client = newClient();
  const pending = client.createSession({ provider: 'codex', model: 'm' });
  fake.respond({ sessionId: 's1' }, fake.last('create_session'));
  const session = await pending;
  session.sendText('hi').catch(() => {});
  fake.respond({}, fake.last('send_text'));
  return session;
}

/** Registers, at the top of a test file, a fresh fake port and seq before each test, and every client disconnected after it. */
export function toolHooks(): void {
  beforeEach(() => {
    fake = installFakeChrome();
    clients = [];
    seq = 0;
  });

  afterEach(() => {
    // Release what each test left pending (bridge timers, running handlers) before the next test.
    clients.forEach((c) => c.disconnect());
    uninstallFakeChrome();
  });
}
