/**
 * End to end over a real socket: the page's `<pedelec-session bridge="ws://127.0.0.1:…/bridge">` talks
 * to the development Core (`pedelec-dev`) that test/plugins/dev-core.mjs runs beside the test server.
 * Nothing here is faked: the scripted agent calls the page's declared tools, their handlers answer,
 * the reply streams back as `pedelec-chat-delta` events.
 *
 * Each test gives its elements a bridge URL of its own (a query string the Core ignores), so the
 * shared client of an earlier test, still closing, is never reused.
 */
import { expect } from '@open-wc/testing';
import '../../src/define.js';
import type {
  PedelecChatDeltaEvent,
  PedelecChatMessageEvent,
  PedelecErrorEvent,
  PedelecSessionElement,
  PedelecStatusEvent,
  PedelecToolElement,
  PedelecToolResultEvent,
  PedelecToolStartEvent,
} from '../../src/index.js';
import { mount, record } from '../elements/helpers.js';
import { bridgeOf, devCores, type DevCores } from '../support/dev-cores.js';
import { until } from '../support/waits.js';

let devCore: DevCores;
/** How `until` waits for what crosses the socket: up to 5 s, looking every 10 ms. */
const ON_THE_NETWORK = { timeoutMs: 5000, everyMs: 10 };

/** The declared counter tool (as in demo/index.html), in a session on `bridge`. */
function counterPage(bridge: string, id = 'e2e'): string {
  return `
    <pedelec-session id="${id}" bridge="${bridge}" provider="scripted">
      <pedelec-tool name="update_counter" description="Change the visible counter by delta. Returns the new value." timeout-ms="5000">
        <pedelec-arg name="delta" type="integer" required minimum="-100" maximum="100" description="How much to add."></pedelec-arg>
      </pedelec-tool>
      <pedelec-tool name="get_counter" description="Read the counter."></pedelec-tool>
      <output class="counter">0</output>
    </pedelec-session>`;
}

type Counter = { session: PedelecSessionElement; calls: Array<{ delta: number }>; value(): number };

/** Attaches a counter handler to the session's update_counter/get_counter tools. */
function wireCounter(session: PedelecSessionElement): Counter {
  let value = 0;
  const calls: Array<{ delta: number }> = [];
  const output = session.querySelector('output.counter')!;
  const tool = (name: string) => session.querySelector<PedelecToolElement>(`pedelec-tool[name="${name}"]`)!;
  tool('update_counter').handler = (args) => {
    const { delta } = args as { delta: number };
    calls.push({ delta });
    value += delta;
    output.textContent = String(value);
    return { value };
  };
  tool('get_counter').handler = () => ({ value });
  return { session, calls, value: () => value };
}

async function counterSession(bridge: string, id?: string): Promise<Counter> {
  const host = await mount(counterPage(bridge, id));
  await customElements.whenDefined('pedelec-session');
  return wireCounter(host.querySelector<PedelecSessionElement>('pedelec-session')!);
}

const text = (deltas: PedelecChatDeltaEvent[]) => deltas.map((e) => e.detail.text).join('');

async function rejection(promise: Promise<unknown>): Promise<{ code?: string; message?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; message?: string };
  }
  throw new Error('expected a rejection');
}

describe('pedelec-dev end to end (real WebSocket)', () => {
  before(async () => {
    devCore = await devCores();
  });
  const started: PedelecSessionElement[] = [];
  afterEach(async () => {
    // End what the test started, so the Core's sessions do not outlive the page's fixture.
    await Promise.all(started.splice(0).map((s) => s.end().catch(() => {})));
  });
  const track = (counter: Counter) => (started.push(counter.session), counter);

  it('runs a full turn: /call → the declared tool → result to the agent → streamed reply → idle', async () => {
    const { session, calls } = track(await counterSession(bridgeOf(devCore, 'turn')));
    const deltas = record<PedelecChatDeltaEvent>(session, 'pedelec-chat-delta');
    const statuses = record<PedelecStatusEvent>(session, 'pedelec-status');
    const starts = record<PedelecToolStartEvent>(session, 'pedelec-tool-start');
    const results = record<PedelecToolResultEvent>(session, 'pedelec-tool-result');
    const errors = record<PedelecErrorEvent>(session, 'pedelec-error');

    await session.sendText('/call update_counter {"delta":2}');

    // The scripted agent called the declared tool with the args it was given; the handler ran once.
    expect(calls).to.deep.equal([{ delta: 2 }]);
    expect(starts.map((e) => [e.detail.tool, e.detail.args])).to.deep.equal([['update_counter', { delta: 2 }]]);
    expect(results).to.have.length(1);
    expect(results[0].detail).to.include({ tool: 'update_counter', ok: true });
    expect(results[0].detail.result).to.deep.equal({ value: 2 });
    expect(session.querySelector('output.counter')!.textContent).to.equal('2');
    // The reply streamed in several pieces and reports the handler's result: it reached the agent.
    expect(deltas.length).to.be.greaterThan(1);
    expect(text(deltas)).to.equal('Calling update_counter with {"delta":2}…\nupdate_counter returned {"value":2}');
    expect(session.sessionId).to.match(/^session_/);
    // The real Core's sequence: running, waiting for the tool, running, idle.
    const turn = statuses.map((e) => e.detail.status).slice(statuses.findIndex((e) => e.detail.status === 'running'));
    expect(turn).to.deep.equal(['running', 'waiting_tool_result', 'running', 'idle']);
    expect(session.status).to.equal('idle');
    expect(errors).to.have.length(0);

    // The next turn on the same session works too.
    await session.sendText('/call update_counter {"delta":-5}');
    expect(calls).to.deep.equal([{ delta: 2 }, { delta: -5 }]);
    expect(text(deltas)).to.contain('update_counter returned {"value":-3}');
    expect(session.status).to.equal('idle');
  });

  for (const [label, core, fragments] of [
    ['protocol 0.1 (fragments only)', () => devCore.legacy, true],
    ['a provider that sends no fragments (whole messages only)', () => devCore.whole, false],
  ] as const) {
    it(`runs a full turn with ${label}: the tool is called and the whole reply arrives once`, async () => {
      const { session, calls } = track(await counterSession(bridgeOf(core(), 'variant')));
      const deltas = record<PedelecChatDeltaEvent>(session, 'pedelec-chat-delta');
      const messages = record<PedelecChatMessageEvent>(session, 'pedelec-chat-message');
      await session.sendText('/call update_counter {"delta":3}');
      expect(calls).to.deep.equal([{ delta: 3 }]);
      expect(text(deltas)).to.equal('Calling update_counter with {"delta":3}…\nupdate_counter returned {"value":3}');
      if (fragments) {
        expect(deltas.length).to.be.greaterThan(2);
        // 0.1 sends fragments only: each whole message is what they built, once it is complete (before
        // the tool call, and at the end of the turn).
        expect(messages.map((e) => e.detail.text)).to.deep.equal([
          'Calling update_counter with {"delta":3}…\n',
          'update_counter returned {"value":3}',
        ]);
      } else {
        // One piece per whole message: the one before the tool call, and the one after.
        expect(deltas.map((e) => e.detail.text)).to.deep.equal(messages.map((e) => e.detail.text));
        expect(messages).to.have.length(2);
      }
      expect(session.status).to.equal('idle');
      await session.sendText('/call update_counter {"delta":1}');
      expect(calls).to.have.length(2);
      expect(session.status).to.equal('idle');
    });
  }

  it('/tools lists the declared tools with an example call', async () => {
    const { session, calls } = track(await counterSession(bridgeOf(devCore, 'tools')));
    const deltas = record<PedelecChatDeltaEvent>(session, 'pedelec-chat-delta');
    await session.sendText('/tools');
    const reply = text(deltas);
    expect(reply).to.contain('This page gives me 2 tools:');
    expect(reply).to.contain(
      '- update_counter: Change the visible counter by delta. Returns the new value. Example: /call update_counter {"delta":1}',
    );
    expect(reply).to.contain('- get_counter: Read the counter.');
    expect(calls).to.have.length(0);
    expect(session.status).to.equal('idle');
  });

  it('reports TOOL_ARGS_INVALID to the agent without calling the handler', async () => {
    const { session, calls } = track(await counterSession(bridgeOf(devCore, 'invalid')));
    const deltas = record<PedelecChatDeltaEvent>(session, 'pedelec-chat-delta');
    const starts = record<PedelecToolStartEvent>(session, 'pedelec-tool-start');
    await session.sendText('/call update_counter {"delta":"two"}');
    expect(text(deltas)).to.match(/update_counter failed: TOOL_ARGS_INVALID — \S/);
    expect(calls).to.have.length(0);
    expect(starts).to.have.length(0); // the call never reached the page
    expect(session.status).to.equal('idle');

    await session.sendText('/call no_such_tool {}');
    expect(text(deltas)).to.contain('no_such_tool failed: TOOL_NOT_FOUND');
    expect(calls).to.have.length(0);
    expect(session.status).to.equal('idle');
  });

  it('a result that answers differently on a second read reaches the agent as it was read once: a result or TOOL_RESULT_INVALID, never silence', async () => {
    // A getter that gives a BigInt on its second read, and a Proxy that gives a cycle on its second: the
    // check passed, the copy broke, nothing was posted and the agent waited for Core's timeout.
    const { session } = track(await counterSession(bridgeOf(devCore, 'second-read')));
    const deltas = record<PedelecChatDeltaEvent>(session, 'pedelec-chat-delta');
    const errors = record<PedelecErrorEvent>(session, 'pedelec-error');
    const tool = session.querySelector<PedelecToolElement>('pedelec-tool[name="get_counter"]')!;
    let reads = 0;
    const shifty = {
      get value() {
        return ++reads === 1 ? 1 : 10n;
      },
    };
    let proxyReads = 0;
    const proxied: object = new Proxy(
      { n: 2 },
      { get: (target, key) => (key === 'n' && ++proxyReads > 1 ? { back: proxied } : Reflect.get(target, key)) },
    );
    tool.handler = () => ({ shifty, proxied });
    await session.sendText('/call get_counter {}');
    expect(text(deltas)).to.contain('get_counter returned {"shifty":{"value":1},"proxied":{"n":2}}');
    expect(errors).to.have.length(0);

    // Not JSON on its first read: the agent is told so.
    let late = 0;
    tool.handler = () => ({
      get value() {
        return ++late === 1 ? 10n : 1;
      },
    });
    await session.sendText('/call get_counter {}');
    expect(text(deltas)).to.match(/get_counter failed: TOOL_RESULT_INVALID — result\.value: BigInt is not JSON/);
    expect(errors.map((e) => e.detail.error.code)).to.deep.equal(['TOOL_RESULT_INVALID']);
    expect(session.status).to.equal('idle');
  });

  it('follows --script rules: say, call, and templates over the results and the match', async () => {
    const { session, calls } = track(await counterSession(bridgeOf(devCore.rules, 'rules')));
    const deltas = record<PedelecChatDeltaEvent>(session, 'pedelec-chat-delta');
    await session.sendText('count');
    expect(calls).to.deep.equal([{ delta: 1 }]);
    expect(text(deltas)).to.equal('Counting…Now 1');

    deltas.length = 0;
    await session.sendText('add 1 and 2');
    expect(calls).to.deep.equal([{ delta: 1 }, { delta: 1 }, { delta: 2 }]);
    expect(text(deltas)).to.equal('You said "add 1 and 2"; the counter went 2 then 4.');
    expect(session.querySelector('output.counter')!.textContent).to.equal('4');

    // Slash commands still come first, and anything else gets the help text naming the tools.
    deltas.length = 0;
    await session.sendText('hello there');
    expect(text(deltas)).to.contain('update_counter, get_counter');
    expect(session.status).to.equal('idle');
  });

  it('fails with BRIDGE_UNAVAILABLE when nothing listens on the bridge port', async () => {
    const host = await mount(
      `<pedelec-session bridge="${bridgeOf({ bridgeUrl: `ws://127.0.0.1:${devCore.closedPort}/bridge` }, 'closed')}" provider="scripted"></pedelec-session>`,
    );
    const session = host.querySelector<PedelecSessionElement>('pedelec-session')!;
    const errors = record<PedelecErrorEvent>(session, 'pedelec-error');
    const error = await rejection(session.sendText('hi'));
    expect(error.code).to.equal('BRIDGE_UNAVAILABLE');
    expect(errors.map((e) => e.detail.error.code)).to.include('BRIDGE_UNAVAILABLE');
    expect(session.status).to.equal('error');
    const availability = await session.checkAvailability();
    expect(availability.available).to.equal(false);
  });

  it('two session elements on one page share one socket, and both run turns at once', async () => {
    const bridge = bridgeOf(devCore, 'shared');
    const sockets: string[] = [];
    const Original = window.WebSocket;
    // Count the sockets the page opens to this bridge (the transport looks the constructor up on use).
    window.WebSocket = class extends Original {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        if (String(url) === bridge) sockets.push(String(url));
      }
    } as typeof WebSocket;
    try {
      const host = await mount(counterPage(bridge, 'first') + counterPage(bridge, 'second'));
      await customElements.whenDefined('pedelec-session');
      const [a, b] = [...host.querySelectorAll<PedelecSessionElement>('pedelec-session')].map((s) =>
        track(wireCounter(s)),
      );
      await Promise.all([
        a.session.sendText('/call update_counter {"delta":3}'),
        b.session.sendText('/call update_counter {"delta":4}'),
      ]);

      expect(a.calls).to.deep.equal([{ delta: 3 }]);
      expect(b.calls).to.deep.equal([{ delta: 4 }]);
      expect(a.session.sessionId).to.not.equal(b.session.sessionId);
      expect(sockets).to.have.length(1);

      // The Core's view (its inspector feed): both sessions ride the same open connection.
      const ids = [a.session.sessionId!, b.session.sessionId!];
      const view = (await (await fetch(`/__pedelec-dev/connections?sessions=${ids.join(',')}`)).json()) as {
        sessions: Record<string, string | null>;
        open: string[];
      };
      const connections = ids.map((id) => view.sessions[id]);
      expect(connections[0]).to.be.a('string');
      expect(connections[1]).to.equal(connections[0]);
      expect(view.open).to.include(connections[0]);
    } finally {
      window.WebSocket = Original;
    }
  });

  it('after the Core dropped the connection, the next message reconnects in a new session; restart() too', async () => {
    const counter = track(await counterSession(bridgeOf(devCore.restartable, 'restart')));
    const { session, calls } = counter;
    await session.sendText('/call update_counter {"delta":1}');
    const before = session.sessionId;
    const oldClient = session.client!;
    const ended = record(session, 'pedelec-ended');

    // The plugin closes this Core (every connection drops) and starts a new one on the same port.
    const restarted = (await (await fetch('/__pedelec-dev/restart')).json()) as { port: number };
    expect(restarted.port).to.equal(devCore.restartable.port);
    await until(
      () => oldClient.unavailableReason !== null,
      'the page to notice the dropped connection',
      ON_THE_NETWORK,
    );
    expect(oldClient.unavailableReason!.code).to.equal('EXTENSION_DISCONNECTED');
    // The stopping Core ended the session (one `ended` event) before closing the socket.
    expect(ended).to.have.length(1);
    // The next message reconnects (the client opens a new connection), in a new session: the old one
    // ended with its Core.
    await session.sendText('/call update_counter {"delta":2}');
    expect(session.client!.unavailableReason).to.equal(null);
    expect(session.sessionId)
      .to.match(/^session_/)
      .and.not.equal(before);
    // And restart() makes a fresh one again.
    const second = session.sessionId;
    await session.restart();
    expect(session.sessionId).to.not.equal(second);
    await session.sendText('/call update_counter {"delta":3}');
    expect(calls.map((c) => c.delta)).to.deep.equal([1, 2, 3]);
    expect(session.status).to.equal('idle');
  });

  it('checkAvailability() sees a Core that came back, without a session and without reconnecting the element', async () => {
    const { session } = await counterSession(bridgeOf(devCore.restartable, 'probe'));
    expect((await session.checkAvailability()).available).to.equal(true);
    const client = session.client!;
    const restarted = (await (await fetch('/__pedelec-dev/restart')).json()) as { port: number };
    expect(restarted.port).to.equal(devCore.restartable.port);
    await until(() => client.unavailableReason !== null, 'the page to notice the dropped connection', ON_THE_NETWORK);
    // The element's client stays down (restart() is the explicit reconnect), but the check asks anew:
    // the chat's availability line then clears when the user comes back to the field.
    const again = await session.checkAvailability();
    expect(again.available, JSON.stringify(again.error)).to.equal(true);
    expect(session.client).to.equal(client);
  });

  it('the Core going away mid-turn, a tool call running: the turn rejects, the signal aborts, the late result goes nowhere; restart() works', async () => {
    const counter = track(await counterSession(bridgeOf(devCore.restartable, 'midturn')));
    const { session } = counter;
    const tool = session.querySelector<PedelecToolElement>('pedelec-tool[name="update_counter"]')!;
    let signal: AbortSignal | undefined;
    let finish!: (value: unknown) => void;
    tool.handler = (_args, ctx) => {
      signal = ctx.signal;
      return new Promise((resolve) => (finish = resolve));
    };
    const errors = record<PedelecErrorEvent>(session, 'pedelec-error');
    const unhandled: unknown[] = [];
    const onRejection = (event: PromiseRejectionEvent) => unhandled.push(event.reason);
    window.addEventListener('unhandledrejection', onRejection);
    try {
      const turn = session.sendText('/call update_counter {"delta":1}').then(
        () => null,
        (error: { code: string }) => error,
      );
      await until(() => signal !== undefined, 'the tool call', ON_THE_NETWORK);
      const oldClient = session.client!;
      await fetch('/__pedelec-dev/restart');
      await until(() => oldClient.unavailableReason !== null, 'the page to notice the Core went away', ON_THE_NETWORK);
      // The stopping Core ends its sessions first; a Core that just vanished leaves a disconnect.
      const ending = (await turn)?.code;
      expect(['SESSION_ENDED', 'EXTENSION_DISCONNECTED']).to.include(ending);
      expect(signal!.aborted).to.equal(true);
      finish({ value: 1 });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).to.deep.equal([]);
      // A result with nowhere to go is never an unhandled rejection: it is reported once, naming the cause.
      const lost = errors.filter((e) => e.detail.error.code === 'SUBMIT_TOOL_RESULT_FAILED');
      expect(lost).to.have.length(1);
      expect((lost[0]!.detail.error.details as { cause: { code: string } }).cause.code).to.equal(ending);

      await session.restart();
      tool.handler = (args) => ({ value: (args as { delta: number }).delta });
      await session.sendText('/call update_counter {"delta":2}');
      expect(session.status).to.equal('idle');
    } finally {
      window.removeEventListener('unhandledrejection', onRejection);
    }
  });
});
