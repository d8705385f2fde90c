/**
 * A framework unbinding `schema` (`undefined`) removes that schema source rather than making one. (The
 * same-task tests of start(), invoke() and manifest are in session/start.test.ts now.)
 */
import { expect } from '@open-wc/testing';
import '../../src/define.js';
import { PedelecSessionElement, PedelecToolElement } from '../../src/index.js';
import { installFakeChrome, manifestTool, mount, nextTask, uninstallFakeChrome } from './helpers.js';

describe('changes made in the same task', () => {
  beforeEach(() => installFakeChrome());
  afterEach(() => uninstallFakeChrome());

  describe('the schema property unbound (undefined) is no schema source', () => {
    it('with <pedelec-arg> children: not ambiguous, the args schema is the children', async () => {
      const host = await mount(
        `<pedelec-session><pedelec-tool name="t" description="T."><pedelec-arg name="n" type="integer"></pedelec-arg></pedelec-tool></pedelec-session>`,
      );
      const session = host.querySelector('pedelec-session') as PedelecSessionElement;
      const tool = host.querySelector('pedelec-tool') as PedelecToolElement;
      (tool as { schema: string | null | undefined }).schema = undefined; // e.g. Vue :schema="undefined", React schema={undefined}
      await nextTask();
      expect(tool.invalidReason).to.equal(null);
      expect(tool.hasAttribute('invalid')).to.equal(false);
      expect(manifestTool(session, 't').argsSchema).to.deep.equal({
        type: 'object',
        properties: { n: { type: 'integer' } },
      });
    });

    it('alone: the empty object schema', async () => {
      const host = await mount(
        `<pedelec-session><pedelec-tool name="t" description="T."></pedelec-tool></pedelec-session>`,
      );
      const session = host.querySelector('pedelec-session') as PedelecSessionElement;
      const tool = host.querySelector('pedelec-tool') as PedelecToolElement;
      (tool as { schema: string | null | undefined }).schema = undefined;
      await nextTask();
      expect(tool.invalidReason).to.equal(null);
      expect(manifestTool(session, 't').argsSchema).to.deep.equal({ type: 'object', properties: {} });
    });
  });
});
