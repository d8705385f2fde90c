/**
 * Leak test of `<pedelec-chat>` with a conversation (docs/design/reliability.md "Lifecycle"; the chat's
 * "memory is flat when the chat is removed"): 1 000 chats beside one session, each shown a turn —
 * a question, a streamed reply (every tenth in Markdown mode), a tool call — then removed. Measured
 * at cycle 500 and after cycle 1 000 against a baseline taken after a warm-up: live listeners (on the
 * session too), observers and timers. And, where the browser lets a test collect garbage (Chromium
 * here, started with `--js-flags=--expose-gc`), that the removed chats themselves are collected: a
 * control chat the session still holds stays, so the probe sees what it should.
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../src/define.js';
import {
  PedelecChatDeltaEvent,
  PedelecStatusEvent,
  PedelecToolResultEvent,
  PedelecToolStartEvent,
  PedelecTurnEvent,
  type ChatDeltaEventContext,
  type PedelecChatElement,
  type PedelecSessionElement,
  type ToolCallContext,
} from '../../src/index.js';
import { installAutoCore, installCounters, quiet, type AutoCore, type Counters } from '../reliability/harness.js';

const CYCLES = 1000;
const MIDWAY = 500;

let core: AutoCore;
let counters: Counters;

beforeEach(() => {
  core = installAutoCore();
  counters = installCounters();
});

afterEach(() => {
  counters.restore();
  core.uninstall();
});

const gc = (globalThis as { gc?: () => void }).gc;
const frame = () => new Promise(requestAnimationFrame);

/** One turn of the session's agent, as the session dispatches it: four rows in a chat. */
let turns = 0;
function turn(session: PedelecSessionElement): void {
  const context = { toolRequestId: `call_${++turns}` } as ToolCallContext;
  const delta = (text: string) =>
    session.dispatchEvent(new PedelecChatDeltaEvent({ text, context: {} as ChatDeltaEventContext }));
  session.dispatchEvent(new PedelecTurnEvent({ turnId: `turn_${turns}`, kind: 'user', text: 'Go on.' }));
  delta('# Findings\n\nThe page has **three** parts:\n\n');
  delta('- one\n- two\n- three\n\nChecking the last one.');
  session.dispatchEvent(new PedelecToolStartEvent({ tool: 'lookup', args: {}, context, via: 'pedelec' }));
  session.dispatchEvent(
    new PedelecToolResultEvent({
      tool: 'lookup',
      args: {},
      result: {},
      ok: true,
      durationMs: 1,
      context,
      via: 'pedelec',
    }),
  );
  delta('It is fine.');
  session.dispatchEvent(new PedelecStatusEvent({ status: 'idle', previousStatus: 'running' }));
}

describe('leaks: <pedelec-chat> with a conversation', () => {
  it(`${CYCLES} chats shown a turn, then removed, leave nothing behind`, async function () {
    this.timeout(60_000);
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    host.innerHTML = '<pedelec-session id="talk" provider="codex" model="m"></pedelec-session>';
    const session = host.firstElementChild as PedelecSessionElement;
    const removed: WeakRef<PedelecChatElement>[] = [];

    const cycle = async (i: number) => {
      const chat = document.createElement('pedelec-chat');
      chat.setAttribute('for', 'talk');
      chat.toggleAttribute('markdown', i % 10 === 0);
      host.append(chat);
      await chat.updateComplete;
      turn(session);
      await chat.updateComplete;
      expect(chat.shadowRoot!.querySelectorAll('[part~=message],[part~=tool]')).to.have.length(4);
      chat.remove();
      removed.push(new WeakRef(chat));
    };
    const measure = () => ({
      listeners: counters.listeners(),
      onSession: counters.listenersOn(session),
      observers: counters.observers(),
      timers: counters.timers(),
    });

    // Warm-up: the first chat's availability check makes the session take its client (kept while
    // the session is connected), and the Markdown renderer loads.
    await cycle(0);
    await quiet(core, 'the first check to settle');
    const baseline = measure();
    for (let i = 1; i <= CYCLES; i++) {
      await cycle(i);
      if (i === MIDWAY) expect(measure(), `after ${MIDWAY} cycles`).to.deep.equal(baseline);
    }
    await quiet(core, 'the page to settle');
    expect(measure(), `after ${CYCLES} cycles`).to.deep.equal(baseline);

    if (!gc) return; // Firefox: the counters above are the measure
    // The counters keep every target they saw a listener added to: start afresh, so only the page holds.
    counters.restore();
    counters = installCounters();
    // Control: a removed chat the session still holds (through a listener) is not collected.
    const held = document.createElement('pedelec-chat');
    const holder = () => held;
    session.addEventListener('pedelec-hold', holder);
    const control = new WeakRef(held);
    // Nothing else may hold a chat: let pending frames and tasks run, then collect — a few rounds at most,
    // for a loaded machine that has frames and tasks of the last cycles still to run. A chat something
    // really holds stays through all of them.
    const alive = () => removed.filter((ref) => ref.deref() !== undefined).length;
    for (let round = 0; round < 5 && (round === 0 || alive() > 0); round++) {
      await frame();
      await frame();
      gc();
      await new Promise((resolve) => setTimeout(resolve));
      gc();
    }
    expect(control.deref(), 'control: a chat still held is not collected').to.not.equal(undefined);
    expect(alive(), 'removed chats still in memory').to.equal(0);
    session.removeEventListener('pedelec-hold', holder);
    host.remove();
  });
});
