/**
 * The session element's lifecycle (src/elements/session/lifecycle.ts), in Node, over the memory
 * transport: one test per race that the element's old phase flags covered — end() during start,
 * start() after end() while starting, end() during restart(), removal during start, removal then
 * return while the start is in flight, restart() joining, start() after end() and after a failed
 * end(), a removed element's session ended (or kept with persist), restart() creating fresh.
 * The "extension" is a memory peer that answers what the test lets it answer.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createMemoryPair, type MemoryPeer } from '../../../src/core/transports/memory.js';
import type { PedelecError } from '../../../src/core/index.js';
import { openClientCount } from '../../../src/elements/session/client-pool.js';
import { ElementToolbox } from '../../../src/elements/session/element-toolbox.js';
import { SessionLifecycle, type LifecycleHost } from '../../../src/elements/session/lifecycle.js';
import type { StartPlan } from '../../../src/elements/session/session-config.js';
import type { PedelecElementStatus } from '../../../src/elements/session/status.js';
import { expect } from '../../support/expect.js';
import { installPageGlobals } from '../../support/page-globals.js';
import { rejection } from '../../support/promises.js';
import { nextTask, until } from '../../support/waits.js';

type Message = Record<string, any>;

/** A memory "extension": every port the page opens is answered here; `hold` keeps requests of a type for the test. */
class MemoryExtension {
  readonly requests: Message[] = [];
  readonly peers: MemoryPeer[] = [];
  #held = new Set<string>();
  #waiting = new Set<() => void>();
  #sessions = 0;

  install(): void {
    (globalThis as any).chrome = {
      runtime: {
        connect: () => {
          const { transport, peer } = createMemoryPair();
          this.peers.push(peer);
          peer.onMessage.addListener((message) => this.#receive(peer, message as Message));
          return transport();
        },
      },
    };
  }

  /** Requests of `type` wait for {@link answer} instead of being answered at once. */
  hold(type: string): void {
    this.#held.add(type);
  }

  /** Nothing is held any more: what waits is answered (the end of a test). */
  releaseAll(): void {
    this.#held.clear();
    for (const request of this.requests) if (!request.answered && request.peer.connected) this.answer(request);
  }

  /** The first held request of `type` not answered yet: now, or when the page posts it. */
  next(type: string): Promise<Message> {
    const find = () => this.requests.find((m) => m.type === type && !m.answered);
    return new Promise((resolve) => {
      const check = () => {
        const found = find();
        if (!found) return;
        this.#waiting.delete(check);
        resolve(found);
      };
      this.#waiting.add(check);
      check();
    });
  }

  answer(request: Message, result: unknown = this.#resultFor(request)): void {
    request.answered = true;
    request.peer.postMessage({
      channelId: request.channelId,
      type: 'response',
      requestId: request.requestId,
      ok: true,
      result,
    });
  }

  refuse(request: Message, error: PedelecError): void {
    request.answered = true;
    request.peer.postMessage({
      channelId: request.channelId,
      type: 'response',
      requestId: request.requestId,
      ok: false,
      error,
    });
  }

  posted(type: string): Message[] {
    return this.requests.filter((m) => m.type === type);
  }

  #receive(peer: MemoryPeer, message: Message): void {
    if (!message.requestId) return; // the handshake
    const request = Object.assign(message, { peer });
    this.requests.push(request);
    if (!this.#held.has(message.type)) this.answer(request);
    [...this.#waiting].forEach((check) => check());
  }

  #resultFor(request: Message): unknown {
    switch (request.type) {
      case 'get_approval_status':
        return { installed: true, approved: true, origin: 'http://localhost:8000', appConnected: true };
      case 'create_session':
        return { sessionId: `s${++this.#sessions}` };
      case 'resume_session':
        return { sessionId: request.sessionId };
      default:
        return {};
    }
  }
}

type FakeElement = {
  connected: boolean;
  statuses: PedelecElementStatus[];
  events: string[];
  toolbox: ElementToolbox;
  host: LifecycleHost;
};

/** A session element as the lifecycle sees it: what it would send, and what it was told. */
function fakeElement(options: { persistKey?: string | null; resumeId?: string | null } = {}) {
  const toolbox = new ElementToolbox({
    built: () => ({ tools: [], byName: new Map(), invalid: [], disabled: new Set() }),
    sent: () => false,
    emit: (event) => element.events.push(event.type),
    // No consequential tool here: nothing asks on the element.
    element: new EventTarget() as unknown as HTMLElement,
  });
  const config = {
    provider: 'codex',
    model: 'm',
    'effort-level': '',
    effort: '',
    guidance: '',
    bridge: 'ext:',
    novalidate: 'false',
    workspace: '',
  };
  const plan = (): StartPlan => ({
    bridge: { kind: 'extension' },
    bridgeTimeoutMs: undefined,
    provider: 'codex',
    model: 'm',
    effortLevel: '',
    effort: '',
    skills: undefined,
    tools: [],
    toolbox,
    validateArgs: true,
    persistKey: options.persistKey ?? null,
    manifestHash: 'hash',
    resumeId: options.resumeId ?? null,
    workspace: null,
    manifest: undefined,
    config,
  });
  const element: FakeElement = {
    connected: true,
    statuses: [] as PedelecElementStatus[],
    events: [] as string[],
    toolbox,
    host: {
      isConnected: () => element.connected,
      bridge: () => ({ kind: 'extension' }),
      bridgeTimeoutMs: () => undefined,
      arriving: () => [],
      plan,
      persistKey: () => options.persistKey ?? null,
      declared: () => ({ manifest: undefined, config }),
      status: (status) => element.statuses.push(status),
      approvalPending: () => {},
      emit: (event) => element.events.push(event.type),
    },
  };
  return element;
}

let extension: MemoryExtension;
const made: Array<{ element: ReturnType<typeof fakeElement>; lifecycle: SessionLifecycle }> = [];

function lifecycleOf(element: ReturnType<typeof fakeElement>): SessionLifecycle {
  const lifecycle = new SessionLifecycle(element.host, element.toolbox);
  made.push({ element, lifecycle });
  return lifecycle;
}

/** A fake sessionStorage for `persist` (Node has none). */
function installStorage(): Map<string, string> {
  const items = new Map<string, string>();
  (globalThis as any).sessionStorage = {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
  return items;
}

describe('session lifecycle (Node, memory transport)', () => {
  beforeEach(() => {
    installPageGlobals();
    extension = new MemoryExtension();
    extension.install();
  });
  afterEach(async () => {
    extension.releaseAll();
    for (const { element, lifecycle } of made.splice(0)) {
      if (!element.connected) continue; // removed by the test already
      element.connected = false;
      lifecycle.teardown(false);
    }
    // Shared clients are pooled per bridge: the next test must not get this one's.
    await until(() => openClientCount() === 0, 'the clients to be given back');
    delete (globalThis as any).chrome;
    delete (globalThis as any).sessionStorage;
  });

  it('start() creates a session: starting, then the session, then ready', async () => {
    const element = fakeElement();
    const lifecycle = lifecycleOf(element);
    const session = await lifecycle.start();
    expect(session.sessionId).to.equal('s1');
    expect(lifecycle.phase.name).to.equal('live');
    expect(element.statuses).to.deep.equal(['starting', 'idle']);
    expect(element.events).to.include('pedelec-ready');
  });

  it('end() during start: the session is ended as soon as it exists; turns are refused', async () => {
    extension.hold('create_session');
    const lifecycle = lifecycleOf(fakeElement());
    const starting = lifecycle.start();
    const ending = lifecycle.end();
    extension.answer(await extension.next('create_session'));
    expect((await starting).sessionId).to.equal('s1');
    await ending;
    expect(extension.posted('end_session').map((m) => m.sessionId)).to.deep.equal(['s1']);
    expect((await rejection(lifecycle.started())).code).to.equal('SESSION_ENDED');
    expect(lifecycle.phase.name).to.equal('ended');
  });

  it('start(), end(), start() while starting: the same promise, the session kept, no end_session', async () => {
    extension.hold('create_session');
    const lifecycle = lifecycleOf(fakeElement());
    const first = lifecycle.start();
    const ending = lifecycle.end();
    const second = lifecycle.start();
    expect(second).to.equal(first);
    extension.answer(await extension.next('create_session'));
    await first;
    await ending;
    expect(extension.posted('end_session')).to.deep.equal([]);
    expect(lifecycle.phase.name).to.equal('live');
    expect(lifecycle.liveSession?.sessionId).to.equal('s1');
  });

  it('end() during restart(): the restart rejects SESSION_ENDED and creates nothing', async () => {
    const lifecycle = lifecycleOf(fakeElement());
    await lifecycle.start();
    extension.hold('end_session');
    const restarting = lifecycle.restart();
    const endRequest = await extension.next('end_session');
    const ending = lifecycle.end();
    extension.answer(endRequest);
    expect((await rejection(restarting)).code).to.equal('SESSION_ENDED');
    await ending;
    expect(extension.posted('create_session')).to.have.length(1);
    expect((await rejection(lifecycle.started())).code).to.equal('SESSION_ENDED');
  });

  it('restart() while a restart runs joins it: one new session', async () => {
    const lifecycle = lifecycleOf(fakeElement());
    await lifecycle.start();
    const first = lifecycle.restart();
    const second = lifecycle.restart();
    expect(second).to.equal(first);
    expect((await first).sessionId).to.equal('s2');
    expect(extension.posted('create_session')).to.have.length(2);
    expect(extension.posted('end_session').map((m) => m.sessionId)).to.deep.equal(['s1']);
  });

  it('removal during start: the start rejects SESSION_ENDED, the element is inactive, what it creates is ended', async () => {
    await lifecycleOf(fakeElement()).start(); // another session element keeps the shared client open
    extension.hold('create_session');
    const element = fakeElement();
    const lifecycle = lifecycleOf(element);
    const starting = lifecycle.start();
    const create = await extension.next('create_session');
    element.connected = false;
    lifecycle.teardown(false);
    expect(element.statuses.at(-1)).to.equal('inactive');
    extension.answer(create);
    expect((await rejection(starting)).code).to.equal('SESSION_ENDED');
    await until(() => extension.posted('end_session').length > 0, 'end_session');
    expect(extension.posted('end_session').map((m) => m.sessionId)).to.deep.equal(['s2']);
    expect(element.events).to.not.include('pedelec-ready');
    expect((await rejection(lifecycle.start())).code).to.equal('SESSION_ENDED');
  });

  it('removal during start with persist: the created session is kept recorded for the next page, not ended', async () => {
    const storage = installStorage();
    await lifecycleOf(fakeElement()).start(); // another session element keeps the shared client open
    extension.hold('create_session');
    const element = fakeElement({ persistKey: 'pedelec-elements:v1:ext::/page' });
    const lifecycle = lifecycleOf(element);
    const starting = lifecycle.start();
    const create = await extension.next('create_session');
    expect(create.input.autoEndOnDisconnect).to.equal(false);
    element.connected = false;
    lifecycle.teardown(true);
    extension.answer(create);
    expect((await rejection(starting)).code).to.equal('SESSION_ENDED');
    expect(extension.posted('end_session')).to.deep.equal([]);
    expect(JSON.parse(storage.get('pedelec-elements:v1:ext::/page')!)).to.include({
      sessionId: 's2',
      manifestHash: 'hash',
    });
  });

  it('removed while starting and put back: the start in flight ends its session; start() begins afresh', async () => {
    await lifecycleOf(fakeElement()).start(); // another session element keeps the shared client open
    extension.hold('create_session');
    const element = fakeElement();
    const lifecycle = lifecycleOf(element);
    const first = lifecycle.start();
    const firstCreate = await extension.next('create_session');
    element.connected = false;
    lifecycle.teardown(false);
    element.connected = true;
    lifecycle.reconnected();
    const second = lifecycle.start();
    expect(second).to.not.equal(first);
    extension.answer(firstCreate);
    expect((await rejection(first)).code).to.equal('SESSION_ENDED');
    await until(() => extension.posted('end_session').length > 0, 'end_session');
    expect(extension.posted('end_session').map((m) => m.sessionId)).to.deep.equal(['s2']);
    extension.answer(await extension.next('create_session'));
    expect((await second).sessionId).to.equal('s3');
    expect(lifecycle.liveSession?.sessionId).to.equal('s3');
  });

  it('removed, its session still ending, put back and started: the old end does not drop the new session', async () => {
    const element = fakeElement();
    const lifecycle = lifecycleOf(element);
    await lifecycle.start();
    extension.hold('end_session');
    element.connected = false;
    lifecycle.teardown(false);
    const oldEnd = await extension.next('end_session');
    element.connected = true;
    lifecycle.reconnected();
    const next = await lifecycle.start();
    expect(next.sessionId).to.equal('s2');
    extension.answer(oldEnd);
    await nextTask();
    expect(lifecycle.session?.sessionId).to.equal('s2');
    expect(element.statuses.at(-1)).to.equal('idle');
  });

  it('start() after end(): a new session', async () => {
    const lifecycle = lifecycleOf(fakeElement());
    await lifecycle.start();
    await lifecycle.end();
    expect(lifecycle.phase.name).to.equal('ended');
    expect((await lifecycle.start()).sessionId).to.equal('s2');
    expect(lifecycle.phase.name).to.equal('live');
  });

  it('start() after a failed end(): the session still runs and is usable again', async () => {
    const lifecycle = lifecycleOf(fakeElement());
    const session = await lifecycle.start();
    session.onError(() => {}); // the failed end is reported there
    extension.hold('end_session');
    const ending = lifecycle.end();
    extension.refuse(await extension.next('end_session'), { code: 'END_SESSION_FAILED', message: 'no' });
    expect((await rejection(ending)).code).to.equal('END_SESSION_FAILED');
    expect((await rejection(lifecycle.started())).code).to.equal('SESSION_ENDED');
    expect(await lifecycle.start()).to.equal(session);
    expect(lifecycle.phase.name).to.equal('live');
    expect(extension.posted('create_session')).to.have.length(1);
  });

  it('removal ends the session (teardown) and gives the client back once the end settles', async () => {
    const element = fakeElement();
    const lifecycle = lifecycleOf(element);
    await lifecycle.start();
    element.connected = false;
    lifecycle.teardown(false);
    await until(() => lifecycle.client === null, 'the client to be given back');
    expect(extension.posted('end_session').map((m) => m.sessionId)).to.deep.equal(['s1']);
    expect(element.statuses.at(-1)).to.equal('inactive');
    expect(lifecycle.client).to.equal(null);
    expect(extension.peers.every((peer) => !peer.connected)).to.equal(true);
  });

  it('restart() with a session to resume (`resume-id`) creates fresh, and end() then start() resumes it again', async () => {
    const lifecycle = lifecycleOf(fakeElement({ resumeId: 'old' }));
    expect((await lifecycle.start()).sessionId).to.equal('old');
    expect(extension.posted('resume_session')).to.have.length(1);
    expect((await lifecycle.restart()).sessionId).to.equal('s1');
    expect(extension.posted('resume_session')).to.have.length(1);
    expect(extension.posted('create_session')).to.have.length(1);
  });
});
