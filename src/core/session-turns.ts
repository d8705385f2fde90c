/**
 * A session's turns (docs/design/sdk-api.md "Turns"): the one in progress, `sendText()` and
 * `prepare()` starting one and posting its request, and how a turn that failed leaves the session. A
 * turn finishes when its request is answered and Core says it completed — in either order.
 */
import type { BridgeRequestType } from './bridge-messages.js';
import { randomId } from './bridge-port.js';
import { invalidInput, normalizeError, type PedelecError } from './errors.js';
import type { Turn } from './session-protocol.js';
import type { PedelecSessionStatus, TurnEvent, TurnKind } from './types.js';

/**
 * Codes with which Core refuses a turn before it starts (the session did not change): after one, the
 * session is back where it was, not in error.
 */
export const REFUSALS: ReadonlySet<string> = new Set([
  'THREAD_BUSY',
  'THREAD_ENDED',
  'THREAD_ACCESS_DENIED',
  'THREAD_NOT_FOUND',
  'INVALID_INPUT',
]);

/** What the turns need from their session. */
export interface TurnsHost {
  /** `SESSION_BUSY` for this session. */
  busy(): PedelecError;
  /** A request about the session (its `sessionId` added); rejects once the session is detached. */
  request(type: BridgeRequestType, payload: object): Promise<unknown>;
  /** Throws `SESSION_ENDED` once the session ended or was detached. */
  checkUsable(): void;
  /** Today's Pedelec (turns carry an operation id): a turn finishes on its completion, not on `done`. */
  operationAware(): boolean;
  status(): PedelecSessionStatus;
  setStatus(status: PedelecSessionStatus): void;
  /** A turn started: its `turn` event. */
  started(event: TurnEvent): void;
  /** Reports an error in the context of `turn` (unless the session's connection went away). */
  emitError(error: PedelecError, turn: Turn): void;
}

const noop = () => {};

export class SessionTurns {
  #host: TurnsHost;
  #current: Turn | null = null;
  /**
   * The page's last turn while its request is not answered yet: the turn stays reserved (no other
   * starts) until both its answer and its completion came, in either order.
   */
  #unanswered: Turn | null = null;
  #prepared = false;
  #preparing: Promise<void> | null = null;

  constructor(host: TurnsHost) {
    this.#host = host;
  }

  /** The turn in progress: one this page started, or one taken over from a snapshot. */
  get current(): Turn | null {
    return this.#current;
  }

  /** Follows a turn someone else started (a snapshot after a reload), or none. */
  takeOver(turn: Turn | null): void {
    this.#current = turn;
  }

  /** Clears the turn (when it still is the current one); with an error, rejects whoever waits for it. */
  finish(error?: PedelecError, turn = this.#current): void {
    if (turn && this.#current === turn) {
      this.#current = null;
      turn.finish(error);
    }
  }

  /**
   * Sends the user's text and resolves when the request succeeded and the turn finished. Waits for
   * an in-flight `prepare()` first (ignoring its failure).
   */
  send(text: string): Promise<void> {
    const start = () =>
      this.#usable(() => {
        if (this.#current || this.#reserved()) throw this.#host.busy();
        if (typeof text !== 'string') throw invalidInput('text must be a string');
        return this.#run('user', 'send_text', { text }, 'SEND_TEXT_FAILED');
      });
    return this.#preparing ? this.#preparing.then(noop, noop).then(start) : start();
  }

  /** Warms the provider up; resolves at once when already prepared, shares an in-flight prepare. */
  prepare(): Promise<void> {
    return this.#usable(() => {
      const running = this.#current ?? this.#reserved();
      if (running && running.ctx.turnKind !== 'prepare') throw this.#host.busy();
      if (this.#prepared) return Promise.resolve();
      if (this.#preparing) return this.#preparing;
      // In flight before the turn's first callbacks run (its `turn` event, status `running`), so a
      // listener calling sendText() or prepare() there waits for it or shares it.
      let run!: (turn: Promise<void>) => void;
      const preparing = (this.#preparing = new Promise<void>((resolve) => (run = resolve)).then(() => {
        this.#prepared = true;
      }));
      const settled = () => {
        if (this.#preparing === preparing) this.#preparing = null;
      };
      preparing.then(settled, settled);
      run(this.#run('prepare', 'prepare_session', {}, 'PREPARE_FAILED'));
      return preparing;
    });
  }

  /** The turn still reserved after its completion, waiting for its answer (today's Pedelec; a 0.1.x turn ends on `done`). */
  #reserved(): Turn | null {
    return this.#host.operationAware() ? this.#unanswered : null;
  }

  /** Runs `body` unless the session has ended; a throw becomes a rejection (public methods never throw). */
  #usable(body: () => Promise<void>): Promise<void> {
    try {
      this.#host.checkUsable();
      return body();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Starts a turn and posts its request; resolves once the request succeeded and the turn finished.
   * A failed request is reported (fallback code `failCode`), finishes the turn and rejects; the
   * session goes back where it was when Core refused the turn, or to `error`.
   */
  #run(
    kind: TurnKind,
    type: 'send_text' | 'prepare_session',
    payload: { text?: string },
    failCode: string,
  ): Promise<void> {
    const host = this.#host;
    // One id for the turn, on the page and on the wire.
    const turnId = randomId('turn');
    const turn: Turn = {
      ctx: { turnId, turnStartedAt: Date.now(), turnKind: kind },
      operationId: turnId,
      local: true,
      finish: noop,
    };
    this.#current = turn;
    this.#unanswered = turn;
    let completed = false;
    const finished = new Promise<void>((resolve, reject) => {
      turn.finish = (error) => {
        completed = true;
        if (error) reject(error);
        else resolve();
      };
    });
    // The payload carries the turn's text, when it has one.
    host.started({ turnId, kind, ...payload });
    const before = host.status();
    host.setStatus('running');
    const request = host
      .request(type, { ...payload, operationId: turnId })
      .then(noop, (failure: unknown) => {
        const error = normalizeError(failure, failCode, `${type} failed`);
        // Reported even when the turn already finished, as the public SDK reports it.
        host.emitError(error, turn);
        // Today's Pedelec: Core's completion came first, and it says how the turn went.
        if (completed && host.operationAware()) return;
        if (this.#current === turn) host.setStatus(kind === 'prepare' || REFUSALS.has(error.code) ? before : 'error');
        this.finish(error, turn);
        throw error;
      })
      .finally(() => {
        if (this.#unanswered === turn) this.#unanswered = null;
      });
    // Joined like Promise.all, so whichever side fails first, neither rejection goes unhandled.
    return Promise.all([request, finished]).then(noop);
  }
}
