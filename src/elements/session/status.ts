import type { PedelecEventContext, PedelecSessionStatus } from '../../core/index.js';
import { inOrder } from '../../core/bridge-port.js';
import { PedelecStatusEvent } from '../../events/status.event.js';

/**
 * A `<pedelec-session>`'s status: `inactive` (no session, none pending) → `starting` (creating or
 * resuming, including the extension's approval popup) → the core statuses.
 */
export type PedelecElementStatus = 'inactive' | 'starting' | PedelecSessionStatus;

/** Mirrors a status as a custom state (`:state(running)`); older engines only take `--running`. */
export function showState(
  states: CustomStateSet | undefined,
  previous: PedelecElementStatus | null,
  next: PedelecElementStatus,
): void {
  if (!states) return;
  try {
    if (previous) states.delete(previous);
    states.add(next);
  } catch {
    try {
      if (previous) states.delete(`--${previous}`);
      states.add(`--${next}`);
    } catch {
      // No custom states: the `status` attribute still says it.
    }
  }
}

/**
 * A session element's status, shown every way a page may look: the property, the `status` attribute,
 * `:state(<status>)`, and one `pedelec-status` per change — in order even when a status listener
 * starts or ends the session again.
 */
export class ElementStatus {
  current: PedelecElementStatus = 'inactive';
  readonly #states: CustomStateSet | undefined;
  readonly #emit = inOrder((event: PedelecStatusEvent) => this.dispatch(event));

  constructor(
    private readonly element: HTMLElement,
    internals: ElementInternals | null,
    /** Sends the event (the element's own `dispatchEvent`, where the manifest analyzer sees it). */
    private readonly dispatch: (event: PedelecStatusEvent) => void,
  ) {
    this.#states = internals?.states;
    showState(this.#states, null, 'inactive');
  }

  set(next: PedelecElementStatus, context?: PedelecEventContext): void {
    const previousStatus = this.current;
    if (next === previousStatus) return;
    this.current = next;
    this.element.setAttribute('status', next);
    showState(this.#states, previousStatus, next);
    const detail = context ? { status: next, previousStatus, context } : { status: next, previousStatus };
    this.#emit(new PedelecStatusEvent(detail));
  }
}
