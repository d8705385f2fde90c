/**
 * What a start waits for (docs/design/elements.md "Updates"): the lazy parts arriving for the session
 * itself and for its root (document or shadow root), never another session's, nor another root's.
 */
import { expect } from '@open-wc/testing';
import { arrivingFor, track } from '../../../src/elements/arriving.js';

/** Resolves once nothing is arriving for `session`, asking again after each wait, as a start does. */
async function arrived(session: Element): Promise<void> {
  for (let waiting; (waiting = arrivingFor(session)).length;) await Promise.all(waiting);
}

/** A promise the test settles. */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Whether `promise` is settled once the tasks queued now have run. */
async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, 20));
  return settled;
}

/** A stand-in for a session element, in `parent`. */
function sessionIn(parent: Node): HTMLElement {
  const element = document.createElement('div');
  parent.appendChild(element);
  return element;
}

describe('what a start waits for', () => {
  let container: HTMLElement;
  beforeEach(() => {
    container = document.createElement('div');
    document.body.append(container);
  });
  afterEach(() => container.remove());

  it("waits for its own part, and not for another session's", async () => {
    const mine = sessionIn(container);
    const other = sessionIn(container);
    const part = gate();
    track(mine, part.promise);
    expect(await settledSoon(arrived(other))).to.equal(true);
    const waiting = arrived(mine);
    expect(await settledSoon(waiting)).to.equal(false);
    part.open();
    expect(await settledSoon(waiting)).to.equal(true);
  });

  it("waits for its root's parts (a form binding, the chat), not for another root's", async () => {
    const shadow = container.attachShadow({ mode: 'open' });
    const inShadow = sessionIn(shadow);
    const inDocument = sessionIn(document.body);
    const chat = gate();
    track(shadow, chat.promise);
    expect(await settledSoon(arrived(inDocument))).to.equal(true);
    const waiting = arrived(inShadow);
    expect(await settledSoon(waiting)).to.equal(false);
    chat.open();
    expect(await settledSoon(waiting)).to.equal(true);
    inDocument.remove();
  });

  it('waits too for what starts arriving while it waits, and a rejection only ends the wait', async () => {
    const session = sessionIn(container);
    const first = gate();
    const second = gate();
    track(session, first.promise);
    const waiting = arrived(session);
    void first.promise.then(() => track(document, second.promise));
    first.open();
    expect(await settledSoon(waiting)).to.equal(false);
    second.open();
    expect(await settledSoon(waiting)).to.equal(true);
    const failing = Promise.reject(new Error('offline'));
    failing.catch(() => {});
    track(session, failing);
    expect(await settledSoon(arrived(session))).to.equal(true);
  });
});
