/**
 * A conversation for <pedelec-chat> tests, played as the session's agent would: its events, dispatched
 * at a session element the way the session dispatches them (a fake extension that never connects).
 * Shared by the chat's own tests and its growth bounds in test/perf/.
 */
import { fixture, html } from '@open-wc/testing';
import '../../../src/define.js';
import {
  PedelecChatDeltaEvent,
  PedelecStatusEvent,
  PedelecToolResultEvent,
  PedelecToolStartEvent,
  PedelecTurnEvent,
  type ChatDeltaEventContext,
  type PedelecChatElement,
  type PedelecSessionElement,
  type ToolCallContext,
} from '../../../src/index.js';

/** A session with a chat (with the chat's extra attributes), rendered. */
export async function mount(attrs = ''): Promise<{ session: PedelecSessionElement; chat: PedelecChatElement }> {
  const host = await fixture<HTMLDivElement>(html`<div></div>`);
  host.innerHTML = `<pedelec-session provider="codex" model="m"><pedelec-chat ${attrs}></pedelec-chat></pedelec-session>`;
  const session = host.querySelector('pedelec-session')!;
  const chat = host.querySelector('pedelec-chat')!;
  await chat.updateComplete;
  return { session, chat };
}

let calls = 0;
/** One tool call of the agent's, started and answered. */
export function toolCall(session: PedelecSessionElement): void {
  const context = { toolRequestId: `call_${++calls}` } as ToolCallContext;
  session.dispatchEvent(new PedelecToolStartEvent({ tool: 'lookup', args: {}, context, via: 'pedelec' }));
  session.dispatchEvent(
    new PedelecToolResultEvent({
      tool: 'lookup',
      args: {},
      result: {},
      ok: true,
      durationMs: 3,
      context,
      via: 'pedelec',
    }),
  );
}

/** One turn: four rows — the question, the reply, a tool call, the reply going on. */
export function turn(session: PedelecSessionElement, i: number): void {
  const delta = (text: string) =>
    session.dispatchEvent(new PedelecChatDeltaEvent({ text, context: {} as ChatDeltaEventContext }));
  session.dispatchEvent(new PedelecTurnEvent({ turnId: `turn_${i}`, kind: 'user', text: `question ${i}` }));
  delta(`Looking at item ${i}.`);
  toolCall(session);
  delta(`Item ${i} is fine.`);
  session.dispatchEvent(new PedelecStatusEvent({ status: 'idle', previousStatus: 'running' }));
}

/** The chat's rows: messages and tool calls. */
export const rows = (chat: PedelecChatElement) => [
  ...chat.shadowRoot!.querySelectorAll<HTMLElement>('[part~=message],[part~=tool]'),
];
/** What each row says, without the visually hidden speaker. */
export const said = (chat: PedelecChatElement) =>
  rows(chat).map((row) => row.textContent!.replace(/^(You|Agent): /, ''));
/** The chat's log, the scrolling list of rows. */
export const log = (chat: PedelecChatElement) => chat.shadowRoot!.querySelector<HTMLElement>('[role=log]')!;
