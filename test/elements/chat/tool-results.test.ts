/**
 * A tool's result in <pedelec-chat>, under the call's row: the tool's own `renderResult` (on a
 * `<pedelec-tool>` or a JS definition) — a Node as is, a string as text — and the result's JSON,
 * folded away, when there is no renderer, when it returns null, or when it throws (reported once).
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/define.js';
import type { PedelecToolElement, RenderToolResult, ToolResultContext } from '../../../src/index.js';
import { until } from '../../support/waits.js';
import { available, core, fake, pageTurn, shadow, start, update, chatHooks } from './harness.js';

let calls = 0;

/** A chat in a started session with `add` (a `<pedelec-tool>` adding `a` and `b`) and a JS tool `echo`. */
async function mounted(): Promise<{
  chat: HTMLElement;
  tool: PedelecToolElement;
  echo: { renderResult?: RenderToolResult };
}> {
  const host = await fixture<HTMLDivElement>(html`<div></div>`);
  host.innerHTML = `<pedelec-session provider="codex" model="m">
      <pedelec-tool name="add" description="Adds two numbers."></pedelec-tool><pedelec-chat></pedelec-chat></pedelec-session>`;
  const session = host.querySelector('pedelec-session')!;
  const tool = host.querySelector('pedelec-tool')!;
  tool.handler = (args) => {
    const { a, b } = args as { a: number; b: number };
    return { sum: a + b };
  };
  const echo: { renderResult?: RenderToolResult } = {};
  session.tools = [
    Object.assign(echo, {
      name: 'echo',
      description: 'Says it back.',
      argsSchema: { type: 'object' as const, properties: { text: { type: 'string' as const } } },
      handler: (args: unknown) => args,
    }),
  ];
  await available();
  await start(session);
  await pageTurn(session, 'go');
  return { chat: host.querySelector('pedelec-chat')!, tool, echo };
}

/** The agent calls `tool`; resolves once the page answered it and the chat shows the answer. */
async function agentCalls(chat: HTMLElement, tool: string, args: unknown): Promise<HTMLElement> {
  const id = `call_${++calls}`;
  core('tool_call', { toolRequestId: id, tool, args });
  await fake.answer('submit_tool_result', {}, (m) => m.toolRequestId === id);
  await update(chat);
  return [...shadow(chat).querySelectorAll<HTMLElement>('[part~=tool-result]')].at(-1)!;
}

/** Runs `body` with console.error recorded (`body` sees the lines so far). */
async function recordingErrors(body: (logged: unknown[][]) => Promise<void>): Promise<unknown[][]> {
  const logged: unknown[][] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void logged.push(args);
  try {
    await body(logged);
  } finally {
    console.error = original;
  }
  return logged;
}

describe('<pedelec-chat>: tool results', () => {
  chatHooks();

  it('shows the result as JSON under the row, folded, when the tool has no renderer', async () => {
    const { chat } = await mounted();
    const shown = await agentCalls(chat, 'add', { a: 2, b: 3 });
    expect(shown.localName).to.equal('details');
    expect((shown as HTMLDetailsElement).open).to.equal(false);
    expect(shown.querySelector('pre')!.textContent).to.equal('{\n  "sum": 5\n}');
    expect(shown.previousElementSibling!.getAttribute('part')).to.equal('tool done');
  });

  it('shows what a <pedelec-tool>’s renderResult makes, given the result, the arguments and the tool', async () => {
    const { chat, tool } = await mounted();
    const seen: [unknown, ToolResultContext][] = [];
    tool.renderResult = (result, context) => {
      seen.push([result, context]);
      const meter = document.createElement('meter');
      meter.value = (result as { sum: number }).sum;
      meter.max = 10;
      return meter;
    };
    const shown = await agentCalls(chat, 'add', { a: 2, b: 3 });
    expect(shown.localName).to.equal('div');
    expect(shown.querySelector('meter')!.value).to.equal(5);
    expect(seen).to.deep.equal([[{ sum: 5 }, { args: { a: 2, b: 3 }, tool: 'add', error: null }]]);
  });

  it('shows a string as text, never as HTML', async () => {
    const { chat, tool } = await mounted();
    tool.renderResult = (result) => `<img src=x onerror="window.__renderRan = 1"> ${(result as { sum: number }).sum}`;
    const shown = await agentCalls(chat, 'add', { a: 1, b: 1 });
    expect(shown.textContent).to.equal('<img src=x onerror="window.__renderRan = 1"> 2');
    expect(shown.querySelector('img')).to.equal(null);
    expect((window as { __renderRan?: number }).__renderRan).to.equal(undefined);
  });

  it('uses a JS tool’s renderResult too, and hands it the kit’s error when the call failed', async () => {
    const { chat, echo } = await mounted();
    const contexts: ToolResultContext[] = [];
    echo.renderResult = (result, context) => {
      contexts.push(context);
      return context.error ? `Could not echo: ${context.error.code}` : `Echo: ${(result as { text: string }).text}`;
    };
    expect((await agentCalls(chat, 'echo', { text: 'hi' })).textContent).to.equal('Echo: hi');
    // Invalid arguments: the kit answers with its own error, and the renderer is told.
    expect((await agentCalls(chat, 'echo', { text: 7 })).textContent).to.equal('Could not echo: TOOL_ARGS_INVALID');
    expect(contexts.map((c) => c.error?.code ?? null)).to.deep.equal([null, 'TOOL_ARGS_INVALID']);
  });

  it('falls back to the JSON when the renderer returns null, and when it throws (reported once)', async () => {
    const { chat, tool } = await mounted();
    tool.renderResult = () => null;
    expect((await agentCalls(chat, 'add', { a: 1, b: 2 })).querySelector('pre')!.textContent).to.equal(
      '{\n  "sum": 3\n}',
    );
    tool.renderResult = () => {
      throw new Error('broken view');
    };
    const logged = await recordingErrors(async (errors) => {
      for (const b of [1, 2]) {
        const shown = await agentCalls(chat, 'add', { a: 1, b });
        expect(shown.querySelector('pre')!.textContent).to.equal(`{\n  "sum": ${1 + b}\n}`);
      }
      // The line comes with the console lines' chunk, a moment later.
      await until(() => errors.length > 0, 'the report');
    });
    expect(logged, 'one report for the broken renderer, not one per call').to.have.length(1);
    expect(String(logged[0][0])).to.contain('renderResult of tool "add"');
    expect(logged[0][1]).to.have.property('message', 'broken view');
  });
});
