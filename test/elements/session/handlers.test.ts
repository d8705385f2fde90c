/**
 * Handler resolution for element tools (docs/design/elements.md "Handler resolution"), through invoke() and
 * through an agent call: a named JS handler, then pedelec-tool-call (respondWith/deny), then the
 * tool's handler, then the session fallback; argument validation first (and novalidate); disabled tools.
 */
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../../src/define.js';
import {
  type PedelecErrorEvent,
  PedelecToolCallEvent,
  type PedelecSessionElement,
  type PedelecToolElement,
  type ToolCallContext,
} from '../../../src/index.js';
import { restorers, j, started, openTurn, agentCall, collect, toolOf, sessionHooks } from './harness.js';
import { nextTask } from '../../support/waits.js';

describe('<pedelec-session>', () => {
  sessionHooks();

  for (const via of ['invoke', 'agent'] as const) {
    describe(`handler resolution (via ${via === 'invoke' ? 'invoke()' : 'an agent call'})`, () => {
      let el: PedelecSessionElement;
      let tool: PedelecToolElement;
      let call: (name: string, args: unknown) => Promise<any>;
      let log: string[];

      beforeEach(async () => {
        el = await fixture<PedelecSessionElement>(
          html`<pedelec-session provider="codex" model="m">
            <pedelec-tool name="t" description="T."><pedelec-arg name="n" type="integer"></pedelec-arg></pedelec-tool>
          </pedelec-session>`,
        );
        tool = toolOf(el, 't');
        log = [];
        if (via === 'agent') {
          await started(el);
          await openTurn(el);
          call = (name, args) => agentCall('s1', name, args);
        } else {
          call = async (name, args) => {
            const r = await el.invoke(name, args);
            return r.ok ? r.result : { error: r.error };
          };
        }
      });

      const listen = (fn: (e: PedelecToolCallEvent) => void, target: EventTarget = tool) => {
        const listener = (e: Event) => {
          log.push('event');
          fn(e as PedelecToolCallEvent);
        };
        target.addEventListener('pedelec-tool-call', listener);
        restorers.push(() => target.removeEventListener('pedelec-tool-call', listener));
      };
      const setHandler = () => {
        tool.handler = () => {
          log.push('handler');
          return { by: 'handler' };
        };
      };
      const setFallback = () => {
        el.fallback = (name, args) => {
          log.push('fallback');
          return { by: 'fallback', name, args: args as any };
        };
      };

      it('1. a named JS handler wins, and no pedelec-tool-call is dispatched', async () => {
        const events = collect<Event>(document, 'pedelec-tool-call');
        listen((e) => e.respondWith({ by: 'event' }));
        setHandler();
        setFallback();
        const off = el.onTool('t', () => {
          log.push('named');
          return { by: 'named' };
        });
        expect(await call('t', { n: 1 })).to.deep.equal({ by: 'named' });
        expect(log).to.deep.equal(['named']);
        expect(events).to.have.length(0);
        off();
        expect(await call('t', { n: 1 })).to.deep.equal({ by: 'event' });
      });

      it('2. then the pedelec-tool-call event (bubbles, composed, not cancelable) answered by respondWith(value)', async () => {
        let event: PedelecToolCallEvent | undefined;
        listen((e) => {
          event = e;
          e.respondWith({ by: 'event' });
        });
        setHandler();
        setFallback();
        expect(await call('t', { n: 2 })).to.deep.equal({ by: 'event' });
        expect(log).to.deep.equal(['event']);
        expect(event).to.be.instanceOf(PedelecToolCallEvent);
        expect(event!.bubbles).to.equal(true);
        expect(event!.composed).to.equal(true);
        expect(event!.cancelable).to.equal(false);
        expect(event!.target).to.equal(tool);
        expect(event!.detail.tool).to.equal('t');
        expect(event!.detail.args).to.deep.equal({ n: 2 });
        expect(event!.detail.context.tool).to.equal('t');
      });

      it('2. the event reaches listeners above the tool (on the session, on the document)', async () => {
        listen((e) => e.respondWith({ by: 'document' }), document);
        expect(await call('t', { n: 2 })).to.deep.equal({ by: 'document' });
      });

      it('2. respondWith(promise): its value is the result', async () => {
        listen((e) => e.respondWith(Promise.resolve({ by: 'promise' })));
        setHandler();
        expect(await call('t', {})).to.deep.equal({ by: 'promise' });
      });

      it('2. respondWith(rejecting promise) → TOOL_HANDLER_ERROR', async () => {
        listen((e) => e.respondWith(Promise.reject(new Error('listener failed'))));
        setHandler();
        const result = await call('t', {});
        expect(result.error).to.include({ code: 'TOOL_HANDLER_ERROR', message: 'listener failed' });
        expect(log).to.deep.equal(['event']);
      });

      it('2. respondWith(value) is result-checked', async () => {
        listen((e) => e.respondWith({ when: BigInt(2) }));
        const result = await call('t', {});
        expect(result.error.code).to.equal('TOOL_RESULT_INVALID');
      });

      it('2. deny() → TOOL_CALL_DENIED with the default message and { tool }', async () => {
        listen((e) => e.deny());
        setHandler();
        setFallback();
        expect(j(await call('t', {}))).to.deep.equal({
          error: { code: 'TOOL_CALL_DENIED', message: 'Tool call denied by the page', details: { tool: 't' } },
        });
        expect(log).to.deep.equal(['event']);
      });

      it('2. deny(message) → TOOL_CALL_DENIED with that message', async () => {
        listen((e) => e.deny('Not on this page.'));
        expect(j(await call('t', {}))).to.deep.equal({
          error: { code: 'TOOL_CALL_DENIED', message: 'Not on this page.', details: { tool: 't' } },
        });
      });

      it('2. a second answer throws InvalidStateError and the first answer stands', async () => {
        const thrown: unknown[] = [];
        listen((e) => e.respondWith({ by: 'first' }));
        listen((e) => {
          for (const again of [() => e.respondWith({ by: 'second' }), () => e.deny('late deny')]) {
            try {
              again();
              thrown.push('nothing');
            } catch (error) {
              thrown.push(error);
            }
          }
        });
        expect(await call('t', {})).to.deep.equal({ by: 'first' });
        expect(thrown).to.have.length(2);
        for (const error of thrown) {
          expect(error).to.be.instanceOf(DOMException);
          expect((error as DOMException).name).to.equal('InvalidStateError');
        }
      });

      it('2. an answer after dispatch throws and fires pedelec-error TOOL_RESPOND_LATE; the call goes on to the next step', async () => {
        let late: unknown = 'nothing';
        listen((e) =>
          setTimeout(() => {
            try {
              e.respondWith({ by: 'late' });
            } catch (error) {
              late = error;
            }
          }),
        );
        setHandler();
        const lateError = oneEvent(el, 'pedelec-error');
        expect(await call('t', {})).to.deep.equal({ by: 'handler' });
        const error = (await lateError) as unknown as PedelecErrorEvent;
        expect(error.detail.error.code).to.equal('TOOL_RESPOND_LATE');
        expect(late).to.be.instanceOf(DOMException);
        expect((late as DOMException).name).to.equal('InvalidStateError');
      });

      it('2. an answer in a microtask after dispatch is late too', async () => {
        let late: unknown = 'nothing';
        listen((e) =>
          queueMicrotask(() => {
            try {
              e.deny();
            } catch (error) {
              late = error;
            }
          }),
        );
        const errors = collect<PedelecErrorEvent>(el, 'pedelec-error');
        const result = await call('t', {});
        await nextTask(); // the listener's microtask ran
        expect(result.error.code).to.equal('TOOL_HANDLER_NOT_FOUND');
        // What the agent reads says what happened: nobody answered while the event was dispatched.
        expect(result.error.message).to.equal('No handler answered t during dispatch');
        expect((late as DOMException).name).to.equal('InvalidStateError');
        expect(errors.map((e) => e.detail.error.code)).to.include('TOOL_RESPOND_LATE');
      });

      it('2. preventDefault() is meaningless: no answer falls through, an answer still counts', async () => {
        let prevented: boolean | undefined;
        listen((e) => {
          e.preventDefault();
          prevented = e.defaultPrevented;
        });
        setHandler();
        expect(await call('t', {})).to.deep.equal({ by: 'handler' });
        expect(prevented).to.equal(false);
        listen((e) => e.respondWith({ by: 'event' }));
        expect(await call('t', {})).to.deep.equal({ by: 'event' });
      });

      it("3. then the tool element's handler property (a listener that does not answer is ignored)", async () => {
        listen(() => {});
        setHandler();
        setFallback();
        expect(await call('t', { n: 3 })).to.deep.equal({ by: 'handler' });
        expect(log).to.deep.equal(['event', 'handler']);
      });

      it('3. the handler gets the args and a ctx; a changed handler is used at call time', async () => {
        let got: [unknown, ToolCallContext] | undefined;
        tool.handler = (args, ctx) => {
          got = [args, ctx];
          return { first: true };
        };
        expect(await call('t', { n: 4 })).to.deep.equal({ first: true });
        expect(got![0]).to.deep.equal({ n: 4 });
        expect(got![1].tool).to.equal('t');
        tool.handler = () => ({ second: true });
        expect(await call('t', { n: 4 })).to.deep.equal({ second: true });
      });

      it('4. then the session fallback property', async () => {
        setFallback();
        expect(await call('t', { n: 5 })).to.deep.equal({ by: 'fallback', name: 't', args: { n: 5 } });
        expect(log).to.deep.equal(['fallback']);
      });

      it('4. onTool(fn) sets the fallback too', async () => {
        const off = el.onTool((name, args) => ({ generic: name, args: args as any }));
        expect(await call('t', { n: 6 })).to.deep.equal({ generic: 't', args: { n: 6 } });
        off();
        expect((await call('t', {})).error.code).to.equal('TOOL_HANDLER_NOT_FOUND');
      });

      it('5. nothing answers → TOOL_HANDLER_NOT_FOUND', async () => {
        listen(() => {});
        const result = await call('t', {});
        expect(result.error.code).to.equal('TOOL_HANDLER_NOT_FOUND');
        expect(result.error.details).to.deep.include({ tool: 't' });
      });

      it('validation comes before every handler: invalid args reach none of them', async () => {
        listen((e) => e.respondWith({ by: 'event' }));
        setHandler();
        setFallback();
        el.onTool('t', () => {
          log.push('named');
          return {};
        });
        expect((await call('t', { n: 'x' })).error.code).to.equal('TOOL_ARGS_INVALID');
        expect(log).to.deep.equal([]);
      });
    });
  }

  it('pedelec-tool-call is composed: it reaches the session from a tool in a shadow root', async () => {
    const el = await fixture<PedelecSessionElement>(
      html`<pedelec-session provider="codex" model="m"><div id="host"></div></pedelec-session>`,
    );
    const root = el.querySelector('#host')!.attachShadow({ mode: 'open' });
    root.innerHTML = '<pedelec-tool name="shadowed" description="In a shadow root."></pedelec-tool>';
    await nextTask(); // the tool registered with its session
    expect(el.manifest?.tools.map((t) => t.name)).to.deep.equal(['shadowed']);
    el.addEventListener('pedelec-tool-call', (e) => e.respondWith({ from: 'session listener' }));
    expect(await el.invoke('shadowed', {})).to.deep.equal({ ok: true, result: { from: 'session listener' } });
  });

  describe('argument validation', () => {
    const argsTool = (novalidate: boolean) =>
      novalidate
        ? html`<pedelec-session novalidate provider="codex" model="m"
            ><pedelec-tool name="t" description="T."
              ><pedelec-arg name="n" type="integer" required></pedelec-arg></pedelec-tool
          ></pedelec-session>`
        : html`<pedelec-session provider="codex" model="m"
            ><pedelec-tool name="t" description="T."
              ><pedelec-arg name="n" type="integer" required></pedelec-arg></pedelec-tool
          ></pedelec-session>`;

    it('novalidate turns argument validation off: invalid args reach the handler', async () => {
      const el = await fixture<PedelecSessionElement>(argsTool(true));
      const seen: unknown[] = [];
      toolOf(el, 't').handler = (args) => {
        seen.push(args);
        return { got: args as any };
      };
      await started(el);
      await openTurn(el);
      expect(await agentCall('s1', 't', { n: 'x' })).to.deep.equal({ got: { n: 'x' } });
      expect(seen).to.deep.equal([{ n: 'x' }]);
    });

    it('without novalidate, invalid args get TOOL_ARGS_INVALID and the handler is not called', async () => {
      const el = await fixture<PedelecSessionElement>(argsTool(false));
      let calls = 0;
      toolOf(el, 't').handler = () => ++calls;
      await started(el);
      await openTurn(el);
      expect((await agentCall('s1', 't', { n: 'x' })).error.code).to.equal('TOOL_ARGS_INVALID');
      expect(calls).to.equal(0);
    });

    it('novalidate also applies to invoke() before start()', async () => {
      const el = await fixture<PedelecSessionElement>(argsTool(true));
      toolOf(el, 't').handler = (args) => ({ got: args as any });
      expect(await el.invoke('t', { n: 'x' })).to.deep.equal({ ok: true, result: { got: { n: 'x' } } });
    });

    it('noValidate is the property of novalidate', async () => {
      const el = await fixture<PedelecSessionElement>(argsTool(true));
      expect(el.noValidate).to.equal(true);
      toolOf(el, 't').handler = (args) => ({ got: args as any });
      el.noValidate = false;
      const refused = await el.invoke('t', { n: 'x' });
      expect(refused.ok ? 'ok' : refused.error.code).to.equal('TOOL_ARGS_INVALID');
    });
  });

  describe('disabled tools', () => {
    it('a tool declared disabled is unavailable to a named handler too', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m">
          <pedelec-tool name="off" description="Switched off." disabled></pedelec-tool>
        </pedelec-session>`,
      );
      const ran: string[] = [];
      el.onTool('off', () => (ran.push('named'), 'ran'));
      const local = await el.invoke('off', {});
      expect(local.ok).to.equal(false);
      if (!local.ok) expect(local.error.code).to.equal('TOOL_UNAVAILABLE');
      await started(el, 's1');
      await openTurn(el);
      expect((await agentCall('s1', 'off', {})).error.code).to.equal('TOOL_UNAVAILABLE');
      expect(ran).to.deep.equal([]);
    });
  });
});
