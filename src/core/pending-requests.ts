/**
 * The requests a client waits on, each settled once: by its response, by its deadline
 * (`SDK_BRIDGE_TIMEOUT`) or by the bridge going away. One timer serves them all, due at the earliest
 * deadline: a request costs no timer of its own, and the timer goes as soon as nothing is pending.
 */
import { pedelecError } from './errors.js';
import { MAX_TIMER_MS, monotonic } from './bridge-port.js';

type PendingRequest = {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Monotonic milliseconds. */
  deadline: number;
  /** The request's `type`, for the timeout's details. */
  type: string;
};

export class PendingRequests {
  #byId = new Map<string, PendingRequest>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the timer fires (monotonic ms). */
  #due = 0;

  get size(): number {
    return this.#byId.size;
  }

  /** Waits for request `requestId` for at most `waitMs`. Added before the request is posted: a transport may answer synchronously. */
  add<T>(requestId: string, type: string, waitMs: number): Promise<T> {
    const now = monotonic();
    const deadline = now + waitMs;
    return new Promise<T>((resolve, reject) => {
      this.#byId.set(requestId, { resolve, reject, deadline, type });
      if (!this.#timer || deadline < this.#due) this.#arm(deadline, now);
    });
  }

  /** Resolves a pending request; an id nobody waits for is ignored. */
  resolve(requestId: unknown, value: unknown): void {
    this.#take(requestId)?.resolve(value);
  }

  /** Rejects a pending request; an id nobody waits for is ignored. */
  reject(requestId: unknown, error: unknown): void {
    this.#take(requestId)?.reject(error);
  }

  rejectAll(error: unknown): void {
    for (const requestId of [...this.#byId.keys()]) this.reject(requestId, error);
  }

  #take(requestId: unknown): PendingRequest | undefined {
    const request = this.#byId.get(requestId as string);
    if (!request) return undefined;
    this.#byId.delete(requestId as string);
    if (!this.#byId.size) this.#timer = void clearTimeout(this.#timer);
    return request;
  }

  #arm(deadline: number, now: number): void {
    clearTimeout(this.#timer);
    this.#due = deadline;
    // A later deadline than the timer can hold is re-armed when this one fires.
    this.#timer = setTimeout(() => this.#expire(), Math.min(deadline - now, MAX_TIMER_MS));
  }

  /** Rejects every request past its deadline, then re-arms for the earliest one left. */
  #expire(): void {
    this.#timer = undefined;
    const now = monotonic();
    let next = Infinity;
    for (const [requestId, { deadline, type }] of [...this.#byId]) {
      if (deadline <= now) {
        const details = { requestId, type };
        this.reject(requestId, pedelecError('SDK_BRIDGE_TIMEOUT', 'Pedelec extension did not respond.', details));
      } else if (deadline < next) next = deadline;
    }
    if (next < Infinity) this.#arm(next, now);
  }
}
