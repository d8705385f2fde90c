/**
 * Changes after start (docs/design/elements.md "Changes after start"): each change to tools or configuration
 * sets toolsStale and fires one pedelec-tools-changed, calls to tools that went away get
 * TOOL_UNAVAILABLE, validation keeps the schema that was sent; and the comparison itself
 * (src/elements/session/staleness.ts) as plain data.
 */
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../../src/define.js';
import {
  type PedelecToolResultEvent,
  PedelecToolsChangedEvent,
  type PedelecSessionElement,
} from '../../../src/index.js';
import { PedelecWorkspace, type SerializableSkillsManifest } from '../../../src/core/index.js';
import { Staleness, type SessionConfig } from '../../../src/elements/session/staleness.js';
import {
  CLOSED_PORT,
  fake,
  restorers,
  APPROVED,
  j,
  coreEvent,
  started,
  openTurn,
  agentCall,
  collect,
  makeTool,
  toolOf,
  sessionHooks,
} from './harness.js';
import { approvedStatus, endSession, mount, record, startSession } from '../helpers.js';
import { nextTask } from '../../support/waits.js';

describe('Staleness', () => {
  const config: SessionConfig = {
    provider: 'codex',
    model: 'm',
    'effort-level': '',
    effort: '',
    guidance: 'g',
    bridge: '',
    novalidate: 'false',
    workspace: '',
  };

  const tool = (name: string, description = 'd') => ({
    name,
    description,
    argsSchema: { type: 'object' as const, properties: {} },
  });

  const manifest = (...tools: ReturnType<typeof tool>[]): SerializableSkillsManifest => ({ guidance: 'g', tools });

  it('reports nothing before a snapshot, and nothing while everything is as sent', () => {
    const s = new Staleness();
    expect(s.check(manifest(tool('a')), config)).to.equal(null);
    s.take(manifest(tool('a')), config);
    expect(s.sent('a')).to.equal(true);
    expect(s.sent('b')).to.equal(false);
    expect(s.check(manifest(tool('a')), { ...config })).to.equal(null);
    expect(s.stale).to.equal(false);
  });

  it('reports added, removed and changed tools and changed configuration, each change once', () => {
    const s = new Staleness();
    s.take(manifest(tool('a'), tool('b')), config);
    const now = manifest(tool('a', 'new description'), tool('c'));
    const change = { added: ['c'], removed: ['b'], changed: ['a'], config: ['model'] };
    expect(s.check(now, { ...config, model: 'other' })).to.deep.equal(change);
    expect(s.stale).to.equal(true);
    expect(s.check(now, { ...config, model: 'other' }), 'the same change again').to.equal(null);
    // Key order does not make a tool "changed": tools are compared as canonical JSON.
    const reordered = { argsSchema: { properties: {}, type: 'object' as const }, description: 'd', name: 'b' };
    s.take(manifest(tool('b')), config);
    expect(s.check({ guidance: 'g', tools: [reordered] }, config)).to.equal(null);
  });

  it('becomes fresh again when the change is undone, and forgets everything on clear()', () => {
    const s = new Staleness();
    s.take(manifest(tool('a')), config);
    expect(s.check(manifest(), config)).to.deep.equal({ added: [], removed: ['a'], changed: [], config: [] });
    expect(s.check(manifest(tool('a')), config)).to.equal(null);
    expect(s.stale).to.equal(false);
    s.clear();
    expect(s.sent('a')).to.equal(false);
    expect(s.check(manifest(), config)).to.equal(null);
  });
});

describe('<pedelec-session>', () => {
  sessionHooks();

  describe('changes after start', () => {
    const base = () =>
      html`<pedelec-session provider="codex" model="m" guidance="g">
        <pedelec-tool name="a" description="A."><pedelec-arg name="n" type="integer"></pedelec-arg></pedelec-tool>
        <pedelec-tool name="b" description="B."></pedelec-tool>
      </pedelec-session>`;
    type Changes = { added: string[]; removed: string[]; changed: string[]; config: string[] };
    const none: Changes = { added: [], removed: [], changed: [], config: [] };

    const scenarios: Array<[string, (el: PedelecSessionElement) => void, Partial<Changes>]> = [
      ['adding a tool', (el) => el.append(makeTool('c', 'C.')), { added: ['c'] }],
      ['removing a tool', (el) => toolOf(el, 'b').remove(), { removed: ['b'] }],
      ['disabling a tool', (el) => (toolOf(el, 'b').disabled = true), { removed: ['b'] }],
      ['changing a description', (el) => toolOf(el, 'a').setAttribute('description', 'A!'), { changed: ['a'] }],
      [
        'changing an arg',
        (el) => toolOf(el, 'a').querySelector('pedelec-arg')!.setAttribute('type', 'string'),
        { changed: ['a'] },
      ],
      ['changing timeout-ms', (el) => toolOf(el, 'b').setAttribute('timeout-ms', '1000'), { changed: ['b'] }],
      [
        'adding a JS tool',
        (el) => (el.tools = [{ name: 'js', description: 'JS.', argsSchema: { type: 'object', properties: {} } }]),
        { added: ['js'] },
      ],
      ['changing provider', (el) => el.setAttribute('provider', 'claude'), { config: ['provider'] }],
      ['changing model', (el) => el.setAttribute('model', 'm2'), { config: ['model'] }],
      ['changing guidance', (el) => el.setAttribute('guidance', 'g2'), { config: ['guidance'] }],
      [
        'changing the bridge attribute',
        (el) => el.setAttribute('bridge', `ws://127.0.0.1:${CLOSED_PORT}/other`),
        { config: ['bridge'] },
      ],
      [
        'changing the bridge property',
        (el) => (el.bridge = `ws://127.0.0.1:${CLOSED_PORT}/other`),
        { config: ['bridge'] },
      ],
      ['setting novalidate', (el) => el.toggleAttribute('novalidate', true), { config: ['novalidate'] }],
      [
        'setting the workspace property',
        (el) => (el.workspace = new PedelecWorkspace({} as never, 'ws_other', '/home/ada/other')),
        { config: ['workspace'] },
      ],
      [
        'several changes in one task',
        (el) => {
          el.append(makeTool('c', 'C.'));
          el.append(makeTool('d', 'D.'));
          toolOf(el, 'a').setAttribute('description', 'A!');
          el.setAttribute('provider', 'claude');
          el.setAttribute('model', 'm2');
        },
        { added: ['c', 'd'], changed: ['a'], config: ['provider', 'model'] },
      ],
    ];

    for (const [name, act, expected] of scenarios) {
      it(`${name} sets toolsStale and fires one pedelec-tools-changed`, async () => {
        const el = await fixture<PedelecSessionElement>(base());
        await started(el);
        expect(el.toolsStale).to.equal(false);
        const changes = collect<PedelecToolsChangedEvent>(el, 'pedelec-tools-changed');
        const changed = oneEvent(el, 'pedelec-tools-changed');
        act(el);
        await changed;
        await nextTask(); // and no second one
        expect(changes.map((e) => j(e.detail))).to.deep.equal([{ ...none, ...expected }]);
        expect(el.toolsStale).to.equal(true);
        expect(changes[0]).to.be.instanceOf(PedelecToolsChangedEvent);
      });
    }

    for (const [name, act] of [
      ['a new handler', (el: PedelecSessionElement) => (toolOf(el, 'a').handler = () => ({}))],
      ['the same value again', (el: PedelecSessionElement) => toolOf(el, 'a').setAttribute('description', 'A.')],
      [
        'a change reverted in the same task',
        (el: PedelecSessionElement) => {
          toolOf(el, 'a').setAttribute('description', 'A!');
          el.setAttribute('provider', 'claude');
          toolOf(el, 'a').setAttribute('description', 'A.');
          el.setAttribute('provider', 'codex');
        },
      ],
    ] as const) {
      it(`${name} is not a change`, async () => {
        const el = await fixture<PedelecSessionElement>(base());
        await started(el);
        const changes = collect<PedelecToolsChangedEvent>(el, 'pedelec-tools-changed');
        act(el);
        await nextTask();
        expect(changes).to.deep.equal([]);
        expect(el.toolsStale).to.equal(false);
      });
    }

    it('before start, changes fire no pedelec-tools-changed', async () => {
      const el = await fixture<PedelecSessionElement>(base());
      const changes = collect<PedelecToolsChangedEvent>(el, 'pedelec-tools-changed');
      el.append(makeTool('c', 'C.'));
      el.setAttribute('provider', 'claude');
      await nextTask();
      expect(changes).to.deep.equal([]);
      expect(el.toolsStale).to.equal(false);
    });

    it('a call to a removed or disabled tool gets TOOL_UNAVAILABLE before any handler runs', async () => {
      const el = await fixture<PedelecSessionElement>(base());
      const ran: string[] = [];
      const a = toolOf(el, 'a');
      const b = toolOf(el, 'b');
      a.handler = () => ran.push('a handler');
      b.handler = () => ran.push('b handler');
      el.onTool('a', () => ran.push('a named'));
      el.fallback = () => ran.push('fallback');
      const listener = () => ran.push('event');
      document.addEventListener('pedelec-tool-call', listener);
      restorers.push(() => document.removeEventListener('pedelec-tool-call', listener));
      const results = collect<PedelecToolResultEvent>(el, 'pedelec-tool-result');
      await started(el);
      await openTurn(el);

      const changed = oneEvent(el, 'pedelec-tools-changed');
      a.remove();
      b.disabled = true;
      await changed;
      const gone = await agentCall('s1', 'a', { n: 1 });
      expect(gone.error).to.deep.include({ code: 'TOOL_UNAVAILABLE' });
      expect(gone.error.details).to.deep.include({ tool: 'a' });
      const off = await agentCall('s1', 'b', {});
      expect(off.error.code).to.equal('TOOL_UNAVAILABLE');
      expect(off.error.details).to.deep.include({ tool: 'b' });
      const local = await el.invoke('a', { n: 1 });
      expect(local.ok).to.equal(false);
      if (!local.ok) expect(local.error.code).to.equal('TOOL_UNAVAILABLE');
      expect(ran).to.deep.equal([]);
      expect(results.map((e) => e.detail.ok)).to.deep.equal([false, false, false]);

      b.handler = () => ({ back: true });
      b.disabled = false;
      await nextTask(); // b is back in the page's tools
      expect(await agentCall('s1', 'b', {}), 'enabled again').to.deep.equal({ back: true });
    });

    it('validation keeps using the schema that was sent to Core', async () => {
      const el = await fixture<PedelecSessionElement>(base());
      const seen: unknown[] = [];
      toolOf(el, 'a').handler = (args) => {
        seen.push(args);
        return { ok: true };
      };
      await started(el);
      await openTurn(el);
      const changed = oneEvent(el, 'pedelec-tools-changed');
      toolOf(el, 'a').querySelector('pedelec-arg')!.setAttribute('type', 'string');
      await changed;
      expect(el.toolsStale).to.equal(true);
      expect((el.manifest!.tools[0]!.argsSchema as any).properties.n.type, 'the page now declares a string').to.equal(
        'string',
      );

      expect(await agentCall('s1', 'a', { n: 5 })).to.deep.equal({ ok: true });
      expect((await agentCall('s1', 'a', { n: 'five' })).error.code).to.equal('TOOL_ARGS_INVALID');
      expect(await el.invoke('a', { n: 6 })).to.deep.equal({ ok: true, result: { ok: true } });
      const local = await el.invoke('a', { n: 'six' });
      expect(local.ok).to.equal(false);
      if (!local.ok) expect(local.error.code).to.equal('TOOL_ARGS_INVALID');
      expect(seen).to.deep.equal([{ n: 5 }, { n: 6 }]);
    });
  });

  describe('changes while starting, and on the bridge as used', () => {
    const jsTool = (name: string) => ({
      name,
      description: `${name}.`,
      argsSchema: { type: 'object' as const, properties: {} },
    });

    it('a tool removed while the session is being created is stale at once, and a call to it gets TOOL_UNAVAILABLE', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m">
          <pedelec-tool name="t" description="Stays."></pedelec-tool>
          <pedelec-tool name="v" description="Goes while starting."></pedelec-tool>
        </pedelec-session>`,
      );
      const changes = collect<PedelecToolsChangedEvent>(el, 'pedelec-tools-changed');
      const starting = el.start();
      await fake.answer('get_approval_status', APPROVED());
      const create = await fake.request('create_session');
      expect(create.input.skills.tools.map((t: { name: string }) => t.name)).to.deep.equal(['t', 'v']);
      toolOf(el, 'v').remove();
      await nextTask(); // the element took the removal in
      await fake.answer('create_session', { sessionId: 's1' });
      await starting;
      expect(el.toolsStale).to.equal(true);
      expect(changes.map((e) => e.detail.removed)).to.deep.equal([['v']]);
      await openTurn(el);
      expect((await agentCall('s1', 'v', {})).error.code).to.equal('TOOL_UNAVAILABLE');
    });

    it('a bridge changed while a session runs makes it stale; nothing cuts it off, not even an availability check', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      const { outcome: turn } = await openTurn(el, 's1');
      const client = el.client;
      el.setAttribute('bridge', `ws://127.0.0.1:${CLOSED_PORT}/other`);
      // As a chat does when the bridge changes: asked of the client the session runs on.
      const check = el.checkAvailability();
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('get_settings', { defaultProvider: 'codex', defaultModels: { codex: 'm' } });
      expect((await check).available).to.equal(true);
      await nextTask(); // nothing cut the session off
      expect(el.status).to.equal('running');
      expect(el.toolsStale).to.equal(true);
      expect(el.client).to.equal(client);
      expect(fake.disconnectCalls).to.equal(0);
      coreEvent('s1', 'done');
      expect(await turn).to.equal('done');
    });

    it('extension-id changed after start makes the session stale', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      const changes = collect<PedelecToolsChangedEvent>(el, 'pedelec-tools-changed');
      const changed = oneEvent(el, 'pedelec-tools-changed');
      el.setAttribute('extension-id', 'abcdefghijklmnopabcdefghijklmnop');
      await changed;
      await nextTask(); // and no second one
      expect(el.toolsStale).to.equal(true);
      expect(changes.map((e) => e.detail.config)).to.deep.equal([['bridge']]);
    });

    it('provider/model changed while waiting for approval: what is sent and what is compared agree', async () => {
      const host = await mount('<pedelec-session provider="codex" model="m" guidance="G."></pedelec-session>');
      const s = host.querySelector('pedelec-session') as PedelecSessionElement;
      await nextTask();
      const changes = record<PedelecToolsChangedEvent>(s, 'pedelec-tools-changed');
      const started = s.start();
      await fake.request('get_approval_status'); // waiting for approval
      s.setAttribute('provider', 'claude');
      s.setAttribute('model', 'm2');
      await nextTask();
      await fake.answer('get_approval_status', approvedStatus());
      const create = await fake.answer('create_session', { sessionId: 's1' });
      await started;
      await nextTask();
      try {
        // What was sent is what the start took; the change made meanwhile is a later change, reported once.
        expect([create.input.provider, create.input.model]).to.deep.equal(['codex', 'm']);
        expect(changes.map((e) => e.detail.config)).to.deep.equal([['provider', 'model']]);
        expect(s.toolsStale).to.equal(true);
      } finally {
        await endSession(s, fake);
      }
    });

    it('reordering tools that were already reported as added fires no second pedelec-tools-changed', async () => {
      const host = await mount('<pedelec-session provider="codex" model="m" guidance="G."></pedelec-session>');
      const s = host.querySelector('pedelec-session') as PedelecSessionElement;
      await nextTask();
      await startSession(s, fake);
      const changes = record<PedelecToolsChangedEvent>(s, 'pedelec-tools-changed');
      try {
        s.tools = [jsTool('b'), jsTool('c')];
        await nextTask();
        expect(changes.length).to.equal(1);
        s.tools = [jsTool('c'), jsTool('b')]; // same set, same difference from what was sent
        await nextTask();
        expect(changes.map((e) => e.detail.added)).to.deep.equal([['b', 'c']]);
      } finally {
        await endSession(s, fake);
      }
    });

    it('a blank bridge attribute is the extension: extension-id changed after start still makes the session stale', async () => {
      const host = await mount(
        '<pedelec-session bridge=" " provider="codex" model="m" guidance="G."></pedelec-session>',
      );
      const s = host.querySelector('pedelec-session') as PedelecSessionElement;
      await nextTask();
      await startSession(s, fake); // bridge " " is parsed (trimmed) as the extension
      const changes = record<PedelecToolsChangedEvent>(s, 'pedelec-tools-changed');
      try {
        s.setAttribute('extension-id', 'abcdefghijklmnopabcdefghijklmnop'); // restart() would switch extensions
        await nextTask();
        expect(s.toolsStale).to.equal(true);
        expect(changes.map((e) => e.detail.config)).to.deep.equal([['bridge']]);
      } finally {
        await endSession(s, fake);
      }
    });
  });
});
