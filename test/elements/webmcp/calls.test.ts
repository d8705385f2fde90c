/**
 * A call from the browser's agent (spec every-agent.md §2): the session's one path — availability,
 * validation (`TOOL_ARGS_INVALID` with the path: the browsers validate nothing), resolution (named
 * handler, `pedelec-tool-call`, the tool's handler, the fallback), the result check — resolving an
 * MCP `CallToolResult`, never a rejection; its events and `ctx` carry `via: 'webmcp'`.
 */
import { expect, fixture, html } from '@open-wc/testing';
import type {
  PedelecSessionElement,
  PedelecToolElement,
  PedelecToolResultEvent,
  PedelecToolStartEvent,
  ToolCallContext,
} from '../../../src/index.js';
import { record } from '../helpers.js';
import { callAsAgent, listedAs, textOf, webmcpHooks } from './harness.js';

const toolIn = (el: Element, name: string) => el.querySelector(`pedelec-tool[name="${name}"]`) as PedelecToolElement;

describe('<pedelec-session webmcp>: calls', () => {
  webmcpHooks();

  async function session(): Promise<PedelecSessionElement> {
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session webmcp provider="codex">
        <pedelec-tool name="add" description="Adds.">
          <pedelec-arg name="a" type="integer" required minimum="0"></pedelec-arg>
          <pedelec-arg name="b" type="integer" required></pedelec-arg>
        </pedelec-tool>
        <pedelec-tool name="echo" description="Echoes by event."></pedelec-tool>
        <pedelec-tool name="count" description="Answers a number."></pedelec-tool>
        <pedelec-tool name="named" description="Answered by onTool."></pedelec-tool>
        <pedelec-tool name="fallen" description="Answered by the fallback."></pedelec-tool>
        <pedelec-tool name="throws" description="Throws."></pedelec-tool>
        <pedelec-tool name="lossy" description="Returns what JSON cannot carry."></pedelec-tool>
        <pedelec-tool name="denied" description="Denied by the page."></pedelec-tool>
      </pedelec-session>
    `);
    toolIn(el, 'add').handler = ({ a, b }: { a: number; b: number }) => ({ sum: a + b });
    toolIn(el, 'echo').addEventListener('pedelec-tool-call', (e) => e.respondWith({ echoed: e.detail.args }));
    toolIn(el, 'count').handler = () => 42;
    el.onTool('named', () => ({ by: 'onTool' }));
    el.fallback = (tool) => ({ by: 'fallback', tool });
    toolIn(el, 'throws').handler = () => {
      throw new Error('boom');
    };
    toolIn(el, 'lossy').handler = () => ({ when: new Map() });
    toolIn(el, 'denied').addEventListener('pedelec-tool-call', (e) => e.deny('Not through this page.'));
    await listedAs(['add', 'count', 'denied', 'echo', 'fallen', 'lossy', 'named', 'throws']);
    return el;
  }

  it('a result comes back as text and, for an object, as structured content', async () => {
    await session();
    const sum = await callAsAgent('add', { a: 2, b: 3 });
    expect(sum).to.deep.equal({ content: [{ type: 'text', text: '{"sum":5}' }], structuredContent: { sum: 5 } });
    expect(await callAsAgent('count', {})).to.deep.equal({ content: [{ type: 'text', text: '42' }] });
    expect((await callAsAgent('echo', { x: [1] })).structuredContent).to.deep.equal({ echoed: { x: [1] } });
    expect((await callAsAgent('named', {})).structuredContent).to.deep.equal({ by: 'onTool' });
    expect((await callAsAgent('fallen', {})).structuredContent).to.deep.equal({ by: 'fallback', tool: 'fallen' });
  });

  it('invalid args are answered TOOL_ARGS_INVALID with the path, and no handler runs', async () => {
    const el = await session();
    let ran = 0;
    toolIn(el, 'add').handler = () => ++ran;
    for (const [args, text] of [
      [{ a: -1, b: 1 }, 'TOOL_ARGS_INVALID: a: must be ≥ 0'],
      [{ a: 1 }, 'TOOL_ARGS_INVALID: b: is required'],
    ] as const) {
      const result = await callAsAgent('add', args);
      expect(result.isError, JSON.stringify(args)).to.equal(true);
      expect(textOf(result)).to.equal(text);
      // …and the error whole, for an agent that reads data: the failing argument and its keyword.
      expect(result.structuredContent.error.code).to.equal('TOOL_ARGS_INVALID');
      expect(result.structuredContent.error.details.errors[0].message).to.equal(
        text.slice('TOOL_ARGS_INVALID: '.length),
      );
    }
    expect(textOf(await callAsAgent('add', { a: 'one', b: 1 }))).to.match(/^TOOL_ARGS_INVALID: a: /);
    expect(ran).to.equal(0);
  });

  it("a handler's failure, a result JSON cannot carry and a denial are errors the agent reads", async () => {
    await session();
    const failures = await Promise.all(['throws', 'lossy', 'denied'].map((name) => callAsAgent(name, {})));
    expect(failures.map((r) => r.isError)).to.deep.equal([true, true, true]);
    expect(textOf(failures[0])).to.equal('TOOL_HANDLER_ERROR: boom');
    expect(textOf(failures[1])).to.match(/^TOOL_RESULT_INVALID: result\.when/);
    expect(textOf(failures[2])).to.equal('TOOL_CALL_DENIED: Not through this page.');
  });

  it("its events and the handler's ctx say via: 'webmcp', with ids webmcp_<n> and no session yet", async () => {
    const el = await session();
    const starts = record<PedelecToolStartEvent>(el, 'pedelec-tool-start');
    const results = record<PedelecToolResultEvent>(el, 'pedelec-tool-result');
    const contexts: ToolCallContext[] = [];
    toolIn(el, 'count').handler = (_args, ctx) => {
      contexts.push(ctx);
      return 1;
    };
    await callAsAgent('count', {});
    await callAsAgent('add', { a: 1 });
    expect(starts.map((e) => [e.detail.tool, e.detail.via])).to.deep.equal([
      ['count', 'webmcp'],
      ['add', 'webmcp'],
    ]);
    expect(results.map((e) => [e.detail.tool, e.detail.via, e.detail.ok])).to.deep.equal([
      ['count', 'webmcp', true],
      ['add', 'webmcp', false],
    ]);
    const [ctx] = contexts;
    expect(ctx!.via).to.equal('webmcp');
    expect(ctx!.toolRequestId).to.match(/^webmcp_\d+$/);
    expect(ctx!.turnId).to.equal(ctx!.toolRequestId);
    // No session yet: its id and provider are '' (not the provider attribute, which is no session's).
    expect(ctx).to.deep.include({ sessionId: '', provider: '', source: 'sdk', turnKind: undefined });
    expect(results[1]!.detail.context.toolRequestId).to.not.equal(ctx!.toolRequestId);
  });

  it('a call never rejects, whatever the handler does', async () => {
    const el = await session();
    toolIn(el, 'count').handler = () => Promise.reject(Symbol('not even an error'));
    const result = await callAsAgent('count', {});
    expect(result.isError).to.equal(true);
    expect(textOf(result)).to.match(/^TOOL_HANDLER_ERROR: /);
  });

  it("a <pedelec-chat> in the session shows none of the browser agent's calls (another conversation)", async () => {
    const el = await session();
    const chat = document.createElement('pedelec-chat');
    el.append(chat);
    await customElements.whenDefined('pedelec-chat');
    const results = record<PedelecToolResultEvent>(el, 'pedelec-tool-result');
    await callAsAgent('count', {});
    expect(results).to.have.length(1);
    await (chat as HTMLElement & { updateComplete: Promise<unknown> }).updateComplete;
    expect(chat.shadowRoot!.querySelectorAll('[part~=tool]')).to.have.length(0);
  });
});
