/**
 * The chat's approval card with a real agent: the development Core's scripted agent (`/call <tool>
 * <json>`) calls a consequential tool over the bridge, the card asks, and what the person decides is
 * what the agent reads — a rejection's code and reason, or the result of the arguments they edited.
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/define.js';
import type { PedelecChatElement, PedelecSessionElement, PedelecToolElement } from '../../../src/index.js';
import { bridgeOf, devCores, type DevCores } from '../../support/dev-cores.js';
import { until } from '../../support/waits.js';

let devCore: DevCores;
/** How `until` waits for what crosses the socket: up to 5 s, looking every 10 ms. */
const ON_THE_NETWORK = { timeoutMs: 5000, everyMs: 10 };

type Page = { session: PedelecSessionElement; chat: PedelecChatElement; runs: unknown[] };

/** A session on the scripted agent with a consequential counter tool (extra attributes `toolAttrs`) and a chat. */
async function counterPage(label: string, toolAttrs = ''): Promise<Page> {
  const host = await fixture<HTMLDivElement>(html`<div></div>`);
  host.innerHTML = `<pedelec-session bridge="${bridgeOf(devCore, label)}" provider="scripted">
      <pedelec-tool name="update_counter" description="Change the visible counter by delta." consequential ${toolAttrs}>
        <pedelec-arg name="delta" type="integer" required minimum="-100" maximum="100"></pedelec-arg>
      </pedelec-tool>
      <pedelec-chat></pedelec-chat>
    </pedelec-session>`;
  const session = host.querySelector('pedelec-session')!;
  const runs: unknown[] = [];
  host.querySelector<PedelecToolElement>('pedelec-tool')!.handler = (args) => {
    runs.push(args);
    return { value: (args as { delta: number }).delta };
  };
  return { session, chat: host.querySelector('pedelec-chat')!, runs };
}

const card = (chat: Element) =>
  until(() => chat.shadowRoot!.querySelector<HTMLElement>('[part~=approval]'), 'the approval card', ON_THE_NETWORK);
const button = (card: Element, name: string) =>
  [...card.querySelectorAll('button')].find((b) => b.textContent!.trim() === name)!;
function type(field: HTMLInputElement | HTMLTextAreaElement, text: string): void {
  field.value = text;
  field.dispatchEvent(new Event('input', { bubbles: true }));
}
/** What the agent said in the chat, all of it. */
const agentSaid = (chat: Element) =>
  [...chat.shadowRoot!.querySelectorAll('[part~=agent]')].map((row) => row.textContent).join('\n');

describe('<pedelec-chat>: approval cards with the scripted agent (real WebSocket)', () => {
  before(async () => {
    devCore = await devCores();
  });
  const started: PedelecSessionElement[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.end().catch(() => {})));
  });

  it('a rejection reaches the agent as TOOL_APPROVAL_REJECTED with its reason', async () => {
    const { session, chat, runs } = await counterPage('reject');
    started.push(session);
    const turn = session.sendText('/call update_counter {"delta":2}');
    const asked = await card(chat);
    expect(asked.querySelector('pre')!.textContent).to.equal('{\n  "delta": 2\n}');
    type(asked.querySelector('input')!, 'not today');
    button(asked, 'Reject').click();
    await turn;
    await until(() => agentSaid(chat).includes('failed'), 'the agent’s reply', ON_THE_NETWORK);
    expect(agentSaid(chat)).to.contain(
      'update_counter failed: TOOL_APPROVAL_REJECTED — A person rejected update_counter: not today',
    );
    expect(chat.shadowRoot!.querySelector('[part~=tool]')!.getAttribute('part')).to.equal('tool failed');
    expect(runs).to.deep.equal([]);
  });

  it('approved with edited arguments: the handler runs with them, and the agent reads its result', async () => {
    const { session, chat, runs } = await counterPage('edit', 'approval-editable');
    started.push(session);
    const turn = session.sendText('/call update_counter {"delta":2}');
    const asked = await card(chat);
    type(asked.querySelector('textarea')!, '{"delta": 5}');
    button(asked, 'Approve').click();
    await turn;
    await until(() => agentSaid(chat).includes('returned'), 'the agent’s reply', ON_THE_NETWORK);
    expect(agentSaid(chat)).to.contain('update_counter returned {"value":5}');
    expect(runs).to.deep.equal([{ delta: 5 }]);
    const decision = chat.shadowRoot!.querySelector('[part~=decision]')!;
    expect(decision.textContent!.trim()).to.equal('Approved update_counter (by you in the chat)');
  });
});
