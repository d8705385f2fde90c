/**
 * The page's end of the MCP page link (src/core/page-link-client.ts) over a fake socket, in Node: the
 * frames it sends and when, each call's signal, trying again after a drop (1 s, 2, 4 … 30 s) and
 * giving up on a refusal until the URL changes. Timers are the test's own (setTimeout replaced by a
 * recorder that the test fires), so no test waits on the clock. The contract's helpers
 * (src/core/page-link-contract.ts) are checked here too; pedelec-dev's side of the link, against this
 * client over a real socket, in packages/pedelec-dev/test/page-link-contract.test.ts.
 */
import { beforeEach, describe, it, type TestContext } from 'node:test';
import { expect } from '../support/expect.js';
import {
  LINK_RETRY_MS,
  PageLinkClient,
  type LinkSocket,
  type PageLinkHandler,
} from '../../src/core/page-link-client.js';
import {
  answerOf,
  isLinkRefusal,
  LINK_REFUSED_CLOSE_CODE,
  PAGE_LINK_VERSION,
  readServerFrame,
  resultFrame,
  type CallAnswer,
  type PageTool,
} from '../../src/core/page-link-contract.js';
import type { PedelecError } from '../../src/core/errors.js';

const URL_A = 'ws://127.0.0.1:7717/tools';
const URL_B = 'ws://127.0.0.1:7718/tools';
const ADD: PageTool = {
  name: 'add',
  description: 'Adds two numbers',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
};

type Frame = Record<string, any>;

/** A socket the test drives: it opens, receives and drops when told; what the client sends is kept. */
class FakeSocket implements LinkSocket {
  readyState = 0;
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  readonly sent: Frame[] = [];
  /** How the client closed it, if it did. */
  closedWith: { code?: number; reason?: string } | null = null;
  readonly #waiters = new Set<() => void>();

  constructor(readonly url: string) {}

  send(data: string): void {
    this.sent.push(JSON.parse(data));
    for (const waiter of [...this.#waiters]) waiter();
  }

  close(code?: number, reason?: string): void {
    this.closedWith = { code, reason };
    // As a browser's would, later: the client must ignore what a socket it let go of says.
    this.drop(code ?? 1005, reason ?? '');
  }

  /** Opens; resolves once the client has said hello on it (it may first look for its key). */
  async open(): Promise<void> {
    this.readyState = 1;
    this.onopen?.({});
    await this.frame((frame) => frame.type === 'hello');
  }

  receive(frame: unknown): void {
    this.onmessage?.({ data: typeof frame === 'string' ? frame : JSON.stringify(frame) });
  }

  drop(code = 1006, reason = ''): void {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }

  /** The first frame sent (so far or later) that `match` accepts. */
  frame(match: (frame: Frame) => boolean): Promise<Frame> {
    return new Promise((resolve) => {
      const check = () => {
        const found = this.sent.find(match);
        if (!found) return;
        this.#waiters.delete(check);
        resolve(found);
      };
      this.#waiters.add(check);
      check();
    });
  }
}

/** setTimeout replaced for one test: each timer is kept with its delay, and fires when the test says. */
function fakeTimers(t: TestContext) {
  const timers: { fn: () => void; ms: number; cleared: boolean }[] = [];
  t.mock.method(globalThis, 'setTimeout', ((fn: () => void, ms: number) => {
    timers.push({ fn, ms, cleared: false });
    return timers.length;
  }) as unknown as typeof setTimeout);
  t.mock.method(globalThis, 'clearTimeout', ((id: number | undefined) => {
    if (id !== undefined && timers[id - 1]) timers[id - 1]!.cleared = true;
  }) as unknown as typeof clearTimeout);
  return {
    /** The timers set and not cleared nor fired. */
    pending: () => timers.filter((timer) => !timer.cleared),
    /** Fires the one pending timer, and says how long it was set for. */
    fire(): number {
      const pending = timers.filter((timer) => !timer.cleared);
      expect(pending, 'one timer pending').to.have.length(1);
      pending[0]!.cleared = true;
      pending[0]!.fn();
      return pending[0]!.ms;
    },
  };
}

/** A client over fake sockets, with a handler that records what it is asked. */
function linked({
  label = 'shop' as string | null,
  call,
}: { label?: string | null; call?: PageLinkHandler['call'] } = {}) {
  const sockets: FakeSocket[] = [];
  const refusals: PedelecError[] = [];
  const calls: { tool: string; args: unknown; signal: AbortSignal }[] = [];
  const state = { tools: [ADD] as PageTool[] };
  const client = new PageLinkClient(
    {
      hello: () => ({ label, title: 'Shop', url: 'http://localhost:5173/shop/' }),
      tools: () => state.tools,
      call(tool, args, signal) {
        calls.push({ tool, args, signal });
        return call ? call(tool, args, signal) : Promise.resolve({ ok: true, result: { sum: 3 } });
      },
      refused: (error) => void refusals.push(error),
    },
    (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
  );
  return { client, sockets, refusals, calls, state, last: () => sockets.at(-1)! };
}

describe('PageLinkClient', () => {
  let link: ReturnType<typeof linked>;
  beforeEach(() => {
    link = linked();
  });

  it('says hello on open with the link version, then publishes the tools', async () => {
    link.client.connect(URL_A);
    expect(link.sockets.map((s) => s.url)).to.deep.equal([URL_A]);
    expect(link.client.url).to.equal(URL_A);
    expect(link.last().sent, 'nothing before the socket is open').to.deep.equal([]);
    await link.last().open();
    expect(link.last().sent).to.deep.equal([
      { type: 'hello', version: PAGE_LINK_VERSION, label: 'shop', title: 'Shop', url: 'http://localhost:5173/shop/' },
      { type: 'tools', tools: [ADD] },
    ]);
  });

  it('a page without a label says hello without one', async () => {
    const unlabelled = linked({ label: null });
    unlabelled.client.connect(URL_A);
    await unlabelled.last().open();
    expect(unlabelled.last().sent[0]).to.deep.equal({
      type: 'hello',
      version: PAGE_LINK_VERSION,
      title: 'Shop',
      url: 'http://localhost:5173/shop/',
    });
  });

  it('publishes the tools again only when they changed, compared as canonical JSON', async () => {
    link.client.connect(URL_A);
    await link.last().open();
    link.client.connect(URL_A);
    // The same tools, their keys in another order: nothing new.
    link.state.tools = [{ inputSchema: ADD.inputSchema, description: ADD.description, name: ADD.name }];
    link.client.connect(URL_A);
    expect(link.last().sent.map((f) => f.type)).to.deep.equal(['hello', 'tools']);
    link.state.tools = [ADD, { ...ADD, name: 'sub' }];
    link.client.connect(URL_A);
    expect(link.last().sent.map((f) => f.type)).to.deep.equal(['hello', 'tools', 'tools']);
    expect(link.last().sent[2]!.tools.map((tool: PageTool) => tool.name)).to.deep.equal(['add', 'sub']);
    expect(link.sockets, 'one socket all along').to.have.length(1);
  });

  it('answers a call with the handler’s answer, and a handler that throws TOOL_HANDLER_ERROR', async () => {
    let fail = false;
    const answering = linked({
      call: async () => {
        if (fail) throw new Error('no basket');
        return { ok: true, result: { items: 2 } };
      },
    });
    answering.client.connect(URL_A);
    const socket = answering.last();
    await socket.open();
    socket.receive({ type: 'call', id: '7', tool: 'add', args: { a: 1, b: 2 } });
    expect(await socket.frame((f) => f.type === 'result')).to.deep.equal({
      type: 'result',
      id: '7',
      ok: true,
      result: { items: 2 },
    });
    expect(answering.calls.map(({ tool, args, signal }) => [tool, args, signal.aborted])).to.deep.equal([
      ['add', { a: 1, b: 2 }, false],
    ]);
    fail = true;
    socket.receive({ type: 'call', id: '8', tool: 'add', args: {} });
    expect(await socket.frame((f) => f.id === '8')).to.deep.equal({
      type: 'result',
      id: '8',
      ok: false,
      error: { code: 'TOOL_HANDLER_ERROR', message: 'no basket' },
    });
  });

  it('a cancel aborts that call’s signal (ABORTED), and its answer is not sent', async () => {
    const finish: ((answer: CallAnswer) => void)[] = [];
    const slow = linked({ call: () => new Promise((resolve) => finish.push(resolve)) });
    slow.client.connect(URL_A);
    const socket = slow.last();
    await socket.open();
    socket.receive({ type: 'call', id: '1', tool: 'add', args: {} });
    socket.receive({ type: 'call', id: '2', tool: 'add', args: {} });
    const [first, second] = slow.calls;
    socket.receive({ type: 'cancel', id: '1' });
    expect(first!.signal.aborted).to.equal(true);
    expect(first!.signal.reason).to.deep.equal({ code: 'ABORTED', message: 'The MCP client cancelled the call' });
    expect(second!.signal.aborted, 'the other call runs on').to.equal(false);
    finish[0]!({ ok: true, result: 'late' });
    finish[1]!({ ok: true, result: 'on time' });
    // The second call's result comes after anything the first one's would have sent.
    await socket.frame((f) => f.type === 'result');
    expect(socket.sent.filter((f) => f.type === 'result')).to.deep.equal([
      { type: 'result', id: '2', ok: true, result: 'on time' },
    ]);
  });

  it('ignores frames that are not a call or a cancel of the link', async () => {
    link.client.connect(URL_A);
    const socket = link.last();
    await socket.open();
    for (const frame of [
      'not JSON',
      null,
      [1],
      { type: 'call', tool: 'add' },
      { type: 'call', id: 7, tool: 'add' },
      { type: 'call', id: '1' },
      { type: 'later', id: '1' },
    ])
      socket.receive(frame);
    expect(link.calls).to.deep.equal([]);
  });

  it('a link that drops is tried again after 1 s, 2, 4 … then every 30 s; an open starts over at 1 s', async (t) => {
    const timers = fakeTimers(t);
    link.client.connect(URL_A);
    const waits: number[] = [];
    for (let i = 0; i < LINK_RETRY_MS.length + 2; i++) {
      link.last().drop(1006);
      expect(link.client.url, 'still the link’s URL while it waits').to.equal(URL_A);
      waits.push(timers.fire());
    }
    expect(waits).to.deep.equal([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect(link.sockets.map((s) => s.url)).to.deep.equal(Array(waits.length + 1).fill(URL_A));
    await link.last().open();
    link.last().drop(1001);
    expect(timers.fire()).to.equal(1000);
    expect(link.refusals).to.deep.equal([]);
  });

  it('a drop aborts the running calls; the next socket says hello and publishes again', async (t) => {
    const timers = fakeTimers(t);
    const slow = linked({ call: () => new Promise(() => {}) });
    slow.client.connect(URL_A);
    await slow.last().open();
    slow.last().receive({ type: 'call', id: '1', tool: 'add', args: {} });
    slow.last().drop(1006);
    expect(slow.calls[0]!.signal.reason).to.deep.equal({ code: 'ABORTED', message: 'the MCP page link closed' });
    timers.fire();
    await slow.last().open();
    expect(slow.last().sent.map((f) => f.type)).to.deep.equal(['hello', 'tools']);
  });

  it('a refusal (4000–4999) is reported once, and the URL is not tried again until it changes', async (t) => {
    const timers = fakeTimers(t);
    link.client.connect(URL_A);
    await link.last().open();
    link.last().drop(LINK_REFUSED_CLOSE_CODE, 'pedelec-dev: start it with --mcp to link pages on /tools');
    expect(link.refusals).to.deep.equal([
      {
        code: 'MCP_LINK_REFUSED',
        message: 'pedelec-dev refused the MCP page link: pedelec-dev: start it with --mcp to link pages on /tools',
        details: {
          url: URL_A,
          reason: 'pedelec-dev: start it with --mcp to link pages on /tools',
          code: LINK_REFUSED_CLOSE_CODE,
        },
      },
    ]);
    expect(timers.pending(), 'no retry').to.deep.equal([]);
    expect(link.client.url).to.equal(null);
    link.client.connect(URL_A);
    expect(link.sockets, 'the refused URL again: left alone').to.have.length(1);
    link.client.connect(URL_B);
    expect(link.sockets.map((s) => s.url)).to.deep.equal([URL_A, URL_B]);
    // The URL changed, and changes back: the refused one is tried again.
    link.client.connect(URL_A);
    expect(link.sockets.map((s) => s.url)).to.deep.equal([URL_A, URL_B, URL_A]);
    // Refused without a reason (the origin's 4003): the code says it.
    link.last().drop(4003);
    expect(link.refusals[1]!.message).to.equal('pedelec-dev refused the MCP page link: closed with 4003');
    // No link wanted, then the same URL again: tried again too.
    link.client.connect(null);
    link.client.connect(URL_A);
    expect(link.sockets.map((s) => s.url)).to.deep.equal([URL_A, URL_B, URL_A, URL_A]);
    expect(link.refusals).to.have.length(2);
    expect(timers.pending()).to.deep.equal([]);
  });

  it('another URL closes the link (1000) and opens one to it; the old socket is not heard any more', (t) => {
    const timers = fakeTimers(t);
    const slow = linked({ call: () => new Promise(() => {}) });
    slow.client.connect(URL_A);
    const old = slow.last();
    old.open();
    old.receive({ type: 'call', id: '1', tool: 'add', args: {} });
    slow.client.connect(URL_B);
    expect(old.closedWith).to.deep.equal({ code: 1000, reason: undefined });
    expect(slow.calls[0]!.signal.aborted).to.equal(true);
    expect(slow.sockets.map((s) => s.url)).to.deep.equal([URL_A, URL_B]);
    old.receive({ type: 'call', id: '2', tool: 'add', args: {} });
    old.drop(4400, 'late');
    expect(slow.calls, 'no call from the old socket').to.have.length(1);
    expect(slow.refusals).to.deep.equal([]);
    expect(timers.pending()).to.deep.equal([]);
  });

  it('close() ends the link for good: no retry, a later drop changes nothing', (t) => {
    const timers = fakeTimers(t);
    link.client.connect(URL_A);
    link.last().drop(1006);
    expect(timers.pending()).to.have.length(1);
    link.client.close();
    expect(timers.pending(), 'the retry is cancelled').to.deep.equal([]);
    expect(link.client.url).to.equal(null);
    expect(link.sockets).to.have.length(1);
    // A socket still connecting is closed too.
    link.client.connect(URL_B);
    link.client.close();
    expect(link.last().closedWith).to.deep.equal({ code: 1000, reason: undefined });
    expect(timers.pending()).to.deep.equal([]);
  });
});

describe('the page link contract', () => {
  it('a refusal is a close code from 4000 to 4999, pedelec-dev’s and the origin’s among them', () => {
    expect([LINK_REFUSED_CLOSE_CODE, 4003, 4000, 4999].map(isLinkRefusal)).to.deep.equal([true, true, true, true]);
    expect([1000, 1006, 1008, 3999, 5000].map(isLinkRefusal)).to.deep.equal([false, false, false, false, false]);
  });

  it('a result frame carries its answer, which answerOf reads back; anything else is no answer', () => {
    const answers: CallAnswer[] = [
      { ok: true, result: { sum: 3 } },
      { ok: true, result: null },
      { ok: false, error: { code: 'TOOL_ARGS_INVALID', message: 'a: must be a number', details: [{ path: 'a' }] } },
    ];
    for (const answer of answers) {
      const frame = JSON.parse(JSON.stringify(resultFrame('7', answer)));
      expect(frame).to.deep.equal({ type: 'result', id: '7', ...answer });
      expect(answerOf(frame)).to.deep.equal(answer);
    }
    for (const frame of [
      { type: 'result', id: '7', ok: true },
      { type: 'result', id: '7', ok: false, error: { code: 'X' } },
      { type: 'result', id: '7', ok: false, error: null },
      { type: 'result', id: '7', ok: 'yes', result: 1 },
    ])
      expect(answerOf(frame), JSON.stringify(frame)).to.equal(null);
  });

  it('readServerFrame reads a call and a cancel, and nothing else', () => {
    expect(readServerFrame('{"type":"call","id":"1","tool":"add","args":{"a":1}}')).to.deep.equal({
      type: 'call',
      id: '1',
      tool: 'add',
      args: { a: 1 },
    });
    expect(readServerFrame('{"type":"cancel","id":"1"}')).to.deep.equal({ type: 'cancel', id: '1' });
    for (const data of ['', 'null', '7', '"call"', '{"type":"call","id":"1"}', '{"type":"cancel"}', '{"id":"1"}'])
      expect(readServerFrame(data), data).to.equal(null);
  });
});
