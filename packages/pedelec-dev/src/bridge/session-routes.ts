/**
 * Where a session's events go: its routes (each a page connection and channel that created or resumed
 * the session) and the `seq` every event carries, one count for all routes, so each page can tell a
 * stale event from a new one. Apart from session-events.ts and turn-runner.ts, which decide what is
 * sent and when: this only numbers events and hands each to every route, whatever they say.
 */
import type { BridgeEventType } from 'pedelec-elements/protocol';
import { DevCoreError } from '../errors.js';

/** Where a session's events go: a page connection. `sendEvent` must never throw. */
export interface EventSink {
  readonly id: string;
  sendEvent(message: Record<string, unknown>): void;
}

/** Routes (connection + channel) one session may have; a page has one or two, a reload adds one. */
export const MAX_ROUTES_PER_SESSION = 64;

const routeKey = (sink: EventSink, channelId: string) => `${sink.id}\u0000${channelId}`;

export class SessionRoutes {
  private readonly routes = new Map<string, { sink: EventSink; channelId: string }>();
  private seq = 0;

  constructor(private readonly sessionId: string) {}

  get size(): number {
    return this.routes.size;
  }

  /** The seq of the last event sent (0 before the first). */
  get latestSeq(): number {
    return this.seq;
  }

  add(sink: EventSink, channelId: string): void {
    const key = routeKey(sink, channelId);
    // Each resume from a new channel adds one, and every event goes to each: not without bound.
    if (!this.routes.has(key) && this.routes.size >= MAX_ROUTES_PER_SESSION) {
      throw new DevCoreError(
        'SESSION_ROUTE_LIMIT_REACHED',
        `A session can be reached from at most ${MAX_ROUTES_PER_SESSION} connections and channels at once`,
        { sessionId: this.sessionId, limit: MAX_ROUTES_PER_SESSION },
      );
    }
    this.routes.set(key, { sink, channelId });
  }

  has(sink: EventSink, channelId: string): boolean {
    return this.routes.has(routeKey(sink, channelId));
  }

  delete(sink: EventSink, channelId: string): void {
    this.routes.delete(routeKey(sink, channelId));
  }

  /** Drops every route of a closed connection; true when it had any. */
  dropConnection(sink: EventSink): boolean {
    let dropped = false;
    for (const [key, route] of this.routes) {
      if (route.sink === sink) {
        this.routes.delete(key);
        dropped = true;
      }
    }
    return dropped;
  }

  clear(): void {
    this.routes.clear();
  }

  /** One event to every route, with the next seq. */
  send(type: BridgeEventType, fields: Record<string, unknown>): void {
    const seq = ++this.seq;
    for (const { sink, channelId } of this.routes.values()) {
      sink.sendEvent({ channelId, type, sessionId: this.sessionId, seq, ...fields });
    }
  }

  /** One event to one route only, numbered like any other (see DevSession.sendSnapshot for why). */
  sendTo(sink: EventSink, channelId: string, type: BridgeEventType, fields: Record<string, unknown>): void {
    const seq = ++this.seq;
    sink.sendEvent({ channelId, type, sessionId: this.sessionId, seq, ...fields });
  }
}
