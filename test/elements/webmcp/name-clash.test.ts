/**
 * Names (spec every-agent.md §1–2): in Chromium a name another script (or a form, or another session)
 * registered first stays theirs — one `WEBMCP_NAME_TAKEN` warning, the rest of the session's tools
 * registered. Names the browsers refuse (over 128 characters) are skipped in every browser, with one
 * `WEBMCP_UNAVAILABLE` warning; they stay offered to the Pedelec agent.
 */
import { expect } from '@open-wc/testing';
import type { PedelecSessionElement, PedelecToolElement, PedelecWarningEvent } from '../../../src/index.js';
import { mountHost, record } from '../helpers.js';
import { until } from '../../support/waits.js';
import { chromium, context, listed, listedAs, webmcpHooks } from './harness.js';

describe('<pedelec-session webmcp>: names', () => {
  webmcpHooks();

  describe('a name taken on the page (Chromium)', () => {
    before(function () {
      if (!chromium()) this.skip();
    });
    let theirs: AbortController | undefined;
    afterEach(() => theirs?.abort());

    it('stays theirs: one WEBMCP_NAME_TAKEN warning, the other tools registered', async () => {
      theirs = new AbortController();
      await context().registerTool(
        { name: 'taken', description: 'Registered by another script.', execute: () => 'theirs' },
        { signal: theirs.signal },
      );
      const host = await mountHost();
      const warnings = record<PedelecWarningEvent>(host, 'pedelec-warning');
      host.innerHTML = `<pedelec-session webmcp>
          <pedelec-tool name="taken" description="Ours."></pedelec-tool>
          <pedelec-tool name="free" description="Free."></pedelec-tool>
        </pedelec-session>`;
      const el = host.firstElementChild as PedelecSessionElement;
      await listedAs(['free', 'taken']);
      await until(() => warnings.length > 0, 'the warning');
      expect((await listed()).find((t) => t.name === 'taken')!.description).to.equal('Registered by another script.');
      expect(el.webmcpTools).to.deep.equal(['free']);
      expect(warnings.map((w) => w.detail.warning.code)).to.deep.equal(['WEBMCP_NAME_TAKEN']);
      expect(warnings[0]!.detail.warning.details).to.deep.equal({ tool: 'taken' });
      expect(warnings[0]!.target).to.equal(el);

      // Another change to the session does not say it again.
      (el.querySelector('pedelec-tool[name="free"]') as PedelecToolElement).description = 'Still free.';
      await new Promise((r) => setTimeout(r, 50));
      expect(warnings).to.have.length(1);
    });

    it('two sessions declaring one name: the first registers it, the second is told', async () => {
      const host = await mountHost();
      const warnings = record<PedelecWarningEvent>(host, 'pedelec-warning');
      host.innerHTML = `<pedelec-session webmcp id="one"><pedelec-tool name="same" description="One."></pedelec-tool></pedelec-session>
        <pedelec-session webmcp id="two"><pedelec-tool name="same" description="Two."></pedelec-tool></pedelec-session>`;
      const [one, two] = [...host.querySelectorAll('pedelec-session')] as PedelecSessionElement[];
      await until(() => warnings.length > 0, 'the warning');
      expect(warnings.map((w) => [w.detail.warning.code, (w.target as Element).id])).to.deep.equal([
        ['WEBMCP_NAME_TAKEN', 'two'],
      ]);
      await until(() => one!.webmcpTools.length > 0, 'the first registration to be accepted');
      expect(one!.webmcpTools).to.deep.equal(['same']);
      expect(two!.webmcpTools).to.deep.equal([]);
      expect((await listed()).map((t) => t.description)).to.deep.equal(['One.']);
    });
  });

  it('a name over 128 characters is skipped with one WEBMCP_UNAVAILABLE warning; Pedelec still gets it', async () => {
    const long = `t${'o'.repeat(128)}`;
    const host = await mountHost();
    const warnings = record<PedelecWarningEvent>(host, 'pedelec-warning');
    host.innerHTML = `<pedelec-session webmcp>
        <pedelec-tool name="${long}" description="Long."></pedelec-tool>
        <pedelec-tool name="short" description="Short."></pedelec-tool>
      </pedelec-session>`;
    const el = host.firstElementChild as PedelecSessionElement;
    await listedAs(['short']);
    expect(warnings.map((w) => w.detail.warning.code)).to.deep.equal(['WEBMCP_UNAVAILABLE']);
    expect(warnings[0]!.detail.warning.details).to.deep.include({ tool: long });
    expect(el.manifest!.tools.map((t) => t.name)).to.deep.equal([long, 'short']);
    (el.querySelector('pedelec-tool[name="short"]') as PedelecToolElement).description = 'Shorter.';
    await new Promise((r) => setTimeout(r, 50));
    expect(warnings).to.have.length(1);
  });
});
