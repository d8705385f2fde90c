/**
 * `exposedTo` (spec every-agent.md §2): the origins an embedded page's tools are shown to — a
 * property only, like a foreign `bridge`: markup can never expose tools to another origin. A value
 * the browser refuses is a `WEBMCP_UNAVAILABLE` warning with its reason, never an exception.
 */
import { expect, fixture, html } from '@open-wc/testing';
import type { PedelecSessionElement, PedelecWarningEvent } from '../../../src/index.js';
import { until } from '../../support/waits.js';
import { mountHost, record } from '../helpers.js';
import { chromium, listedAs, recordContext, webmcpHooks } from './harness.js';

describe('<pedelec-session webmcp>: exposedTo', () => {
  webmcpHooks();
  let calls: ReturnType<typeof recordContext> | undefined;
  afterEach(() => calls?.restore());

  it('markup cannot set it: an exposedto or exposed-to attribute reaches nothing', async () => {
    calls = recordContext();
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session webmcp exposedto="https://elsewhere.example" exposed-to="https://elsewhere.example">
        <pedelec-tool name="t" description="T."></pedelec-tool>
      </pedelec-session>
    `);
    await listedAs(['t']);
    expect(el.exposedTo).to.equal(undefined);
    expect(calls.registered).to.have.length(1);
    expect(calls.registered[0]!.options).to.not.have.property('exposedTo');
  });

  it('the property is passed to the browser; changing it registers the tools again with it', async () => {
    calls = recordContext();
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session webmcp><pedelec-tool name="t" description="T."></pedelec-tool></pedelec-session>
    `);
    el.exposedTo = ['https://partner.example'];
    await listedAs(['t']);
    await until(() => calls!.registered.some((r) => r.options.exposedTo), 'a registration with exposedTo');
    expect(calls.registered.at(-1)!.options.exposedTo).to.deep.equal(['https://partner.example']);
    const before = calls.registered.length;
    el.exposedTo = ['https://partner.example', 'https://other.example'];
    await until(() => calls!.registered.length > before, 'the registration again');
    expect(calls.registered.at(-1)!.options.exposedTo).to.deep.equal([
      'https://partner.example',
      'https://other.example',
    ]);
    el.exposedTo = undefined;
    await until(() => calls!.registered.length > before + 1, 'the registration without it');
    expect(calls.registered.at(-1)!.options).to.not.have.property('exposedTo');
    await listedAs(['t']);
  });

  it('an origin Chromium refuses: one WEBMCP_UNAVAILABLE warning with its reason, nothing thrown', async function () {
    if (!chromium()) this.skip();
    const host = await mountHost();
    const warnings = record<PedelecWarningEvent>(host, 'pedelec-warning');
    host.innerHTML = `<pedelec-session><pedelec-tool name="a" description="A."></pedelec-tool>
      <pedelec-tool name="b" description="B."></pedelec-tool></pedelec-session>`;
    const el = host.firstElementChild as PedelecSessionElement;
    el.exposedTo = ['not an origin'];
    el.webmcp = true;
    await until(() => warnings.length > 0, 'the warning');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(warnings.map((w) => w.detail.warning.code)).to.deep.equal(['WEBMCP_UNAVAILABLE']);
    expect((warnings[0]!.detail.warning.details as { reason: string }).reason).to.match(/^SecurityError: /);
    expect(el.webmcpTools).to.deep.equal([]);
    el.exposedTo = undefined;
    await listedAs(['a', 'b']);
  });
});
