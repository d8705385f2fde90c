/**
 * A session's turns (docs/design/sdk-0.4.md, current-pedelec.md §2): the one running — started by the
 * page (`sendText`, `prepare`) or taken over from a snapshot after a reload — and the page's last turn
 * while its request is not answered yet. When a turn of today's Pedelec ends is the protocol's to say
 * (session-protocol.ts); this starts turns and settles whoever waits for them.
 */
import { invalidInput, normalizeError, sessionBusy, TURN_REFUSALS, type PedelecError } from './errors.js';
import { randomId } from './bridge-port.js';
import type { PedelecSessionStatus, TurnEvent, TurnKind } from './types.js';

export type Turn = {
  /** What every context of the turn carries. */
  ctx: { turnId: string; turnStartedAt: number; turnKind: TurnKind };
  /**
   * The turn's id on the wire (today's protocol): sent with its request, carried by its events and by
   * the `operation_completed` that finishes it. For a turn this page started, its `turnId`. Undefined
   * only for a turn taken over from a snapshot that named no operation.
   */
  operationId: string | undefined;
  /** Started by this page (`sendText`, `prepare`), not taken over from a snapshot. */
  local: boolean;
  /** Settles whoever waits for the turn: resolves, or rejects with `error`. */
  finish(error?: PedelecError): void;
};

/** What the turns need from their session. */
export interface TurnsHost {
  readonly sessionId: string;
  /** Throws `SESSION_ENDED` once the session can do nothing more. */
  check(): void;
  /** Whether the session follows today's protocol (a turn then ends on its own completion). */
  operationAware(): boolean;
  /** A turn starts: its `turn` event, in its context. */
  started(event: TurnEvent): void;
  status(): PedelecSessionStatus;
  setStatus(status: PedelecSessionStatus): void;
  /** A request about the session. */
  request(type: 'send_text' | 'prepare_session', payload: object): Promise<unknown>;
  /** A turn's request failed: reported in the turn's context. */
  failed(error: PedelecError, turn: Turn): void;
}

const noop = () => {};

export class SessionTurns {
  /** The turn in progress, if any: one this page started, or one the protocol follows from a snapshot. */
  current: Turn | null = null;
  #prepared = false;
  #preparing: Promise<void> | null = null;
  /**
   * The page's last turn while its request is not answered yet: the turn stays reserved (no other
   * starts) until both its answer and its completion came, in either order.
   */
  #unanswered: Turn | null = null;

  constructor(private readonly host: TurnsHost) {}

  /**
   * Sends the user's text; resolves when the request succeeded and the turn finished. Waits for an
   * in-flight `prepare()` first (ignoring its failure).
   */
  send(text: string): Promise<void> {
    const start = () =>
      this.#usable(() => {
        if (this.current || this.#reserved()) throw sessionBusy(this.host.sessionId);
        if (typeof text !== 'string') throw invalidInput('text must be a string');
        return this.#run('user', 'send_text', { text }, 'SEND_TEXT_FAILED');
      });
    return this.#preparing ? this.#preparing.then(noop, noop).then(start) : start();
  }

  /** Warms the provider up; resolves at once when already prepared, shares an in-flight prepare. */
  prepare(): Promise<void> {
    return this.#usable(() => {
      const running = this.current ?? this.#reserved();
      if (running && running.ctx.turnKind !== 'prepare') throw sessionBusy(this.host.sessionId);
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

  /** Clears the turn (when it still is the current one); with an error, rejects whoever waits for it. */
  finish(error?: PedelecError, turn = this.current): void {
    if (turn && this.current === turn) {
      this.current = null;
      turn.finish(error);
    }
  }

  /**
   * Runs `body` unless the session has ended: then, and whenever `body` throws, returns a rejected
   * promise instead — public methods never throw.
   */
  #usable(body: () => Promise<void>): Promise<void> {
    try {
      this.host.check();
      return body();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The turn still reserved after its completion, waiting for its answer (today's Pedelec; a 0.1.x turn ends on `done`). */
  #reserved(): Turn | null {
    return this.host.operationAware() ? this.#unanswered : null;
  }

  /**
   * Starts a turn and posts its request; resolves once the request succeeded and the turn finished.
   * A failed request is reported (fallback code `failCode`), finishes the turn and rejects; the
   * session goes back where it was when Core refused the turn, or to `error`.
   */
  #run(kind: TurnKind, type: 'send_text' | 'prepare_session', payload: { text?: string }, failCode: string) {
    const { host } = this;
    // One id for the turn, on the page and on the wire.
    const turnId = randomId('turn');
    const turn: Turn = {
      ctx: { turnId, turnStartedAt: Date.now(), turnKind: kind },
      operationId: turnId,
      local: true,
      finish: noop,
    };
    this.current = turn;
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
        // Reported while the turn is still active, so the error's context carries it; even when the
        // turn already finished, as the public SDK reports it.
        host.failed(error, turn);
        // Today's Pedelec: Core's completion came first, and it says how the turn went.
        if (completed && host.operationAware()) return;
        if (this.current === turn)
          host.setStatus(kind === 'prepare' || TURN_REFUSALS.has(error.code) ? before : 'error');
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
