/**
 * A developer's mistakes speak up on the console, always (not only with `debug`), once per cause and
 * with the element to click on: a tool left out for an invalid declaration (`console.error` naming the
 * reason), and a handler that throws (`console.error` with what it threw, so its stack shows; the agent
 * still gets the message). A healthy page's console stays clean.
 */
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../../src/define.js';
import type { PedelecErrorEvent, PedelecSessionElement, PedelecWarningEvent } from '../../../src/index.js';
import { record } from '../helpers.js';
import { nextTask, until } from '../../support/waits.js';
import { agentCall, coreEvent, fake, openTurn, restorers, sessionHooks, started, toolOf } from './harness.js';

/** Every console.error and console.warn from now on (the real ones are not called). */
function watchConsole(): { errors: unknown[][]; warnings: unknown[][] } {
  const seen = { errors: [] as unknown[][], warnings: [] as unknown[][] };
  const { error, warn } = console;
  console.error = (...args: unknown[]) => void seen.errors.push(args);
  console.warn = (...args: unknown[]) => void seen.warnings.push(args);
  restorers.push(() => Object.assign(console, { error, warn }));
  return seen;
}

describe('<pedelec-session>: a developer’s mistakes on the console', () => {
  sessionHooks();

  it('an invalid declaration: one console.error naming the reason, with the element; again only for a new reason', async () => {
    const seen = watchConsole();
    const el = await fixture<PedelecSessionElement>(html`<pedelec-session>
      <pedelec-tool name="clear" descripton="Clears the list."></pedelec-tool>
    </pedelec-session>`);
    const tool = toolOf(el, 'clear');
    expect(el.manifest).to.equal(undefined);
    await until(() => seen.errors.length > 0, 'the console line');
    expect(seen.errors).to.have.length(1);
    expect(seen.errors[0]![0]).to.equal(
      '[pedelec] tool "clear": tool description must be a non-empty string: left out until the declaration is fixed.',
    );
    expect(seen.errors[0]![1]).to.equal(tool);
    el.requestUpdate();
    tool.setAttribute('data-x', '1'); // no change of the declaration: nothing new to say
    await nextTask();
    expect(el.manifest).to.equal(undefined);
    expect(seen.errors, 'once per cause').to.have.length(1);
    tool.setAttribute('timeout-ms', '-5');
    tool.description = 'Clears the list.';
    expect(el.manifest).to.equal(undefined);
    await until(() => seen.errors.length > 1, 'the second console line');
    expect(seen.errors).to.have.length(2);
    expect(seen.errors[1]![0]).to.match(/timeoutMs must be a positive integer/);
    tool.removeAttribute('timeout-ms');
    expect(el.manifest!.tools.map((t) => t.name)).to.deep.equal(['clear']);
    expect(seen.errors, 'a fixed declaration says nothing').to.have.length(2);
  });

  it('a handler that throws: the agent gets its message; the console gets what it threw, once', async () => {
    const seen = watchConsole();
    const el = await fixture<PedelecSessionElement>(html`<pedelec-session provider="codex" model="m">
      <pedelec-tool name="clear" description="Clears the list."></pedelec-tool>
    </pedelec-session>`);
    const thrown = new Error('the list is locked');
    toolOf(el, 'clear').handler = () => {
      throw thrown;
    };
    await started(el);
    await openTurn(el);
    const result = await agentCall('s1', 'clear', {});
    expect(result.error).to.include({ code: 'TOOL_HANDLER_ERROR', message: 'the list is locked' });
    await until(() => seen.errors.length > 0, 'the console line');
    expect(seen.errors).to.have.length(1);
    expect(seen.errors[0]![0]).to.equal('[pedelec] The handler of clear threw; the agent was told: the list is locked');
    expect(seen.errors[0]![1], 'the thrown error itself: its stack shows').to.equal(thrown);
  });

  it('an answer after the deadline: a warning for the developer naming the tool, never an error the chat shows', async () => {
    const seen = watchConsole();
    const el = await fixture<PedelecSessionElement>(html`<pedelec-session provider="codex" model="m">
      <pedelec-tool name="slow" description="Answers late." timeout-ms="50"></pedelec-tool>
    </pedelec-session>`);
    toolOf(el, 'slow').handler = () => new Promise((resolve) => setTimeout(() => resolve('late'), 150));
    await started(el);
    await openTurn(el);
    const errors = record<PedelecErrorEvent>(el, 'pedelec-error');
    const warned = oneEvent(el, 'pedelec-warning');
    coreEvent('s1', 'tool_call', { toolRequestId: 'late_1', tool: 'slow', args: {} });
    // Core stopped waiting at the deadline: the late submit is refused, as Pedelec refuses it.
    await fake.refuse(
      'submit_tool_result',
      { code: 'TOOL_REQUEST_NOT_FOUND', message: 'Tool request late_1 timed out before its result arrived' },
      (m) => m.toolRequestId === 'late_1',
    );
    const { warning } = ((await warned) as PedelecWarningEvent).detail;
    expect(warning.code).to.equal('SUBMIT_TOOL_RESULT_FAILED');
    expect(errors, 'nothing the chat would show').to.deep.equal([]);
    await until(() => seen.warnings.length > 0, 'the console line');
    expect(seen.warnings).to.have.length(1);
    expect(seen.warnings[0]![0]).to.match(
      /^\[pedelec\] slow answered \d+ ms after its deadline \(its timeout-ms\): the agent was told TOOL_TIMEOUT, and this answer is dropped\.$/,
    );
    expect(seen.warnings[0]![1]).to.equal(toolOf(el, 'slow'));
  });

  it('a healthy session says nothing', async () => {
    const seen = watchConsole();
    const el = await fixture<PedelecSessionElement>(html`<pedelec-session provider="codex" model="m">
      <pedelec-tool name="clear" description="Clears the list."></pedelec-tool>
    </pedelec-session>`);
    toolOf(el, 'clear').handler = () => 'cleared';
    await started(el);
    await openTurn(el);
    expect(await agentCall('s1', 'clear', {})).to.equal('cleared');
    expect(seen).to.deep.equal({ errors: [], warnings: [] });
  });
});
