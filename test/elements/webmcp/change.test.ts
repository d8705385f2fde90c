/**
 * Registrations follow every change (spec every-agent.md §2 "Lifecycle"): a change to a tool's
 * name, description, schema, title or hints unregisters it and registers it again as it is now; a
 * new tool is registered, a tool added after start() too; a handler change is no change. The browser
 * lists what the page declares now.
 */
import { expect, fixture, html } from '@open-wc/testing';
import type { PedelecSessionElement, PedelecToolElement, ToolCallContext } from '../../../src/index.js';
import { installFakeChrome, uninstallFakeChrome } from '../../support/fake-chrome.js';
import { approvedStatus } from '../helpers.js';
import { until } from '../../support/waits.js';
import { callAsAgent, listed, listedAs, listedSo, recordContext, textOf, webmcpHooks } from './harness.js';

const toolIn = (el: Element, name: string) => el.querySelector(`pedelec-tool[name="${name}"]`) as PedelecToolElement;

describe('<pedelec-session webmcp>: changes', () => {
  webmcpHooks();
  let record: ReturnType<typeof recordContext> | undefined;
  afterEach(() => record?.restore());

  async function session(): Promise<PedelecSessionElement> {
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session webmcp>
        <pedelec-tool name="a" description="First."></pedelec-tool>
        <pedelec-tool name="b" description="Second." schema='{"type":"object","properties":{"n":{"type":"integer"}}}'></pedelec-tool>
      </pedelec-session>
    `);
    await listedAs(['a', 'b']);
    return el;
  }

  it('a new description, schema, name or title is registered as it is now', async () => {
    const el = await session();
    toolIn(el, 'a').description = 'First, changed.';
    await listedSo('a', (t) => t.description === 'First, changed.', 'the new description');

    toolIn(el, 'b').setAttribute('schema', '{"type":"object","properties":{"s":{"type":"string"}}}');
    const b = await listedSo('b', (t) => JSON.stringify(t.inputSchema).includes('"s"'), 'the new schema');
    expect(b.inputSchema).to.deep.equal({ type: 'object', properties: { s: { type: 'string' } } });

    const renamed = toolIn(el, 'b');
    renamed.name = 'c';
    await listedAs(['a', 'c']);
    expect(el.webmcpTools.sort()).to.deep.equal(['a', 'c']);

    // title and the hints: what the kit registers (Firefox's older API does not list the title).
    record = recordContext();
    toolIn(el, 'a').title = 'The first';
    renamed.readOnly = true;
    await until(() => record!.registered.length === 2, 'two registrations');
    const byName = Object.fromEntries(record.registered.map((r) => [r.name, r.tool]));
    expect(byName.a.title).to.equal('The first');
    expect(byName.c.annotations).to.deep.equal({ readOnlyHint: true });
    await listedAs(['a', 'c']);
    expect((await listed()).find((t) => t.name === 'c')!.annotations.readOnlyHint).to.equal(true);
  });

  it('a tool added later is registered; a handler change re-registers nothing', async () => {
    const el = await session();
    record = recordContext();
    toolIn(el, 'a').handler = () => 1;
    el.fallback = () => 2;
    const added = document.createElement('pedelec-tool') as PedelecToolElement;
    added.name = 'later';
    added.description = 'Added later.';
    el.append(added);
    await listedAs(['a', 'b', 'later']);
    expect(record.registered.map((r) => r.name)).to.deep.equal(['later']);
    expect(record.unregistered).to.deep.equal([]);
  });

  it('a batch of changes in one task is one registration per tool', async () => {
    const el = await session();
    record = recordContext();
    for (let i = 0; i < 5; i++) toolIn(el, 'a').description = `Description ${i}.`;
    await until(() => record!.registered.length > 0, 'a registration');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(record.registered.map((r) => [r.name, r.tool.description])).to.deep.equal([['a', 'Description 4.']]);
  });

  it('after start(), the browser gets and calls the tools as they are now, not the manifest sent to Core', async () => {
    const fake = installFakeChrome();
    try {
      const el = await fixture<PedelecSessionElement>(html`
        <pedelec-session webmcp provider="codex" model="m">
          <pedelec-tool name="a" description="First."></pedelec-tool>
        </pedelec-session>
      `);
      const started = el.start();
      await fake.answer('get_approval_status', approvedStatus());
      await fake.answer('create_session', { sessionId: 's1' });
      await started;
      const added = document.createElement('pedelec-tool') as PedelecToolElement;
      added.name = 'after_start';
      added.description = 'Added after start.';
      el.append(added);
      await listedAs(['a', 'after_start']);
      expect(el.toolsStale).to.equal(true);
      // Not in the manifest Core got, yet callable by the browser's agent, in the running session.
      let seen: ToolCallContext | undefined;
      added.handler = (_args, ctx) => ((seen = ctx), 'ok');
      expect(textOf(await callAsAgent('after_start', {}))).to.equal('"ok"');
      expect(seen).to.deep.include({ sessionId: 's1', provider: 'codex', via: 'webmcp' });
      el.remove();
      await fake.answer('end_session');
    } finally {
      uninstallFakeChrome();
    }
  });
});
