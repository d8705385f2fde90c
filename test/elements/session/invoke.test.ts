/**
 * <pedelec-session>.invoke() (docs/design/elements.md "invoke()"): a local call, before or after start, that
 * never rejects and answers exactly as an agent call would — its ctx and events, its signal, tools
 * that went away, args that throw when read, and handlers that never answer (TOOL_TIMEOUT).
 */
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../../src/define.js';
import type {
  PedelecToolResultEvent,
  PedelecToolStartEvent,
  PedelecSessionElement,
  PedelecToolElement,
  ToolCallContext,
} from '../../../src/index.js';
import { fake, j, started, openTurn, agentCall, collect, toolOf, sessionHooks, hangingKit } from './harness.js';
import { approvedStatus, record } from '../helpers.js';
import { nextTask } from '../../support/waits.js';
import { bookkeepingOf } from '../../../src/elements/session/pedelec-session.element.js';

const schema = { type: 'object', properties: {} } as const;

describe('<pedelec-session>', () => {
  sessionHooks();

  describe('invoke()', () => {
    const kit = () =>
      html`<pedelec-session provider="codex" model="m">
        <pedelec-tool name="ok" description="Fine."></pedelec-tool>
        <pedelec-tool name="args" description="Typed."
          ><pedelec-arg name="n" type="integer" required></pedelec-arg
        ></pedelec-tool>
        <pedelec-tool name="nohandler" description="Nobody answers."></pedelec-tool>
        <pedelec-tool name="throws" description="Throws."></pedelec-tool>
        <pedelec-tool name="rejects" description="Rejects a string."></pedelec-tool>
        <pedelec-tool name="badresult" description="Returns a BigInt."></pedelec-tool>
        <pedelec-tool name="denied" description="Denied."></pedelec-tool>
      </pedelec-session>`;

    function wire(el: PedelecSessionElement): void {
      toolOf(el, 'ok').handler = (args: any) => ({ echo: args });
      toolOf(el, 'args').handler = ({ n }: { n: number }) => ({ n });
      toolOf(el, 'throws').handler = () => {
        throw new Error('boom');
      };
      toolOf(el, 'rejects').handler = () => Promise.reject('nope');
      toolOf(el, 'badresult').handler = () => ({ big: BigInt(1) });
      toolOf(el, 'denied').addEventListener('pedelec-tool-call', (e) => e.deny('Not here.'));
    }

    const cases: Array<[string, unknown, string]> = [
      ['args', { n: 'x' }, 'TOOL_ARGS_INVALID'],
      ['nohandler', {}, 'TOOL_HANDLER_NOT_FOUND'],
      ['undeclared', {}, 'TOOL_HANDLER_NOT_FOUND'],
      ['throws', {}, 'TOOL_HANDLER_ERROR'],
      ['rejects', {}, 'TOOL_HANDLER_ERROR'],
      ['badresult', {}, 'TOOL_RESULT_INVALID'],
      ['denied', {}, 'TOOL_CALL_DENIED'],
    ];

    it('works before start(), posts nothing, returns { ok: true, result }', async () => {
      const el = await fixture<PedelecSessionElement>(kit());
      wire(el);
      expect(await el.invoke('ok', { a: 1 })).to.deep.equal({ ok: true, result: { echo: { a: 1 } } });
      expect(await el.invoke('args', { n: 3 })).to.deep.equal({ ok: true, result: { n: 3 } });
      expect(fake.posted).to.deep.equal([]);
      expect(el.status).to.equal('inactive');
      expect(el.session).to.equal(null);
    });

    it('never rejects, and its error is exactly what the agent receives', async () => {
      const el = await fixture<PedelecSessionElement>(kit());
      wire(el);
      const before: Record<string, any> = {};
      for (const [tool, args, code] of cases) {
        const result = await el.invoke(tool, args);
        expect(result.ok, tool).to.equal(false);
        if (!result.ok) expect(result.error.code, tool).to.equal(code);
        before[tool] = result;
      }
      expect(fake.posted).to.deep.equal([]);

      await started(el);
      await openTurn(el);
      for (const [tool, args, code] of cases) {
        const fromAgent = await agentCall('s1', tool, args);
        expect(fromAgent.error.code, tool).to.equal(code);
        expect(j({ ok: false, error: fromAgent.error }), `before start: ${tool}`).to.deep.equal(j(before[tool]));
        const posted = fake.posted.length;
        const after = await el.invoke(tool, args);
        expect(j(after), `after start: ${tool}`).to.deep.equal(j({ ok: false, error: fromAgent.error }));
        expect(fake.posted.length, 'invoke() posts nothing').to.equal(posted);
      }
    });

    it('its ctx has source "sdk", via "local", no turnKind, ids local_<n>; its events carry via: "local"', async () => {
      const el = await fixture<PedelecSessionElement>(kit());
      const contexts: ToolCallContext[] = [];
      toolOf(el, 'ok').handler = (_args, ctx) => {
        contexts.push(ctx);
        return { fine: true };
      };
      const starts = collect<PedelecToolStartEvent>(el, 'pedelec-tool-start');
      const results = collect<PedelecToolResultEvent>(el, 'pedelec-tool-result');
      await el.invoke('ok', {});
      await el.invoke('ok', {});
      expect(contexts).to.have.length(2);
      for (const ctx of contexts) {
        expect(ctx.source).to.equal('sdk');
        expect(ctx.via).to.equal('local');
        expect(ctx.turnKind).to.equal(undefined);
        expect(ctx.toolRequestId).to.match(/^local_\d+$/);
        expect(ctx.turnId).to.match(/^local_\d+$/);
        expect(ctx.tool).to.equal('ok');
      }
      expect(contexts[0]!.toolRequestId).to.not.equal(contexts[1]!.toolRequestId);
      expect(starts.map((e) => e.detail.via)).to.deep.equal(['local', 'local']);
      expect(results.map((e) => e.detail.via)).to.deep.equal(['local', 'local']);
      expect(results.map((e) => e.detail.ok)).to.deep.equal([true, true]);
      expect(starts[0]!.detail.context).to.equal(contexts[0]);
    });

    it('agent calls carry via: "pedelec"', async () => {
      const el = await fixture<PedelecSessionElement>(kit());
      wire(el);
      const starts = collect<PedelecToolStartEvent>(el, 'pedelec-tool-start');
      const results = collect<PedelecToolResultEvent>(el, 'pedelec-tool-result');
      await started(el);
      await openTurn(el);
      await agentCall('s1', 'ok', {});
      expect(starts.map((e) => e.detail.via)).to.deep.equal(['pedelec']);
      expect(results.map((e) => e.detail.via)).to.deep.equal(['pedelec']);
    });

    it('its signal option aborts ctx.signal', async () => {
      const el = await fixture<PedelecSessionElement>(kit());
      toolOf(el, 'ok').handler = (_args, ctx) =>
        new Promise((resolve) => ctx.signal!.addEventListener('abort', () => resolve({ aborted: true })));
      const controller = new AbortController();
      const running = oneEvent(el, 'pedelec-tool-start');
      const result = el.invoke('ok', {}, { signal: controller.signal });
      await running; // its handler listens to ctx.signal
      controller.abort();
      expect(await result).to.deep.equal({ ok: true, result: { aborted: true } });
    });
  });

  describe('invoke() as an agent call', () => {
    it('invoke() before start: a JS tool whose handler was taken away goes to the fallback, as an agent call does', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      el.tools = [{ name: 'js', description: 'JS.', argsSchema: schema, handler: () => 'old handler' }];
      await nextTask();
      expect(await el.invoke('js', {})).to.deep.equal({ ok: true, result: 'old handler' });
      // The same tool, now without a handler: no inline handler any more, so the fallback answers.
      el.tools = [{ name: 'js', description: 'JS.', argsSchema: schema }];
      el.fallback = (tool) => `fallback for ${tool}`;
      await nextTask();
      expect(await el.invoke('js', {})).to.deep.equal({ ok: true, result: 'fallback for js' });
    });

    it('invoke() never throws or rejects, and still fires pedelec-tool-result, when reading the args throws', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m">
        <pedelec-tool name="t" description="T."><pedelec-arg name="n" type="integer"></pedelec-arg></pedelec-tool>
      </pedelec-session>`,
      );
      el.fallback = () => 'ran';
      const starts = record<PedelecToolStartEvent>(el, 'pedelec-tool-start');
      const results = record<PedelecToolResultEvent>(el, 'pedelec-tool-result');
      await nextTask();
      const args = {
        get n(): number {
          throw new Error('boom');
        },
      };
      let outcome: unknown;
      try {
        outcome = await el.invoke('t', args);
      } catch (error) {
        outcome = { threw: String(error) };
      }
      expect(outcome).to.have.property('ok', false);
      expect(results.length, 'one pedelec-tool-result per pedelec-tool-start').to.equal(starts.length);
    });

    it('invoke() while starting: a tool that went away after its manifest was taken gets TOOL_UNAVAILABLE, not the fallback', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m">
        <pedelec-tool name="x" description="X."></pedelec-tool>
      </pedelec-session>`,
      );
      const ran: string[] = [];
      el.fallback = (tool) => ran.push(`fallback ${tool}`);
      await nextTask();
      const starting = el.start(); // create_session (with x) is on its way: x is being sent to Core
      await fake.request('get_approval_status');
      el.querySelector('pedelec-tool')!.remove();
      await nextTask();
      expect(el.status).to.equal('starting');
      const whileStarting = await el.invoke('x', {});
      await fake.answer('get_approval_status', approvedStatus());
      await fake.answer('create_session', { sessionId: 's1' });
      await starting;
      const afterStart = await el.invoke('x', {});
      expect(afterStart).to.deep.include({ ok: false });
      expect(whileStarting, 'the same answer as a moment later').to.deep.equal(afterStart);
      expect(ran).to.deep.equal([]);
      const ending = el.end();
      await fake.answer('end_session');
      await ending;
    });
  });

  describe('invoke() of a handler that never answers', () => {
    it('invoke() of a handler that never answers settles at the deadline with TOOL_TIMEOUT, as the agent would get', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session>
          <pedelec-tool name="hang" description="Never answers." timeout-ms="40"></pedelec-tool>
        </pedelec-session>`,
      );
      let signal: AbortSignal | undefined;
      toolOf(el, 'hang').handler = (_args, ctx) => {
        signal = ctx.signal;
        return new Promise(() => {});
      };
      const result = await el.invoke('hang', {});
      expect(result.ok).to.equal(false);
      if (!result.ok) expect(result.error.code).to.equal('TOOL_TIMEOUT');
      expect(signal?.aborted).to.equal(true);
    });

    it('invoke() whose signal aborted a handler that never answers still settles at the deadline (TOOL_TIMEOUT)', async () => {
      const el = await fixture<PedelecSessionElement>(hangingKit());
      (el.querySelector('pedelec-tool') as PedelecToolElement).handler = () => new Promise(() => {});
      const controller = new AbortController();
      const started = oneEvent(el, 'pedelec-tool-start');
      const result = el.invoke('hang', {}, { signal: controller.signal });
      await started; // the handler runs
      controller.abort();
      const outcome = await Promise.race([result, new Promise<'never'>((r) => setTimeout(() => r('never'), 1000))]);
      expect(outcome, 'invoke() never settled').to.not.equal('never');
      expect((outcome as any).error?.code).to.equal('TOOL_TIMEOUT');
      expect(bookkeepingOf(el).running, 'the timed-out local call is not kept').to.equal(0);
    });
  });
});
