/**
 * Two copies of the kit on one page, each defining some of the tags: here the sources define
 * `<pedelec-tool>` (as a bundle importing `pedelec-elements/define/pedelec-tool.js` would) and the CDN
 * file then defines the rest. The CDN's session cannot read the other copy's tools; it must say so
 * (a `pedelec-warning`), not lose them silently.
 */
import { expect } from '@open-wc/testing';
import '../../src/define/pedelec-tool.js';
import { PedelecToolElement } from '../../src/elements/tool/pedelec-tool.element.js';
import { mountHost, nextTask, record } from '../elements/helpers.js';
import type { PedelecWarningEvent } from '../../src/index.js';

const CDN = '/cdn/pedelec-elements.js';

describe('two copies of the kit on one page', () => {
  before(async () => {
    await import(/* @vite-ignore */ CDN);
  });

  it("a session of one copy warns about the other copy's tools instead of dropping them silently", async () => {
    const host = await mountHost();
    const warnings = record<PedelecWarningEvent>(host, 'pedelec-warning');
    host.innerHTML =
      '<pedelec-session><pedelec-tool name="a" description="A."></pedelec-tool><pedelec-tool name="b" description="B."></pedelec-tool></pedelec-session>';
    const session = host.firstElementChild as HTMLElement & { manifest?: { tools: unknown[] } };
    const tool = session.firstElementChild!;
    // The two tags really come from two copies.
    expect(tool).to.be.instanceOf(PedelecToolElement);
    expect(customElements.get('pedelec-session')).to.exist;
    await nextTask();
    expect(session.manifest?.tools.length ?? 0).to.equal(0);
    expect(warnings.map((w) => w.detail.warning.code)).to.deep.equal(['FOREIGN_ELEMENT']);
    expect(warnings[0]!.detail.warning.message)
      .to.contain('<pedelec-tool>')
      .and.contain('another copy of pedelec-elements');
  });
});
