/**
 * A start waits for the form binding (spec every-agent.md §3): the binding is a lazy chunk, and a
 * session started at once — `autostart`, or `start()` in the same task as the markup — sends the
 * schema synthesized from the form, not the empty one a tool has before. Alone in its file: the
 * chunk must not be loaded yet when the test begins (each file has a page of its own).
 */
import { expect } from '@open-wc/testing';
import { approvedStatus } from '../helpers.js';
import { fake, formHooks, page } from './harness.js';

describe('<pedelec-tool form>: start()', () => {
  formHooks();

  it('waits for the form binding: the first manifest sent has the schema of the form', async () => {
    const { session } = await page(`
      <form id="booking"><input name="name" required><input name="guests" type="number"></form>
      <pedelec-session provider="codex" model="m">
        <pedelec-tool name="book" description="Book a table." form="booking"></pedelec-tool>
      </pedelec-session>`);
    const starting = session.start();
    await fake.answer('get_approval_status', approvedStatus());
    const create = await fake.answer('create_session', { sessionId: 's1' });
    await starting;
    expect(create.input.skills.tools[0].argsSchema).to.deep.equal({
      type: 'object',
      properties: { name: { type: 'string' }, guests: { type: 'integer' } },
      required: ['name'],
    });
    expect(session.toolsStale).to.equal(false);
  });
});
