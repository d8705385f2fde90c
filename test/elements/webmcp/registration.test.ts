/**
 * `<pedelec-session webmcp>` (spec every-agent.md §2): every tool the session offers is registered
 * with the page's model context — without a bridge, `start()` or an approval — with its name,
 * description, schema, `title` and hints; `webmcp` is a token list (empty means `expose`; `import` is
 * recognized and exposes nothing); the property is `string | null` and reflects the attribute.
 */
import { expect, fixture, html } from '@open-wc/testing';
import type { PedelecSessionElement } from '../../../src/index.js';
import { until } from '../../support/waits.js';
import { listed, listedAs, names, webmcpHooks } from './harness.js';
import { buildsOf } from '../../../src/elements/session/pedelec-session.element.js';

describe('<pedelec-session webmcp>: registration', () => {
  webmcpHooks();

  it('registers every declared tool with the browser, without a bridge or start()', async () => {
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session webmcp>
        <pedelec-tool name="update_counter" description="Change the counter by delta." timeout-ms="5000">
          <pedelec-arg name="delta" type="integer" required minimum="-10" maximum="10"></pedelec-arg>
        </pedelec-tool>
        <pedelec-tool
          name="get_page"
          description="Read the page."
          title="Read the page"
          read-only
          untrusted-content
        ></pedelec-tool>
      </pedelec-session>
    `);
    await listedAs(['get_page', 'update_counter']);
    const tools = await listed();
    const counter = tools.find((t) => t.name === 'update_counter')!;
    expect(counter.description).to.equal('Change the counter by delta.');
    expect(counter.inputSchema).to.deep.equal({
      type: 'object',
      properties: { delta: { type: 'integer', minimum: -10, maximum: 10 } },
      required: ['delta'],
    });
    expect(counter.annotations?.readOnlyHint ?? false).to.equal(false);
    const page = tools.find((t) => t.name === 'get_page')!;
    expect(page.annotations.readOnlyHint).to.equal(true);
    // Firefox's older API keeps neither the title nor the untrusted-content hint; Chromium keeps both.
    if ('title' in page && page.title !== undefined) {
      expect(page.title).to.equal('Read the page');
      expect(page.annotations.untrustedContentHint).to.equal(true);
    }
    expect(el.webmcpTools.sort()).to.deep.equal(['get_page', 'update_counter']);
    expect(el.status).to.equal('inactive');
    expect(el.session).to.equal(null);
    expect(el.client).to.equal(null);
  });

  it('registers JS-defined tools with their optional fields; they stay out of the Pedelec manifest', async () => {
    const el = await fixture<PedelecSessionElement>(html`<pedelec-session webmcp></pedelec-session>`);
    el.tools = [
      {
        name: 'search',
        description: 'Search the catalogue.',
        argsSchema: { type: 'object', properties: { q: { type: 'string' } } },
        title: 'Search',
        readOnly: true,
        untrustedContent: true,
        handler: () => [],
      },
      { name: 'hidden', description: 'Only for the Pedelec agent.', argsSchema: { type: 'object' }, private: true },
    ];
    await listedAs(['search']);
    const [search] = await listed();
    expect(search!.annotations.readOnlyHint).to.equal(true);
    if (search!.title !== undefined) expect(search!.title).to.equal('Search');
    expect(el.manifest!.tools).to.deep.equal([
      {
        name: 'search',
        description: 'Search the catalogue.',
        argsSchema: { type: 'object', properties: { q: { type: 'string' } } },
      },
      { name: 'hidden', description: 'Only for the Pedelec agent.', argsSchema: { type: 'object' } },
    ]);
  });

  it('the element attributes never reach the Pedelec manifest either', async () => {
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session webmcp>
        <pedelec-tool name="t" description="T." title="A title" read-only untrusted-content private></pedelec-tool>
      </pedelec-session>
    `);
    expect(el.manifest!.tools).to.deep.equal([
      { name: 't', description: 'T.', argsSchema: { type: 'object', properties: {} } },
    ]);
  });

  it('webmcp is a token list: empty and "expose" expose; "import" alone exposes nothing and breaks nothing', async () => {
    const tool = html`<pedelec-tool name="t" description="T."></pedelec-tool>`;
    const importing = await fixture<PedelecSessionElement>(
      html`<pedelec-session webmcp="import">${tool}</pedelec-session>`,
    );
    expect(importing.webmcp).to.equal('import');
    expect(importing.manifest!.tools.map((t) => t.name)).to.deep.equal(['t']);
    // Nothing is registered however long one waits: the session registers at its first build.
    await until(() => buildsOf(importing) > 0, 'the first build');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await names()).to.deep.equal([]);
    expect(importing.webmcpTools).to.deep.equal([]);
    expect((await importing.invoke('t', {})).ok).to.equal(false); // no handler: still the normal path

    importing.setAttribute('webmcp', 'import  EXPOSE');
    await listedAs(['t']);
    importing.remove();
    await listedAs([]);

    const both = await fixture<PedelecSessionElement>(
      html`<pedelec-session webmcp=" expose import ">${tool}</pedelec-session>`,
    );
    await listedAs(['t']);
    expect(both.webmcpTools).to.deep.equal(['t']);
  });

  it('the webmcp property is string | null and reflects the attribute; true is "expose", false and null remove it', async () => {
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session><pedelec-tool name="t" description="T."></pedelec-tool></pedelec-session>
    `);
    expect(el.webmcp).to.equal(null);
    el.webmcp = true;
    expect(el.getAttribute('webmcp')).to.equal('expose');
    expect(el.webmcp).to.equal('expose');
    await listedAs(['t']);
    el.webmcp = false;
    expect(el.hasAttribute('webmcp')).to.equal(false);
    expect(el.webmcp).to.equal(null);
    await listedAs([]);
    el.webmcp = '';
    expect(el.webmcp).to.equal('');
    await listedAs(['t']);
    el.webmcp = null;
    expect(el.hasAttribute('webmcp')).to.equal(false);
    await listedAs([]);
  });

  it('a value set before the element is upgraded is kept', async () => {
    const el = document.createElement('pedelec-session-webmcp-late') as PedelecSessionElement & { webmcp: unknown };
    el.webmcp = true;
    el.innerHTML = '<pedelec-tool name="late" description="Late."></pedelec-tool>';
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    host.append(el);
    const { PedelecSessionElement: Session } = await import('../../../src/index.js');
    customElements.define('pedelec-session-webmcp-late', class extends Session {});
    await listedAs(['late']);
    expect(el.getAttribute('webmcp')).to.equal('expose');
  });

  it('without webmcp nothing registers', async () => {
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session><pedelec-tool name="t" description="T."></pedelec-tool></pedelec-session>
    `);
    await until(() => buildsOf(el) > 0, 'the first build');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await names()).to.deep.equal([]);
    expect(el.webmcpTools).to.deep.equal([]);
  });
});
