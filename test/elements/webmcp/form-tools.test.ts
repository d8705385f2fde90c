/**
 * `<pedelec-tool form>` and the browser's agent (spec every-agent.md §3): such a tool is exposed like
 * any other — its schema synthesized from the form, a call filling and submitting it — unless its form
 * has `toolname`: the browser registered that form itself, and the kit does not register it again.
 */
import { expect } from '@open-wc/testing';
import type { PedelecSessionElement } from '../../../src/index.js';
import { mount } from '../helpers.js';
import { callAsAgent, chromium, listedAs, listedSo, webmcpHooks } from './harness.js';

describe('<pedelec-session webmcp>: <pedelec-tool form>', () => {
  webmcpHooks();

  it('is exposed with the schema of its form; a call fills and submits it, respondWith answers', async () => {
    const host = await mount(`
      <form id="note"><input name="text" required><input name="stars" type="number" min="1" max="5"><button>Save</button></form>
      <pedelec-session webmcp><pedelec-tool name="save_note" description="Save a note." form="note" autosubmit></pedelec-tool></pedelec-session>`);
    const form = host.querySelector('form')!;
    form.addEventListener('submit', (e: any) => {
      e.preventDefault();
      e.respondWith({ saved: new FormData(form).get('text') });
    });
    // Registered at once, and again with the form's schema once the form binding has read it.
    const tool = await listedSo(
      'save_note',
      (t) => !!(t.inputSchema as any)?.properties?.text,
      'the schema of the form',
    );
    expect(tool.inputSchema).to.deep.equal({
      type: 'object',
      properties: { text: { type: 'string' }, stars: { type: 'integer', minimum: 1, maximum: 5 } },
      required: ['text'],
    });
    await listedAs(['save_note']);
    expect((await callAsAgent('save_note', { text: 'Hello', stars: 4 })).structuredContent).to.deep.equal({
      saved: 'Hello',
    });
  });

  it('is not registered again when its form has toolname (the browser registered the form)', async () => {
    const host = await mount(`
      <form id="note" toolname="note_form" tooldescription="Save a note."><input name="text"><button>Save</button></form>
      <pedelec-session webmcp>
        <pedelec-tool name="save_note" description="Save a note." form="note"></pedelec-tool>
        <pedelec-tool name="other" description="Another tool."></pedelec-tool>
      </pedelec-session>`);
    const session = host.querySelector('pedelec-session') as PedelecSessionElement;
    // Chromium lists the browser's own form tool; Firefox has no declarative forms.
    await listedAs(chromium() ? ['note_form', 'other'] : ['other']);
    expect(session.webmcpTools).to.deep.equal(['other']);
    expect(session.manifest!.tools.map((t) => t.name)).to.deep.equal(['save_note', 'other']);
    // Without toolname the form is the kit's to register.
    host.querySelector('form')!.removeAttribute('toolname');
    await listedAs(['other', 'save_note']);
  });
});
