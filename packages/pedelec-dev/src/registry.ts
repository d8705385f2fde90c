/**
 * All live sessions of the development Core, and the rules about who may reach one: the routes that
 * created or resumed it, resume only from the origin that created it, and auto-end when the last
 * route of a session with `autoEndOnDisconnect` goes away.
 *
 * And how many there may be. A session made with `autoEndOnDisconnect: false` outlives its page, so a
 * page could pile them up until the server died. Live sessions are capped per origin and in all
 * (`SESSION_LIMIT_REACHED`), and a session left with no connection ends after an idle time (resumable
 * until then).
 */
import { DevCoreError } from './errors.js';
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

  constructor(
    private readonly onEnded: (sessionId: string) => void = () => {},
    private readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS,
  ) {}

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
        this.onEnded(s.id);
        this.notify({ type: 'session_ended', sessionId: s.id });
      },
    });
    session.addRoute(sink, channelId);
    this.sessions.set(session.id, session);
    this.perOrigin.set(session.origin, (this.perOrigin.get(session.origin) ?? 0) + 1);
    created = true;
    this.notify({ type: 'session_created', session: session.summary() });
    return session;
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

  endAll(): void {
    for (const session of [...this.sessions.values()]) session.end();
  }

  private lookup(sessionId: unknown): DevSession {
    if (typeof sessionId !== 'string' || sessionId === '') {
      throw new DevCoreError('INVALID_INPUT', 'sessionId must be a non-empty string');
    }
    const session = this.sessions.get(sessionId);
    if (!session) throw new DevCoreError('THREAD_NOT_FOUND', 'No such session (it may have ended)', { sessionId });
    return session;
  }
}
