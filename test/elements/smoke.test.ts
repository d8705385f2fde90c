/**
 * The kit end to end, in one test: markup declares two tools, the manifest is what they declare, the
 * session starts and an agent call reaches the handler and is answered.
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../src/define.js';
import type { PedelecSessionElement } from '../../src/index.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../support/fake-chrome.js';

describe('smoke', () => {
  let fake: FakePort;
  beforeEach(() => (fake = installFakeChrome()));
  afterEach(() => uninstallFakeChrome());

  it('declares, starts and answers a call', async () => {
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session provider="codex" model="m" guidance="g">
        <pedelec-tool name="update_counter" description="Change the counter." timeout-ms="5000">
          <pedelec-arg name="delta" type="integer" required minimum="-10" maximum="10"></pedelec-arg>
        </pedelec-tool>
        <pedelec-tool name="get_page" description="Read the page."></pedelec-tool>
      </pedelec-session>
    `);
    await el.updateComplete;
    expect(el.manifest).to.deep.equal({
      guidance: 'g',
      tools: [
        {
          name: 'update_counter',
          description: 'Change the counter.',
          timeoutMs: 5000,
          argsSchema: {
            type: 'object',
            properties: { delta: { type: 'integer', minimum: -10, maximum: 10 } },
            required: ['delta'],
          },
        },
        { name: 'get_page', description: 'Read the page.', argsSchema: { type: 'object', properties: {} } },
      ],
    });
    (el.querySelector('pedelec-tool[name="update_counter"]') as any).handler = ({ delta }: { delta: number }) => ({
      value: delta * 2,
    });
    const started = el.start();
    await fake.answer('get_approval_status', {
      installed: true,
      approved: true,
      origin: location.origin,
      appConnected: true,
    });
    await fake.request('create_session');
    expect(fake.last().type).to.equal('create_session');
    await fake.answer('create_session', { sessionId: 's1' });
    await started;
    expect(el.status).to.equal('idle');
    const turn = el.sendText('hi');
    await fake.answer('send_text');
    fake.event('s1', 'tool_call', { seq: 1, toolRequestId: 't1', tool: 'update_counter', args: { delta: 3 } });
    expect(fake.last()).to.include({ type: 'submit_tool_result', toolRequestId: 't1' });
    expect(fake.last().result).to.deep.equal({ value: 6 });
    fake.respond({});
    fake.event('s1', 'status_changed', { seq: 2, status: 'idle' });
    await turn;
  });
});
