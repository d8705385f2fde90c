/**
 * Shared by the reliability tests: counters for what a page can leak (event listeners, timers,
 * mutation observers), and an "auto Core" — a fake `chrome.runtime` whose every `connect()` opens a
 * fresh port and whose requests are answered in a microtask, so thousands of cycles run in seconds.
 *
 * The counters wrap the platform functions of this test page only while a test runs (`restore()`
 * undoes every wrap); they count what is registered and not yet undone, not GC reachability.
 */

import { nextMessage, until } from '../support/waits.js';

type AnyListener = EventListenerOrEventListenerObject;

export type Counters = {
  /** Listener registrations not removed, on targets that are not detached DOM nodes (see `all`). */
  listeners(): number;
  /** Every listener registration not removed, detached nodes included (dead elements keep theirs). */
  allListeners(): number;
  /** Registrations on one target. */
  listenersOn(target: EventTarget): number;
  /** Timeouts and intervals set and neither fired (timeouts) nor cleared. */
  timers(): number;
  /** MutationObservers that observe something and were not disconnected. */
  observers(): number;
  /** How many times clearTimeout/clearInterval were called since the counters were installed. */
  clears(): number;
  restore(): void;
};

/** Installs the counters. Call `restore()` in `afterEach` (also when the test failed). */
export function installCounters(): Counters {
  const undo: Array<() => void> = [];
  const patch = <T extends object, K extends keyof T>(owner: T, key: K, value: T[K]) => {
    const original = owner[key];
    owner[key] = value;
    undo.push(() => {
      owner[key] = original;
    });
    return original;
  };

  // ── listeners: target → "type|capture" → listener → what was really registered ──
  const registry = new Map<EventTarget, Map<string, Map<AnyListener, AnyListener>>>();
  const proto = EventTarget.prototype;
  const add = proto.addEventListener;
  const remove = proto.removeEventListener;
  const keyOf = (type: string, options?: boolean | EventListenerOptions) =>
    `${type}|${typeof options === 'boolean' ? options : !!options?.capture}`;
  const forget = (target: EventTarget, key: string, listener: AnyListener) => {
    const byKey = registry.get(target);
    byKey?.get(key)?.delete(listener);
    if (byKey?.get(key)?.size === 0) byKey.delete(key);
    if (byKey?.size === 0) registry.delete(target);
  };
  patch(proto, 'addEventListener', function (
    this: EventTarget,
    type: string,
    listener: AnyListener | null,
    options?: boolean | AddEventListenerOptions,
  ) {
    if (!listener) return add.call(this, type, listener, options);
    const key = keyOf(type, options);
    const byKey = registry.get(this) ?? new Map<string, Map<AnyListener, AnyListener>>();
    const listeners = byKey.get(key) ?? new Map<AnyListener, AnyListener>();
    if (listeners.has(listener)) return; // a duplicate registration is a no-op in the platform too
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the listener wrapper below needs the target it was added to
    const target = this;
    const once = typeof options === 'object' && options.once;
    const signal = typeof options === 'object' ? options.signal : undefined;
    if (signal?.aborted) return;
    const registered: AnyListener = once
      ? function (this: unknown, event: Event) {
          forget(target, key, listener);
          return typeof listener === 'function' ? listener.call(this, event) : listener.handleEvent(event);
        }
      : listener;
    listeners.set(listener, registered);
    byKey.set(key, listeners);
    registry.set(this, byKey);
    if (signal) add.call(signal, 'abort', () => forget(target, key, listener), { once: true });
    return add.call(this, type, registered, options);
  } as EventTarget['addEventListener']);
  patch(proto, 'removeEventListener', function (
    this: EventTarget,
    type: string,
    listener: AnyListener | null,
    options?: boolean | EventListenerOptions,
  ) {
    if (!listener) return remove.call(this, type, listener, options);
    const key = keyOf(type, options);
    const registered = registry.get(this)?.get(key)?.get(listener);
    forget(this, key, listener);
    return remove.call(this, type, registered ?? listener, options);
  } as EventTarget['removeEventListener']);

  const countWhere = (keep: (target: EventTarget) => boolean) => {
    let n = 0;
    for (const [target, byKey] of registry)
      if (keep(target)) for (const listeners of byKey.values()) n += listeners.size;
    return n;
  };
  const detached = (target: EventTarget) =>
    target instanceof Node && !target.isConnected && !(target instanceof Document);

  // ── timers ──
  const liveTimers = new Set<unknown>();
  let clears = 0;
  const w = window as any;
  const setT = w.setTimeout.bind(window);
  const clearT = w.clearTimeout.bind(window);
  const setI = w.setInterval.bind(window);
  const clearI = w.clearInterval.bind(window);
  patch(w, 'setTimeout', (fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const id = setT(
      (...a: unknown[]) => {
        liveTimers.delete(id);
        fn(...a);
      },
      ms,
      ...args,
    );
    liveTimers.add(id);
    return id;
  });
  patch(w, 'setInterval', (fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const id = setI(fn, ms, ...args);
    liveTimers.add(id);
    return id;
  });
  const clear = (id: unknown) => {
    clears++;
    liveTimers.delete(id);
  };
  patch(w, 'clearTimeout', (id: unknown) => {
    clear(id);
    clearT(id);
  });
  patch(w, 'clearInterval', (id: unknown) => {
    clear(id);
    clearI(id);
  });

  // ── mutation observers ──
  const observing = new Set<MutationObserver>();
  const mo = MutationObserver.prototype;
  const observe = mo.observe;
  const disconnect = mo.disconnect;
  patch(mo, 'observe', function (this: MutationObserver, target: Node, options?: MutationObserverInit) {
    observing.add(this);
    return observe.call(this, target, options);
  });
  patch(mo, 'disconnect', function (this: MutationObserver) {
    observing.delete(this);
    return disconnect.call(this);
  });

  return {
    listeners: () => countWhere((t) => !detached(t)),
    allListeners: () => countWhere(() => true),
    listenersOn: (target) => countWhere((t) => t === target),
    timers: () => liveTimers.size,
    observers: () => observing.size,
    clears: () => clears,
    restore: () =>
      undo
        .splice(0)
        .reverse()
        .forEach((fn) => fn()),
  };
}

// ───────────────────────────── auto Core ─────────────────────────────

type Message = Record<string, any>;
type PortListener = (message: unknown) => void;

export type AutoPort = {
  readonly open: boolean;
  readonly channelId: string | undefined;
  /** Delivers a message to the page (synchronously, like a listener call). */
  emit(message: Message): void;
  /** Listeners the page registered on this port and did not remove. */
  readonly listenerCount: number;
};

export type AutoCore = {
  /** Ports that were opened and not disconnected by either side. */
  openPorts(): number;
  /** Requests posted and not answered yet. */
  unanswered(): number;
  /** Every request the page posted, in order. */
  posted: Message[];
  /** A session event to the page that created `sessionId`. */
  event(sessionId: string, type: string, fields?: Record<string, unknown>): void;
  /** Called for every request before it is answered; return false to leave it unanswered. */
  onRequest: ((message: Message, port: AutoPort) => boolean | void) | null;
  /** Every `submit_tool_result` posted. */
  submits(): Message[];
  uninstall(): void;
};

const APPROVED = () => ({ installed: true, approved: true, origin: location.origin, appConnected: true });

/**
 * Installs `globalThis.chrome.runtime.connect`. Each connect opens a new port (a real extension port
 * is never reused), answered like an approved extension with provider `codex` and model `m`:
 * `create_session` / `resume_session` give `s<n>`, everything else `{}`.
 */
export function installAutoCore(): AutoCore {
  const ports = new Set<AutoPort>();
  const owners = new Map<string, AutoPort>();
  let pending = 0;
  let sessions = 0;
  const core: AutoCore = {
    openPorts: () => [...ports].filter((p) => p.open).length,
    unanswered: () => pending,
    posted: [],
    event(sessionId, type, fields = {}) {
      const port = owners.get(sessionId);
      if (!port) throw new Error(`no port created session ${sessionId}`);
      port.emit({ channelId: port.channelId, type, sessionId, ...fields });
    },
    onRequest: null,
    submits: () => core.posted.filter((m) => m.type === 'submit_tool_result'),
    uninstall() {
      delete (globalThis as any).chrome;
    },
  };

  const connect = () => {
    const messageListeners = new Set<PortListener>();
    const disconnectListeners = new Set<PortListener>();
    let open = true;
    let channelId: string | undefined;
    const answer = (request: Message, result: unknown) => {
      pending--;
      if (open)
        autoPort.emit({
          channelId: request.channelId,
          type: 'response',
          requestId: request.requestId,
          ok: true,
          result,
        });
    };
    const autoPort: AutoPort = {
      get open() {
        return open;
      },
      get channelId() {
        return channelId;
      },
      emit: (message) => [...messageListeners].forEach((fn) => fn(message)),
      get listenerCount() {
        return messageListeners.size + disconnectListeners.size;
      },
    };
    ports.add(autoPort);
    return {
      name: 'pedelec-sdk-external',
      postMessage(message: Message) {
        if (!open) throw new Error('Attempting to use a disconnected port object');
        channelId ??= message.channelId;
        core.posted.push(message);
        pending++;
        if (core.onRequest?.(message, autoPort) === false) return;
        queueMicrotask(() => {
          switch (message.type) {
            case 'get_approval_status':
              return answer(message, APPROVED());
            case 'get_settings':
              return answer(message, { defaultProvider: 'codex', defaultModels: { codex: 'm' } });
            case 'list_providers':
              return answer(message, [{ name: 'Codex', code: 'codex', available: true, error: null }]);
            case 'create_session':
            case 'resume_session': {
              const sessionId = message.sessionId ?? `s${++sessions}`;
              owners.set(sessionId, autoPort);
              return answer(message, { sessionId });
            }
            default:
              return answer(message, {});
          }
        });
      },
      onMessage: {
        addListener: (fn: PortListener) => messageListeners.add(fn),
        removeListener: (fn: PortListener) => messageListeners.delete(fn),
      },
      onDisconnect: {
        addListener: (fn: PortListener) => disconnectListeners.add(fn),
        removeListener: (fn: PortListener) => disconnectListeners.delete(fn),
      },
      // The page closing its port: Chrome drops the port's listeners with it.
      disconnect() {
        open = false;
        messageListeners.clear();
        disconnectListeners.clear();
      },
    };
  };
  (globalThis as any).chrome = { runtime: { connect } };
  return core;
}

/**
 * Waits until the page is quiet: no request unanswered, and nothing more posted across a task
 * boundary. `unanswered() === 0` alone can hold between two steps of a multi-step method (the next
 * request goes out a few microtasks after the previous answer, so by the next task). Bounded;
 * throws naming `what`.
 */
export async function quiet(core: AutoCore, what: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    await until(() => core.unanswered() === 0, what);
    const posted = core.posted.length;
    await nextMessage();
    if (core.posted.length === posted && core.unanswered() === 0) return;
  }
  throw new Error(`timed out waiting for ${what}`);
}
