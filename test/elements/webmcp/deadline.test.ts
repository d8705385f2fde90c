/**
 * The deadline (spec every-agent.md §2): the browsers never time a call out, so the kit does — at the
 * tool's `timeout-ms` (default 60 000), as Core would for the Pedelec agent — answering
 * `TOOL_TIMEOUT` and aborting the handler's `ctx.signal`.
 */
import { expect, fixture, html } from '@open-wc/testing';
import type { PedelecSessionElement, PedelecToolElement } from '../../../src/index.js';
import { callAsAgent, listedAs, textOf, webmcpHooks } from './harness.js';
import { bookkeepingOf } from '../../../src/elements/session/pedelec-session.element.js';

describe('<pedelec-session webmcp>: deadline', () => {
  webmcpHooks();

  it("a handler still running at the tool's deadline: TOOL_TIMEOUT, and its signal aborts", async () => {
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session webmcp>
        <pedelec-tool name="slow" description="Never answers." timeout-ms="300"></pedelec-tool>
      </pedelec-session>
    `);
    let signal: AbortSignal | undefined;
    (el.querySelector('pedelec-tool') as PedelecToolElement).handler = (_args, ctx) => {
      signal = ctx.signal;
      return new Promise(() => {});
    };
    await listedAs(['slow']);
    // The declared 300 ms, not the default 60 s: answered within the test's own timeout.
    const result = await callAsAgent('slow', {});
    expect(result.isError).to.equal(true);
    expect(textOf(result)).to.equal('TOOL_TIMEOUT: Tool slow passed its deadline');
    expect(signal!.aborted).to.equal(true);
    expect((signal!.reason as { code: string }).code).to.equal('TOOL_TIMEOUT');
    expect(bookkeepingOf(el).running).to.equal(0);
  });

  it('the deadline is the one declared now: a timeout-ms changed after registration applies', async () => {
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session webmcp>
        <pedelec-tool name="slow" description="Never answers." timeout-ms="60000"></pedelec-tool>
      </pedelec-session>
    `);
    const tool = el.querySelector('pedelec-tool') as PedelecToolElement;
    tool.handler = () => new Promise(() => {});
    await listedAs(['slow']);
    tool.timeoutMs = 200;
    const result = await callAsAgent('slow', {});
    expect(textOf(result)).to.match(/^TOOL_TIMEOUT: /);
  });
});
