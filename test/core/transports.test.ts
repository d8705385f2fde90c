/**
 * Transports (docs/design/bridge-protocol.md §5, elements.md "Bridge"): the in-memory pair and the
 * WebSocket transport to the development Core, the deferred one that loads a transport's code on first
 * use, on their own and under a `Pedelec` client.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import { expect } from '../support/expect.js';
import { Pedelec, normalizeError } from '../../src/core/index.js';
import type { BridgePort, PortFactory } from '../../src/core/index.js';
import { deferredTransport } from '../../src/core/transports/deferred.js';
import { createMemoryPair, websocketTransport } from '../../src/transports.js';
import type { MemoryPeer } from '../../src/transports.js';
import { WebSocket as NodeWebSocket } from 'ws';
import { installPageGlobals } from '../support/page-globals.js';
import { rejection, settled, track } from '../support/promises.js';
import { nextTask, until } from '../support/waits.js';

// The page the client runs in: it reports page_activity (its window and document) after sdk_hello.
installPageGlobals();

function thrownBy(fn: () => void): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Lets the page side answer like the extension would. */
function answerAll(peer: MemoryPeer, result: (msg: any) => unknown = () => ({})) {
  peer.onMessage.addListener((msg: any) => {
    peer.postMessage({
      channelId: msg.channelId,
      type: 'response',
      requestId: msg.requestId,
      ok: true,
      result: result(msg),
    });
  });
}

let clients: Pedelec[] = [];
function client(options: ConstructorParameters<typeof Pedelec>[0]): Pedelec {
  const c = new Pedelec(options);
  clients.push(c);
  return c;
}

beforeEach(() => {
  clients = [];
});
afterEach(() => {
  clients.forEach((c) => {
    try {
      (c as any).disconnect?.();
    } catch {
      // not part of these tests
    }
  });
});

// ───────────────────────────── memory pair ─────────────────────────────

describe('createMemoryPair', () => {
  it('delivers page → peer messages asynchronously, in order, by reference', async () => {
    const { transport, peer } = createMemoryPair();
    const port = transport();
    const got: unknown[] = [];
    peer.onMessage.addListener((m) => got.push(m));
    const a = { n: 1 };
    const b = { n: 2 };
    port.postMessage(a);
    port.postMessage(b);
    expect(got).to.deep.equal([]);
    await nextTask();
    expect(got).to.have.length(2);
    expect(got[0]).to.equal(a);
    expect(got[1]).to.equal(b);
  });

  it('delivers peer → page messages asynchronously, in order, by reference', async () => {
    const { transport, peer } = createMemoryPair();
    const port = transport();
    const got: unknown[] = [];
    port.onMessage.addListener((m) => got.push(m));
    const a = { n: 1 };
    const b = { n: 2 };
    peer.postMessage(a);
    peer.postMessage(b);
    expect(got).to.deep.equal([]);
    await nextTask();
    expect(got).to.have.length(2);
    expect(got[0]).to.equal(a);
    expect(got[1]).to.equal(b);
  });

  it('peer.disconnect() fires the page port onDisconnect once and stops traffic both ways', async () => {
    const { transport, peer } = createMemoryPair();
    const port = transport();
    const toPage: unknown[] = [];
    const toPeer: unknown[] = [];
    const disconnects: unknown[] = [];
    port.onMessage.addListener((m) => toPage.push(m));
    port.onDisconnect.addListener((p) => disconnects.push(p));
    peer.onMessage.addListener((m) => toPeer.push(m));
    peer.postMessage({ inFlight: true });
    expect(peer.connected).to.equal(true);
    peer.disconnect();
    peer.disconnect();
    expect(peer.connected).to.equal(false);
    await nextTask();
    expect(disconnects).to.have.length(1);
    expect(disconnects[0]).to.equal(port);
    expect(toPage, 'a message in flight is dropped').to.deep.equal([]);
    expect(
      thrownBy(() => port.postMessage({ late: true })),
      'posting on a disconnected port throws',
    ).to.not.equal(undefined);
    peer.postMessage({ late: true });
    await nextTask();
    expect(toPage).to.deep.equal([]);
    expect(toPeer).to.deep.equal([]);
  });

  it('port.disconnect() tells the peer, not the page side', async () => {
    const { transport, peer } = createMemoryPair();
    const port = transport();
    let peerSaw = 0;
    let pageSaw = 0;
    peer.onDisconnect.addListener(() => peerSaw++);
    port.onDisconnect.addListener(() => pageSaw++);
    port.disconnect!();
    await nextTask();
    expect(peerSaw).to.equal(1);
    expect(pageSaw).to.equal(0);
    expect(peer.connected).to.equal(false);
  });

  it('carries a Pedelec client: requests, responses and session events', async () => {
    const { transport, peer } = createMemoryPair();
    const seen: any[] = [];
    peer.onMessage.addListener((m) => seen.push(m));
    answerAll(peer, (msg) =>
      msg.type === 'create_session' ? { sessionId: 'm1' } : msg.type === 'list_providers' ? [] : {},
    );
    const c = client({ transport });
    expect(await c.listProviders()).to.deep.equal([]);
    const session = await c.createSession({ provider: 'codex', model: 'm' });
    expect(session.sessionId).to.equal('m1');
    const chat: string[] = [];
    session.onChatDelta((t) => chat.push(t));
    const turn = session.sendText('hi');
    await until(() => seen.some((m) => m.type === 'send_text'), 'send_text to reach the peer');
    const channelId = seen[0].channelId;
    peer.postMessage({ channelId, type: 'chat_delta', sessionId: 'm1', seq: 1, text: 'Hel' });
    peer.postMessage({ channelId, type: 'chat_delta', sessionId: 'm1', seq: 2, text: 'lo' });
    peer.postMessage({ channelId, type: 'status_changed', sessionId: 'm1', seq: 3, status: 'idle' });
    await turn;
    expect(chat).to.deep.equal(['Hel', 'lo']);
    expect(seen.map((m) => m.type)).to.deep.equal([
      'sdk_hello',
      'page_activity',
      'list_providers',
      'create_session',
      'send_text',
    ]);
  });

  it('peer.disconnect() rejects the client’s pending requests with EXTENSION_DISCONNECTED', async () => {
    const { transport, peer } = createMemoryPair();
    const c = client({ transport });
    const p = track(c.getSettings());
    peer.disconnect();
    await settled(p.promise);
    expect(p.state).to.equal('rejected');
    expect(p.error).to.deep.equal({ code: 'EXTENSION_DISCONNECTED', message: 'Pedelec extension disconnected.' });
    expect(await rejection(c.listProviders())).to.deep.include({
      code: 'EXTENSION_DISCONNECTED',
      message: 'Pedelec extension disconnected.',
    });
  });
});

// ───────────────────────────── WebSocket, real socket ─────────────────────────────

// A real socket: Node's own WebSocket where it has one (22+), else the `ws` package's, which is what
// websocketTransport's second argument is for.
const RealWebSocket = 'WebSocket' in globalThis ? globalThis.WebSocket : NodeWebSocket;

describe('websocketTransport to a closed loopback port', () => {
  const url = 'ws://127.0.0.1:9/';

  it('disconnects the port with BRIDGE_UNAVAILABLE "Development Core not reachable at <url>"', async () => {
    let port!: BridgePort;
    expect(() => (port = websocketTransport(url, RealWebSocket)())).to.not.throw();
    const fired: unknown[] = [];
    await new Promise<void>((resolve) =>
      port.onDisconnect.addListener((p) => {
        fired.push(p);
        resolve();
      }),
    );
    expect(port.error?.code).to.equal('BRIDGE_UNAVAILABLE');
    expect(port.error?.message).to.equal(`Development Core not reachable at ${url}`);
    expect(fired).to.have.length(1);
  });

  it('a Pedelec client over it rejects pending requests (posted before open) with that error; a later one tries again', async () => {
    const c = client({ transport: websocketTransport(url, RealWebSocket) });
    let p!: Promise<unknown>;
    expect(() => (p = c.getSettings())).to.not.throw();
    const e = await rejection(p);
    expect(e.code).to.equal('BRIDGE_UNAVAILABLE');
    expect(e.message).to.equal(`Development Core not reachable at ${url}`);
    // A new socket: the Core may have come up meanwhile. Here it has not.
    expect(await rejection(c.listProviders())).to.deep.equal(e);
  });

  it('checkAvailability says the bridge is not there (as for a missing extension), not that it is', async () => {
    const c = client({ transport: websocketTransport(url, RealWebSocket) });
    const availability = await c.checkAvailability();
    expect(availability.available).to.equal(false);
    expect(availability.extension.available).to.equal(false);
    expect((await c.getApprovalStatus()).installed).to.equal(false);
  });
});

// ───────────────────────────── WebSocket, fake socket ─────────────────────────────

type SocketEvent = { data?: unknown; code?: number; reason?: string };
type Listener = (event: SocketEvent) => void;

function fakeSocketClass() {
  const instances: FakeSocket[] = [];
  class FakeSocket {
    readyState = 0;
    sent: string[] = [];
    closeCalls: Array<[number | undefined, string | undefined]> = [];
    private listeners = new Map<string, Listener[]>();
    constructor(public url: string) {
      instances.push(this);
    }
    send(data: string): void {
      if (this.readyState !== 1) throw new DOMException('Still in CONNECTING state.', 'InvalidStateError');
      this.sent.push(data);
    }
    close(code?: number, reason?: string): void {
      this.closeCalls.push([code, reason]);
      this.readyState = 3;
    }
    addEventListener(type: string, listener: Listener): void {
      this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
    }
    fire(type: string, event: SocketEvent = {}): void {
      (this.listeners.get(type) ?? []).forEach((fn) => fn(event));
    }
    open(): void {
      this.readyState = 1;
      this.fire('open');
    }
    closeFromServer(event: SocketEvent = { code: 1006, reason: '' }): void {
      this.readyState = 3;
      this.fire('close', event);
    }
  }
  return { FakeSocket, instances };
}

describe('websocketTransport (fake WebSocket)', () => {
  it('opens one socket to the url when the port is made', () => {
    const { FakeSocket, instances } = fakeSocketClass();
    const factory = websocketTransport('ws://127.0.0.1:7717/bridge', FakeSocket);
    expect(instances).to.have.length(0);
    factory();
    expect(instances).to.have.length(1);
    expect(instances[0]!.url).to.equal('ws://127.0.0.1:7717/bridge');
  });

  it('queues messages posted before open and sends them in order as JSON text frames once open', () => {
    const { FakeSocket, instances } = fakeSocketClass();
    const port = websocketTransport('ws://127.0.0.1:7717/bridge', FakeSocket)();
    const socket = instances[0]!;
    expect(() => port.postMessage({ n: 1 })).to.not.throw();
    port.postMessage({ n: 2, s: 'two' });
    expect(socket.sent).to.deep.equal([]);
    socket.open();
    expect(socket.sent).to.deep.equal([JSON.stringify({ n: 1 }), JSON.stringify({ n: 2, s: 'two' })]);
    port.postMessage({ n: 3 });
    expect(socket.sent).to.have.length(3);
    expect(JSON.parse(socket.sent[2]!)).to.deep.equal({ n: 3 });
  });

  it('delivers JSON text frames as parsed messages and ignores frames that are not JSON text', () => {
    const { FakeSocket, instances } = fakeSocketClass();
    const port = websocketTransport('ws://127.0.0.1:7717/bridge', FakeSocket)();
    const socket = instances[0]!;
    const got: unknown[] = [];
    port.onMessage.addListener((m) => got.push(m));
    socket.open();
    expect(() => socket.fire('message', { data: 'not json {' })).to.not.throw();
    expect(() => socket.fire('message', { data: new ArrayBuffer(4) })).to.not.throw();
    socket.fire('message', { data: JSON.stringify({ type: 'response', requestId: 'r', ok: true }) });
    expect(got).to.deep.equal([{ type: 'response', requestId: 'r', ok: true }]);
  });

  it('a socket closing before it opened disconnects the port with BRIDGE_UNAVAILABLE and drops the queue', () => {
    const { FakeSocket, instances } = fakeSocketClass();
    const url = 'ws://localhost:7717/bridge';
    const port = websocketTransport(url, FakeSocket)();
    const socket = instances[0]!;
    const fired: unknown[] = [];
    port.onDisconnect.addListener((p) => fired.push(p));
    port.postMessage({ queued: true });
    socket.fire('error');
    socket.closeFromServer();
    expect(fired).to.have.length(1);
    expect(port.error?.code).to.equal('BRIDGE_UNAVAILABLE');
    expect(port.error?.message).to.equal(`Development Core not reachable at ${url}`);
    expect(socket.sent).to.deep.equal([]);
    expect(thrownBy(() => port.postMessage({ late: true }))).to.not.equal(undefined);
  });

  it('a Pedelec client over it: requests posted before open go out on open and get their answers', async () => {
    const { FakeSocket, instances } = fakeSocketClass();
    const c = client({ transport: websocketTransport('ws://127.0.0.1:7717/bridge', FakeSocket) });
    const socket = instances[0]!;
    const p = track(c.listProviders());
    expect(socket.sent).to.deep.equal([]);
    socket.open();
    // The handshake first (it was posted at construction), then the request.
    expect(socket.sent.map((frame) => JSON.parse(frame).type)).to.deep.equal([
      'sdk_hello',
      'page_activity',
      'list_providers',
    ]);
    const msg = JSON.parse(socket.sent[2]!);
    socket.fire('message', {
      data: JSON.stringify({
        channelId: msg.channelId,
        type: 'response',
        requestId: msg.requestId,
        ok: true,
        result: [{ name: 'Scripted', code: 'scripted', available: true, isDefault: true, error: null }],
      }),
    });
    await settled(p.promise);
    expect(p.state).to.equal('fulfilled');
    expect(p.value).to.deep.equal([
      { name: 'Scripted', code: 'scripted', available: true, isDefault: true, error: null },
    ]);
  });

  it('a Pedelec client over a socket that never opens rejects pending requests with BRIDGE_UNAVAILABLE', async () => {
    const { FakeSocket, instances } = fakeSocketClass();
    const url = 'ws://127.0.0.1:7717/bridge';
    const c = client({ transport: websocketTransport(url, FakeSocket) });
    const p = track(c.getSettings());
    instances[0]!.closeFromServer();
    await settled(p.promise);
    expect(p.state).to.equal('rejected');
    expect(p.error.code).to.equal('BRIDGE_UNAVAILABLE');
    expect(p.error.message).to.equal(`Development Core not reachable at ${url}`);
  });

  it('the Development Core going away after open disconnects the client: pending requests reject', async () => {
    const { FakeSocket, instances } = fakeSocketClass();
    const c = client({ transport: websocketTransport('ws://127.0.0.1:7717/bridge', FakeSocket) });
    instances[0]!.open();
    const p = track(c.getSettings());
    instances[0]!.closeFromServer();
    await settled(p.promise);
    expect(p.state).to.equal('rejected');
    expect(p.error.code).to.be.a('string');
    expect(p.error.code).to.not.equal('BRIDGE_UNAVAILABLE');
    expect(p.error.message).to.be.a('string');
  });

  it('a Core that refuses the page’s origin (open, then close 4003) fails the client with BRIDGE_ORIGIN_REFUSED, which checkAvailability keeps', async () => {
    const { FakeSocket, instances } = fakeSocketClass();
    const url = 'ws://127.0.0.1:7717/bridge';
    const c = client({ transport: websocketTransport(url, FakeSocket) });
    const availability = c.checkAvailability();
    const reason = 'origin not allowed: start pedelec-dev with --allow-origin http://localhost:8000';
    instances[0]!.open();
    instances[0]!.closeFromServer({ code: 4003, reason });
    const expected = {
      code: 'BRIDGE_ORIGIN_REFUSED',
      message: `Development Core at ${url}: ${reason}`,
      details: { url, reason },
    };
    expect(c.unavailableReason).to.deep.equal(expected);
    // Not "not reachable" (the Core answered): the error stays in the availability, for the advice.
    expect(await availability).to.deep.equal({
      available: false,
      extension: { available: true },
      approval: { approved: false, origin: location.origin },
      desktop: { available: false, launchAttempted: false },
      error: expected,
    });
  });

  it('port.disconnect() closes the socket and sends nothing queued', () => {
    const { FakeSocket, instances } = fakeSocketClass();
    const port = websocketTransport('ws://127.0.0.1:7717/bridge', FakeSocket)();
    const socket = instances[0]!;
    port.postMessage({ queued: true });
    port.disconnect!();
    expect(socket.closeCalls).to.have.length(1);
    socket.open();
    expect(socket.sent).to.deep.equal([]);
  });
});

describe('deferredTransport (a transport whose code loads on first use)', () => {
  /** A loader the test settles: resolves with the memory pair's transport, or fails. */
  function deferredPair() {
    const pair = createMemoryPair();
    let settle!: { load: () => void; fail: (error: unknown) => void };
    const loaded = new Promise<PortFactory>((resolve, reject) => {
      settle = { load: () => resolve(pair.transport), fail: reject };
    });
    return { pair, settle, transport: deferredTransport(() => loaded) };
  }

  it('holds what is posted until the real port opens, then sends it in order and forwards both ways', async () => {
    const { pair, settle, transport } = deferredPair();
    const port = transport();
    const heard: unknown[] = [];
    const received: unknown[] = [];
    pair.peer.onMessage.addListener((message) => heard.push(message));
    port.onMessage.addListener((message) => received.push(message));
    port.postMessage({ n: 1 });
    port.postMessage({ n: 2 });
    await nextTask();
    expect(heard).to.deep.equal([]);
    settle.load();
    await until(() => heard.length === 2, 'the held messages reaching the peer');
    expect(heard).to.deep.equal([{ n: 1 }, { n: 2 }]);
    pair.peer.postMessage({ back: true });
    await until(() => received.length === 1, "the peer's message reaching the page");
    expect(received).to.deep.equal([{ back: true }]);
  });

  it('a load that fails disconnects the port with that error, and posting then throws it', async () => {
    const { settle, transport } = deferredPair();
    const port = transport();
    const disconnected = new Promise((resolve) => port.onDisconnect.addListener(resolve));
    settle.fail(normalizeError(new Error('offline'), 'CHUNK_LOAD_FAILED', 'Could not load it'));
    await disconnected;
    expect(port.error?.code).to.equal('CHUNK_LOAD_FAILED');
    expect((thrownBy(() => port.postMessage({})) as BridgePort['error'])?.code).to.equal('CHUNK_LOAD_FAILED');
  });

  it('a port disconnected before the load never opens the real one', async () => {
    const { pair, settle, transport } = deferredPair();
    let opened = 0;
    pair.peer.onMessage.addListener(() => opened++);
    const port = transport();
    port.postMessage({ early: true });
    port.disconnect?.();
    settle.load();
    await nextTask();
    expect(opened).to.equal(0);
  });

  it('carries a Pedelec client: a request posted before the load is answered after it', async () => {
    const { pair, settle, transport } = deferredPair();
    answerAll(pair.peer, (msg) => (msg.type === 'get_settings' ? { defaultProvider: 'codex' } : {}));
    const settings = client({ transport }).getSettings();
    settle.load();
    expect(await settings).to.deep.equal({ defaultProvider: 'codex' });
  });
});
