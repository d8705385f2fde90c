/**
 * The page-side assertions of the web-platform-tests' `webmcp/imperative/` folder — object arguments,
 * input validation, abort, events, self-unregistration, invalid tool dictionaries, the schema subset —
 * restated for tools declared with `<pedelec-tool>` and run as the browser's agent runs them. Where a
 * browser lacks a surface (Firefox's older API: no `executeTool` with a signal, no events), the test
 * is skipped and says why.
 */
import { expect, fixture, html } from '@open-wc/testing';
import type { PedelecSessionElement, PedelecToolElement, PedelecWarningEvent } from '../../../src/index.js';
import { mountHost, record } from '../helpers.js';
import { until } from '../../support/waits.js';
import { callAsAgent, chromium, context, listedAs, textOf, webmcpHooks } from './harness.js';

const toolIn = (el: Element, name: string) => el.querySelector(`pedelec-tool[name="${name}"]`) as PedelecToolElement;

/** The browser's entry for `name` (Chromium), as `executeTool` takes it. */
async function entryOf(name: string): Promise<any> {
  const [tool] = ((await (context() as any).getTools()) as any[]).filter((t) => t.name === name && t.window === window);
  expect(tool, `${name} is listed`).to.exist;
  return tool;
}

/** How a call's failure reads: `{ rejected: error name }` or the parsed `CallToolResult`. */
async function outcome(call: Promise<unknown>): Promise<any> {
  try {
    const answer = await call;
    return typeof answer === 'string' ? JSON.parse(answer) : answer;
  } catch (error) {
    return { rejected: (error as Error).name, message: (error as Error).message };
  }
}

describe('<pedelec-session webmcp>: the web-platform-tests, page side', () => {
  webmcpHooks();

  it('object arguments: no input, or undefined, runs the handler with {}; an array is not an args object', async () => {
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session webmcp><pedelec-tool name="echo" description="Echo the args."></pedelec-tool></pedelec-session>
    `);
    const seen: unknown[] = [];
    toolIn(el, 'echo').handler = (args) => {
      seen.push(args);
      return { ok: true };
    };
    await listedAs(['echo']);
    const mc = context() as any;
    const run = async (...input: unknown[]) =>
      chromium() ? outcome(mc.executeTool(await entryOf('echo'), ...input)) : outcome(mc.invokeTool('echo', ...input));
    expect((await run()).structuredContent).to.deep.equal({ ok: true });
    expect((await run(undefined)).structuredContent).to.deep.equal({ ok: true });
    expect(seen).to.deep.equal([{}, {}]);
    // The browsers pass an array on (arrays are objects); the kit's args are an object.
    const array = await run([1, 2, 3]);
    if (!array.rejected) {
      expect(array.isError).to.equal(true);
      expect(textOf(array)).to.equal('TOOL_ARGS_INVALID: args: must be an object');
    }
    expect(seen).to.have.length(2);
  });

  it('input validation: the failing argument as pointer, reason and schemaPath; a corrected retry runs', async () => {
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session webmcp>
        <pedelec-tool name="paint" description="Paint.">
          <pedelec-arg name="color" type="string" enum='["red","green"]' required></pedelec-arg>
          <pedelec-arg name="code" type="string" pattern="^[a-z]+$"></pedelec-arg>
          <pedelec-arg name="age" type="integer" minimum="0" maximum="120"></pedelec-arg>
        </pedelec-tool>
      </pedelec-session>
    `);
    let calls = 0;
    toolIn(el, 'paint').handler = (args) => (calls++, args);
    await listedAs(['paint']);
    /** The first failing argument's triple, from the browser's own check or the kit's. */
    const triple = async (input: unknown) => {
      const answer = chromium()
        ? await outcome((context() as any).executeTool(await entryOf('paint'), input))
        : await outcome(callAsAgent('paint', input));
      // A browser that validates answers a DataError whose message is the triple (with `path` for the pointer).
      if (answer.rejected === 'DataError') {
        const { path, reason, schemaPath } = JSON.parse(answer.message);
        return { pointer: path, reason, schemaPath };
      }
      expect(answer.isError, JSON.stringify(answer)).to.equal(true);
      const [first] = answer.structuredContent?.error.details.errors ?? [];
      if (!first) return 'text only'; // Firefox's older API passes the text on, not the structured error
      const { pointer, reason, schemaPath } = first;
      return { pointer, reason, schemaPath };
    };
    const expectTriple = async (input: unknown, expected: object) => {
      const got = await triple(input);
      if (got !== 'text only') expect(got, JSON.stringify(input)).to.deep.equal(expected);
    };
    await expectTriple({}, { pointer: '/color', reason: 'required', schemaPath: '/required' });
    await expectTriple({ color: 'blue' }, { pointer: '/color', reason: 'enum', schemaPath: '/enum' });
    await expectTriple(
      { color: 'red', code: 'ABC123' },
      { pointer: '/code', reason: 'pattern', schemaPath: '/pattern' },
    );
    await expectTriple({ color: 'red', age: 'old' }, { pointer: '/age', reason: 'type', schemaPath: '/type' });
    expect(calls).to.equal(0);
    const retried = await callAsAgent('paint', { color: 'red', age: 30 });
    expect(retried.structuredContent).to.deep.equal({ color: 'red', age: 30 });
    expect(calls).to.equal(1);
  });

  describe('abort and events (Chromium: Firefox has no executeTool signal, nor events)', () => {
    before(function () {
      if (!chromium()) this.skip();
    });

    it("the caller's signal: the call rejects with its reason and the handler's ctx.signal aborts; already aborted, no handler runs", async () => {
      const el = await fixture<PedelecSessionElement>(html`
        <pedelec-session webmcp><pedelec-tool name="wait" description="Waits to be stopped."></pedelec-tool></pedelec-session>
      `);
      const signals: AbortSignal[] = [];
      toolIn(el, 'wait').handler = (_args, ctx) =>
        new Promise((resolve) => {
          signals.push(ctx.signal!);
          ctx.signal!.addEventListener('abort', () => resolve({ stopped: true }));
        });
      await listedAs(['wait']);
      const mc = context() as any;
      const tool = await entryOf('wait');
      // Two calls at once have signals of their own.
      const [first, second] = [new AbortController(), new AbortController()];
      const calls = [
        mc.executeTool(tool, {}, { signal: first.signal }),
        mc.executeTool(tool, {}, { signal: second.signal }),
      ];
      await until(() => signals.length === 2, 'both handlers to run');
      first.abort('custom cancellation reason');
      expect(
        await calls[0].then(
          () => 'resolved',
          (reason: unknown) => reason,
        ),
      ).to.equal('custom cancellation reason');
      await until(() => signals[0].aborted, "the first handler's signal to abort");
      expect(signals[1].aborted).to.equal(false);
      second.abort();
      expect((await outcome(calls[1])).rejected).to.equal('AbortError');
      await until(() => signals[1].aborted, "the second handler's signal to abort");

      const already = await mc.executeTool(tool, {}, { signal: AbortSignal.abort('already aborted') }).then(
        () => 'resolved',
        (reason: unknown) => reason,
      );
      expect(already).to.equal('already aborted');
      expect(signals).to.have.length(2, 'no handler ran for the aborted call');
    });

    it('toolactivated and toolcancel name the kit’s tool', async function () {
      const mc = context() as any;
      if (!('ontoolactivated' in mc)) return this.skip(); // this Chromium fires no tool events
      const el = await fixture<PedelecSessionElement>(html`
        <pedelec-session webmcp><pedelec-tool name="slow" description="Slow."></pedelec-tool></pedelec-session>
      `);
      toolIn(el, 'slow').handler = (_args, ctx) =>
        new Promise((resolve) => ctx.signal!.addEventListener('abort', () => resolve(null)));
      await listedAs(['slow']);
      // The model context gets them; newer drafts fire them at the window too: either counts.
      const events = new Set<string>();
      const note = (event: Event) => events.add(`${event.type}:${(event as any).toolName}`);
      const targets: EventTarget[] = [window, mc];
      for (const target of targets)
        for (const type of ['toolactivated', 'toolcancel']) target.addEventListener(type, note);
      try {
        const controller = new AbortController();
        const call = mc.executeTool(await entryOf('slow'), {}, { signal: controller.signal });
        await until(() => events.has('toolactivated:slow'), 'toolactivated');
        controller.abort();
        await outcome(call);
        await until(() => events.has('toolcancel:slow'), 'toolcancel');
        expect([...events].sort()).to.deep.equal(['toolactivated:slow', 'toolcancel:slow']);
      } finally {
        for (const target of targets)
          for (const type of ['toolactivated', 'toolcancel']) target.removeEventListener(type, note);
      }
    });
  });

  it('a handler that removes its own tool, or another, still answers its call; the removed tools go', async () => {
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session webmcp>
        <pedelec-tool name="self_removing" description="Removes itself."></pedelec-tool>
        <pedelec-tool name="removes_other" description="Removes the bystander."></pedelec-tool>
        <pedelec-tool name="bystander" description="Stands by."></pedelec-tool>
      </pedelec-session>
    `);
    toolIn(el, 'self_removing').handler = async () => {
      toolIn(el, 'self_removing').remove();
      await until(
        async () => !(await (context() as any).getTools()).some((t: any) => t.name === 'self_removing'),
        'gone',
      );
      return { status: 'resolved' };
    };
    toolIn(el, 'removes_other').handler = async () => {
      toolIn(el, 'bystander').remove();
      await until(async () => !(await (context() as any).getTools()).some((t: any) => t.name === 'bystander'), 'gone');
      return { status: 'resolved' };
    };
    await listedAs(['bystander', 'removes_other', 'self_removing']);
    expect((await callAsAgent('self_removing', {})).structuredContent).to.deep.equal({ status: 'resolved' });
    expect((await callAsAgent('removes_other', {})).structuredContent).to.deep.equal({ status: 'resolved' });
    await listedAs(['removes_other']);
  });

  it("a tool the session removed cannot be run from the browser's stale entry (Chromium)", async function () {
    if (!chromium()) return this.skip(); // Firefox's invokeTool takes a name: there is no entry to keep
    const el = await fixture<PedelecSessionElement>(html`
      <pedelec-session webmcp><pedelec-tool name="gone_soon" description="Leaves."></pedelec-tool></pedelec-session>
    `);
    let ran = false;
    toolIn(el, 'gone_soon').handler = () => ((ran = true), { ran });
    await listedAs(['gone_soon']);
    const stale = await entryOf('gone_soon');
    toolIn(el, 'gone_soon').remove();
    await listedAs([]);
    const answer = await outcome((context() as any).executeTool(stale, {}));
    // The browser refuses it (UnknownError), or the kit answers that the tool is gone.
    if (!answer.rejected) expect(textOf(answer)).to.match(/^TOOL_UNAVAILABLE: /);
    expect(ran).to.equal(false);
  });

  it('schemas with keywords validating browsers refuse are registered all the same (never refused)', async () => {
    const host = await mountHost();
    const warnings = record<PedelecWarningEvent>(host, 'pedelec-warning');
    host.innerHTML = '<pedelec-session webmcp></pedelec-session>';
    const el = host.querySelector('pedelec-session') as PedelecSessionElement;
    const refused: [string, object][] = [
      ['ref', { $ref: '#/foo' }],
      ['format', { type: 'string', format: 'email' }],
      ['extra_true', { type: 'object', additionalProperties: true }],
      ['extra_schema', { type: 'object', additionalProperties: { type: 'string' } }],
      ['unevaluated', { type: 'object', unevaluatedProperties: false }],
      ['dependent', { type: 'object', dependentRequired: { a: ['b'] } }],
      ['bad_pattern', { type: 'string', pattern: '[' }],
      ['defs', { type: 'object', $defs: { a: { type: 'string' } } }],
      ['encoding', { type: 'string', contentEncoding: 'base64' }],
    ];
    el.tools = refused.map(([name, x]) => ({
      name,
      description: 'test',
      argsSchema: { type: 'object', properties: { x } } as any,
    }));
    await listedAs(refused.map(([name]) => name));
    await until(() => el.webmcpTools.length === refused.length, 'every registration accepted');
    const codes = warnings.map((w) => w.detail.warning.code);
    expect(codes.filter((code) => code.startsWith('WEBMCP_') && code !== 'WEBMCP_SCHEMA_REDUCED')).to.deep.equal([]);
    expect(codes.filter((code) => code === 'WEBMCP_SCHEMA_REDUCED')).to.have.length(refused.length);
  });
});
