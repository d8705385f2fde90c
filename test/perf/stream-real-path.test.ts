/**
 * A long reply streamed into a Markdown <pedelec-chat> on the path a page's reply takes: Core events on
 * the extension's port (today's protocol: `chat_delta`s with the turn's `operationId`, then the whole
 * `chat_message`), through the kit's client, session and session element, to the chat. A frame at the
 * end of a 50 KB reply — every block kind in it — costs about what a frame early in it does: the chat
 * renders what changed, not the reply so far. The bench's `stream` measures the same path from a trace
 * (docs/performance.md); here each frame is timed in the page.
 *
 * Two chats, each in its session: one starts a reply while the other, 40 KB into the same reply, ends
 * it, their deltas taking turns. What else the browser runs meanwhile (the perf tier runs two files at
 * a time) then weighs on the early frames and the late ones alike.
 */
import { expect } from '@open-wc/testing';
import '../../src/define.js';
import { deltas, markdownReply } from '../../bench/browser/reply.js';
import type { PedelecChatElement, PedelecSessionElement } from '../../src/index.js';
import { available, chatHooks, core, fake, mountChat, pageTurn, shadow, start } from '../elements/chat/harness.js';

const REPLY_BYTES = 50_000;
const DELTA_CHARS = 200;
const BOX = 'display: block; width: 480px; height: 600px;';

const nextFrame = () => new Promise<number>(requestAnimationFrame);

/** The p95 of `ms`. */
function p95(ms: number[]): number {
  const sorted = [...ms].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))];
}

/** A Markdown chat in a started session, `sessionId` on the port. */
async function streamingChat(sessionId: string): Promise<Stream> {
  const { session, chat } = await mountChat(undefined, 'markdown');
  chat.style.cssText = BOX;
  await available();
  await start(session, sessionId);
  return new Stream(session, chat, sessionId);
}

/** One chat's turn: its reply sent delta by delta, each timed until rendered and laid out. */
class Stream {
  #operationId = '';
  #turn: Promise<unknown> = Promise.resolve();

  constructor(
    readonly session: PedelecSessionElement,
    readonly chat: PedelecChatElement,
    private readonly sessionId: string,
  ) {}

  async begin(): Promise<void> {
    this.#turn = (await pageTurn(this.session, 'Go on.')).done;
    this.#operationId = fake.last('send_text').operationId as string;
  }

  /**
   * The main thread's work for one delta: its event through the kit, then the chat's render (at the
   * next animation frame in Markdown mode) and its layout. The timer starts in a frame callback queued
   * before the delta, so the wait for the frame is not counted.
   */
  async delta(text: string): Promise<number> {
    let started = 0;
    const frame = nextFrame().then(() => (started = performance.now()));
    core('chat_delta', { text, operationId: this.#operationId }, this.sessionId);
    await frame;
    await this.chat.updateComplete;
    void shadow(this.chat).querySelector<HTMLElement>('[role=log]')!.scrollHeight;
    return performance.now() - started;
  }

  /** The whole message, then the turn's end. */
  async end(text: string): Promise<void> {
    const operationId = this.#operationId;
    core('chat_message', { text, operationId }, this.sessionId);
    core('status_changed', { status: 'idle', operationId }, this.sessionId);
    core('operation_completed', { operationId, operationKind: 'user', success: true }, this.sessionId);
    await this.#turn;
    await this.chat.updateComplete;
  }
}

describe('<pedelec-chat> streaming a long reply, on the real path', () => {
  chatHooks();

  it('a frame at the end of a 50 KB Markdown reply costs about what an early one does', async function () {
    this.timeout(60_000);
    const early = await streamingChat('early');
    const late = await streamingChat('late');
    const reply = markdownReply(REPLY_BYTES);
    const pieces = deltas(reply, DELTA_CHARS);
    const fifth = Math.floor(pieces.length / 5);

    // Off the record: a short reply, so that the engine has compiled the path's code; and the late
    // chat's reply up to its last fifth.
    const warmUp = markdownReply(10_000);
    await early.begin();
    for (const text of deltas(warmUp, DELTA_CHARS)) await early.delta(text);
    await early.end(warmUp);
    await late.begin();
    for (const text of pieces.slice(0, -fifth)) await late.delta(text);

    // On the record, taking turns: the early chat's first fifth, the late chat's last.
    await early.begin();
    const times = { early: [] as number[], late: [] as number[] };
    for (let i = 0; i < fifth; i++) {
      times.early.push(await early.delta(pieces[i]));
      times.late.push(await late.delta(pieces[pieces.length - fifth + i]));
    }
    await late.end(reply);
    await early.end(pieces.slice(0, fifth).join(''));

    // Everything arrived, every block kind rendered (the reply has 8 in each section).
    const body = [...shadow(late.chat).querySelectorAll('[part~=agent]')].at(-1)!;
    for (const block of ['h2', 'ul', 'ol', 'blockquote', 'pre', 'table', 'a', 'code'])
      expect(body.querySelector(block), `a ${block} in the reply`).to.not.equal(null);
    expect(body.textContent!.length).to.be.greaterThan(REPLY_BYTES * 0.8);
    const [atStart, atEnd] = [p95(times.early), p95(times.late)];
    // 2 ms of slack: Firefox's clock counts whole ms.
    expect(atEnd, `p95 ${atEnd.toFixed(1)} ms at the end, ${atStart.toFixed(1)} ms early`).to.be.at.most(
      1.5 * atStart + 2,
    );
  });
});
