/**
 * The life of a `<pedelec-session>`'s agent session, as a plain class (no DOM, no Lit; tested in
 * Node): start (the approval wait, resume or create, the `persist` record), end, restart, and the
 * teardown when the element leaves the page. The element tells it what to send ({@link StartPlan})
 * and dispatches what it reports ({@link LifecycleHost}).
 *
 * Where it is is one {@link LifecyclePhase}. Each start is an attempt with an `AbortController` of
 * its own, aborted when the element leaves the page: what the attempt creates after that is ended
 * (or, with `persist`, kept recorded for the next page) and it rejects `SESSION_ENDED`.
 */
import {
  type Pedelec,
  type PedelecAvailability,
  type PedelecError,
  type PedelecEventContext,
  type PedelecSession,
} from '../../core/index.js';
import { sessionEnded } from '../../core/errors.js';
import type { BridgeConfig } from '../bridge-url.js';
import { ClientLease } from './client-pool.js';
import { startAttempt } from './start-attempt.js';
import type { ElementToolbox } from './element-toolbox.js';
import type { StartPlan } from './session-config.js';
import { SessionRecords } from './persist.js';
import { HeldSession, type HeldSessionHost } from './session-events.js';
import type { PedelecElementStatus } from './status.js';

const noop = () => {};

/** What the lifecycle needs from its element, and tells it (besides what its held session does). */
export interface LifecycleHost extends HeldSessionHost {
  isConnected(): boolean;
  /** The bridge as configured now (for availability checks and ending recorded sessions). */
  bridge(): BridgeConfig | PedelecError;
  bridgeTimeoutMs(): number | undefined;
  /** What to send, read now; or why the element cannot start (a bad bridge, guidance given twice…). */
  plan(): StartPlan | PedelecError;
  /** Where `persist` keeps its record now (null without `persist`). */
  persistKey(): string | null;
  /** Also the statuses the lifecycle itself causes: `starting`, `error` (a failed start), `inactive`. */
  status(status: PedelecElementStatus, context?: PedelecEventContext): void;
  approvalPending(pending: boolean): void;
  /** The lazy parts still arriving that change what the session sends (arriving.ts). */
  arriving(): Promise<unknown>[];
}

type Attempt = {
  controller: AbortController;
  promise: Promise<PedelecSession>;
  /** What becomes of the session once created: `end`, when end() was called while starting (start() takes it back). */
  then: 'keep' | 'end';
};

export type LifecyclePhase =
  /** No session: never started, or its start failed. */
  | { name: 'idle' }
  | { name: 'starting'; attempt: Attempt }
  /** A session runs (Core may still end it: its status then is `ended`). */
  | { name: 'live'; session: PedelecSession }
  /** The page ended it (or an end() is in flight): turns are refused until start() or restart(). */
  | { name: 'ended'; session: PedelecSession | null }
  /** The element left the page; `leaving` is the session being ended (or kept, with `persist`). */
  | { name: 'removed'; leaving: PedelecSession | null };

const running = (session: PedelecSession | null | undefined): session is PedelecSession =>
  !!session && session.getStatus() !== 'ended';

export class SessionLifecycle {
  #phase: LifecyclePhase = { name: 'idle' };
  readonly #lease = new ClientLease(this);
  readonly #records = new SessionRecords();
  /** The held session: listened to, and what it was created with (to tell what changed since). */
  readonly held: HeldSession;
  /** A restart in flight: concurrent restart() calls join it; end() and teardown abort it. */
  #restart: { controller: AbortController; promise: Promise<PedelecSession> } | null = null;

  constructor(
    private readonly host: LifecycleHost,
    private readonly toolbox: ElementToolbox,
  ) {
    this.held = new HeldSession(host, toolbox);
  }

  get phase(): LifecyclePhase {
    return this.#phase;
  }

  /** The session the element shows: held, ended by the page, or still being ended after removal. */
  get session(): PedelecSession | null {
    const phase = this.#phase;
    if (phase.name === 'live' || phase.name === 'ended') return phase.session;
    return phase.name === 'removed' ? phase.leaving : null;
  }

  get client(): Pedelec | null {
    return this.#lease.client;
  }

  /** A held session that goes on: not ended (by Core, or by an end() of the page that succeeded). */
  get liveSession(): PedelecSession | null {
    const phase = this.#phase;
    return (phase.name === 'live' || phase.name === 'ended') && running(phase.session) ? phase.session : null;
  }

  /** Creates (or resumes) the agent session; while starting, the same promise. */
  start(): Promise<PedelecSession> {
    const phase = this.#phase;
    // Removed from the page: nothing would ever end a session made now, nor give its client back.
    if (phase.name === 'removed') return Promise.reject(sessionEnded(phase.leaving?.sessionId));
    if (phase.name === 'starting') {
      // start() after end() while starting (a React StrictMode effect, its cleanup, the effect
      // again): the latest call wins, and the session being created is kept.
      phase.attempt.then = 'keep';
      return phase.attempt.promise;
    }
    const live = this.liveSession;
    // After an end() that failed the session still runs: start() makes it usable again.
    if (live) {
      this.#phase = { name: 'live', session: live };
      return Promise.resolve(live);
    }
    return this.#begin(false);
  }

  /** `autostart`: starts, unless a session runs or starts already, or the element left the page. */
  autostart(): void {
    const { name } = this.#phase;
    if (this.liveSession || name === 'starting' || !this.host.isConnected()) return;
    this.start().catch(noop); // a failed start is reported (status error, pedelec-error)
  }

  /** The session for a turn: started if needed, but not after the page ended it. */
  started(): Promise<PedelecSession> {
    const phase = this.#phase;
    if (phase.name === 'ended' || (phase.name === 'starting' && phase.attempt.then === 'end')) {
      return Promise.reject(sessionEnded(this.session?.sessionId));
    }
    return this.start();
  }

  /** Ends the session; turns are refused until start() or restart(). */
  end(): Promise<void> {
    this.#restart?.controller.abort(sessionEnded(this.session?.sessionId));
    this.#forgetRecords();
    const phase = this.#phase;
    if (phase.name === 'starting') {
      // The session being created is ended as soon as it exists (unless start() is called again).
      const { attempt } = phase;
      attempt.then = 'end';
      return attempt.promise.then(() => (attempt.then === 'end' ? this.end() : undefined), noop);
    }
    const session = this.session;
    // No session (never started, or its start failed): still ended, so sendText() does not start one.
    if (phase.name !== 'removed') this.#phase = { name: 'ended', session };
    return session ? session.end() : Promise.resolve();
  }

  /**
   * Starts over: ends the old session (a failure there is reported by the session, not fatal here),
   * gives back a client whose bridge went away — the explicit reconnect — and creates a fresh
   * session. A second call while one runs joins it; end() or removal meanwhile wins: nothing starts.
   */
  restart(): Promise<PedelecSession> {
    if (this.#restart) return this.#restart.promise;
    const controller = new AbortController();
    const restart = { controller, promise: this.#restartWith(controller.signal) };
    this.#restart = restart;
    const clear = () => {
      if (this.#restart === restart) this.#restart = null;
    };
    restart.promise.then(clear, clear);
    return restart.promise;
  }

  async #restartWith(signal: AbortSignal): Promise<PedelecSession> {
    const phase = this.#phase;
    if (phase.name === 'starting') await phase.attempt.promise.catch(noop);
    const old = this.session;
    this.#forgetRecords();
    if (old) {
      await old.end().catch(noop);
      old.detach(sessionEnded(old.sessionId));
    }
    if (signal.aborted || !this.host.isConnected()) throw sessionEnded(old?.sessionId);
    this.#lease.releaseIfDown();
    return this.#begin(true);
  }

  /**
   * The element left the page (and did not come back within a microtask): running calls abort, a
   * start in flight ends what it creates, and the session is ended — or, with `persist`, kept for the
   * next page. The client is given back when that settles, if the element is still gone.
   */
  teardown(persist: boolean): void {
    const session = this.session;
    const reason = sessionEnded(session?.sessionId);
    if (this.#phase.name === 'starting') this.#phase.attempt.controller.abort(reason);
    this.#restart?.controller.abort(reason);
    this.toolbox.abort(reason);
    this.#phase = { name: 'removed', leaving: session };
    const finish = () => {
      const phase = this.#phase;
      // Put back meanwhile and started again: the new session is the element's, and stays.
      if (phase.name === 'removed' || phase.name === 'idle') {
        this.#detach();
        if (phase.name === 'removed') this.#phase = { name: 'removed', leaving: null };
        this.host.status('inactive');
      }
      if (!this.host.isConnected()) this.#lease.release();
    };
    if (session && !persist) {
      // A failure is reported by the session itself (pedelec-error): still listened to until finish.
      session.end().then(finish, () => {
        session.detach(reason);
        finish();
      });
    } else {
      session?.detach(reason);
      finish();
    }
  }

  /** The element is back in the page after a teardown: it may start again. */
  reconnected(): void {
    if (this.#phase.name === 'removed') this.#phase = { name: 'idle' };
  }

  /** The bridge's availability, for telling the user what to do (never rejects). */
  checkAvailability(): Promise<PedelecAvailability> {
    return this.#lease.checkAvailability(this.host.bridge(), this.host.bridgeTimeoutMs(), !!this.liveSession, () =>
      this.#releaseIfGone(),
    );
  }

  /** The client for a start or a cleanup (see {@link ClientLease.clientFor}). */
  #client(bridge: BridgeConfig | PedelecError): Pedelec | PedelecError {
    return this.#lease.clientFor(bridge, this.host.bridgeTimeoutMs(), !!this.liveSession);
  }

  /** An element out of the page that took a client for a check or a cleanup gives it back. */
  #releaseIfGone(): void {
    if (!this.host.isConnected() && !this.session && this.#phase.name !== 'starting') this.#lease.release();
  }

  #begin(fresh: boolean): Promise<PedelecSession> {
    // An ended session is not kept while a new one starts (nor after a failed start).
    this.#detach();
    const attempt = { controller: new AbortController(), then: 'keep' } as Attempt;
    this.#phase = { name: 'starting', attempt };
    attempt.promise = this.#attempt(attempt.controller.signal, fresh);
    attempt.promise.catch(() => {
      if (this.#phase.name === 'starting' && this.#phase.attempt === attempt) this.#phase = { name: 'idle' };
    });
    return attempt.promise;
  }

  async #attempt(signal: AbortSignal, fresh: boolean): Promise<PedelecSession> {
    const { session, resumed, plan } = await startAttempt({
      host: this.host,
      clientFor: (bridge) => this.#client(bridge),
      fresh,
      signal,
      records: this.#records,
      endRecorded: (sessionId) => this.#endRecorded(sessionId),
    });
    this.#phase = { name: 'live', session };
    this.held.hold(session, plan, resumed);
    return session;
  }

  /** The element lets the session go (it ended, or a new one starts). */
  #detach(): void {
    this.held.release();
    if (this.#phase.name !== 'removed') this.#phase = { name: 'idle' };
  }

  #forgetRecords(): void {
    this.#records.forget(this.host.persistKey(), this.session?.sessionId, (id) => this.#endRecorded(id));
  }

  /** Ends a recorded session this element does not hold (best effort: it may be gone already). */
  #endRecorded(sessionId: string): void {
    const client = this.#client(this.host.bridge());
    if ('code' in client) return;
    // Fire and forget: nothing waits for it, and a failure is ignored.
    void client
      .resumeSession(sessionId)
      .then((old) => old.end())
      .catch(noop)
      .then(() => this.#releaseIfGone());
  }
}
