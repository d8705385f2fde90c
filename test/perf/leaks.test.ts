/**
 * Leak tests (docs/design/reliability.md "Lifecycle": 1 000 create/end cycles with listeners, timers and
 * observers back to their baseline). Three loops of 1 000 cycles each, over the auto Core of
 * ./harness.ts (a fresh port per connect, every request answered in a microtask):
 *
 * 1. core sessions: create → turn with a tool call → end, on one `Pedelec` client;
 * 2. `<pedelec-session>` elements: create → start → (every 10th: a turn with a tool call) → remove;
 * 3. `<pedelec-tool>` elements added to and removed from one started `<pedelec-session>`, each
 *    called once by the agent and once by `invoke()` (with a long-lived `AbortSignal`) while there.
 *
 * Measured at cycle 500 and after cycle 1 000 (so a leak of one item per cycle shows as ~500 and
 * ~1 000), against a baseline taken after one warm-up cycle: live listener registrations (on
 * anything but detached nodes), live timers, observing MutationObservers, open ports, unanswered
 * requests, and the kit's own maps. The core client's private maps (`#pending`, `#sessions`,
 * `#calls`) are not readable from outside, so they are measured by what they make the client do:
 *
 * - `#sessions`: an event addressed to an ended session reaches `PedelecSession#handleEvent` only if
 *   the client still holds that session (the client routes by `#sessions.get(id)`). Sessions the page
 *   ended must be gone; the tenth that Core ended stay, as the public SDK keeps them for a resume;
 * - `#pending`: read through the client's `@internal` debug counter `pendingCount` (the requests share
 *   one timer, so timer counts cannot tell how many are pending), and confirmed at disconnect, which
 *   rejects every entry;
 * - `#calls` (core; `#running` in the element): a call still held as running gets its `ctx.signal` aborted when
 *   the bridge goes away or the session element is removed — so finished calls whose signals abort
 *   then were leaked entries.
 *
 * Each probe has a positive control (one deliberately pending request, one deliberately hanging
 * call, one live session) so that a probe that stopped seeing anything fails instead of passing.
 * The element's own maps are read through `bookkeepingOf` (the element module's accessor for tests).
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../src/define.js';
import {
  Pedelec,
  PedelecSession,
  type PedelecError,
  type PedelecSessionElement,
  type PedelecToolElement,
  type ToolArgsSchema,
  type ToolCallContext,
} from '../../src/index.js';
import { openClientCount } from '../../src/elements/session/client-pool.js';
import { installAutoCore, installCounters, quiet, type AutoCore, type Counters } from '../reliability/harness.js';
import { until } from '../support/waits.js';
import { bookkeepingOf } from '../../src/elements/session/pedelec-session.element.js';

const CYCLES = 1000;
const MIDWAY = 500;

let core: AutoCore;
let counters: Counters;
const undo: Array<() => void> = [];

beforeEach(() => {
  core = installAutoCore();
  counters = installCounters();
});

afterEach(() => {
  undo.splice(0).forEach((fn) => fn());
  counters.restore();
  core.uninstall();
});

/** Wraps a method of a prototype for this test, counting its calls. */
function countCalls<T extends object>(owner: T, key: keyof T): { calls: number } {
  const original = owner[key] as unknown as (...args: unknown[]) => unknown;
  const counter = { calls: 0 };
  (owner as any)[key] = function (this: unknown, ...args: unknown[]) {
    counter.calls++;
    return original.apply(this, args);
  };
  undo.push(() => {
    (owner as any)[key] = original;
  });
  return counter;
}

/** One of the session element's bookkeeping sizes (`bookkeepingOf`). */
function sizeOf(el: PedelecSessionElement, field: 'members' | 'running' | 'reported' | 'cached'): number {
  return bookkeepingOf(el)[field];
}

const echoTool: { name: string; description: string; argsSchema: ToolArgsSchema } = {
  name: 'echo',
  description: 'Echoes n.',
  argsSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
};

describe('leaks: 1 000 cycles return everything to its baseline', () => {
  it(`core: ${CYCLES} session create → turn with a tool call → end cycles on one client`, async function () {
    this.timeout(20_000);
    const client = new Pedelec();
    const signals: AbortSignal[] = [];
    const handler = (args: unknown, ctx: ToolCallContext) => {
      signals.push(ctx.signal!); // reading it arms the deadline timer
      return { n: (args as { n: number }).n };
    };
    const skills = { guidance: 'Leak test.', tools: [{ ...echoTool, handler }] };

    // A session that lives through every cycle, inside one long turn: it answers a call per cycle too.
    const control = await client.createSession({ provider: 'codex', model: 'm', skills });
    const controlTurn = control.sendText('stay');
    controlTurn.catch(() => {});
    await until(() => core.unanswered() === 0, 'the control turn to be accepted');

    const handleEvent = countCalls(PedelecSession.prototype, 'handleEvent');
    // The page's `end()` forgets a session; one Core ended stays known, as in the public SDK 0.4.6
    // (`resumeSession` returns the same handle): those, and only those, are still routed.
    const ended = { byPage: [] as string[], byCore: [] as string[] };
    const probeSessions = () => {
      const routed = (ids: string[]) => {
        const before = handleEvent.calls;
        for (const id of ids) core.event(id, 'probe');
        return handleEvent.calls - before;
      };
      return { byPage: routed(ended.byPage), byCore: routed(ended.byCore) };
    };

    let seq = 0;
    const cycle = async (i: number) => {
      const session = await client.createSession({ provider: 'codex', model: 'm', skills });
      const turn = session.sendText(`turn ${i}`);
      core.event(session.sessionId, 'tool_call', { seq: 1, toolRequestId: `r${i}`, tool: 'echo', args: { n: i } });
      core.event(control.sessionId, 'tool_call', { seq: ++seq, toolRequestId: `c${i}`, tool: 'echo', args: { n: i } });
      core.event(session.sessionId, 'status_changed', { seq: 2, status: 'idle' });
      await turn;
      // Most end from the page; every 10th is ended by Core.
      const byCore = i % 10 === 0;
      if (byCore) core.event(session.sessionId, 'ended', { seq: 3 });
      else await session.end();
      expect(session.getStatus()).to.equal('ended');
      (byCore ? ended.byCore : ended.byPage).push(session.sessionId);
    };

    await cycle(-1); // warm-up
    await until(() => core.unanswered() === 0, 'warm-up requests to be answered');
    const baseline = {
      listeners: counters.allListeners(),
      timers: counters.timers(),
      observers: counters.observers(),
      ports: core.openPorts(),
      pending: client.pendingCount,
    };
    expect(baseline.timers, 'no timer outlives an answered request or a settled call').to.equal(0);
    expect(client.pendingCount, 'no request is held once answered').to.equal(0);

    const measure = async () => {
      await until(() => core.unanswered() === 0, 'every request to be answered');
      return {
        listeners: counters.allListeners(),
        timers: counters.timers(),
        observers: counters.observers(),
        ports: core.openPorts(),
        pending: client.pendingCount,
      };
    };
    for (let i = 0; i < CYCLES; i++) {
      await cycle(i);
      if (i + 1 === MIDWAY) {
        expect(await measure(), `after ${MIDWAY} cycles`).to.deep.equal(baseline);
        expect(probeSessions(), `ended sessions still routed after ${MIDWAY} cycles`).to.deep.equal({
          byPage: 0,
          byCore: ended.byCore.length,
        });
      }
    }
    expect(await measure(), `after ${CYCLES} cycles`).to.deep.equal(baseline);
    expect(probeSessions(), `ended sessions still routed after ${CYCLES} cycles`).to.deep.equal({
      byPage: 0,
      byCore: ended.byCore.length,
    });
    const before = handleEvent.calls;
    core.event(control.sessionId, 'probe');
    expect(handleEvent.calls - before, 'control: the live session is routed').to.equal(1);
    expect(signals, 'each call read its signal').to.have.length(2 * (CYCLES + 1));
    expect(core.submits(), 'exactly one result per call').to.have.length(2 * (CYCLES + 1));

    // Controls for the disconnect probes: one request left unanswered, one call left hanging.
    core.onRequest = (message) => message.type !== 'probe_unanswered';
    const unanswered = client.request('probe_unanswered').catch((e: PedelecError) => e);
    let hanging: AbortSignal | undefined;
    control.onTool('hang', (_args, ctx) => {
      hanging = ctx.signal;
      return new Promise(() => {});
    });
    core.event(control.sessionId, 'tool_call', { seq: ++seq, toolRequestId: 'hang', tool: 'hang', args: {} });
    expect(counters.timers(), "the requests' shared timer and the hanging call's deadline timer").to.equal(2);
    expect(client.pendingCount, 'pending before disconnect: the unanswered request only').to.equal(1);

    // Disconnect rejects every pending request and so empties the map.
    client.disconnect();
    expect(client.pendingCount, 'nothing pending after disconnect').to.equal(0);
    expect(((await unanswered) as PedelecError).code).to.equal('EXTENSION_DISCONNECTED');
    expect(hanging!.aborted, 'control: the hanging call is aborted').to.equal(true);
    expect(
      signals.filter((s) => s.aborted),
      'finished calls still held as running',
    ).to.have.length(0);
    expect(counters.timers()).to.equal(0);
    expect(core.openPorts()).to.equal(0);
  });

  it(`elements: ${CYCLES} <pedelec-session> create → start → remove cycles`, async function () {
    this.timeout(20_000);
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    const signals: AbortSignal[] = [];
    let turns = 0;

    const cycle = async (i: number) => {
      const el = document.createElement('pedelec-session') as PedelecSessionElement;
      el.setAttribute('provider', 'codex');
      el.setAttribute('model', 'm');
      const tool = document.createElement('pedelec-tool') as PedelecToolElement;
      tool.setAttribute('name', 'echo');
      tool.setAttribute('description', 'Echoes n.');
      tool.innerHTML = '<pedelec-arg name="n" type="integer" required></pedelec-arg>';
      tool.handler = (args, ctx) => {
        signals.push(ctx.signal!);
        return args;
      };
      el.append(tool);
      host.append(el);
      const session = await el.start();
      if (i % 10 === 0) {
        turns++;
        const turn = el.sendText('hi');
        await until(() => core.unanswered() === 0, 'send_text to be answered');
        core.event(session.sessionId, 'tool_call', { seq: 1, toolRequestId: `r${i}`, tool: 'echo', args: { n: i } });
        core.event(session.sessionId, 'done', { seq: 2 });
        await turn;
      }
      el.remove();
      await until(
        () => el.status === 'inactive' && core.openPorts() === 0 && core.unanswered() === 0,
        `session ${i} to be torn down`,
      );
      expect(session.getStatus()).to.equal('ended');
    };

    await cycle(0); // warm-up: styles adopted, elements defined, Lit's first render
    const measure = () => ({
      listeners: counters.listeners(),
      onDocument: counters.listenersOn(document),
      onWindow: counters.listenersOn(window),
      timers: counters.timers(),
      observers: counters.observers(),
      clients: openClientCount(),
      ports: core.openPorts(),
      unanswered: core.unanswered(),
    });
    const baseline = measure();

    for (let i = 1; i <= CYCLES; i++) {
      await cycle(i);
      if (i === MIDWAY) expect(measure(), `after ${MIDWAY} cycles`).to.deep.equal(baseline);
    }
    expect(measure(), `after ${CYCLES} cycles`).to.deep.equal(baseline);
    // And the baseline itself holds nothing: a removed session keeps no client, timer or observer.
    expect([baseline.clients, baseline.ports, baseline.timers, baseline.observers]).to.deep.equal([0, 0, 0, 0]);
    expect(signals).to.have.length(turns);
    expect(
      signals.filter((s) => s.aborted),
      'finished calls aborted at teardown',
    ).to.have.length(0);
    expect(
      core.posted.filter((m) => m.type === 'end_session'),
      'every session ended',
    ).to.have.length(CYCLES + 1);
  });

  it(`elements: ${CYCLES} <pedelec-tool> add → call → remove cycles under one started <pedelec-session>`, async function () {
    this.timeout(20_000);
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    const el = document.createElement('pedelec-session') as PedelecSessionElement;
    el.setAttribute('provider', 'codex');
    el.setAttribute('model', 'm');
    // Each cycle's tool is declared as the one sent at start: a tool added after start that was never
    // sent gets TOOL_UNAVAILABLE (its args were never checked against a schema Core holds).
    const CYCLER = '<pedelec-arg name="n" type="integer" required></pedelec-arg>';
    el.innerHTML = `<pedelec-tool name="stay" description="Stays."></pedelec-tool>
      <pedelec-tool name="cycler" description="Comes and goes.">${CYCLER}</pedelec-tool>`;
    host.append(el);
    const session = await el.start();
    el.querySelector('pedelec-tool[name="cycler"]')!.remove();
    const turn = el.sendText('stay');
    turn.catch(() => {});
    await until(() => core.unanswered() === 0, 'the turn to be accepted');

    const signals: AbortSignal[] = [];
    const page = new AbortController();
    let seq = 0;
    const cycle = async (i: number) => {
      const tool = document.createElement('pedelec-tool') as PedelecToolElement;
      tool.setAttribute('name', 'cycler');
      tool.setAttribute('description', 'Comes and goes.');
      tool.innerHTML = CYCLER;
      tool.handler = async (args, ctx) => {
        signals.push(ctx.signal!);
        return args;
      };
      el.append(tool);
      await until(() => el.manifest?.tools.length === 2, `cycle ${i}: the tool to join the manifest`);
      const submitted = core.submits().length;
      core.event(session.sessionId, 'tool_call', {
        seq: ++seq,
        toolRequestId: `r${i}`,
        tool: 'cycler',
        args: { n: i },
      });
      await until(() => core.submits().length === submitted + 1 && core.unanswered() === 0, `cycle ${i}: the result`);
      expect(core.submits().at(-1)!.result).to.deep.equal({ n: i });
      // A local invoke() with a long-lived signal: its abort listener must not stay behind.
      expect(await el.invoke('cycler', { n: i }, { signal: page.signal })).to.deep.equal({
        ok: true,
        result: { n: i },
      });
      tool.remove();
      await until(() => el.manifest?.tools.length === 1, `cycle ${i}: the tool to leave the manifest`);
    };

    await cycle(-1); // warm-up
    const measure = () => ({
      listeners: counters.listeners(),
      onSession: counters.listenersOn(el),
      onSignal: counters.listenersOn(page.signal),
      timers: counters.timers(),
      observers: counters.observers(),
      unanswered: core.unanswered(),
      members: sizeOf(el, 'members'),
      running: sizeOf(el, 'running'),
      reported: sizeOf(el, 'reported'),
      cached: sizeOf(el, 'cached'),
      manifest: el.manifest?.tools.length,
    });
    const baseline = measure();

    for (let i = 0; i < CYCLES; i++) {
      await cycle(i);
      if (i + 1 === MIDWAY) expect(measure(), `after ${MIDWAY} cycles`).to.deep.equal(baseline);
    }
    expect(measure(), `after ${CYCLES} cycles`).to.deep.equal(baseline);
    expect(baseline.observers, 'only the remaining tool observes its declaration').to.equal(1);
    expect([baseline.members, baseline.running, baseline.timers, baseline.onSignal]).to.deep.equal([1, 0, 0, 0]);
    expect(el.status, 'the session went on throughout').to.equal('waiting_tool_result');

    // Control: one call left hanging is the only one aborted when the session element goes away.
    let hanging: AbortSignal | undefined;
    el.onTool('stay', (_args, ctx) => {
      hanging = ctx.signal;
      return new Promise(() => {});
    });
    core.event(session.sessionId, 'tool_call', { seq: ++seq, toolRequestId: 'hang', tool: 'stay', args: {} });
    expect(sizeOf(el, 'running')).to.equal(1);
    el.remove();
    await until(() => el.status === 'inactive' && core.openPorts() === 0, 'teardown');
    expect(hanging!.aborted, 'control: the hanging call is aborted').to.equal(true);
    expect(signals).to.have.length(2 * (CYCLES + 1));
    expect(
      signals.filter((s) => s.aborted),
      'finished calls still held as running',
    ).to.have.length(0);
    expect(sizeOf(el, 'running')).to.equal(0);
    expect(counters.timers()).to.equal(0);
    expect(counters.observers(), 'the removed tool stopped observing').to.equal(0);
    expect(openClientCount()).to.equal(0);
  });
  it(`elements: ${CYCLES} <pedelec-chat for="id"> add → remove cycles beside one session`, async function () {
    this.timeout(20_000);
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    host.innerHTML = '<pedelec-session id="leak-session" provider="codex" model="m"></pedelec-session>';
    const session = host.firstElementChild!;
    await until(() => core.unanswered() === 0, 'the page to settle');
    const measure = () => ({
      listeners: counters.listeners(),
      onSession: counters.listenersOn(session),
      observers: counters.observers(),
      timers: counters.timers(),
    });
    const before = measure();
    // Control: a bound chat does observe its root (for the id) and listen to its session.
    const probe = document.createElement('pedelec-chat');
    probe.setAttribute('for', 'leak-session');
    host.append(probe);
    await (probe as HTMLElement & { updateComplete: Promise<unknown> }).updateComplete;
    expect(counters.observers(), 'control: a bound chat observes').to.be.above(before.observers);
    expect(counters.listenersOn(session), 'control: a bound chat listens to its session').to.be.above(before.onSession);
    probe.remove();
    // The first chat's availability check made the session take its client, which the session keeps
    // (with the client's page-activity listeners) while it is connected: the baseline includes it.
    await quiet(core, 'the first check to settle');
    const baseline = measure();
    expect(baseline.listeners - before.listeners, "the session's client: window focus and visibilitychange").to.equal(
      2,
    );
    for (let i = 0; i < CYCLES; i++) {
      const chat = document.createElement('pedelec-chat');
      chat.setAttribute('for', 'leak-session');
      host.append(chat);
      chat.remove();
      if (i + 1 === MIDWAY) expect(measure(), `after ${MIDWAY} cycles`).to.deep.equal(baseline);
    }
    await quiet(core, 'the page to settle');
    expect(measure(), `after ${CYCLES} cycles`).to.deep.equal(baseline);
    host.remove();
  });
});
