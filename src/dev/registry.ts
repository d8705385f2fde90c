/**
 * All live sessions of the development Core, and the rules about who may reach one: the routes that
 * created or resumed it, resume only from the origin that created it, and auto-end when the last
 * route of a session with `autoEndOnDisconnect` goes away.
 */
import { DevCoreError } from './errors.js';
import { DevSession, type EventSink, type SessionParams, type SessionSummary } from './session.js';

export type SessionEvent =
  | { type: 'session_created'; session: SessionSummary }
  | { type: 'session_updated'; session: SessionSummary }
  | { type: 'session_ended'; sessionId: string };

export class SessionRegistry {
  private readonly sessions = new Map<string, DevSession>();
  private readonly listeners = new Set<(event: SessionEvent) => void>();

  constructor(private readonly onEnded: (sessionId: string) => void = () => {}) {}

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
    let created = false;
    const session = new DevSession(params, {
      changed: (s) => {
        if (created && !s.isEnded) this.notify({ type: 'session_updated', session: s.summary(false) });
      },
      ended: (s) => {
        this.sessions.delete(s.id);
        this.onEnded(s.id);
        this.notify({ type: 'session_ended', sessionId: s.id });
      },
    });
    session.addRoute(sink, channelId);
    this.sessions.set(session.id, session);
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
    return session;
  }

  /** A connection went away: drop its routes, and end the sessions it leaves unattended. */
  detach(sink: EventSink): void {
    for (const session of [...this.sessions.values()]) {
      if (session.dropConnection(sink) && session.autoEndOnDisconnect) session.end();
    }
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
