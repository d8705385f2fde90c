/**
 * <pedelec-session>: bridge rules, the shared client, status, lazy start, persist, methods, invoke(),
 * handler resolution, changes after start, teardown and events (spec/elements.md, reliability.md).
 * The bridge is the fake Chrome runtime of test/support/fake-chrome.ts; WebSockets are only ever opened
 * to a closed loopback port.
 */
import { aTimeout, expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../src/define.js';
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
  PedelecSessionElement,
  PedelecToolElement,
  type PedelecError,
  type PedelecSession,
  type ToolCallContext,
} from '../../src/index.js';
import { openClientCount } from '../../src/elements/session/client-pool.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../support/fake-chrome.js';
import { nextTask } from '../support/waits.js';
import { twoSessions, uniqueTag } from './helpers.js';

// ───────────────────────────── harness ─────────────────────────────

const DEFAULT_EXTENSION_ID = 'ogccgaminlphbkeghldidiiimajfdpag';
const PORT_NAME = 'pedelec-sdk-external';
/** Nothing listens here: a WebSocket to it fails at once (connection refused). */
const CLOSED_PORT = 65001;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

let fake: FakePort;
/** Arguments of every `chrome.runtime.connect` call in this test. */
let connects: unknown[][];
/** Undo functions for globals a test wrapped. */
const restorers: Array<() => void> = [];
/** Tests after which a shared client was still open. */
const leaks: string[] = [];
let toolSeq = 0;

function install(): void {
  fake = installFakeChrome();
  connects = [];
  const runtime = (globalThis as any).chrome.runtime;
  const connect = runtime.connect;
  runtime.connect = (...args: unknown[]) => {
    connects.push(args);
    return connect(...args);
  };
}

const APPROVED = () => ({ installed: true, approved: true, origin: location.origin, appConnected: true });
const j = (value: unknown) => JSON.parse(JSON.stringify(value));

const postedOf = (type: string) => fake.posted.filter((m) => m.type === type);
/** Answers the end_session requests nobody answered yet (teardown posts them a microtask after removal). */
function answerEnds(): void {
  for (const req of postedOf('end_session').filter((m) => !fake.answered.has(m))) {
    fake.answered.add(req);
    fake.respond({}, req);
  }
}

/** A session-addressed message from Core, on the channel of the newest client. */
function coreEvent(sessionId: string, type: string, fields: Record<string, unknown> = {}): void {
  const channelId = fake.posted[fake.posted.length - 1]?.channelId;
  fake.emit({ channelId, type, sessionId, ...fields });
}

/** start(): approval, then create_session answered with `sessionId`. Needs provider + model in markup. */
async function started(el: PedelecSessionElement, sessionId = 's1'): Promise<PedelecSession> {
  const p = el.start();
  await fake.answer('get_approval_status', APPROVED());
  await fake.answer('create_session', { sessionId });
  return p;
}

/** end(), with its end_session answered. */
async function ended(el: PedelecSessionElement): Promise<void> {
  const ending = el.end();
  await fake.answer('end_session');
  await ending;
}

/** restart() after the old session is gone: approval, then create_session answered with `sessionId`. */
async function restarted(el: PedelecSessionElement, sessionId: string): Promise<PedelecSession> {
  const restarting = el.restart();
  await fake.answer('get_approval_status', APPROVED());
  await fake.answer('create_session', { sessionId });
  return restarting;
}

/** Starts a user turn on a started element; `outcome` settles with the turn ('done' or the error). */
async function openTurn(el: PedelecSessionElement, sessionId = 's1', text = 'hi'): Promise<{ outcome: Promise<any> }> {
  const outcome = el.sendText(text).then(
    () => 'done',
    (e) => e,
  );
  await fake.answer('send_text', {}, (m) => m.sessionId === sessionId);
  return { outcome }; // wrapped: an async function would otherwise wait for the turn itself
}

/** A tool call from the agent during an open turn; resolves to the result submitted to Core. */
async function agentCall(sessionId: string, tool: string, args: unknown): Promise<any> {
  const id = `call_${++toolSeq}`;
  coreEvent(sessionId, 'tool_call', { toolRequestId: id, tool, args });
  const submit = await fake.answer('submit_tool_result', {}, (m) => m.toolRequestId === id);
  expect(submit.sessionId).to.equal(sessionId);
  return submit.result;
}

/**
 * What a promise did by the next task: for answers that must be immediate (no bridge round trip — the
 * fake port answers nothing on its own, so only what needs no answer can settle by then).
 */
async function soon<T>(p: Promise<T>): Promise<{ settled: boolean; value?: T; error?: any }> {
  let out: { settled: boolean; value?: T; error?: any } = { settled: false };
  p.then(
    (value) => (out = { settled: true, value }),
    (error) => (out = { settled: true, error }),
  );
  await nextTask();
  return out;
}

/** An agent tool call during an open turn; resolves once its handler runs (pedelec-tool-start). */
async function toolCallStarted(el: PedelecSessionElement, sessionId: string, fields: Record<string, unknown>) {
  const started = oneEvent(el, 'pedelec-tool-start');
  coreEvent(sessionId, 'tool_call', fields);
  await started;
}

function collect<T extends Event>(target: EventTarget, type: string): T[] {
  const seen: T[] = [];
  const listener = (e: Event) => seen.push(e as T);
  target.addEventListener(type, listener);
  restorers.push(() => target.removeEventListener(type, listener));
  return seen;
}

/**
 * Wraps window.WebSocket with a recording subclass. A socket to a non-loopback name is recorded and
 * then pointed at a closed loopback port, so no test ever reaches a foreign host.
 */
function watchWebSockets(): string[] {
  const Real = window.WebSocket;
  const urls: string[] = [];
  class Watched extends Real {
    constructor(url: string | URL, protocols?: string | string[]) {
      const text = String(url);
      urls.push(text);
      super(LOOPBACK.has(new URL(text).hostname) ? text : `ws://127.0.0.1:${CLOSED_PORT}/`, protocols);
    }
  }
  window.WebSocket = Watched;
  restorers.push(() => {
    window.WebSocket = Real;
  });
  return urls;
}

function makeTool(name: string, description: string, attrs: Record<string, string> = {}): PedelecToolElement {
  const tool = document.createElement('pedelec-tool') as PedelecToolElement;
  tool.setAttribute('name', name);
  tool.setAttribute('description', description);
  for (const [k, v] of Object.entries(attrs)) tool.setAttribute(k, v);
  return tool;
}
const toolOf = (el: Element, name: string) => el.querySelector(`pedelec-tool[name="${name}"]`) as PedelecToolElement;

const statesSupported = (() => {
  try {
    return CSS.supports('selector(:state(x))');
  } catch {
    return false;
  }
})();

const persistKeyFor = (scope: string) => `pedelec-elements:v1:ext::${scope}`;

// ───────────────────────────── tests ─────────────────────────────

describe('<pedelec-session>', () => {
  beforeEach(() => {
    install();
    sessionStorage.clear();
  });

  afterEach(async function () {
    // Tear down every session this test left (teardown ends its agent session), answer the
    // end_session requests that produces, then fail anything still pending.
    for (const el of Array.from(document.querySelectorAll('pedelec-session'))) el.remove();
    await nextTask();
    answerEnds();
    await nextTask();
    fake.disconnect();
    await nextTask();
    restorers
      .splice(0)
      .reverse()
      .forEach((restore) => restore());
    uninstallFakeChrome();
    sessionStorage.clear();
    if (openClientCount() !== 0) leaks.push(this.currentTest?.fullTitle() ?? '?');
  });

  // ─────────────── bridge ───────────────

  describe('bridge', () => {
    for (const bridge of [undefined, '']) {
      it(`${bridge === undefined ? 'absent' : 'empty'} bridge connects to the extension with the default id`, async () => {
        const el = await fixture<PedelecSessionElement>(
          bridge === undefined
            ? html`<pedelec-session provider="codex" model="m"></pedelec-session>`
            : html`<pedelec-session bridge="" provider="codex" model="m"></pedelec-session>`,
        );
        const ws = watchWebSockets();
        await started(el);
        expect(connects).to.deep.equal([[DEFAULT_EXTENSION_ID, { name: PORT_NAME }]]);
        expect(ws).to.deep.equal([]);
        expect(el.status).to.equal('idle');
      });
    }

    it('extension-id overrides the extension id', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session
          extension-id="abcdefghijklmnopabcdefghijklmnop"
          provider="codex"
          model="m"
        ></pedelec-session>`,
      );
      await started(el);
      expect(connects).to.deep.equal([['abcdefghijklmnopabcdefghijklmnop', { name: PORT_NAME }]]);
    });

    it('a loopback ws:// bridge in markup uses a WebSocket; an unreachable Core fails start with BRIDGE_UNAVAILABLE', async () => {
      const ws = watchWebSockets();
      const url = `ws://127.0.0.1:${CLOSED_PORT}/bridge`;
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session bridge=${url} provider="codex" model="m"></pedelec-session>`,
      );
      const errors = collect<PedelecErrorEvent>(el, 'pedelec-error');
      const error = await el.start().then(
        () => null,
        (e) => e,
      );
      expect(ws).to.deep.equal([url]);
      expect(connects).to.deep.equal([]);
      expect(error).to.include({ code: 'BRIDGE_UNAVAILABLE', message: `Development Core not reachable at ${url}` });
      expect(el.status).to.equal('error');
      expect(el.getAttribute('status')).to.equal('error');
      expect(el.session).to.equal(null);
      expect(errors.map((e) => e.detail.error.code)).to.deep.equal(['BRIDGE_UNAVAILABLE']);
    });

    it('localhost and [::1] are loopback hosts too', async () => {
      const ws = watchWebSockets();
      const urls = [`ws://localhost:${CLOSED_PORT}/bridge`, `ws://[::1]:${CLOSED_PORT}/bridge`];
      for (const url of urls) {
        const el = await fixture<PedelecSessionElement>(
          html`<pedelec-session bridge=${url} provider="codex" model="m"></pedelec-session>`,
        );
        const error = await el.start().then(
          () => null,
          (e) => e,
        );
        expect(error?.code, url).to.equal('BRIDGE_UNAVAILABLE');
        el.remove();
      }
      expect(ws).to.deep.equal(urls);
      expect(connects).to.deep.equal([]);
    });

    for (const foreign of [
      'ws://evil.example/bridge',
      'wss://evil.example/bridge',
      'ws://localhost.evil.example/bridge',
      'ws://127.0.0.1@evil.example/bridge',
    ]) {
      it(`a foreign bridge in markup is refused without any connection: ${foreign}`, async () => {
        const ws = watchWebSockets();
        const el = await fixture<PedelecSessionElement>(
          html`<pedelec-session bridge=${foreign} provider="codex" model="m"></pedelec-session>`,
        );
        const errors = collect<PedelecErrorEvent>(el, 'pedelec-error');
        const outcome = await soon(el.start());
        expect(outcome.settled, 'start() settles at once').to.equal(true);
        expect(outcome.error?.code).to.equal('INVALID_INPUT');
        expect(errors.map((e) => e.detail.error.code)).to.deep.equal(['INVALID_INPUT']);
        expect(el.status).to.equal('error');
        expect(el.getAttribute('status')).to.equal('error');
        expect(ws, 'no WebSocket constructed').to.deep.equal([]);
        expect(connects, 'no extension port opened').to.deep.equal([]);
        expect(fake.posted).to.deep.equal([]);
      });
    }

    it('the same foreign URL set through the bridge property from script is accepted', async () => {
      const ws = watchWebSockets();
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      el.bridge = 'ws://evil.example/bridge';
      const error = await el.start().then(
        () => null,
        (e) => e,
      );
      expect(ws).to.deep.equal(['ws://evil.example/bridge']);
      expect(error?.code).to.not.equal('INVALID_INPUT');
      expect(connects).to.deep.equal([]);
    });

    for (const [how, value] of [
      ['attribute', `http://127.0.0.1:${CLOSED_PORT}/bridge`],
      ['attribute', 'not a url'],
      ['property', `https://127.0.0.1:${CLOSED_PORT}/bridge`],
      ['property', 'javascript:alert(1)'],
    ] as const) {
      it(`a non-ws bridge (${how} "${value}") → INVALID_INPUT, no connection`, async () => {
        const ws = watchWebSockets();
        const el = await fixture<PedelecSessionElement>(
          how === 'attribute'
            ? html`<pedelec-session bridge=${value} provider="codex" model="m"></pedelec-session>`
            : html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
        );
        if (how === 'property') el.bridge = value;
        const errors = collect<PedelecErrorEvent>(el, 'pedelec-error');
        const outcome = await soon(el.start());
        expect(outcome.error?.code).to.equal('INVALID_INPUT');
        expect(errors.map((e) => e.detail.error.code)).to.deep.equal(['INVALID_INPUT']);
        expect(el.status).to.equal('error');
        expect(ws).to.deep.equal([]);
        expect(connects).to.deep.equal([]);
      });
    }

    it('checkAvailability() with a refused bridge resolves (never rejects) with the INVALID_INPUT error', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session bridge="ws://evil.example/bridge"></pedelec-session>`,
      );
      const availability = await el.checkAvailability();
      expect(availability.available).to.equal(false);
      expect(availability.error?.code).to.equal('INVALID_INPUT');
      expect(connects).to.deep.equal([]);
    });
  });

  // ─────────────── shared client ───────────────

  describe('shared client', () => {
    it('two sessions with the same bridge share one client and one port, closed when the last releases it', async () => {
      const [a, b] = await twoSessions();
      await started(a, 's1');
      await started(b, 's2');
      expect(a.client).to.not.equal(null);
      expect(a.client).to.equal(b.client);
      expect(connects).to.have.length(1);

      a.remove();
      await fake.answer('end_session', {}, (m) => m.sessionId === 's1');
      await nextTask();
      expect(fake.disconnectCalls, 'still held by b').to.equal(0);
      expect(b.status).to.equal('idle');
      await openTurn(b, 's2');

      b.remove();
      await fake.answer('end_session', {}, (m) => m.sessionId === 's2');
      await nextTask(); // the last holder released the client
      expect(fake.disconnectCalls).to.equal(1);
    });

    it('a different extension-id gets its own client', async () => {
      const root = await fixture<HTMLElement>(
        html`<div>
          <pedelec-session id="a" provider="codex" model="m"></pedelec-session>
          <pedelec-session
            id="c"
            extension-id="abcdefghijklmnopabcdefghijklmnop"
            provider="codex"
            model="m"
          ></pedelec-session>
        </div>`,
      );
      const a = root.querySelector('#a') as PedelecSessionElement;
      const c = root.querySelector('#c') as PedelecSessionElement;
      await started(a, 's1');
      await started(c, 's2');
      expect(a.client).to.not.equal(c.client);
      expect(connects.map((args) => args[0])).to.deep.equal([DEFAULT_EXTENSION_ID, 'abcdefghijklmnopabcdefghijklmnop']);
    });

    it('two sessions with the same dev bridge open one WebSocket', async () => {
      const ws = watchWebSockets();
      const url = `ws://127.0.0.1:${CLOSED_PORT}/shared`;
      const root = await fixture<HTMLElement>(
        html`<div>
          <pedelec-session id="a" bridge=${url}></pedelec-session>
          <pedelec-session id="b" bridge=${url}></pedelec-session>
        </div>`,
      );
      const a = root.querySelector('#a') as PedelecSessionElement;
      const b = root.querySelector('#b') as PedelecSessionElement;
      const [ra, rb] = await Promise.all([a.checkAvailability(), b.checkAvailability()]);
      expect(ws).to.deep.equal([url]);
      expect(a.client).to.equal(b.client);
      expect(ra.available).to.equal(false);
      expect(rb.available).to.equal(false);
    });
  });

  // ─────────────── status ───────────────

  describe('status', () => {
    it('is inactive at first, with no status attribute, nothing posted and no session', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"
          ><pedelec-tool name="t" description="T."></pedelec-tool
        ></pedelec-session>`,
      );
      await nextTask(); // nothing happens by itself
      expect(el.status).to.equal('inactive');
      expect(el.hasAttribute('status')).to.equal(false);
      expect(el.hasAttribute('approval')).to.equal(false);
      expect(el.session).to.equal(null);
      expect(el.sessionId).to.equal(null);
      expect(fake.posted).to.deep.equal([]);
    });

    it('exposes inactive as a custom state before anything happened', async function () {
      if (!statesSupported) this.skip();
      const el = await fixture<PedelecSessionElement>(html`<pedelec-session></pedelec-session>`);
      expect(el.matches(':state(inactive)')).to.equal(true);
    });

    it('goes starting → core statuses, reflected as the attribute and as custom states', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"
          ><pedelec-tool name="t" description="T."></pedelec-tool
        ></pedelec-session>`,
      );
      toolOf(el, 't').handler = () => ({ done: true });
      const statuses = collect<PedelecStatusEvent>(el, 'pedelec-status');
      const check = (status: string) => {
        expect(el.status).to.equal(status);
        expect(el.getAttribute('status')).to.equal(status);
        if (statesSupported) {
          expect(el.matches(`:state(${status})`), `:state(${status})`).to.equal(true);
          for (const other of ['inactive', 'starting', 'idle', 'running', 'waiting_tool_result', 'ended', 'error']) {
            if (other !== status) expect(el.matches(`:state(${other})`), `not :state(${other})`).to.equal(false);
          }
        }
      };

      const p = el.start();
      await fake.request('get_approval_status');
      check('starting');
      await fake.answer('get_approval_status', APPROVED());
      await fake.request('create_session');
      check('starting');
      await fake.answer('create_session', { sessionId: 's1' });
      await p;
      check('idle');
      expect(el.sessionId).to.equal('s1');
      expect(el.hasAttribute('sessionid')).to.equal(false);
      expect(el.hasAttribute('session-id'), 'inputs are never written').to.equal(false);

      const { outcome: turn } = await openTurn(el);
      check('running');
      coreEvent('s1', 'tool_call', { toolRequestId: 'c1', tool: 't', args: {} });
      check('waiting_tool_result');
      await fake.answer('submit_tool_result');
      coreEvent('s1', 'status_changed', { status: 'running' });
      check('running');
      coreEvent('s1', 'status_changed', { status: 'idle' });
      expect(await turn).to.equal('done');
      check('idle');

      await ended(el);
      check('ended');

      expect(statuses.map((e) => e.detail.status)).to.deep.equal([
        'starting',
        'idle',
        'running',
        'waiting_tool_result',
        'running',
        'idle',
        'ended',
      ]);
      expect(statuses.map((e) => e.detail.previousStatus)).to.deep.equal([
        'inactive',
        'starting',
        'idle',
        'running',
        'waiting_tool_result',
        'running',
        'idle',
      ]);
    });

    it('reflects approval="pending" while the origin awaits approval, and removes it after', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const p = el.start();
      await fake.answer('get_approval_status', {
        installed: true,
        approved: false,
        origin: location.origin,
        appConnected: true,
      });
      await fake.request('create_session');
      expect(el.getAttribute('approval')).to.equal('pending');
      expect(el.status).to.equal('starting');
      await fake.answer('create_session', { sessionId: 's1' });
      await p;
      expect(el.hasAttribute('approval')).to.equal(false);
      expect(el.status).to.equal('idle');
    });

    it('no approval attribute when the origin is already approved', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const p = el.start();
      await fake.answer('get_approval_status', APPROVED());
      await fake.request('create_session');
      expect(el.hasAttribute('approval')).to.equal(false);
      await fake.answer('create_session', { sessionId: 's1' });
      await p;
    });

    it('while approval is pending, create_session may outlive bridge-timeout-ms (held for the user)', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session bridge-timeout-ms="30" provider="codex" model="m"></pedelec-session>`,
      );
      const p = el.start();
      const outcome = soon(p);
      await fake.answer('get_approval_status', {
        installed: true,
        approved: false,
        origin: location.origin,
        appConnected: true,
      });
      await fake.request('create_session');
      await aTimeout(150); // time is the subject: well past the 30 ms bridge timeout
      expect((await outcome).settled, 'create_session still waiting for the user').to.equal(false);
      await fake.answer('create_session', { sessionId: 's1' });
      await p;
      expect(el.status).to.equal('idle');
    });

    it('a failed start → status error, session null, pedelec-error', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const errors = collect<PedelecErrorEvent>(el, 'pedelec-error');
      const p = el.start().then(
        () => null,
        (e) => e,
      );
      await fake.answer('get_approval_status', APPROVED());
      await fake.refuse('create_session', { code: 'PROVIDER_UNAVAILABLE', message: 'codex is not available' });
      const error = await p;
      expect(error).to.include({ code: 'PROVIDER_UNAVAILABLE' });
      expect(el.status).to.equal('error');
      expect(el.getAttribute('status')).to.equal('error');
      expect(el.session).to.equal(null);
      expect(el.sessionId).to.equal(null);
      expect(el.hasAttribute('approval')).to.equal(false);
      expect(errors.map((e) => e.detail.error.code)).to.deep.equal(['PROVIDER_UNAVAILABLE']);
      if (statesSupported) expect(el.matches(':state(error)')).to.equal(true);
    });
  });

  // ─────────────── lazy start ───────────────

  describe('start', () => {
    it('nothing is posted at connection without autostart', async () => {
      await fixture<PedelecSessionElement>(html`<pedelec-session provider="codex" model="m"></pedelec-session>`);
      await nextTask();
      expect(fake.posted).to.deep.equal([]);
    });

    it('with autostart, get_approval_status is posted on connection', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session autostart provider="codex" model="m"></pedelec-session>`,
      );
      expect(fake.posted.map((m) => m.type)).to.deep.equal(['get_approval_status']);
      expect(el.status).to.equal('starting');
      const ready = oneEvent(el, 'pedelec-ready');
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's1' });
      expect((await ready).detail.sessionId).to.equal('s1');
    });

    it('start() while starting returns the same promise; one approval and one create', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const first = el.start();
      expect(el.start()).to.equal(first);
      await fake.answer('get_approval_status', APPROVED());
      await fake.request('create_session');
      expect(el.start()).to.equal(first);
      await fake.answer('create_session', { sessionId: 's1' });
      const session = await first;
      expect(await el.start()).to.equal(session);
      expect(el.session).to.equal(session);
      expect(postedOf('get_approval_status')).to.have.length(1);
      expect(postedOf('create_session')).to.have.length(1);
    });

    it('sendText() starts lazily, then sends the text', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const turn = el.sendText('hello');
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's1' });
      const send = await fake.answer('send_text');
      expect(send).to.include({ sessionId: 's1', text: 'hello' });
      coreEvent('s1', 'done');
      await turn;
    });

    it('prepare() starts lazily, then prepares', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const prepared = el.prepare();
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's1' });
      const prepare = await fake.answer('prepare_session');
      expect(prepare.sessionId).to.equal('s1');
      coreEvent('s1', 'done');
      await prepared;
    });

    it('sends the declared manifest and provider/model in create_session', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m" guidance="Be brief.">
          <pedelec-tool name="t" description="T." timeout-ms="5000"></pedelec-tool>
        </pedelec-session>`,
      );
      const p = el.start();
      await fake.answer('get_approval_status', APPROVED());
      const create = await fake.answer('create_session', { sessionId: 's1' });
      await p;
      expect(create.input).to.deep.include({ provider: 'codex', model: 'm', autoEndOnDisconnect: true });
      expect(create.input.skills).to.deep.equal({
        guidance: 'Be brief.',
        tools: [{ name: 't', description: 'T.', timeoutMs: 5000, argsSchema: { type: 'object', properties: {} } }],
      });
    });
  });

  // ─────────────── persist ───────────────

  describe('persist', () => {
    const persisted = (description = 'Double n.') =>
      html`<pedelec-session id="chat" persist provider="codex" model="m">
        <pedelec-tool name="double" description=${description}>
          <pedelec-arg name="n" type="integer" required></pedelec-arg>
        </pedelec-tool>
      </pedelec-session>`;

    /** A reload: the old page goes away (its element too), and a new fake bridge comes up. */
    async function reload(el: PedelecSessionElement): Promise<void> {
      el.remove();
      await nextTask(); // teardown ran (a microtask after removal)
      expect(postedOf('end_session'), 'a persisted session is not ended by unload').to.deep.equal([]);
      uninstallFakeChrome();
      install();
    }

    it('creates with autoEndOnDisconnect: false and records the session in sessionStorage', async () => {
      const el = await fixture<PedelecSessionElement>(persisted());
      const p = el.start();
      await fake.answer('get_approval_status', APPROVED());
      const create = await fake.answer('create_session', { sessionId: 's1' });
      await p;
      expect(create.input.autoEndOnDisconnect).to.equal(false);
      const record = JSON.parse(sessionStorage.getItem(persistKeyFor('chat')) ?? 'null');
      expect(record).to.include({ sessionId: 's1', provider: 'codex', model: 'm' });
      expect(record.manifestHash).to.be.a('string').and.not.equal('');
    });

    it('without an id, the key uses location.pathname', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session persist provider="codex" model="m"></pedelec-session>`,
      );
      await started(el);
      expect(JSON.parse(sessionStorage.getItem(persistKeyFor(location.pathname)) ?? 'null')).to.include({
        sessionId: 's1',
      });
    });

    it('without persist, nothing is stored and the session ends with the page', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session id="chat" provider="codex" model="m"></pedelec-session>`,
      );
      const p = el.start();
      await fake.answer('get_approval_status', APPROVED());
      const create = await fake.answer('create_session', { sessionId: 's1' });
      await p;
      expect(create.input.autoEndOnDisconnect).to.equal(true);
      expect(sessionStorage.length).to.equal(0);
    });

    it('a reload resumes the recorded session and answers its tool calls through the declared handler', async () => {
      const el1 = await fixture<PedelecSessionElement>(persisted());
      await started(el1, 's1');
      await reload(el1);

      const el2 = await fixture<PedelecSessionElement>(persisted());
      toolOf(el2, 'double').handler = ({ n }: { n: number }) => ({ doubled: n * 2 });
      const ready = oneEvent(el2, 'pedelec-ready');
      const p = el2.start();
      await fake.answer('get_approval_status', APPROVED());
      const resume = await fake.answer('resume_session', { sessionId: 's1' });
      const session = await p;
      expect(resume.sessionId).to.equal('s1');
      expect(postedOf('create_session')).to.deep.equal([]);
      expect(session.sessionId).to.equal('s1');
      expect(el2.sessionId).to.equal('s1');
      expect((await ready).detail).to.deep.equal({ sessionId: 's1', provider: 'codex', model: 'm', resumed: true });

      await openTurn(el2, 's1');
      expect(await agentCall('s1', 'double', { n: 21 })).to.deep.equal({ doubled: 42 });
      expect((await agentCall('s1', 'double', { n: 'x' })).error.code, 'the validator is re-attached too').to.equal(
        'TOOL_ARGS_INVALID',
      );
    });

    it('a reload with a changed manifest ends the old session and creates a fresh one (resumed: false)', async () => {
      const el1 = await fixture<PedelecSessionElement>(persisted());
      await started(el1, 's1');
      const oldHash = JSON.parse(sessionStorage.getItem(persistKeyFor('chat'))!).manifestHash;
      await reload(el1);

      const el2 = await fixture<PedelecSessionElement>(persisted('Double the number n.'));
      const ready = oneEvent(el2, 'pedelec-ready');
      const p = el2.start();
      await fake.answer('get_approval_status', APPROVED());
      const create = await fake.answer('create_session', { sessionId: 's2' });
      await p;
      expect(create.input.skills.tools[0].description).to.equal('Double the number n.');
      expect((await ready).detail).to.include({ sessionId: 's2', resumed: false });
      const record = JSON.parse(sessionStorage.getItem(persistKeyFor('chat'))!);
      expect(record.sessionId).to.equal('s2');
      expect(record.manifestHash).to.not.equal(oldHash);
      // The old session is ended, not left running in Core.
      const old = await fake.answer('resume_session', { sessionId: 's1' }, (m) => m.sessionId === 's1');
      expect(old.sessionId).to.equal('s1');
      await fake.request('end_session', (m) => m.sessionId === 's1');
    });

    it('a failed resume creates a fresh session (resumed: false)', async () => {
      const el1 = await fixture<PedelecSessionElement>(persisted());
      await started(el1, 's1');
      await reload(el1);

      const el2 = await fixture<PedelecSessionElement>(persisted());
      const ready = oneEvent(el2, 'pedelec-ready');
      const p = el2.start();
      await fake.answer('get_approval_status', APPROVED());
      await fake.refuse('resume_session', { code: 'SESSION_NOT_FOUND', message: 'gone' });
      await fake.answer('create_session', { sessionId: 's2' });
      await p;
      expect((await ready).detail).to.include({ sessionId: 's2', resumed: false });
      expect(JSON.parse(sessionStorage.getItem(persistKeyFor('chat'))!).sessionId).to.equal('s2');
    });

    it('end() deletes the record', async () => {
      const el = await fixture<PedelecSessionElement>(persisted());
      await started(el);
      expect(sessionStorage.getItem(persistKeyFor('chat'))).to.not.equal(null);
      await ended(el);
      expect(sessionStorage.getItem(persistKeyFor('chat'))).to.equal(null);
    });

    it('restart() deletes the record (and records the new session)', async () => {
      const el = await fixture<PedelecSessionElement>(persisted());
      await started(el, 's1');
      const restarting = el.restart();
      await fake.answer('end_session', {}, (m) => m.sessionId === 's1');
      await fake.request('get_approval_status');
      expect(sessionStorage.getItem(persistKeyFor('chat'))).to.equal(null);
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's2' });
      await restarting;
      expect(JSON.parse(sessionStorage.getItem(persistKeyFor('chat'))!).sessionId).to.equal('s2');
    });

    it('two persisted sessions with the same key → INVALID_INPUT', async () => {
      const root = await fixture<HTMLElement>(
        html`<div>
          <pedelec-session persist provider="codex" model="m"></pedelec-session>
          <pedelec-session persist provider="codex" model="m"></pedelec-session>
        </div>`,
      );
      const [a, b] = Array.from(root.querySelectorAll('pedelec-session')) as PedelecSessionElement[];
      // Whether the first one starts or is refused too is left open here (see the next test).
      const first = a!.start().then(
        () => null,
        (e) => e,
      );
      await nextTask();
      if (fake.posted.some((m) => m.type === 'get_approval_status' && !fake.answered.has(m))) {
        await fake.answer('get_approval_status', APPROVED());
        await fake.answer('create_session', { sessionId: 's1' });
      }
      const firstError = await first;
      if (firstError) expect(firstError.code).to.equal('INVALID_INPUT');

      const errors = collect<PedelecErrorEvent>(b!, 'pedelec-error');
      const creates = postedOf('create_session').length;
      const second = await soon(b!.start());
      expect(second.settled, 'refused at once').to.equal(true);
      expect(second.error?.code).to.equal('INVALID_INPUT');
      expect(errors.map((e) => e.detail.error.code)).to.deep.equal(['INVALID_INPUT']);
      expect(b!.status).to.equal('error');
      expect(postedOf('create_session')).to.have.length(creates);
    });

    it('two persisted sessions with the same key → INVALID_INPUT even for the first one to start', async () => {
      const root = await fixture<HTMLElement>(
        html`<div>
          <pedelec-session persist provider="codex" model="m"></pedelec-session>
          <pedelec-session persist provider="codex" model="m"></pedelec-session>
        </div>`,
      );
      const [a] = Array.from(root.querySelectorAll('pedelec-session')) as PedelecSessionElement[];
      const outcome = await soon(a!.start());
      expect(outcome.settled, 'refused at once, before anything is posted').to.equal(true);
      expect(outcome.error?.code).to.equal('INVALID_INPUT');
      expect(fake.posted).to.deep.equal([]);
    });

    it('two persisted sessions with distinct ids both start', async () => {
      const root = await fixture<HTMLElement>(
        html`<div>
          <pedelec-session id="one" persist provider="codex" model="m"></pedelec-session>
          <pedelec-session id="two" persist provider="codex" model="m"></pedelec-session>
        </div>`,
      );
      const [a, b] = Array.from(root.querySelectorAll('pedelec-session')) as PedelecSessionElement[];
      await started(a!, 's1');
      await started(b!, 's2');
      expect(JSON.parse(sessionStorage.getItem(persistKeyFor('one'))!).sessionId).to.equal('s1');
      expect(JSON.parse(sessionStorage.getItem(persistKeyFor('two'))!).sessionId).to.equal('s2');
    });
  });

  // ─────────────── other inputs ───────────────

  describe('inputs', () => {
    it('session-id resumes that id', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session session-id="abc" provider="codex" model="m"></pedelec-session>`,
      );
      const ready = oneEvent(el, 'pedelec-ready');
      const p = el.start();
      await fake.answer('get_approval_status', APPROVED());
      const resume = await fake.answer('resume_session', { sessionId: 'abc' });
      await p;
      expect(resume.sessionId).to.equal('abc');
      expect(postedOf('create_session')).to.deep.equal([]);
      expect(el.sessionId).to.equal('abc');
      expect((await ready).detail).to.include({ sessionId: 'abc', resumed: true });
    });

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

    it('bridge-timeout-ms="20" makes an unanswered create_session reject with SDK_BRIDGE_TIMEOUT', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session bridge-timeout-ms="20" provider="codex" model="m"></pedelec-session>`,
      );
      const p = el.start().then(
        () => null,
        (e) => e,
      );
      await fake.answer('get_approval_status', APPROVED());
      await fake.request('create_session');
      const error = await p; // time is the subject: the 20 ms timeout
      expect(error.code).to.equal('SDK_BRIDGE_TIMEOUT');
      expect(error.details).to.include({ type: 'create_session' });
      expect(el.status).to.equal('error');
      expect(el.session).to.equal(null);
    });
  });

  // ─────────────── methods ───────────────

  describe('methods', () => {
    const withSlowTool = () =>
      html`<pedelec-session provider="codex" model="m">
        <pedelec-tool name="slow" description="Slow."></pedelec-tool>
        <pedelec-tool name="quick" description="Quick."></pedelec-tool>
      </pedelec-session>`;

    it('end(): sendText() and prepare() then reject SESSION_ENDED until start()', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      const ended = oneEvent(el, 'pedelec-ended');
      const ending = el.end();
      const end = await fake.answer('end_session');
      await ending;
      await ended;
      expect(end.sessionId).to.equal('s1');
      expect(el.status).to.equal('ended');

      const before = fake.posted.length;
      expect((await soon(el.sendText('x'))).error?.code).to.equal('SESSION_ENDED');
      expect((await soon(el.prepare())).error?.code).to.equal('SESSION_ENDED');
      expect(fake.posted.length, 'nothing posted, no implicit restart').to.equal(before);

      await started(el, 's2');
      expect(el.sessionId).to.equal('s2');
      await openTurn(el, 's2');
    });

    it('end(): restart() also makes sendText() work again', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      await ended(el);
      await restarted(el, 's2');
      await openTurn(el, 's2');
    });

    it('restart() during a turn rejects it SESSION_ENDED, aborts handlers, ends the old session and applies changes', async () => {
      const el = await fixture<PedelecSessionElement>(withSlowTool());
      let signal: AbortSignal | undefined;
      toolOf(el, 'slow').handler = (_args, ctx) => {
        signal = ctx.signal;
        return new Promise(() => {});
      };
      await started(el, 's1');
      const { outcome: turn } = await openTurn(el, 's1');
      await toolCallStarted(el, 's1', { toolRequestId: 'c1', tool: 'slow', args: {} });
      expect(signal?.aborted).to.equal(false);

      const changed = oneEvent(el, 'pedelec-tools-changed');
      toolOf(el, 'quick').setAttribute('description', 'Quicker.');
      await changed;
      expect(el.toolsStale).to.equal(true);

      const changes = collect<PedelecToolsChangedEvent>(el, 'pedelec-tools-changed');
      const restarting = el.restart();
      const end = await fake.answer('end_session');
      expect(end.sessionId).to.equal('s1');
      const turnOutcome: any = await turn;
      expect(turnOutcome?.code).to.equal('SESSION_ENDED');
      expect(signal?.aborted).to.equal(true);

      await fake.answer('get_approval_status', APPROVED());
      const create = await fake.answer('create_session', { sessionId: 's2' });
      const session = await restarting;
      expect(session.sessionId).to.equal('s2');
      expect(el.sessionId).to.equal('s2');
      expect(el.toolsStale).to.equal(false);
      expect(create.input.skills.tools.map((t: any) => t.description)).to.deep.equal(['Slow.', 'Quicker.']);
      await nextTask();
      expect(changes).to.deep.equal([]);
      // The end_session for the old session went out before the new one was created.
      expect(fake.posted.indexOf(end)).to.be.lessThan(fake.posted.indexOf(create));
    });

    it('restart() after a bridge disconnect reconnects with a new client', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      const oldClient = el.client;
      const oldChannel = fake.posted[0]!.channelId;
      fake.disconnect();
      await nextTask();
      expect(el.status).to.equal('error');
      const errors = collect<PedelecErrorEvent>(el, 'pedelec-error');

      const restarting = el.restart();
      const approval = await fake.answer('get_approval_status', APPROVED());
      const create = await fake.answer('create_session', { sessionId: 's2' });
      await restarting;
      expect(connects).to.have.length(2);
      expect(el.client).to.not.equal(null);
      expect(el.client).to.not.equal(oldClient);
      expect(approval.channelId).to.not.equal(oldChannel);
      expect(create.channelId).to.equal(approval.channelId);
      expect(el.sessionId).to.equal('s2');
      expect(el.status).to.equal('idle');
      expect(errors.length, 'the failed end of the old session is reported').to.be.greaterThan(0);
      const { outcome: turn } = await openTurn(el, 's2');
      coreEvent('s2', 'done');
      expect(await turn).to.equal('done');
    });

    it('checkAvailability() passes the client answer through', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const ok = el.checkAvailability();
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('get_settings', { defaultProvider: 'codex', defaultModels: { codex: 'm' } });
      expect(await ok).to.deep.equal({
        available: true,
        extension: { available: true },
        approval: { approved: true, origin: location.origin },
        desktop: { available: true, launchAttempted: true },
      });
      const pending = el.checkAvailability();
      await fake.answer('get_approval_status', {
        installed: true,
        approved: false,
        origin: location.origin,
        appConnected: false,
      });
      expect(await pending).to.deep.equal({
        available: false,
        extension: { available: true },
        approval: { approved: false, origin: location.origin },
        desktop: { available: false, launchAttempted: true },
      });
      expect(el.status).to.equal('inactive');
      expect(postedOf('create_session')).to.deep.equal([]);
    });
  });

  // ─────────────── invoke ───────────────

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

    it('its ctx has source "sdk", via "local", no turnKind, ids local_<n>; its events carry local: true', async () => {
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
      expect(starts.map((e) => e.detail.local)).to.deep.equal([true, true]);
      expect(results.map((e) => e.detail.local)).to.deep.equal([true, true]);
      expect(results.map((e) => e.detail.ok)).to.deep.equal([true, true]);
      expect(starts[0]!.detail.context).to.equal(contexts[0]);
    });

    it('agent calls carry local: false', async () => {
      const el = await fixture<PedelecSessionElement>(kit());
      wire(el);
      const starts = collect<PedelecToolStartEvent>(el, 'pedelec-tool-start');
      const results = collect<PedelecToolResultEvent>(el, 'pedelec-tool-result');
      await started(el);
      await openTurn(el);
      await agentCall('s1', 'ok', {});
      expect(starts.map((e) => e.detail.local)).to.deep.equal([false]);
      expect(results.map((e) => e.detail.local)).to.deep.equal([false]);
    });

    it('its signal option aborts ctx.signal', async () => {
      const el = await fixture<PedelecSessionElement>(kit());
      toolOf(el, 'ok').handler = (_args, ctx) =>
        new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve({ aborted: true })));
      const controller = new AbortController();
      const running = oneEvent(el, 'pedelec-tool-start');
      const result = el.invoke('ok', {}, { signal: controller.signal });
      await running; // its handler listens to ctx.signal
      controller.abort();
      expect(await result).to.deep.equal({ ok: true, result: { aborted: true } });
    });
  });

  // ─────────────── handler resolution ───────────────

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

  // ─────────────── changes after start ───────────────

  describe('changes after start', () => {
    const base = () =>
      html`<pedelec-session provider="codex" model="m" guidance="g">
        <pedelec-tool name="a" description="A."><pedelec-arg name="n" type="integer"></pedelec-arg></pedelec-tool>
        <pedelec-tool name="b" description="B."></pedelec-tool>
      </pedelec-session>`;
    type Changes = { added: string[]; removed: string[]; changed: string[]; config: string[] };
    const none: Changes = { added: [], removed: [], changed: [], config: [] };

    const scenarios: Array<[string, (el: PedelecSessionElement) => void, Partial<Changes>]> = [
      ['adding a tool', (el) => el.append(makeTool('c', 'C.')), { added: ['c'] }],
      ['removing a tool', (el) => toolOf(el, 'b').remove(), { removed: ['b'] }],
      ['disabling a tool', (el) => (toolOf(el, 'b').disabled = true), { removed: ['b'] }],
      ['changing a description', (el) => toolOf(el, 'a').setAttribute('description', 'A!'), { changed: ['a'] }],
      [
        'changing an arg',
        (el) => toolOf(el, 'a').querySelector('pedelec-arg')!.setAttribute('type', 'string'),
        { changed: ['a'] },
      ],
      ['changing timeout-ms', (el) => toolOf(el, 'b').setAttribute('timeout-ms', '1000'), { changed: ['b'] }],
      [
        'adding a JS tool',
        (el) => (el.tools = [{ name: 'js', description: 'JS.', argsSchema: { type: 'object', properties: {} } }]),
        { added: ['js'] },
      ],
      ['changing provider', (el) => el.setAttribute('provider', 'claude'), { config: ['provider'] }],
      ['changing model', (el) => el.setAttribute('model', 'm2'), { config: ['model'] }],
      ['changing guidance', (el) => el.setAttribute('guidance', 'g2'), { config: ['guidance'] }],
      [
        'changing the bridge attribute',
        (el) => el.setAttribute('bridge', `ws://127.0.0.1:${CLOSED_PORT}/other`),
        { config: ['bridge'] },
      ],
      [
        'changing the bridge property',
        (el) => (el.bridge = `ws://127.0.0.1:${CLOSED_PORT}/other`),
        { config: ['bridge'] },
      ],
      ['setting novalidate', (el) => el.toggleAttribute('novalidate', true), { config: ['novalidate'] }],
      [
        'several changes in one task',
        (el) => {
          el.append(makeTool('c', 'C.'));
          el.append(makeTool('d', 'D.'));
          toolOf(el, 'a').setAttribute('description', 'A!');
          el.setAttribute('provider', 'claude');
          el.setAttribute('model', 'm2');
        },
        { added: ['c', 'd'], changed: ['a'], config: ['provider', 'model'] },
      ],
    ];

    for (const [name, act, expected] of scenarios) {
      it(`${name} sets toolsStale and fires one pedelec-tools-changed`, async () => {
        const el = await fixture<PedelecSessionElement>(base());
        await started(el);
        expect(el.toolsStale).to.equal(false);
        const changes = collect<PedelecToolsChangedEvent>(el, 'pedelec-tools-changed');
        const changed = oneEvent(el, 'pedelec-tools-changed');
        act(el);
        await changed;
        await nextTask(); // and no second one
        expect(changes.map((e) => j(e.detail))).to.deep.equal([{ ...none, ...expected }]);
        expect(el.toolsStale).to.equal(true);
        expect(changes[0]).to.be.instanceOf(PedelecToolsChangedEvent);
      });
    }

    for (const [name, act] of [
      ['a new handler', (el: PedelecSessionElement) => (toolOf(el, 'a').handler = () => ({}))],
      ['the same value again', (el: PedelecSessionElement) => toolOf(el, 'a').setAttribute('description', 'A.')],
      [
        'a change reverted in the same task',
        (el: PedelecSessionElement) => {
          toolOf(el, 'a').setAttribute('description', 'A!');
          el.setAttribute('provider', 'claude');
          toolOf(el, 'a').setAttribute('description', 'A.');
          el.setAttribute('provider', 'codex');
        },
      ],
    ] as const) {
      it(`${name} is not a change`, async () => {
        const el = await fixture<PedelecSessionElement>(base());
        await started(el);
        const changes = collect<PedelecToolsChangedEvent>(el, 'pedelec-tools-changed');
        act(el);
        await nextTask();
        expect(changes).to.deep.equal([]);
        expect(el.toolsStale).to.equal(false);
      });
    }

    it('before start, changes fire no pedelec-tools-changed', async () => {
      const el = await fixture<PedelecSessionElement>(base());
      const changes = collect<PedelecToolsChangedEvent>(el, 'pedelec-tools-changed');
      el.append(makeTool('c', 'C.'));
      el.setAttribute('provider', 'claude');
      await nextTask();
      expect(changes).to.deep.equal([]);
      expect(el.toolsStale).to.equal(false);
    });

    it('a call to a removed or disabled tool gets TOOL_UNAVAILABLE before any handler runs', async () => {
      const el = await fixture<PedelecSessionElement>(base());
      const ran: string[] = [];
      const a = toolOf(el, 'a');
      const b = toolOf(el, 'b');
      a.handler = () => ran.push('a handler');
      b.handler = () => ran.push('b handler');
      el.onTool('a', () => ran.push('a named'));
      el.fallback = () => ran.push('fallback');
      const listener = () => ran.push('event');
      document.addEventListener('pedelec-tool-call', listener);
      restorers.push(() => document.removeEventListener('pedelec-tool-call', listener));
      const results = collect<PedelecToolResultEvent>(el, 'pedelec-tool-result');
      await started(el);
      await openTurn(el);

      const changed = oneEvent(el, 'pedelec-tools-changed');
      a.remove();
      b.disabled = true;
      await changed;
      const gone = await agentCall('s1', 'a', { n: 1 });
      expect(gone.error).to.deep.include({ code: 'TOOL_UNAVAILABLE' });
      expect(gone.error.details).to.deep.include({ tool: 'a' });
      const off = await agentCall('s1', 'b', {});
      expect(off.error.code).to.equal('TOOL_UNAVAILABLE');
      expect(off.error.details).to.deep.include({ tool: 'b' });
      const local = await el.invoke('a', { n: 1 });
      expect(local.ok).to.equal(false);
      if (!local.ok) expect(local.error.code).to.equal('TOOL_UNAVAILABLE');
      expect(ran).to.deep.equal([]);
      expect(results.map((e) => e.detail.ok)).to.deep.equal([false, false, false]);

      b.handler = () => ({ back: true });
      b.disabled = false;
      await nextTask(); // b is back in the page's tools
      expect(await agentCall('s1', 'b', {}), 'enabled again').to.deep.equal({ back: true });
    });

    it('validation keeps using the schema that was sent to Core', async () => {
      const el = await fixture<PedelecSessionElement>(base());
      const seen: unknown[] = [];
      toolOf(el, 'a').handler = (args) => {
        seen.push(args);
        return { ok: true };
      };
      await started(el);
      await openTurn(el);
      const changed = oneEvent(el, 'pedelec-tools-changed');
      toolOf(el, 'a').querySelector('pedelec-arg')!.setAttribute('type', 'string');
      await changed;
      expect(el.toolsStale).to.equal(true);
      expect((el.manifest!.tools[0]!.argsSchema as any).properties.n.type, 'the page now declares a string').to.equal(
        'string',
      );

      expect(await agentCall('s1', 'a', { n: 5 })).to.deep.equal({ ok: true });
      expect((await agentCall('s1', 'a', { n: 'five' })).error.code).to.equal('TOOL_ARGS_INVALID');
      expect(await el.invoke('a', { n: 6 })).to.deep.equal({ ok: true, result: { ok: true } });
      const local = await el.invoke('a', { n: 'six' });
      expect(local.ok).to.equal(false);
      if (!local.ok) expect(local.error.code).to.equal('TOOL_ARGS_INVALID');
      expect(seen).to.deep.equal([{ n: 5 }, { n: 6 }]);
    });
  });

  // ─────────────── lifecycle edges (found in review) ───────────────

  describe('lifecycle edges', () => {
    /** Markup whose elements are not defined yet: their tags are defined by the test, in its order. */
    function undefinedMarkup(inner: (toolTag: string) => string, sessionAttrs = 'provider="codex" model="m"') {
      const sessionTag = uniqueTag('late-session');
      const toolTag = uniqueTag('late-tool');
      const host = document.createElement('div');
      document.body.append(host);
      restorers.push(() => host.remove());
      host.innerHTML = `<${sessionTag} ${sessionAttrs}>${inner(toolTag)}</${sessionTag}>`;
      const defineAll = () => {
        customElements.define(sessionTag, class extends PedelecSessionElement {});
        customElements.define(toolTag, class extends PedelecToolElement {});
      };
      return {
        host,
        sessionTag,
        toolTag,
        defineAll,
        session: () => host.querySelector(sessionTag) as PedelecSessionElement,
      };
    }

    it('properties set on a tool before its upgrade reach the manifest when session and tools upgrade together', async () => {
      const page = undefinedMarkup((tag) => `<${tag} name="early" description="d"></${tag}>`);
      const tool = page.host.querySelector(page.toolTag) as unknown as Record<string, unknown>;
      tool.argsSchema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
      tool.handler = () => 'handled';
      page.defineAll();
      const el = page.session();
      await nextTask(); // the upgraded elements' first updates put the properties back
      expect(el.manifest?.tools[0]?.argsSchema).to.deep.equal({
        type: 'object',
        properties: { n: { type: 'integer' } },
        required: ['n'],
      });
      const refused = await el.invoke('early', { n: 'x' });
      expect(refused.ok).to.equal(false);
      if (!refused.ok) expect(refused.error.code).to.equal('TOOL_ARGS_INVALID');
      expect(await el.invoke('early', { n: 1 })).to.deep.equal({ ok: true, result: 'handled' });
      page.host.remove();
      await nextTask();
    });

    it("autostart waits for properties set before the upgrade (tools, and the tools' own)", async () => {
      const page = undefinedMarkup(
        (tag) => `<${tag} name="early" description="d"></${tag}>`,
        'autostart provider="codex" model="m"',
      );
      const el0 = page.session() as unknown as Record<string, unknown>;
      el0.tools = [
        {
          name: 'from_js',
          description: 'A JS tool set before the upgrade.',
          argsSchema: { type: 'object', properties: {} },
        },
      ];
      const tool = page.host.querySelector(page.toolTag) as unknown as Record<string, unknown>;
      tool.argsSchema = { type: 'object', properties: { n: { type: 'integer' } } };
      page.defineAll();
      await fake.answer('get_approval_status', APPROVED());
      const create = await fake.answer('create_session', { sessionId: 's1' });
      const tools = create.input.skills.tools;
      expect(tools.map((t: { name: string }) => t.name)).to.deep.equal(['early', 'from_js']);
      expect(tools[0].argsSchema).to.deep.equal({ type: 'object', properties: { n: { type: 'integer' } } });
      await nextTask();
      expect(page.session().toolsStale).to.equal(false);
      page.host.remove();
      await fake.answer('end_session');
    });

    it('a tool removed while the session is being created is stale at once, and a call to it gets TOOL_UNAVAILABLE', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m">
          <pedelec-tool name="t" description="Stays."></pedelec-tool>
          <pedelec-tool name="v" description="Goes while starting."></pedelec-tool>
        </pedelec-session>`,
      );
      const changes = collect<PedelecToolsChangedEvent>(el, 'pedelec-tools-changed');
      const starting = el.start();
      await fake.answer('get_approval_status', APPROVED());
      const create = await fake.request('create_session');
      expect(create.input.skills.tools.map((t: { name: string }) => t.name)).to.deep.equal(['t', 'v']);
      toolOf(el, 'v').remove();
      await nextTask(); // the element took the removal in
      await fake.answer('create_session', { sessionId: 's1' });
      await starting;
      expect(el.toolsStale).to.equal(true);
      expect(changes.map((e) => e.detail.removed)).to.deep.equal([['v']]);
      await openTurn(el);
      expect((await agentCall('s1', 'v', {})).error.code).to.equal('TOOL_UNAVAILABLE');
    });

    it('restart() twice at once (a double click) makes one new session and ends the old one', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      const first = el.restart();
      const second = el.restart();
      expect(second).to.equal(first);
      await fake.answer('end_session');
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's2' });
      expect((await first).sessionId).to.equal('s2');
      await nextTask();
      expect(postedOf('create_session')).to.have.length(2);
      expect(postedOf('end_session').map((m) => m.sessionId)).to.deep.equal(['s1']);
      expect(el.session?.sessionId).to.equal('s2');
    });

    it('removed during restart(): nothing is started for the removed element, and its client is released', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      const restarting = el.restart().then(
        () => 'resolved',
        (error: PedelecError) => error.code,
      );
      el.remove();
      await fake.answer('end_session');
      expect(await restarting).to.equal('SESSION_ENDED');
      await nextTask();
      expect(postedOf('get_approval_status')).to.have.length(1);
      expect(openClientCount()).to.equal(0);
    });

    it('end() while starting ends the session as soon as it exists; sendText() then rejects SESSION_ENDED', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const starting = el.start();
      const ending = el.end();
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's1' });
      await starting;
      expect((await fake.answer('end_session')).sessionId).to.equal('s1');
      await ending;
      const sent = await soon(el.sendText('after end'));
      expect(sent.error?.code).to.equal('SESSION_ENDED');
      expect(postedOf('send_text')).to.deep.equal([]);
    });

    it('start(), end(), start() while starting (a React StrictMode effect and its cleanup): the last call wins, one live session', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const first = el.start();
      const ending = el.end();
      const second = el.start();
      expect(second).to.equal(first);
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's1' });
      expect((await second).sessionId).to.equal('s1');
      expect((await soon(ending)).settled, 'end() settles').to.equal(true);
      expect(postedOf('end_session'), 'the end was taken back').to.deep.equal([]);
      expect(el.session?.getStatus()).to.equal('idle');
      const refused = await soon(el.sendText('still here'));
      expect(refused.error?.code, 'sendText() is not refused').to.equal(undefined);
      expect(postedOf('send_text').map((m) => m.text)).to.deep.equal(['still here']);
    });

    it('two persisted sessions with one key inside shadow roots are refused too', async () => {
      const tag = uniqueTag('persist-host');
      customElements.define(
        tag,
        class extends HTMLElement {
          connectedCallback() {
            this.attachShadow({ mode: 'open' }).innerHTML =
              '<pedelec-session persist provider="codex" model="m"></pedelec-session>';
          }
        },
      );
      const host = await fixture<HTMLElement>(`<div><${tag}></${tag}><${tag}></${tag}></div>`);
      restorers.push(() => host.remove());
      const sessions = [...host.querySelectorAll(tag)].map(
        (h) => h.shadowRoot!.querySelector('pedelec-session') as PedelecSessionElement,
      );
      expect(sessions).to.have.length(2);
      for (const el of sessions) expect((await soon(el.start())).error?.code).to.equal('INVALID_INPUT');
      expect(fake.posted).to.deep.equal([]);
    });

    it('a failed start after end() leaves session null', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      await ended(el);
      const again = el.start().catch((error: PedelecError) => error);
      await fake.answer('get_approval_status', APPROVED());
      await fake.refuse('create_session', { code: 'PROVIDER_UNAVAILABLE', message: 'not now' });
      expect(((await again) as PedelecError).code).to.equal('PROVIDER_UNAVAILABLE');
      expect(el.status).to.equal('error');
      expect(el.session === null, 'session is null').to.equal(true);
      expect(el.sessionId).to.equal(null);
    });

    it('a failed end_session on restart() is reported once', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const errors = collect<PedelecErrorEvent>(el, 'pedelec-error');
      await started(el, 's1');
      const restarting = el.restart();
      await fake.refuse('end_session', { code: 'SESSION_NOT_FOUND', message: 'gone' });
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's2' });
      await restarting;
      expect(errors.map((e) => e.detail.error.code)).to.deep.equal(['SESSION_NOT_FOUND']);
    });

    it('put back (with autostart) while its old session is still being ended: starts a new one', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session autostart provider="codex" model="m"></pedelec-session>`,
      );
      const ready = oneEvent(el, 'pedelec-ready');
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's1' });
      await ready;
      expect(el.sessionId).to.equal('s1');
      const parent = el.parentElement!;
      el.remove();
      await nextTask(); // teardown ran: end_session s1 is pending
      const end = await fake.request('end_session');
      const readyAgain = oneEvent(el, 'pedelec-ready');
      parent.append(el);
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's2' });
      await readyAgain;
      expect(el.sessionId).to.equal('s2');
      // The old session's end settles afterwards and leaves the new one alone.
      fake.answered.add(end);
      fake.respond({}, end);
      await nextTask();
      expect(el.sessionId).to.equal('s2');
      expect(el.status).to.equal('idle');
    });

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
  });

  // ─────────────── bridge, client and persist edges (found in review) ───────────────

  describe('bridge, client and persist edges', () => {
    it('a bridge changed while a session runs makes it stale; nothing cuts it off, not even an availability check', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      const { outcome: turn } = await openTurn(el, 's1');
      const client = el.client;
      el.setAttribute('bridge', `ws://127.0.0.1:${CLOSED_PORT}/other`);
      // As a chat does when the bridge changes: asked of the client the session runs on.
      const check = el.checkAvailability();
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('get_settings', { defaultProvider: 'codex', defaultModels: { codex: 'm' } });
      expect((await check).available).to.equal(true);
      await nextTask(); // nothing cut the session off
      expect(el.status).to.equal('running');
      expect(el.toolsStale).to.equal(true);
      expect(el.client).to.equal(client);
      expect(fake.disconnectCalls).to.equal(0);
      coreEvent('s1', 'done');
      expect(await turn).to.equal('done');
    });

    it('storage that throws never breaks start(), end() or restart()', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session id="chat" persist provider="codex" model="m"></pedelec-session>`,
      );
      const proto = Storage.prototype;
      const { getItem, removeItem, setItem } = proto;
      const blocked = () => {
        throw new DOMException('blocked', 'SecurityError');
      };
      proto.getItem = blocked;
      proto.removeItem = blocked;
      proto.setItem = () => {
        throw new DOMException('full', 'QuotaExceededError');
      };
      restorers.push(() => {
        proto.getItem = getItem;
        proto.removeItem = removeItem;
        proto.setItem = setItem;
      });
      await started(el, 's1');
      await ended(el);
      expect((await restarted(el, 's2')).sessionId).to.equal('s2');
    });

    it('bridge-timeout-ms set after the client exists applies to the next start', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      void el.checkAvailability();
      await fake.answer('get_approval_status', APPROVED());
      el.setAttribute('bridge-timeout-ms', '30');
      await el.updateComplete;
      const result = await el.start().catch((error: PedelecError) => error);
      expect((result as PedelecError).code).to.equal('SDK_BRIDGE_TIMEOUT');
    });

    it('a record of other tools is ended even when session-id resumes another session, and its provider is not used', async () => {
      sessionStorage.setItem(
        persistKeyFor('chat'),
        JSON.stringify({ sessionId: 'old', provider: 'claude', model: 'x', manifestHash: 'nope' }),
      );
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session id="chat" persist session-id="abc" provider="codex" model="m"></pedelec-session>`,
      );
      const starting = el.start();
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('resume_session', { sessionId: 'abc' }, (m) => m.sessionId === 'abc');
      const session = await starting;
      expect([session.sessionId, session.provider, session.model]).to.deep.equal(['abc', 'codex', 'm']);
      await fake.answer('resume_session', { sessionId: 'old' }, (m) => m.sessionId === 'old');
      expect((await fake.answer('end_session', {}, (m) => m.sessionId === 'old')).sessionId).to.equal('old');
    });

    it('a new element does not join a shared client whose connection is gone', async () => {
      const [a, b] = await twoSessions();
      await started(a, 's1');
      fake.disconnect();
      await nextTask();
      expect(a.client?.unavailableReason).to.not.equal(null);
      const starting = b.start();
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's2' });
      expect((await starting).sessionId).to.equal('s2');
      expect(connects).to.have.length(2);
      expect(b.client).to.not.equal(a.client);
    });

    it('end() deletes the record it wrote, even after the bridge or persist changed', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session id="chat" persist provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      expect(sessionStorage.getItem(persistKeyFor('chat'))).to.not.equal(null);
      el.removeAttribute('persist');
      await ended(el);
      expect(sessionStorage.getItem(persistKeyFor('chat'))).to.equal(null);
    });

    it('extension-id changed after start makes the session stale', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      const changes = collect<PedelecToolsChangedEvent>(el, 'pedelec-tools-changed');
      const changed = oneEvent(el, 'pedelec-tools-changed');
      el.setAttribute('extension-id', 'abcdefghijklmnopabcdefghijklmnop');
      await changed;
      await nextTask(); // and no second one
      expect(el.toolsStale).to.equal(true);
      expect(changes.map((e) => e.detail.config)).to.deep.equal([['bridge']]);
    });

    it('a record whose fields have the wrong types is not ours: nothing is resumed from it', async () => {
      const el0 = await fixture<PedelecSessionElement>(
        html`<pedelec-session id="chat" persist provider="codex" model="m"></pedelec-session>`,
      );
      const hash = (() => {
        const p = el0.start();
        return p;
      })();
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's1' });
      await hash;
      const stored = JSON.parse(sessionStorage.getItem(persistKeyFor('chat'))!);
      el0.remove();
      await nextTask(); // teardown ran (a persisted session posts no end_session; answer any it did)
      answerEnds();
      sessionStorage.setItem(persistKeyFor('chat'), JSON.stringify({ ...stored, provider: { evil: 1 }, model: 42 }));
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session id="chat" persist provider="codex" model="m"></pedelec-session>`,
      );
      const starting = el.start();
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's2' });
      const session = await starting;
      expect([session.sessionId, session.provider]).to.deep.equal(['s2', 'codex']);
      expect(postedOf('resume_session')).to.deep.equal([]);
    });
  });

  // ─────────────── teardown ───────────────

  describe('teardown', () => {
    const withSlow = (persist = false) =>
      persist
        ? html`<pedelec-session id="chat" persist provider="codex" model="m"
            ><pedelec-tool name="slow" description="Slow."></pedelec-tool
          ></pedelec-session>`
        : html`<pedelec-session provider="codex" model="m"
            ><pedelec-tool name="slow" description="Slow."></pedelec-tool
          ></pedelec-session>`;

    function slowHandler(el: PedelecSessionElement): { signal?: AbortSignal; resolve?: (v: unknown) => void } {
      const state: { signal?: AbortSignal; resolve?: (v: unknown) => void } = {};
      toolOf(el, 'slow').handler = (_args, ctx) => {
        state.signal = ctx.signal;
        return new Promise((resolve) => (state.resolve = resolve));
      };
      return state;
    }

    it('removing the session mid-turn: after a microtask, handlers abort, the session ends, the turn rejects SESSION_ENDED', async () => {
      const el = await fixture<PedelecSessionElement>(withSlow());
      const slow = slowHandler(el);
      await started(el, 's1');
      const { outcome: turn } = await openTurn(el, 's1');
      await toolCallStarted(el, 's1', { toolRequestId: 'c1', tool: 'slow', args: {} });
      const ended = collect<PedelecEndedEvent>(el, 'pedelec-ended');
      // "After a microtask": before any task runs. A task queued now runs only after that.
      const aborted = new Promise((resolve) => slow.signal!.addEventListener('abort', resolve, { once: true }));
      let aTaskRan = false;
      setTimeout(() => (aTaskRan = true));

      el.remove();
      // (Whether running handlers may abort synchronously here is the subject of the move tests below.)
      expect(postedOf('end_session'), 'nothing ended synchronously').to.deep.equal([]);
      expect(el.status).to.equal('waiting_tool_result');
      await aborted;
      expect(aTaskRan, 'the handler aborted in a microtask, before the next task').to.equal(false);
      expect(slow.signal!.aborted).to.equal(true);
      const end = await fake.answer('end_session');
      expect(end.sessionId).to.equal('s1');
      const outcome: any = await turn;
      expect(outcome?.code).to.equal('SESSION_ENDED');
      await nextTask();
      expect(ended).to.have.length(1);
      expect(el.status).to.equal('inactive');
      expect(el.session).to.equal(null);
      expect(fake.disconnectCalls, 'the last holder closed the port').to.equal(1);
    });

    it('removed while starting and put back a task later (a framework re-rendering): the start in flight ends its session, start() begins afresh', async () => {
      const [stays, moves] = await twoSessions();
      const root = moves.parentElement!;
      await started(stays, 's1'); // keeps the shared client open
      const first = moves.start().then(
        (session) => session,
        (error: PedelecError) => error,
      );
      await fake.answer('get_approval_status', APPROVED());
      const create = await fake.request('create_session');
      moves.remove();
      await nextTask(); // teardown ran; then it is put back
      root.append(moves);
      const second = moves.start();
      fake.answered.add(create);
      fake.respond({ sessionId: 's2' }, create);
      expect(((await first) as PedelecError).code, 'the start of the removed element').to.equal('SESSION_ENDED');
      expect((await fake.answer('end_session')).sessionId, 'which ends what it created').to.equal('s2');
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's3' });
      expect((await second).sessionId, 'the element back in the page starts afresh').to.equal('s3');
      expect(moves.status).to.equal('idle');
    });

    it('with persist, removing the session posts no end_session and keeps the record', async () => {
      const el = await fixture<PedelecSessionElement>(withSlow(true));
      const slow = slowHandler(el);
      await started(el, 's1');
      await openTurn(el, 's1');
      await toolCallStarted(el, 's1', { toolRequestId: 'c1', tool: 'slow', args: {} });

      el.remove();
      await nextTask(); // teardown ran (a microtask after removal)
      expect(postedOf('end_session')).to.deep.equal([]);
      expect(slow.signal!.aborted).to.equal(true);
      expect(el.status).to.equal('inactive');
      expect(JSON.parse(sessionStorage.getItem(persistKeyFor('chat'))!).sessionId).to.equal('s1');
    });

    it('a synchronous move (remove + re-insert) tears nothing down', async () => {
      const root = await fixture<HTMLElement>(
        html`<div>
          <section></section>
          <pedelec-session provider="codex" model="m"></pedelec-session>
        </div>`,
      );
      const el = root.querySelector('pedelec-session') as PedelecSessionElement;
      const session = await started(el, 's1');
      const client = el.client;
      const statuses = collect<PedelecStatusEvent>(el, 'pedelec-status');

      el.remove();
      root.querySelector('section')!.append(el);
      root.insertBefore(el, null);
      await nextTask(); // a teardown would have run by now

      expect(postedOf('end_session')).to.deep.equal([]);
      expect(el.status).to.equal('idle');
      expect(statuses).to.deep.equal([]);
      expect(el.session).to.equal(session);
      expect(el.client).to.equal(client);
      expect(fake.disconnectCalls).to.equal(0);
      const { outcome: turn } = await openTurn(el, 's1');
      coreEvent('s1', 'done');
      expect(await turn).to.equal('done');
    });

    it('a synchronous move during a tool call does not abort the running handler', async () => {
      const root = await fixture<HTMLElement>(html`<div><section></section></div>`);
      const el = document.createElement('pedelec-session') as PedelecSessionElement;
      el.setAttribute('provider', 'codex');
      el.setAttribute('model', 'm');
      el.append(makeTool('slow', 'Slow.'));
      root.append(el);
      await el.updateComplete;
      const slow = slowHandler(el);
      await started(el, 's1');
      await openTurn(el, 's1');
      await toolCallStarted(el, 's1', { toolRequestId: 'c1', tool: 'slow', args: {} });

      root.querySelector('section')!.append(el);
      await nextTask(); // an abort would have happened by now
      expect(slow.signal!.aborted).to.equal(false);
      slow.resolve!({ finished: true });
      const submit = await fake.answer('submit_tool_result', {}, (m) => m.toolRequestId === 'c1');
      expect(submit.result).to.deep.equal({ finished: true });
    });

    it('a tool removed while its call runs: its ctx.signal aborts', async () => {
      const el = await fixture<PedelecSessionElement>(withSlow());
      const slow = slowHandler(el);
      await started(el, 's1');
      await openTurn(el, 's1');
      await toolCallStarted(el, 's1', { toolRequestId: 'c1', tool: 'slow', args: {} });
      expect(slow.signal!.aborted).to.equal(false);
      toolOf(el, 'slow').remove();
      await nextTask(); // the removal aborts the call a microtask later
      expect(slow.signal!.aborted).to.equal(true);
      expect(el.status, 'the session itself goes on').to.equal('waiting_tool_result');
    });
  });

  // ─────────────── events ───────────────

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
        expect(Object.keys(start).sort(), 'tool-start detail').to.deep.equal(['args', 'context', 'local', 'tool']);
        expect(start.args).to.deep.equal(args);
        expect(start.local).to.equal(false);
        expect(start.context.tool).to.equal(tool);
        expect(start.context.sessionId).to.equal('s1');
        expect(Object.keys(result).sort(), 'tool-result detail').to.deep.equal([
          'args',
          'context',
          'durationMs',
          'local',
          'ok',
          'result',
          'tool',
        ]);
        expect(result.ok, `${tool} ok`).to.equal(ok);
        expect(result.args).to.deep.equal(args);
        expect(result.local).to.equal(false);
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

  it('no test left a shared client open', () => {
    expect(leaks).to.deep.equal([]);
  });
});
