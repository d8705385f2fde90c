/**
 * Leaks found in a long-run review (reliability.md: nothing kept alive once it is gone), CYCLES cycles
 * each, everything back to nothing; each test failed before its fix: a removed element that starts,
 * checks or ends takes no client for ever; warning keys do not outlive their tools; a removed tool's
 * hanging call is not held.
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../src/define.js';
import { PedelecSession, type PedelecSessionElement, type PedelecToolElement } from '../../src/index.js';
import { openClientCount, releaseClient } from '../../src/elements/session/client-pool.js';
import { installAutoCore, installCounters, type AutoCore, type Counters } from '../reliability/harness.js';
import { until } from '../support/waits.js';
import { bookkeepingOf } from '../../src/elements/session/pedelec-session.element.js';

const CYCLES = 200;
let core: AutoCore;
let counters: Counters;
const made: PedelecSessionElement[] = [];
const undo: Array<() => void> = [];

beforeEach(() => {
  core = installAutoCore();
  counters = installCounters();
  sessionStorage.clear();
});
afterEach(() => {
  // What a failing test left behind must not reach the next one.
  for (const el of made.splice(0)) {
    el.session?.detach();
    if (el.client) releaseClient(el, el.client);
  }
  undo.splice(0).forEach((fn) => fn());
  counters.restore();
  core.uninstall();
  sessionStorage.clear();
});

function newSession(attributes: Record<string, string> = {}): PedelecSessionElement {
  const el = document.createElement('pedelec-session') as PedelecSessionElement;
  for (const [name, value] of Object.entries({ provider: 'codex', model: 'm', ...attributes }))
    el.setAttribute(name, value);
  made.push(el);
  return el;
}
const count = (type: string) => core.posted.filter((m) => m.type === type).length;
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Mounts, starts and unmounts a session element; resolves once its teardown released its client. */
async function mountStartUnmount(host: HTMLElement, el: PedelecSessionElement): Promise<void> {
  host.append(el);
  await el.start();
  el.remove();
  await until(() => el.status === 'inactive' && el.client === null && core.unanswered() === 0, 'teardown');
}

/** Runs `late(el)` on CYCLES removed elements; returns what they and the pool still hold. */
async function afterRemoval(late: (el: PedelecSessionElement) => Promise<unknown>, attributes = (_i: number) => ({})) {
  const host = await fixture<HTMLDivElement>(html`<div></div>`);
  const removed: PedelecSessionElement[] = [];
  for (let i = 0; i < CYCLES; i++) {
    const el = newSession(attributes(i));
    await mountStartUnmount(host, el);
    removed.push(el);
    await late(el);
  }
  await tick();
  return {
    removedHoldingAClient: removed.filter((el) => el.client).length,
    pooledClients: openClientCount(),
    openPorts: core.openPorts(),
  };
}
const nothing = { removedHoldingAClient: 0, pooledClients: 0, openPorts: 0 };

describe('leaks after removal and tool churn', () => {
  it('1. sendText() on a removed <pedelec-session> leaves no Core session, client or port', async function () {
    this.timeout(20_000);
    const original = PedelecSession.prototype.handleEvent;
    let routed = 0;
    PedelecSession.prototype.handleEvent = function (this: PedelecSession, ...args) {
      routed++;
      return original.apply(this, args);
    };
    undo.push(() => (PedelecSession.prototype.handleEvent = original));
    const ids: string[] = [];
    const held = await afterRemoval(async (el) => {
      // Page code resuming after the unmount (an awaited fetch, a queued UI action) sends a turn.
      const sends = count('send_text');
      let settled = false;
      const turn = el.sendText('late').then(
        () => (settled = true),
        () => (settled = true),
      );
      await until(
        () => settled || (count('send_text') > sends && core.unanswered() === 0),
        'the late turn to be refused or accepted',
      );
      if (el.sessionId) ids.push(el.sessionId);
      if (el.sessionId) core.event(el.sessionId, 'done', { seq: 1 });
      await turn;
    });
    routed = 0;
    for (const id of ids) core.event(id, 'probe');
    const sessions = { notEnded: count('create_session') - count('end_session'), routedByTheClient: routed };
    expect({ ...held, ...sessions }).to.deep.equal({ ...nothing, notEnded: 0, routedByTheClient: 0 });
  });

  it('2. checkAvailability() on a removed <pedelec-session> holds no client or port', async function () {
    this.timeout(20_000);
    expect(await afterRemoval((el) => el.checkAvailability())).to.deep.equal(nothing);
  });

  it('3. end() on a removed persisted <pedelec-session> holds no client or port', async function () {
    this.timeout(20_000);
    const held = await afterRemoval(
      async (el) => {
        await el.end(); // "log out": end the conversation the page unmounted (persist kept it)
        await until(
          () => core.unanswered() === 0 && count('end_session') === count('create_session'),
          'the recorded session to end',
        );
      },
      (i) => ({ persist: '', id: `persisted-${i}` }),
    );
    expect(held).to.deep.equal(nothing);
  });

  it('4. tools added and removed leave no warning keys behind', async function () {
    this.timeout(20_000);
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    const el = newSession();
    host.append(el);
    let warnings = 0;
    el.addEventListener('pedelec-warning', () => warnings++);
    const cycle = async (i: number) => {
      const tool = document.createElement('pedelec-tool') as PedelecToolElement;
      tool.setAttribute('name', `item_${i}`);
      tool.setAttribute('description', `Opens item ${i}.`);
      tool.setAttribute('schema', '{"type":"object","properties":{},"x-note":"an ignored keyword"}');
      el.append(tool);
      await until(() => el.manifest?.tools.length === 1, 'the tool to join');
      tool.remove();
      await until(() => el.manifest === undefined, 'the tool to leave');
    };
    for (let i = 0; i < CYCLES; i++) await cycle(i);
    expect(warnings, 'control: each new tool warns once').to.equal(CYCLES);
    for (let i = 0; i < CYCLES; i++) await cycle(i); // the same tools again
    expect(CYCLES - (warnings - CYCLES), 'keys still held for tools that were gone').to.equal(0);
  });

  it('5. a removed tool whose handler hangs is not held while the session goes on', async function () {
    this.timeout(20_000);
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    const el = newSession();
    // Each cycle's tool is declared as the one sent at start (a tool never sent gets TOOL_UNAVAILABLE).
    el.innerHTML = '<pedelec-tool name="hang" description="Hangs."></pedelec-tool>';
    host.append(el);
    const session = await el.start();
    el.querySelector('pedelec-tool')!.remove();
    el.sendText('stay').catch(() => {});
    await until(() => core.unanswered() === 0, 'the turn to be accepted');
    const signals: AbortSignal[] = [];
    for (let i = 0; i < CYCLES; i++) {
      const tool = document.createElement('pedelec-tool') as PedelecToolElement;
      tool.setAttribute('name', 'hang');
      tool.setAttribute('description', 'Hangs.');
      tool.handler = (_args, ctx) => (signals.push(ctx.signal!), new Promise(() => {})); // ignores its signal
      el.append(tool);
      await until(() => el.manifest?.tools.length === 1, 'the tool to join');
      core.event(session.sessionId, 'tool_call', { seq: i + 1, toolRequestId: `r${i}`, tool: 'hang', args: {} });
      tool.remove();
      await until(
        () => el.manifest === undefined && signals[i]?.aborted === true,
        'the tool to leave, its call aborted',
      );
    }
    expect(el.status, 'the session went on').to.equal('waiting_tool_result');
    expect(bookkeepingOf(el).running, 'aborted calls of removed tools, each holding its element').to.equal(0);
  });
});
