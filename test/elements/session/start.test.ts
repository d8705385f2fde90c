/**
 * Starting a <pedelec-session> (docs/design/elements.md "start()", "autostart", "resume-id"): lazily or on
 * connection, one start at a time, what create_session sends, resuming resume-id; end() and start()
 * while starting; properties set before the elements upgrade; and a change made in the same task as
 * start(), invoke() or a read of manifest is what they use.
 */
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../../src/define.js';
import { PedelecSessionElement, PedelecToolElement, type PedelecError } from '../../../src/index.js';
import { fake, restorers, APPROVED, postedOf, coreEvent, started, ended, soon, sessionHooks } from './harness.js';
import { endSession, mount, startSession, uniqueTag } from '../helpers.js';
import { nextTask } from '../../support/waits.js';

const TOOL = `<pedelec-tool name="t" description="T."><pedelec-arg name="n" type="integer"></pedelec-arg></pedelec-tool>`;

const MARKUP = `<pedelec-session provider="codex" model="m"><pedelec-guidance>Old guidance.</pedelec-guidance>${TOOL}</pedelec-session>`;

/** Guidance as the attribute (a <pedelec-guidance> child as well would be a conflict). */
const ATTRIBUTE_MARKUP = `<pedelec-session provider="codex" model="m" guidance="Old guidance.">${TOOL}</pedelec-session>`;

describe('<pedelec-session>', () => {
  sessionHooks();

  describe('start', () => {
    it('nothing is posted at connection without autostart', async () => {
      await fixture<PedelecSessionElement>(html`<pedelec-session provider="codex" model="m"></pedelec-session>`);
      await nextTask();
      expect(fake.posted).to.deep.equal([]);
    });

    it('with autostart, get_approval_status is posted on connection', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session autostart provider="codex" model="m"></pedelec-session>`,
      );
      expect(fake.posted.map((m) => m.type)).to.deep.equal(['get_approval_status']);
      expect(el.status).to.equal('starting');
      const ready = oneEvent(el, 'pedelec-ready');
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's1' });
      expect((await ready).detail.sessionId).to.equal('s1');
    });

    it('start() while starting returns the same promise; one approval and one create', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const first = el.start();
      expect(el.start()).to.equal(first);
      await fake.answer('get_approval_status', APPROVED());
      await fake.request('create_session');
      expect(el.start()).to.equal(first);
      await fake.answer('create_session', { sessionId: 's1' });
      const session = await first;
      expect(await el.start()).to.equal(session);
      expect(el.session).to.equal(session);
      expect(postedOf('get_approval_status')).to.have.length(1);
      expect(postedOf('create_session')).to.have.length(1);
    });

    it('sendText() starts lazily, then sends the text', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const turn = el.sendText('hello');
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's1' });
      const send = await fake.answer('send_text');
      expect(send).to.include({ sessionId: 's1', text: 'hello' });
      coreEvent('s1', 'done');
      await turn;
    });

    it('prepare() starts lazily, then prepares', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const prepared = el.prepare();
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's1' });
      const prepare = await fake.answer('prepare_session');
      expect(prepare.sessionId).to.equal('s1');
      coreEvent('s1', 'done');
      await prepared;
    });

    it('sends the declared manifest and provider/model in create_session', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m" guidance="Be brief.">
          <pedelec-tool name="t" description="T." timeout-ms="5000"></pedelec-tool>
        </pedelec-session>`,
      );
      const p = el.start();
      await fake.answer('get_approval_status', APPROVED());
      const create = await fake.answer('create_session', { sessionId: 's1' });
      await p;
      expect(create.input).to.deep.include({ provider: 'codex', model: 'm', autoEndOnDisconnect: true });
      expect(create.input.skills).to.deep.equal({
        guidance: 'Be brief.',
        tools: [{ name: 't', description: 'T.', timeoutMs: 5000, argsSchema: { type: 'object', properties: {} } }],
      });
    });

    it('resume-id resumes that id', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session resume-id="abc" provider="codex" model="m"></pedelec-session>`,
      );
      const ready = oneEvent(el, 'pedelec-ready');
      const p = el.start();
      await fake.answer('get_approval_status', APPROVED());
      const resume = await fake.answer('resume_session', { sessionId: 'abc' });
      await p;
      expect(resume.sessionId).to.equal('abc');
      expect(postedOf('create_session')).to.deep.equal([]);
      expect(el.sessionId).to.equal('abc');
      expect((await ready).detail).to.include({ sessionId: 'abc', resumed: true });
    });
  });

  describe('while starting', () => {
    it('end() while starting ends the session as soon as it exists; sendText() then rejects SESSION_ENDED', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const starting = el.start();
      const ending = el.end();
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's1' });
      await starting;
      expect((await fake.answer('end_session')).sessionId).to.equal('s1');
      await ending;
      const sent = await soon(el.sendText('after end'));
      expect(sent.error?.code).to.equal('SESSION_ENDED');
      expect(postedOf('send_text')).to.deep.equal([]);
    });

    it('start(), end(), start() while starting (a React StrictMode effect and its cleanup): the last call wins, one live session', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const first = el.start();
      const ending = el.end();
      const second = el.start();
      expect(second).to.equal(first);
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's1' });
      expect((await second).sessionId).to.equal('s1');
      expect((await soon(ending)).settled, 'end() settles').to.equal(true);
      expect(postedOf('end_session'), 'the end was taken back').to.deep.equal([]);
      expect(el.session?.getStatus()).to.equal('idle');
      const refused = await soon(el.sendText('still here'));
      expect(refused.error?.code, 'sendText() is not refused').to.equal(undefined);
      expect(postedOf('send_text').map((m) => m.text)).to.deep.equal(['still here']);
    });

    it('a failed start after end() leaves session null', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      await ended(el);
      const again = el.start().catch((error: PedelecError) => error);
      await fake.answer('get_approval_status', APPROVED());
      await fake.refuse('create_session', { code: 'PROVIDER_UNAVAILABLE', message: 'not now' });
      expect(((await again) as PedelecError).code).to.equal('PROVIDER_UNAVAILABLE');
      expect(el.status).to.equal('error');
      expect(el.session === null, 'session is null').to.equal(true);
      expect(el.sessionId).to.equal(null);
    });
  });

  describe('properties set before the upgrade', () => {
    /** Markup whose elements are not defined yet: their tags are defined by the test, in its order. */
    function undefinedMarkup(inner: (toolTag: string) => string, sessionAttrs = 'provider="codex" model="m"') {
      const sessionTag = uniqueTag('late-session');
      const toolTag = uniqueTag('late-tool');
      const host = document.createElement('div');
      document.body.append(host);
      restorers.push(() => host.remove());
      host.innerHTML = `<${sessionTag} ${sessionAttrs}>${inner(toolTag)}</${sessionTag}>`;
      const defineAll = () => {
        customElements.define(sessionTag, class extends PedelecSessionElement {});
        customElements.define(toolTag, class extends PedelecToolElement {});
      };
      return {
        host,
        sessionTag,
        toolTag,
        defineAll,
        session: () => host.querySelector(sessionTag) as PedelecSessionElement,
      };
    }

    it('properties set on a tool before its upgrade reach the manifest when session and tools upgrade together', async () => {
      const page = undefinedMarkup((tag) => `<${tag} name="early" description="d"></${tag}>`);
      const tool = page.host.querySelector(page.toolTag) as unknown as Record<string, unknown>;
      tool.argsSchema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
      tool.handler = () => 'handled';
      page.defineAll();
      const el = page.session();
      await nextTask(); // the upgraded elements' first updates put the properties back
      expect(el.manifest?.tools[0]?.argsSchema).to.deep.equal({
        type: 'object',
        properties: { n: { type: 'integer' } },
        required: ['n'],
      });
      const refused = await el.invoke('early', { n: 'x' });
      expect(refused.ok).to.equal(false);
      if (!refused.ok) expect(refused.error.code).to.equal('TOOL_ARGS_INVALID');
      expect(await el.invoke('early', { n: 1 })).to.deep.equal({ ok: true, result: 'handled' });
      page.host.remove();
      await nextTask();
    });

    it("autostart waits for properties set before the upgrade (tools, and the tools' own)", async () => {
      const page = undefinedMarkup(
        (tag) => `<${tag} name="early" description="d"></${tag}>`,
        'autostart provider="codex" model="m"',
      );
      const el0 = page.session() as unknown as Record<string, unknown>;
      el0.tools = [
        {
          name: 'from_js',
          description: 'A JS tool set before the upgrade.',
          argsSchema: { type: 'object', properties: {} },
        },
      ];
      const tool = page.host.querySelector(page.toolTag) as unknown as Record<string, unknown>;
      tool.argsSchema = { type: 'object', properties: { n: { type: 'integer' } } };
      page.defineAll();
      await fake.answer('get_approval_status', APPROVED());
      const create = await fake.answer('create_session', { sessionId: 's1' });
      const tools = create.input.skills.tools;
      expect(tools.map((t: { name: string }) => t.name)).to.deep.equal(['early', 'from_js']);
      expect(tools[0].argsSchema).to.deep.equal({ type: 'object', properties: { n: { type: 'integer' } } });
      await nextTask();
      expect(page.session().toolsStale).to.equal(false);
      page.host.remove();
      await fake.answer('end_session');
    });
  });

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
});
