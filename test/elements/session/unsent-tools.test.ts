/**
 * Calls for tools the page declares but did not send to Core (elements.md "Changes after start"): an
 * invalid declaration, or a tool added after start, gets TOOL_UNAVAILABLE before any handler runs —
 * their args were never checked against a schema Core holds. Only a bridge that forwards calls
 * outside the manifest reaches them; the kit does not rely on Core not doing so. A name the page
 * never declared still reaches named and fallback handlers, unvalidated (tools-api.md).
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/define.js';
import type { PedelecSessionElement, PedelecToolElement } from '../../../src/index.js';
import { APPROVED, agentCall, fake, openTurn, started, sessionHooks, toolOf } from './harness.js';
import { nextTask } from '../../support/waits.js';

/** A payment tool whose args allow at most 10 (its `schema` attribute, as markup declares it). */
const PAY_SCHEMA = JSON.stringify({
  type: 'object',
  properties: { amount: { type: 'integer', minimum: 1, maximum: 10 } },
  required: ['amount'],
});

const code = (result: any) => result?.error?.code;

describe('<pedelec-session>: calls for declared tools that were not sent to Core', () => {
  sessionHooks();

  it('an invalid declaration with a named onTool handler: TOOL_UNAVAILABLE, the handler never runs', async () => {
    const el = await fixture<PedelecSessionElement>(
      html`<pedelec-session provider="codex" model="m">
        <pedelec-tool name="pay" description="Pay an amount." schema='{"type":"object",'></pedelec-tool>
        <pedelec-tool name="ok" description="Works."></pedelec-tool>
      </pedelec-session>`,
    );
    // A JS tool that is invalid too (an empty description), with a named handler of its own.
    el.tools = [{ name: 'refund', description: '', argsSchema: { type: 'object' } }];
    const ran: unknown[] = [];
    el.onTool('pay', (args) => (ran.push(args), 'paid'));
    el.onTool('refund', (args) => (ran.push(args), 'refunded'));
    el.fallback = (tool, args) => (ran.push([tool, args]), 'fallback');
    await nextTask();
    expect(toolOf(el, 'pay').hasAttribute('invalid')).to.equal(true);

    const local = await el.invoke('pay', { amount: 1_000_000 });
    expect(local.ok ? 'ok' : local.error.code).to.equal('TOOL_UNAVAILABLE');
    await started(el);
    await openTurn(el);
    expect(code(await agentCall('s1', 'pay', { amount: 1_000_000 }))).to.equal('TOOL_UNAVAILABLE');
    expect(code(await agentCall('s1', 'refund', { amount: 1_000_000 }))).to.equal('TOOL_UNAVAILABLE');
    expect(ran).to.deep.equal([]);
  });

  it('a tool added after start: TOOL_UNAVAILABLE before any handler, until restart() sends it', async () => {
    const el = await fixture<PedelecSessionElement>(
      html`<pedelec-session provider="codex" model="m">
        <pedelec-tool name="ok" description="Works."></pedelec-tool>
      </pedelec-session>`,
    );
    await started(el);
    const pay = document.createElement('pedelec-tool') as PedelecToolElement;
    pay.setAttribute('name', 'pay');
    pay.setAttribute('description', 'Pay an amount.');
    pay.setAttribute('schema', PAY_SCHEMA);
    const ran: string[] = [];
    pay.handler = () => (ran.push('handler'), 'paid');
    pay.addEventListener('pedelec-tool-call', () => ran.push('event'));
    el.append(pay);
    el.tools = [{ name: 'refund', description: 'Refund.', argsSchema: JSON.parse(PAY_SCHEMA), handler: () => 'x' }];
    el.onTool('refund', () => (ran.push('named'), 'refunded'));
    await nextTask();
    expect(el.toolsStale).to.equal(true);

    await openTurn(el);
    expect(code(await agentCall('s1', 'pay', { amount: 1_000_000 }))).to.equal('TOOL_UNAVAILABLE');
    expect(code(await agentCall('s1', 'refund', { amount: 1_000_000 }))).to.equal('TOOL_UNAVAILABLE');
    const local = await el.invoke('pay', { amount: 1_000_000 });
    expect(local.ok ? 'ok' : local.error.code).to.equal('TOOL_UNAVAILABLE');
    expect(ran).to.deep.equal([]);

    // Once sent, the tool answers — within its schema.
    const restarting = el.restart();
    await fake.answer('end_session');
    await fake.answer('get_approval_status', APPROVED());
    const create = await fake.answer('create_session', { sessionId: 's2' });
    await restarting;
    expect(create.input.skills.tools.map((t: { name: string }) => t.name)).to.deep.equal(['ok', 'pay', 'refund']);
    await openTurn(el, 's2');
    expect(code(await agentCall('s2', 'pay', { amount: 1_000_000 }))).to.equal('TOOL_ARGS_INVALID');
    expect(ran).to.deep.equal([]);
    expect(await agentCall('s2', 'pay', { amount: 5 })).to.equal('paid');
    expect(await agentCall('s2', 'refund', { amount: 5 })).to.equal('refunded');
    expect(ran).to.deep.equal(['event', 'handler', 'named']);
  });

  it('a name the page never declared still reaches named and fallback handlers, unvalidated', async () => {
    const el = await fixture<PedelecSessionElement>(
      html`<pedelec-session provider="codex" model="m">
        <pedelec-tool name="ok" description="Works."></pedelec-tool>
      </pedelec-session>`,
    );
    el.onTool('elsewhere', (args) => ({ named: args }));
    el.fallback = (tool, args) => ({ fallback: tool, args });
    await started(el);
    await openTurn(el);
    expect(await agentCall('s1', 'elsewhere', { any: ['thing'] })).to.deep.equal({ named: { any: ['thing'] } });
    expect(await agentCall('s1', 'unknown', 7)).to.deep.equal({ fallback: 'unknown', args: 7 });
  });
});
