/**
 * Consequential tools and WebMCP (docs/webmcp.md "Consequential tools"): the browser's agent can drive
 * the page, so the page is never asked for it. Such a tool is registered only with the token
 * `consequential` (`webmcp="expose consequential"`), carrying `consequentialHint` for the browser's own
 * confirmation; its calls are decided by `browser-hint`, never claimed as a person's decision.
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/define.js';
import type { PedelecSessionElement, PedelecToolApprovalDecidedEvent } from '../../../src/index.js';
import { until } from '../../support/waits.js';
import { record } from '../helpers.js';
import { callAsAgent, listedAs, recordContext, webmcpHooks } from './harness.js';

describe('<pedelec-session webmcp>: consequential tools', () => {
  webmcpHooks();

  it('are not registered without the consequential token; with it, they carry consequentialHint', async () => {
    const recorded = recordContext();
    try {
      const el = await fixture<PedelecSessionElement>(html`
        <pedelec-session webmcp>
          <pedelec-tool name="clear_list" description="Clears the list." consequential></pedelec-tool>
          <pedelec-tool name="read_list" description="Reads the list." read-only></pedelec-tool>
        </pedelec-session>
      `);
      await listedAs(['read_list']);
      expect(el.webmcpTools).to.deep.equal(['read_list']);
      el.setAttribute('webmcp', 'expose consequential');
      await listedAs(['clear_list', 'read_list']);
      const clear = recorded.registered.find((r) => r.name === 'clear_list')!;
      expect(clear.tool.annotations).to.deep.equal({ consequentialHint: true });
    } finally {
      recorded.restore();
    }
  });

  it('a call runs without asking the page; the decision is left to the browser (browser-hint)', async () => {
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session webmcp="expose consequential">
        <pedelec-tool name="clear_list" description="Clears the list." consequential></pedelec-tool>
      </pedelec-session>
    `);
    let ran = 0;
    el.querySelector('pedelec-tool')!.handler = () => (ran++, { cleared: true });
    const asked = record(el, 'pedelec-tool-approval');
    const decided = record<PedelecToolApprovalDecidedEvent>(el, 'pedelec-tool-approval-decided');
    await listedAs(['clear_list']);
    const result = await callAsAgent('clear_list', {});
    expect(JSON.stringify(result)).to.contain('cleared');
    await until(() => decided.length === 1, 'the decision');
    expect(ran).to.equal(1);
    expect(asked, 'the page is never asked for the browser’s agent').to.deep.equal([]);
    expect(decided.map((e) => [e.detail.via, e.detail.decidedBy, e.detail.approved])).to.deep.equal([
      ['webmcp', 'browser-hint', true],
    ]);
  });
});
