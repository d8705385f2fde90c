/**
 * `private` (spec every-agent.md §2): a tool that opts out of every foreign agent is never registered
 * with the browser — declared (`<pedelec-tool private>`) or JS-defined (`private: true`) — and stays
 * offered to the Pedelec agent; turning it on unregisters the tool, off registers it.
 */
import { expect, fixture, html } from '@open-wc/testing';
import type { PedelecSessionElement, PedelecToolElement } from '../../../src/index.js';
import { callAsAgent, listedAs, recordContext, textOf, webmcpHooks } from './harness.js';

describe('<pedelec-session webmcp>: private tools', () => {
  webmcpHooks();

  it('are not registered, and stay in the Pedelec manifest', async () => {
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session webmcp>
        <pedelec-tool name="open" description="For every agent."></pedelec-tool>
        <pedelec-tool name="secret" description="For the Pedelec agent only." private></pedelec-tool>
      </pedelec-session>
    `);
    el.tools = [
      { name: 'js_secret', description: 'JS, private.', argsSchema: { type: 'object' }, private: true },
      { name: 'js_open', description: 'JS, open.', argsSchema: { type: 'object' } },
    ];
    await listedAs(['js_open', 'open']);
    expect(el.webmcpTools.sort()).to.deep.equal(['js_open', 'open']);
    expect(el.manifest!.tools.map((t) => t.name)).to.deep.equal(['open', 'secret', 'js_secret', 'js_open']);
    // The page's own calls still reach them.
    (el.querySelector('pedelec-tool[name="secret"]') as PedelecToolElement).handler = () => 'hush';
    expect(await el.invoke('secret', {})).to.deep.equal({ ok: true, result: 'hush' });
  });

  it('private on: unregistered; off: registered again', async () => {
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session webmcp>
        <pedelec-tool name="a" description="A."></pedelec-tool>
        <pedelec-tool name="b" description="B."></pedelec-tool>
      </pedelec-session>
    `);
    await listedAs(['a', 'b']);
    const b = el.querySelector('pedelec-tool[name="b"]') as PedelecToolElement;
    b.private = true;
    await listedAs(['a']);
    expect(b.hasAttribute('private')).to.equal(false); // an input: never reflected
    b.private = false;
    await listedAs(['a', 'b']);
    b.setAttribute('private', '');
    await listedAs(['a']);
    expect(b.private).to.equal(true);
  });

  it('a call to a private tool through a registration it had is TOOL_UNAVAILABLE', async () => {
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session webmcp><pedelec-tool name="a" description="A."></pedelec-tool></pedelec-session>
    `);
    const a = el.querySelector('pedelec-tool') as PedelecToolElement;
    a.handler = () => 'ran';
    await listedAs(['a']);
    expect(textOf(await callAsAgent('a', {}))).to.equal('"ran"');
    // What the browser's agent may still hold while the session unregisters it: the tool's execute.
    const record = recordContext();
    try {
      a.description = 'A, again.';
      await listedAs(['a']);
      const { execute } = record.registered.at(-1)!.tool;
      a.private = true;
      await listedAs([]);
      const result = await execute({}, {});
      expect(result.isError).to.equal(true);
      expect(result.content[0].text).to.match(/^TOOL_UNAVAILABLE: /);
    } finally {
      record.restore();
    }
  });
});
