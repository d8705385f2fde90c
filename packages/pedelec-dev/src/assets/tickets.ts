/**
 * The book of one-time asset tickets. A ticket is 128 random bits, valid for a short time (60 s),
 * bound to one session, one path and one direction, and consumed by its first use — so a leaked URL
 * or token is worth little. Apart from the files and from HTTP because its rules (how many, how long,
 * how often swept) are what keep a flood of requests cheap, whatever the files and the requests are.
 *
 * At most {@link MAX_TICKETS_PER_SESSION} unused tickets per session; expired tickets are swept once
 * per {@link SWEEP_INTERVAL_MS}, not at every request: a flood of tickets made that quadratic.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { DevCoreError } from '../errors.js';
import type { AssetQuota } from './quota.js';

/** Unused, unexpired tickets one session may hold; one more is `ASSET_TICKET_LIMIT_REACHED`. */
export const MAX_TICKETS_PER_SESSION = 128;
/** Expired tickets are forgotten at most this often. */
const SWEEP_INTERVAL_MS = 1000;

export type TicketKind = 'upload' | 'download';

export type Ticket = {
  kind: TicketKind;
  id: string;
  token: Buffer;
  sessionId: string;
  path: string;
  expiresAt: number;
  sizeBytes: number;
  mimeType: string;
  /** Bytes of the quota this ticket holds (an upload's charge, until it is stored or fails). */
  reserved: number;
};

/** Why a ticket could not be redeemed: the error code and message the HTTP answer carries. */
export type RedeemFailure = { error: string; message: string };

export type TicketRules = {
  /** How long a ticket stays valid. */
  ttlMs: number;
  /** Unused tickets one session may hold. */
  maxTicketsPerSession: number;
};

export class TicketBook {
  private readonly tickets = new Map<string, Ticket>();
  /** The same tickets by session, so a session's count and its end cost only its own tickets. */
  private readonly ticketsBySession = new Map<string, Set<Ticket>>();
  private lastSweep = 0;

  /** `quota` gives an upload ticket its reservation, and takes it back when the ticket dies unused. */
  constructor(
    private readonly rules: TicketRules,
    private readonly quota: AssetQuota,
  ) {}

  /**
   * A new ticket, holding `reserve` bytes of the quota; throws `ASSET_TICKET_LIMIT_REACHED` when the
   * session holds too many, or `ASSET_QUOTA_EXCEEDED`.
   */
  issue(
    kind: TicketKind,
    sessionId: string,
    path: string,
    sizeBytes: number,
    mimeType: string,
    { reserve = 0 } = {},
  ): Ticket {
    this.sweepIfDue();
    const held = this.ticketsBySession.get(sessionId);
    if (held && held.size >= this.rules.maxTicketsPerSession) {
      throw new DevCoreError(
        'ASSET_TICKET_LIMIT_REACHED',
        `A session may hold at most ${this.rules.maxTicketsPerSession} unused asset tickets; use them, or wait for them to expire`,
        { limit: this.rules.maxTicketsPerSession },
      );
    }
    const ticket: Ticket = {
      kind,
      id: randomUUID(),
      token: randomBytes(16),
      sessionId,
      path,
      expiresAt: Date.now() + this.rules.ttlMs,
      sizeBytes,
      mimeType,
      reserved: 0,
    };
    this.quota.reserve(ticket, reserve, sizeBytes);
    this.tickets.set(ticket.id, ticket);
    if (held) held.add(ticket);
    else this.ticketsBySession.set(sessionId, new Set([ticket]));
    return ticket;
  }

  /**
   * Checks and consumes a ticket: one use, whatever that use's outcome. A ticket it returns still holds
   * its reservation, which its user releases once the upload is stored or has failed.
   */
  redeem(kind: TicketKind, id: string, token: string | null): Ticket | RedeemFailure {
    const ticket = this.tickets.get(id);
    const given = token !== null && /^[0-9a-f]{32}$/i.test(token) ? Buffer.from(token, 'hex') : null;
    if (!ticket || ticket.kind !== kind || !given || !timingSafeEqual(given, ticket.token)) {
      return { error: 'ASSET_TOKEN_INVALID', message: 'Missing, wrong or already used asset token' };
    }
    this.forget(ticket);
    if (Date.now() > ticket.expiresAt) {
      this.quota.release(ticket);
      return { error: 'ASSET_TOKEN_EXPIRED', message: 'The asset token has expired; ask for a new one' };
    }
    return ticket;
  }

  /** Forgets a session's tickets and gives back their quota. */
  dropSession(sessionId: string): void {
    for (const ticket of this.ticketsBySession.get(sessionId) ?? []) {
      this.forget(ticket);
      this.quota.release(ticket);
    }
  }

  /** Forgets every ticket (the store is disposed; the quota goes with it). */
  clear(): void {
    this.tickets.clear();
    this.ticketsBySession.clear();
  }

  /** Removes a ticket from the lists (its reservation is released by whoever held it). */
  private forget(ticket: Ticket): void {
    this.tickets.delete(ticket.id);
    const held = this.ticketsBySession.get(ticket.sessionId);
    held?.delete(ticket);
    if (held?.size === 0) this.ticketsBySession.delete(ticket.sessionId);
  }

  /** Forgets expired tickets — at most once per {@link SWEEP_INTERVAL_MS}, whatever the request rate. */
  private sweepIfDue(): void {
    const now = Date.now();
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    for (const ticket of this.tickets.values()) {
      if (ticket.expiresAt < now) {
        this.forget(ticket);
        this.quota.release(ticket);
      }
    }
  }
}
