/**
 * The browser's cancel (spec every-agent.md §2, Chromium): an agent that gives up on a call —
 * `executeTool(tool, input, { signal })`, then abort — aborts the handler's `ctx.signal`, so the page
 * can stop the work. Firefox's older API has no cancel (its deadline still applies: deadline.test.ts).
 */
import { expect, fixture, html } from '@open-wc/testing';
import type { PedelecSessionElement, PedelecToolElement, PedelecToolResultEvent } from '../../../src/index.js';
import { until } from '../../support/waits.js';
import { chromium, context, listedAs, webmcpHooks } from './harness.js';
import { bookkeepingOf } from '../../../src/elements/session/pedelec-session.element.js';

describe('<pedelec-session webmcp>: the browser cancels a call (Chromium)', () => {
  webmcpHooks();
  before(function () {
    if (!chromium()) this.skip();
  });

  it("aborts the handler's ctx.signal; the call is reported once it settles", async () => {
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session webmcp>
        <pedelec-tool name="long" description="Works until told to stop."></pedelec-tool>
      </pedelec-session>
    `);
    let signal: AbortSignal | undefined;
    (el.querySelector('pedelec-tool') as PedelecToolElement).handler = (_args, ctx) =>
      new Promise((resolve) => {
        signal = ctx.signal;
        ctx.signal?.addEventListener('abort', () => resolve({ stopped: true }));
      });
    await listedAs(['long']);
    const result = new Promise<PedelecToolResultEvent>((resolve) =>
      el.addEventListener('pedelec-tool-result', (e) => resolve(e as PedelecToolResultEvent), { once: true }),
    );
    const mc = context() as any;
    const [tool] = (await mc.getTools()).filter((t: any) => t.name === 'long');
    const controller = new AbortController();
    const call = mc.executeTool(tool, {}, { signal: controller.signal });
    await until(() => signal, 'the handler to run');
    expect(signal!.aborted).to.equal(false);
    controller.abort();
    const refusal = await call.then(
      () => null,
      (error: DOMException) => error.name,
    );
    expect(refusal).to.equal('AbortError');
    await until(() => signal!.aborted, "the handler's signal to abort");
    expect((signal!.reason as { code: string }).code).to.equal('ABORTED');
    const reported = await result;
    expect(reported.detail.via).to.equal('webmcp');
    expect(reported.detail.result).to.deep.equal({ stopped: true });
    expect(bookkeepingOf(el).running).to.equal(0);
  });
});
