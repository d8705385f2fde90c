/**
 * No WebMCP in the browser (spec every-agent.md §1–2): nothing throws into the page; a session with
 * `webmcp` says so once, as a `WEBMCP_UNAVAILABLE` warning (never on the console unless `debug`), and
 * everything else works. The kit ships no polyfill: a model context that appears later (one a page
 * loads) is used from the next change on.
 */
import { expect } from '@open-wc/testing';
import type { PedelecSessionElement, PedelecToolElement, PedelecWarningEvent } from '../../../src/index.js';
import { until } from '../../support/waits.js';
import { mountHost, record } from '../helpers.js';
import { listedAs, webmcpHooks } from './harness.js';

describe('<pedelec-session webmcp>: no model context', () => {
  webmcpHooks();
  const hide = (target: object) =>
    Object.defineProperty(target, 'modelContext', { value: undefined, configurable: true });
  const show = (target: object) => delete (target as { modelContext?: unknown }).modelContext;
  afterEach(() => {
    show(document);
    show(navigator);
  });

  it('one WEBMCP_UNAVAILABLE warning; the session works; a context that appears later is used', async () => {
    hide(document);
    hide(navigator);
    const host = await mountHost();
    const warnings = record<PedelecWarningEvent>(host, 'pedelec-warning');
    const logged: unknown[] = [];
    const warn = console.warn;
    console.warn = (...args) => logged.push(args);
    try {
      host.innerHTML = `<pedelec-session webmcp><pedelec-tool name="t" description="T."></pedelec-tool></pedelec-session>`;
      const el = host.firstElementChild as PedelecSessionElement;
      const tool = el.querySelector('pedelec-tool') as PedelecToolElement;
      tool.handler = () => 'fine';
      await until(() => warnings.length > 0, 'the warning');
      tool.description = 'T, changed.';
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(warnings.map((w) => w.detail.warning.code)).to.deep.equal(['WEBMCP_UNAVAILABLE']);
      expect(warnings[0]!.detail.warning.message).to.include('modelContext');
      expect(warnings[0]!.detail.warning.message, 'how to turn it on, per browser').to.match(
        /--enable-features=WebMCP.*dom\.modelcontext\.enabled/,
      );
      expect(logged).to.deep.equal([]);
      expect(el.webmcpTools).to.deep.equal([]);
      expect(await el.invoke('t', {})).to.deep.equal({ ok: true, result: 'fine' });

      show(document);
      show(navigator);
      tool.description = 'T, once more.';
      await listedAs(['t']);
      expect(el.webmcpTools).to.deep.equal(['t']);
    } finally {
      console.warn = warn;
    }
  });
});
