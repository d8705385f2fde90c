/**
 * The <pedelec-session> events (docs/design/elements.md "Events"): tool-start/tool-result details, pedelec-turn,
 * ready/status/chat-delta/error/ended in order, warnings, which events bubble or are composed; and a
 * status listener that starts again on "ended" neither swallows pedelec-ended nor reorders statuses.
 */
import { aTimeout, expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../../src/define.js';
import {
  PedelecChatDeltaEvent,
  PedelecEndedEvent,
  PedelecErrorEvent,
  PedelecReadyEvent,
  PedelecStatusEvent,
  PedelecToolCallEvent,
  PedelecToolResultEvent,
  PedelecToolStartEvent,
  PedelecToolsChangedEvent,
  PedelecTurnEvent,
  PedelecWarningEvent,
  type PedelecSessionElement,
} from '../../../src/index.js';
import {
  fake,
  restorers,
  APPROVED,
  j,
  coreEvent,
  started,
  openTurn,
  agentCall,
  collect,
  makeTool,
  toolOf,
  sessionHooks,
} from './harness.js';
import { nextTask } from '../../support/waits.js';

describe('<pedelec-session>', () => {
  sessionHooks();

  describe('events', () => {
    it('pedelec-tool-start / pedelec-tool-result carry their details; ok is false exactly for kit errors', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m">
          <pedelec-tool name="fine" description="Fine."></pedelec-tool>
          <pedelec-tool name="domain" description="Domain error."></pedelec-tool>
          <pedelec-tool name="missing" description="No handler."></pedelec-tool>
          <pedelec-tool name="denied" description="Denied."></pedelec-tool>
          <pedelec-tool name="typed" description="Typed."
            ><pedelec-arg name="n" type="integer" required></pedelec-arg
          ></pedelec-tool>
          <pedelec-tool name="bad" description="Bad result."></pedelec-tool>
          <pedelec-tool name="thrower" description="Throws."></pedelec-tool>
          <pedelec-tool name="gone" description="Removed."></pedelec-tool>
        </pedelec-session>`,
      );
      toolOf(el, 'fine').handler = ({ x }: any) => ({ x });
      toolOf(el, 'domain').handler = () => ({ error: { code: 'OUT_OF_STOCK', message: 'None left.' } });
      toolOf(el, 'denied').addEventListener('pedelec-tool-call', (e) => e.deny());
      toolOf(el, 'typed').handler = () => 1;
      toolOf(el, 'bad').handler = () => ({ f: BigInt(3) });
      toolOf(el, 'thrower').handler = () => {
        throw new Error('broken');
      };
      const starts = collect<PedelecToolStartEvent>(el, 'pedelec-tool-start');
      const results = collect<PedelecToolResultEvent>(el, 'pedelec-tool-result');
      await started(el);
      await openTurn(el);
      const changed = oneEvent(el, 'pedelec-tools-changed');
      toolOf(el, 'gone').remove();
      await changed;

      const calls: Array<[string, unknown, boolean]> = [
        ['fine', { x: 1 }, true],
        ['domain', {}, true],
        ['missing', {}, false],
        ['denied', {}, false],
        ['typed', { n: 'x' }, false],
        ['bad', {}, false],
        ['thrower', {}, false],
        ['gone', {}, false],
      ];
      const wireResults: unknown[] = [];
      for (const [tool, args] of calls) wireResults.push(await agentCall('s1', tool, args));

      expect(starts.map((e) => e.detail.tool)).to.deep.equal(calls.map((c) => c[0]));
      expect(results.map((e) => e.detail.tool)).to.deep.equal(calls.map((c) => c[0]));
      calls.forEach(([tool, args, ok], i) => {
        const start = starts[i]!.detail;
        const result = results[i]!.detail;
        expect(Object.keys(start).sort(), 'tool-start detail').to.deep.equal(['args', 'context', 'tool', 'via']);
        expect(start.args).to.deep.equal(args);
        expect(start.via).to.equal('pedelec');
        expect(start.context.tool).to.equal(tool);
        expect(start.context.sessionId).to.equal('s1');
        expect(Object.keys(result).sort(), 'tool-result detail').to.deep.equal([
          'args',
          'context',
          'durationMs',
          'ok',
          'result',
          'tool',
          'via',
        ]);
        expect(result.ok, `${tool} ok`).to.equal(ok);
        expect(result.args).to.deep.equal(args);
        expect(result.via).to.equal('pedelec');
        expect(result.context).to.equal(start.context);
        expect(result.durationMs).to.be.a('number').and.to.be.at.least(0);
        expect(j(result.result), `${tool} result is what the agent got`).to.deep.equal(j(wireResults[i]));
      });
      expect(results[1]!.detail.result).to.deep.equal({ error: { code: 'OUT_OF_STOCK', message: 'None left.' } });
    });

    it('pedelec-tool-result durationMs measures the handler', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session><pedelec-tool name="wait" description="Waits."></pedelec-tool></pedelec-session>`,
      );
      toolOf(el, 'wait').handler = () => aTimeout(40).then(() => ({ waited: true })); // time is the subject
      const result = oneEvent(el, 'pedelec-tool-result');
      await el.invoke('wait', {});
      expect(((await result) as PedelecToolResultEvent).detail.durationMs).to.be.at.least(30);
    });

    it('pedelec-turn fires for turns page code starts on el.session directly, and for prepare', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const session = await started(el);
      const turns = collect<PedelecTurnEvent>(el, 'pedelec-turn');
      const deltas = collect<PedelecChatDeltaEvent>(el, 'pedelec-chat-delta');
      const direct = session.sendText('direct');
      await fake.answer('send_text');
      expect(turns.map((e) => j(e.detail))).to.deep.equal([
        { turnId: turns[0]!.detail.turnId, kind: 'user', text: 'direct' },
      ]);
      expect(turns[0]!.detail.turnId).to.be.a('string').and.not.equal('');
      coreEvent('s1', 'chat_delta', { text: 'Hi' });
      expect(deltas[0]!.detail.context.turnId).to.equal(turns[0]!.detail.turnId);
      coreEvent('s1', 'done');
      await direct;

      const viaElement = el.sendText('via element');
      await fake.answer('send_text');
      coreEvent('s1', 'done');
      await viaElement;
      const preparing = el.prepare();
      await fake.answer('prepare_session');
      coreEvent('s1', 'done');
      await preparing;
      expect(turns.map((e) => e.detail.kind)).to.deep.equal(['user', 'user', 'prepare']);
      expect(turns[1]!.detail.text).to.equal('via element');
      expect(turns[2]!.detail.text).to.equal(undefined);
      expect(new Set(turns.map((e) => e.detail.turnId)).size).to.equal(3);
    });

    it('pedelec-ready, pedelec-status (with context), pedelec-chat-delta in order, pedelec-error, pedelec-ended', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const ready = oneEvent(el, 'pedelec-ready');
      await started(el, 's1');
      expect(((await ready) as PedelecReadyEvent).detail).to.deep.equal({
        sessionId: 's1',
        provider: 'codex',
        model: 'm',
        resumed: false,
      });

      const statuses = collect<PedelecStatusEvent>(el, 'pedelec-status');
      const deltas = collect<PedelecChatDeltaEvent>(el, 'pedelec-chat-delta');
      const errors = collect<PedelecErrorEvent>(el, 'pedelec-error');
      const endedEvents = collect<PedelecEndedEvent>(el, 'pedelec-ended');
      const { outcome: turn } = await openTurn(el);
      coreEvent('s1', 'status_changed', { seq: 1, status: 'running' });
      for (const [i, text] of ['Hel', 'lo', ', wor', 'ld'].entries())
        coreEvent('s1', 'chat_delta', { seq: 2 + i, text });
      expect(deltas.map((e) => e.detail.text)).to.deep.equal(['Hel', 'lo', ', wor', 'ld']);
      expect(deltas.map((e) => e.detail.text).join('')).to.equal('Hello, world');
      for (const d of deltas) expect(d.detail.context.sessionId).to.equal('s1');

      coreEvent('s1', 'error', { seq: 10, error: { code: 'PROVIDER_ERROR', message: 'The provider failed.' } });
      expect(((await turn) as any)?.code).to.equal('PROVIDER_ERROR');
      expect(errors.map((e) => e.detail.error.code)).to.deep.equal(['PROVIDER_ERROR']);
      expect(errors[0]!.detail.context?.sessionId).to.equal('s1');

      coreEvent('s1', 'ended', { seq: 11 });
      expect(endedEvents).to.have.length(1);
      expect(endedEvents[0]!.detail.context.sessionId).to.equal('s1');
      expect(el.status).to.equal('ended');

      expect(statuses.map((e) => [e.detail.previousStatus, e.detail.status])).to.deep.equal([
        ['idle', 'running'],
        ['running', 'error'],
        ['error', 'ended'],
      ]);
      for (const s of statuses) {
        expect(s.detail.context?.sessionId).to.equal('s1');
      }
    });

    it('pedelec-warning for an unsupported schema keyword, once, without console output', async () => {
      const warned: unknown[] = [];
      const original = console.warn;
      console.warn = (...args: unknown[]) => warned.push(args);
      restorers.push(() => (console.warn = original));
      const warnings = collect<PedelecWarningEvent>(document, 'pedelec-warning');
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session>
          <pedelec-tool
            name="w"
            description="W."
            schema='{"type":"object","properties":{},"frobnicate":true}'
          ></pedelec-tool>
        </pedelec-session>`,
      );
      await nextTask();
      el.append(makeTool('other', 'Other.'));
      await nextTask(); // no second warning
      expect(warnings).to.have.length(1);
      expect(warnings[0]!.target).to.equal(el);
      expect(warnings[0]!.detail.warning.code).to.equal('SCHEMA_KEYWORD_UNSUPPORTED');
      expect(warnings[0]!.detail.warning.message).to.contain('frobnicate');
      expect(warned).to.deep.equal([]);
    });

    it('session events bubble and are not composed; pedelec-tool-call bubbles and is composed', async () => {
      const classes: Record<string, new (...args: any[]) => Event> = {
        'pedelec-tool-call': PedelecToolCallEvent,
        'pedelec-tool-start': PedelecToolStartEvent,
        'pedelec-tool-result': PedelecToolResultEvent,
        'pedelec-turn': PedelecTurnEvent,
        'pedelec-ready': PedelecReadyEvent,
        'pedelec-status': PedelecStatusEvent,
        'pedelec-chat-delta': PedelecChatDeltaEvent,
        'pedelec-error': PedelecErrorEvent,
        'pedelec-ended': PedelecEndedEvent,
        'pedelec-tools-changed': PedelecToolsChangedEvent,
        'pedelec-warning': PedelecWarningEvent,
      };
      // Listeners on the document see only events that bubble there.
      const seen = new Map<string, Event[]>();
      for (const type of Object.keys(classes)) seen.set(type, collect<Event>(document, type));

      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m">
          <pedelec-tool name="w" description="W." schema='{"type":"object","properties":{},"zzz":1}'></pedelec-tool>
          <pedelec-tool name="echo" description="Echo."></pedelec-tool>
        </pedelec-session>`,
      );
      toolOf(el, 'echo').handler = (args: any) => args;
      await nextTask(); // the warning
      await started(el);
      await openTurn(el);
      coreEvent('s1', 'chat_delta', { text: 'x' });
      await agentCall('s1', 'echo', { a: 1 });
      const changed = oneEvent(el, 'pedelec-tools-changed');
      el.append(makeTool('late', 'Late.'));
      await changed;
      coreEvent('s1', 'error', { error: { code: 'PROVIDER_ERROR', message: 'x' } });
      coreEvent('s1', 'ended');
      await nextTask();

      for (const [type, Class] of Object.entries(classes)) {
        const events = seen.get(type)!;
        expect(events.length, `${type} reached the document`).to.be.greaterThan(0);
        for (const e of events) {
          expect(e, type).to.be.instanceOf(Class);
          expect(e.bubbles, `${type} bubbles`).to.equal(true);
          expect(e.composed, `${type} composed`).to.equal(type === 'pedelec-tool-call');
          expect(e.cancelable, `${type} cancelable`).to.equal(false);
          expect(e.target, `${type} target`).to.equal(type === 'pedelec-tool-call' ? toolOf(el, 'echo') : el);
        }
      }
    });

    it('a session inside a shadow root: its events do not leave the shadow root', async () => {
      const host = await fixture<HTMLElement>(html`<div></div>`);
      const root = host.attachShadow({ mode: 'open' });
      root.innerHTML = '<pedelec-session provider="codex" model="m"></pedelec-session>';
      const el = root.querySelector('pedelec-session') as PedelecSessionElement;
      const outside = collect<Event>(document, 'pedelec-status');
      const inside = collect<Event>(root, 'pedelec-status');
      const p = el.start();
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's1' });
      await p;
      expect(inside.length).to.be.greaterThan(0);
      expect(outside).to.deep.equal([]);
      el.remove();
      await fake.answer('end_session');
      await nextTask();
    });
  });

  describe('status listeners', () => {
    it('a pedelec-status listener that start()s again on "ended" must not swallow pedelec-ended, nor reorder pedelec-status', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      // A page that starts a new session as soon as the old one ends (listener registered first)…
      el.addEventListener('pedelec-status', (e) => {
        if ((e as PedelecStatusEvent).detail.status === 'ended') el.start().catch(() => {});
      });
      // …and a second listener (a chat panel, analytics) that follows the status and the end.
      const seen = collect<PedelecStatusEvent>(el, 'pedelec-status');
      const ended = collect<PedelecEndedEvent>(el, 'pedelec-ended');

      coreEvent('s1', 'ended', { seq: 1 });

      expect(ended, 'pedelec-ended for the session Core ended').to.have.length(1);
      expect(seen.map((e) => `${e.detail.previousStatus}>${e.detail.status}`)).to.deep.equal([
        'idle>ended',
        'ended>starting',
      ]);
      expect(el.status).to.equal('starting');
    });
  });
});
