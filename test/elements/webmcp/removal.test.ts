/**
 * What leaves the browser's agent (spec every-agent.md §2 "Lifecycle"): a removed or `disabled` tool,
 * every tool of a session that leaves the page or whose `webmcp` goes; a call to a tool that went
 * answers `TOOL_UNAVAILABLE`. A session moved in the DOM within a task (as frameworks do) keeps its
 * registrations, and so does a session mounted twice (React StrictMode): nothing is registered twice.
 */
import { expect, fixture, html } from '@open-wc/testing';
import type { PedelecSessionElement, PedelecToolElement } from '../../../src/index.js';
import { nextTask, until } from '../../support/waits.js';
import { chromium, listedAs, recordContext, webmcpHooks } from './harness.js';

const toolIn = (el: Element, name: string) => el.querySelector(`pedelec-tool[name="${name}"]`) as PedelecToolElement;

describe('<pedelec-session webmcp>: removal', () => {
  webmcpHooks();
  let record: ReturnType<typeof recordContext> | undefined;
  afterEach(() => record?.restore());

  async function session(): Promise<PedelecSessionElement> {
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session webmcp>
        <pedelec-tool name="a" description="First."></pedelec-tool>
        <pedelec-tool name="b" description="Second."></pedelec-tool>
      </pedelec-session>
    `);
    await listedAs(['a', 'b']);
    return el;
  }

  it('a removed tool is unregistered (abort in Chromium, unregisterTool in Firefox)', async () => {
    const el = await session();
    record = recordContext();
    toolIn(el, 'a').remove();
    await listedAs(['b']);
    expect(el.webmcpTools).to.deep.equal(['b']);
    if (!chromium()) expect(record.unregistered).to.deep.equal(['a']);
  });

  it('a disabled tool is unregistered, and registered again when enabled', async () => {
    const el = await session();
    toolIn(el, 'b').disabled = true;
    await listedAs(['a']);
    expect(el.webmcpTools).to.deep.equal(['a']);
    toolIn(el, 'b').disabled = false;
    await listedAs(['a', 'b']);
  });

  it('removing webmcp unregisters every tool; setting it again registers them again', async () => {
    const el = await session();
    el.removeAttribute('webmcp');
    await listedAs([]);
    expect(el.webmcpTools).to.deep.equal([]);
    el.setAttribute('webmcp', '');
    await listedAs(['a', 'b']);
  });

  it('a session that leaves the page unregisters its tools; back in the page, it registers them again', async () => {
    const el = await session();
    const parent = el.parentNode!;
    el.remove();
    await listedAs([]);
    parent.append(el);
    await listedAs(['a', 'b']);
  });

  it('a session moved within a task keeps its registrations', async () => {
    const el = await session();
    record = recordContext();
    const other = document.createElement('div');
    el.parentNode!.append(other);
    other.append(el); // removed and inserted again in the same task
    await nextTask();
    await nextTask();
    expect(record.registered).to.deep.equal([]);
    expect(record.unregistered).to.deep.equal([]);
    await listedAs(['a', 'b']);
  });

  it('mounted, unmounted and mounted again in one task (React StrictMode): registered once', async () => {
    record = recordContext();
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    const el = document.createElement('pedelec-session') as PedelecSessionElement;
    el.setAttribute('webmcp', '');
    el.innerHTML = '<pedelec-tool name="once" description="Registered once."></pedelec-tool>';
    host.append(el);
    el.remove();
    host.append(el);
    await listedAs(['once']);
    await nextTask();
    expect(record.registered.map((r) => r.name)).to.deep.equal(['once']);
  });

  it('a call to a tool that went away meanwhile answers TOOL_UNAVAILABLE', async () => {
    const el = await session();
    record = recordContext();
    toolIn(el, 'a').description = 'First, again.';
    await until(() => record!.registered.length === 1, 'the new registration');
    const execute: (input: unknown, client?: unknown) => Promise<any> = record.registered[0]!.tool.execute;
    toolIn(el, 'a').remove();
    await listedAs(['b']);
    // The browser's agent held on to the tool (a call already on its way).
    const result = await execute({}, {});
    expect(result.isError).to.equal(true);
    expect(result.content[0].text).to.match(/^TOOL_UNAVAILABLE: /);
  });
});
