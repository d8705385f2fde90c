/**
 * A long reply streamed into a Markdown <pedelec-chat> on the path a page's reply takes: Core events on
 * the extension's port (today's protocol: `chat_delta`s with the turn's `operationId`, then the whole
 * `chat_message`), through the kit's client, session and session element, to the chat. A frame at the
 * end of a 50 KB reply — every block kind in it — costs about what a frame early in it does: the chat
 * renders what changed, not the reply so far. The bench's `stream` measures the same path from a trace
 * (docs/performance.md); here each frame is timed in the page.
 */
import { expect } from '@open-wc/testing';
import '../../src/define.js';
import { deltas, markdownReply } from '../../bench/browser/reply.js';
import type { PedelecSessionElement } from '../../src/index.js';
import { available, chatHooks, core, fake, mountChat, pageTurn, shadow, start } from '../elements/chat/harness.js';

const REPLY_BYTES = 50_000;
const DELTA_CHARS = 200;

const nextFrame = () => new Promise<number>(requestAnimationFrame);

/** The p95 of `ms`. */
function p95(ms: number[]): number {
  const sorted = [...ms].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))];
}

/**
 * One turn whose reply Core streams in `DELTA_CHARS` pieces: `each(send)` sends one piece (and may
 * time what it costs); then the whole message and the turn's end.
 */
async function streamReply(
  session: PedelecSessionElement,
  reply: string,
  each: (send: () => void) => void | Promise<void>,
): Promise<void> {
  const turn = await pageTurn(session, 'Go on.');
  const { operationId } = fake.last('send_text');
  for (const text of deltas(reply, DELTA_CHARS)) await each(() => core('chat_delta', { text, operationId }));
  core('chat_message', { text: reply, operationId });
  core('status_changed', { status: 'idle', operationId });
  core('operation_completed', { operationId, operationKind: 'user', success: true });
  await turn.done;
}

describe('<pedelec-chat> streaming a long reply, on the real path', () => {
  chatHooks();

  it('a frame at the end of a 50 KB Markdown reply costs about what an early one does', async function () {
    this.timeout(60_000);
    const { session, chat } = await mountChat(undefined, 'markdown');
    chat.style.cssText = 'display: block; width: 480px; height: 600px;';
    await available();
    await start(session);
    const log = shadow(chat).querySelector<HTMLElement>('[role=log]')!;
    // A short reply first, off the record: the engine compiles the path's code before it is timed.
    await streamReply(session, markdownReply(10_000), () => {});
    const reply = markdownReply(REPLY_BYTES);
    const pieces = deltas(reply, DELTA_CHARS);
    // The main thread's work for one delta: its event through the kit, then the chat's render (at the
    // next animation frame in Markdown mode) and its layout. The timer starts in a frame callback
    // queued before the delta, so the wait for the frame is not counted.
    const frameMs: number[] = [];
    await streamReply(session, reply, async (send) => {
      let started = 0;
      const frame = nextFrame().then(() => (started = performance.now()));
      send();
      await frame;
      await chat.updateComplete;
      void log.scrollHeight;
      frameMs.push(performance.now() - started);
    });
    const fifth = Math.floor(pieces.length / 5);
    const [early, end] = [p95(frameMs.slice(0, fifth)), p95(frameMs.slice(-fifth))];
    await chat.updateComplete;
    // Everything arrived, every block kind rendered (the reply has 8 in each section).
    const body = [...shadow(chat).querySelectorAll('[part~=agent]')].at(-1)!;
    for (const block of ['h2', 'ul', 'ol', 'blockquote', 'pre', 'table', 'a', 'code'])
      expect(body.querySelector(block), `a ${block} in the reply`).to.not.equal(null);
    expect(body.textContent!.length).to.be.greaterThan(REPLY_BYTES * 0.8);
    // 2 ms of slack: a busy machine, and Firefox's clock, which counts whole ms.
    expect(end, `p95 ${end.toFixed(1)} ms at the end, ${early.toFixed(1)} ms early`).to.be.at.most(1.5 * early + 2);
  });
});
