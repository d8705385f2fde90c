/**
 * What the page wrote in this task is what `start()`, `invoke()` and `manifest` use (spec/elements.md:
 * `manifest` is "the skills manifest it would send now"), although Lit reports property changes and
 * MutationObservers report DOM changes only a microtask later. And a framework unbinding `schema`
 * (`undefined`) removes that schema source rather than making one.
 */
import { expect } from '@open-wc/testing';
import '../../src/define.js';
import { PedelecSessionElement, PedelecToolElement } from '../../src/index.js';
import {
  endSession,
  installFakeChrome,
  manifestTool,
  mount,
  nextTask,
  startSession,
  uninstallFakeChrome,
  type FakePort,
} from './helpers.js';

const TOOL = `<pedelec-tool name="t" description="T."><pedelec-arg name="n" type="integer"></pedelec-arg></pedelec-tool>`;
const MARKUP = `<pedelec-session provider="codex" model="m"><pedelec-guidance>Old guidance.</pedelec-guidance>${TOOL}</pedelec-session>`;
/** Guidance as the attribute (a <pedelec-guidance> child as well would be a conflict). */
const ATTRIBUTE_MARKUP = `<pedelec-session provider="codex" model="m" guidance="Old guidance.">${TOOL}</pedelec-session>`;

describe('changes made in the same task', () => {
  let fake: FakePort;
  beforeEach(() => (fake = installFakeChrome()));
  afterEach(() => uninstallFakeChrome());

  describe('a change made in the same task as start() / invoke() is what they use', () => {
    const cases: Array<[string, (s: PedelecSessionElement) => void, (skills: any) => void, string?]> = [
      [
        'session.tools = [...]',
        (s) => (s.tools = [{ name: 'js', description: 'JS.', argsSchema: { type: 'object', properties: {} } }]),
        (skills) => expect(skills.tools.map((t: any) => t.name)).to.deep.equal(['t', 'js']),
      ],
      [
        'session.guidance = ...',
        (s) => (s.guidance = 'New guidance.'),
        (skills) => expect(skills.guidance).to.equal('New guidance.'),
        ATTRIBUTE_MARKUP,
      ],
      [
        'guidance attribute',
        (s) => s.setAttribute('guidance', 'New guidance.'),
        (skills) => expect(skills.guidance).to.equal('New guidance.'),
        ATTRIBUTE_MARKUP,
      ],
      [
        '<pedelec-guidance> text',
        (s) => (s.querySelector('pedelec-guidance')!.textContent = 'New guidance.'),
        (skills) => expect(skills.guidance).to.equal('New guidance.'),
      ],
      [
        'tool description attribute',
        (s) => s.querySelector('pedelec-tool')!.setAttribute('description', 'New.'),
        (skills) => expect(skills.tools[0].description).to.equal('New.'),
      ],
      [
        'tool.disabled = true',
        (s) => ((s.querySelector('pedelec-tool') as PedelecToolElement).disabled = true),
        (skills) => expect(skills?.tools ?? []).to.deep.equal([]),
      ],
      [
        '<pedelec-arg> attribute',
        (s) => s.querySelector('pedelec-arg')!.setAttribute('maximum', '5'),
        (skills) => expect(skills.tools[0].argsSchema.properties.n).to.deep.equal({ type: 'integer', maximum: 5 }),
      ],
    ];
    for (const [what, change, check, markup = MARKUP] of cases) {
      it(`${what}, then start(): create_session sends it and the session is not stale`, async () => {
        const host = await mount(markup);
        const session = host.querySelector('pedelec-session') as PedelecSessionElement;
        await nextTask(); // the declarations have been built once
        change(session);
        const create = await startSession(session, fake);
        try {
          check((create.input as any).skills);
          await nextTask();
          expect(session.toolsStale).to.equal(false);
        } finally {
          await endSession(session, fake);
        }
      });
    }

    for (const [what, change, check, markup = MARKUP] of cases) {
      it(`${what}, then manifest (read at once): shows it`, async () => {
        const host = await mount(markup);
        const session = host.querySelector('pedelec-session') as PedelecSessionElement;
        await nextTask();
        change(session);
        check(session.manifest);
      });
    }

    it('tool.disabled = true, then invoke(): TOOL_UNAVAILABLE, the handler does not run', async () => {
      const host = await mount(MARKUP);
      const session = host.querySelector('pedelec-session') as PedelecSessionElement;
      const tool = host.querySelector('pedelec-tool') as PedelecToolElement;
      let ran = false;
      tool.handler = () => (ran = true);
      await nextTask();
      tool.disabled = true;
      const result = await session.invoke('t', {});
      expect(ran).to.equal(false);
      expect(result.ok).to.equal(false);
      if (!result.ok) expect(result.error.code).to.equal('TOOL_UNAVAILABLE');
    });
  });

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
