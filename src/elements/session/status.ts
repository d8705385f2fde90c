import type { PedelecSessionStatus } from '../../core/index.js';

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
