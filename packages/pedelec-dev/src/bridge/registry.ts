/**
 * All live sessions of the development Core, and the rules about who may reach one: the routes that
 * created or resumed it, resume and reactivation only from the origin that created it, and auto-end
 * when the last route of a session with `autoEndOnDisconnect` goes away.
 *
 * And how many there may be. A session made with `autoEndOnDisconnect: false` outlives its page, so a
 * page could pile them up until the server died. Live sessions are capped per origin and in all
 * (`SESSION_LIMIT_REACHED`), and a session left with no connection ends after an idle time (resumable
 * until then).
 *
 * An ended session is kept for `reactivate_session` (today's protocol), but not for ever: for the same
 * idle time, and at most as many per origin and in all as there may be live sessions (the oldest goes
 * first). Then it is forgotten and its agent session closed. Only `reactivate_session` and
 * `abort_session_setup` see ended sessions; to every other request they do not exist
 * (`THREAD_NOT_FOUND`), as before.
 */
import { DevCoreError } from '../errors.js';
import { MAX_TIMER_MS } from 'pedelec-elements/protocol';
import type { EventSink } from './session-routes.js';
import { DevSession, type SessionParams, type SessionSummary } from './session.js';

export type SessionLimits = {
  /** Live sessions in all. */
  maxSessions: number;
  /** Live sessions of one origin (pages without Origin count as one origin). */
  maxSessionsPerOrigin: number;
  /** A session with no connection for this long is ended. */
  idleMs: number;
};

export const DEFAULT_MAX_SESSIONS = 200;
/** A tenth of the total by default: one origin cannot take every place. */
export const DEFAULT_MAX_SESSIONS_PER_ORIGIN = 20;
export const DEFAULT_SESSION_IDLE_MS = 600_000;

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  maxSessions: DEFAULT_MAX_SESSIONS,
  maxSessionsPerOrigin: DEFAULT_MAX_SESSIONS_PER_ORIGIN,
  idleMs: DEFAULT_SESSION_IDLE_MS,
};

export type SessionEvent =
  | { type: 'session_created'; session: SessionSummary }
  | { type: 'session_updated'; session: SessionSummary }
  | { type: 'session_ended'; sessionId: string };

export class SessionRegistry {
  private readonly sessions = new Map<string, DevSession>();
  private readonly listeners = new Set<(event: SessionEvent) => void>();
  /** Live sessions per origin (`null`: pages without Origin). */
  private readonly perOrigin = new Map<string | null, number>();
  /** Sessions left without a connection, each with the timer that ends it. */
  private readonly idle = new Map<string, NodeJS.Timeout>();
  /** Ended sessions that may still be reactivated, oldest first, each with the timer that forgets it. */
  private readonly endedSessions = new Map<string, { session: DevSession; timer: NodeJS.Timeout }>();
  /** The session `abortSetup` is ending: it is released, never kept. */
  private discarding: DevSession | null = null;

  constructor(private readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS) {}

  subscribe(listener: (event: SessionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private notify(event: SessionEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // An observer (the inspector) must never break a session.
      }
    }
  }

  create(params: SessionParams, sink: EventSink, channelId: string): DevSession {
    this.checkRoom(params.origin);
    let created = false;
    const session = new DevSession(params, {
      changed: (s) => {
        if (created && !s.isEnded) this.notify({ type: 'session_updated', session: s.summary(false) });
      },
      ended: (s) => {
        this.sessions.delete(s.id);
        this.stopIdleTimer(s.id);
        const left = (this.perOrigin.get(s.origin) ?? 1) - 1;
        if (left > 0) this.perOrigin.set(s.origin, left);
        else this.perOrigin.delete(s.origin);
        this.notify({ type: 'session_ended', sessionId: s.id });
        this.keepEnded(s);
      },
    });
    session.addRoute(sink, channelId);
    this.admit(session);
    created = true;
    return session;
  }

  /** A session becomes live (created or reactivated): counted, listed, and shown to the inspector. */
  private admit(session: DevSession): void {
    this.sessions.set(session.id, session);
    this.perOrigin.set(session.origin, (this.perOrigin.get(session.origin) ?? 0) + 1);
    this.notify({ type: 'session_created', session: session.summary() });
  }

  /** The session a request from (`sink`, `channelId`) addresses; only its own routes may. */
  forRoute(sessionId: unknown, sink: EventSink, channelId: string): DevSession {
    const session = this.lookup(sessionId);
    if (!session.hasRoute(sink, channelId)) {
      throw new DevCoreError('THREAD_ACCESS_DENIED', 'This connection has not created or resumed that session', {
        sessionId,
      });
    }
    return session;
  }

  /** Adds a route to a session, only for the origin that created it (as the real Desktop does). */
  resume(sessionId: unknown, sink: EventSink, channelId: string, origin: string | null): DevSession {
    const session = this.lookup(sessionId);
    if (session.origin !== origin) {
      throw new DevCoreError('THREAD_ACCESS_DENIED', 'The session belongs to another origin', { sessionId });
    }
    session.addRoute(sink, channelId);
    this.stopIdleTimer(session.id);
    return session;
  }

  /**
   * `reactivate_session`: an ended session of `origin` comes back, idle, with this route, its thread and
   * the given `autoEndOnDisconnect` (its own when not given); a live one just gets the route and the
   * flag, like a resume. Its place counts against the limits again (`SESSION_LIMIT_REACHED`). Unknown
   * or forgotten: `THREAD_NOT_FOUND`; another origin's: `THREAD_ACCESS_DENIED`.
   */
  reactivate(
    sessionId: unknown,
    sink: EventSink,
    channelId: string,
    origin: string | null,
    autoEndOnDisconnect: boolean | undefined,
  ): DevSession {
    const id = checkedId(sessionId);
    const ended = this.endedSessions.get(id)?.session;
    if (!ended) {
      const session = this.resume(id, sink, channelId, origin);
      session.reactivate(autoEndOnDisconnect);
      return session;
    }
    if (ended.origin !== origin) {
      throw new DevCoreError('THREAD_ACCESS_DENIED', 'The session belongs to another origin', { sessionId });
    }
    this.checkRoom(origin);
    this.dropEnded(id);
    ended.reactivate(autoEndOnDisconnect);
    ended.addRoute(sink, channelId);
    this.admit(ended);
    return ended;
  }

  /**
   * `abort_session_setup`: the page refused the session it just created (SDK 0.4.6 does when an
   * explicit model was not applied, or its Deno module setup failed). It is ended without a word to
   * the asking route and forgotten at once — not kept for reactivation. Only a route of the session may
   * abort a live one, only its origin an ended one. Nothing to abort is no error.
   */
  abortSetup(sessionId: unknown, sink: EventSink, channelId: string, origin: string | null): void {
    const id = checkedId(sessionId);
    if (this.sessions.has(id)) {
      const session = this.forRoute(id, sink, channelId);
      this.discarding = session;
      try {
        session.end({ sink, channelId });
      } finally {
        this.discarding = null;
      }
      return;
    }
    const ended = this.endedSessions.get(id)?.session;
    if (!ended) return;
    if (ended.origin !== origin) {
      throw new DevCoreError('THREAD_ACCESS_DENIED', 'The session belongs to another origin', { sessionId });
    }
    this.forget(id);
  }

  /** Keeps an ended session for reactivation, within the bounds (the oldest of its origin, then of all, go). */
  private keepEnded(session: DevSession): void {
    if (session === this.discarding) return session.release();
    const timer = setTimeout(() => this.forget(session.id), Math.min(this.limits.idleMs, MAX_TIMER_MS));
    timer.unref(); // a kept session never keeps the process alive
    this.endedSessions.set(session.id, { session, timer });
    const ofOrigin = [...this.endedSessions.values()].filter((kept) => kept.session.origin === session.origin);
    if (ofOrigin.length > this.limits.maxSessionsPerOrigin) this.forget(ofOrigin[0].session.id);
    if (this.endedSessions.size > this.limits.maxSessions) this.forget(this.endedSessions.keys().next().value!);
  }

  /** Takes an ended session off the kept list (reactivated or forgotten); false when it was not there. */
  private dropEnded(sessionId: string): boolean {
    const kept = this.endedSessions.get(sessionId);
    if (!kept) return false;
    clearTimeout(kept.timer);
    this.endedSessions.delete(sessionId);
    return true;
  }

  /** An ended session is over for good: no reactivation, its agent session closed. */
  private forget(sessionId: string): void {
    const session = this.endedSessions.get(sessionId)?.session;
    if (session && this.dropEnded(sessionId)) session.release();
  }

  /**
   * A connection went away: drop its routes, and end the sessions it leaves unattended — at once with
   * `autoEndOnDisconnect`, else after the idle time, unless a page resumes them first.
   */
  detach(sink: EventSink): void {
    for (const session of [...this.sessions.values()]) {
      if (!session.dropConnection(sink)) continue;
      if (session.autoEndOnDisconnect) session.end();
      else this.startIdleTimer(session);
    }
  }

  /** Throws `SESSION_LIMIT_REACHED` when a new session of `origin` would pass a limit. */
  private checkRoom(origin: string | null): void {
    const { maxSessions, maxSessionsPerOrigin } = this.limits;
    if (this.sessions.size >= maxSessions) {
      throw new DevCoreError(
        'SESSION_LIMIT_REACHED',
        `pedelec-dev already has ${this.sessions.size} live sessions, its limit (--max-sessions); end some first`,
        { limit: maxSessions, scope: 'all' },
      );
    }
    const ofOrigin = this.perOrigin.get(origin) ?? 0;
    if (ofOrigin >= maxSessionsPerOrigin) {
      throw new DevCoreError(
        'SESSION_LIMIT_REACHED',
        `This origin already has ${ofOrigin} live sessions, the most pedelec-dev allows one origin (--max-sessions); end one first`,
        { limit: maxSessionsPerOrigin, scope: 'origin', origin },
      );
    }
  }

  private startIdleTimer(session: DevSession): void {
    this.stopIdleTimer(session.id);
    const timer = setTimeout(() => session.end(), Math.min(this.limits.idleMs, MAX_TIMER_MS));
    timer.unref(); // a waiting session never keeps the process alive
    this.idle.set(session.id, timer);
  }

  private stopIdleTimer(sessionId: string): void {
    clearTimeout(this.idle.get(sessionId));
    this.idle.delete(sessionId);
  }

  list(): SessionSummary[] {
    return [...this.sessions.values()].map((s) => s.summary());
  }

  get(sessionId: string): DevSession | undefined {
    return this.sessions.get(sessionId);
  }

  /** The server stops: every live session ends, and no ended one can come back. */
  endAll(): void {
    for (const session of [...this.sessions.values()]) session.end();
    for (const sessionId of [...this.endedSessions.keys()]) this.forget(sessionId);
  }

  private lookup(sessionId: unknown): DevSession {
    const id = checkedId(sessionId);
    const session = this.sessions.get(id);
    if (!session) throw new DevCoreError('THREAD_NOT_FOUND', 'No such session (it may have ended)', { sessionId });
    return session;
  }
}

function checkedId(sessionId: unknown): string {
  if (typeof sessionId !== 'string' || sessionId === '') {
    throw new DevCoreError('INVALID_INPUT', 'sessionId must be a non-empty string');
  }
  return sessionId;
}
