/**
 * Bringing an ended session back (`session.resume()`, docs/design/sdk-0.4.md): the request, how its
 * answer reads, and which refusals are final. Few pages reactivate a session, so this is loaded on
 * first use.
 */
import { normalizeError, protocolError, TURN_REFUSALS, type PedelecError } from './errors.js';
import type { PedelecSessionStatus } from './types.js';

/**
 * Codes with which Core refuses to reactivate a session for good (a retry would fail again): the
 * handle goes back to being forgotten.
 */
const FINAL_RESUME_FAILURES: ReadonlySet<string> = new Set([
  ...TURN_REFUSALS,
  'WORKSPACE_OPEN_FAILED',
  'PROVIDER_COMMAND_FAILED',
  'DENO_MODULE_SETUP_INCOMPLETE',
  'DENO_MODULE_SETUP_FAILED',
  'DENO_MODULE_MATERIALIZATION_FAILED',
  'DENO_IMPORT_MAP_INVALID',
]);

/** What reactivation needs from its session. */
export interface ReactivatingSession {
  readonly sessionId: string;
  /** Posts `reactivate_session`. */
  request(): Promise<{ sessionId?: unknown } | undefined>;
  status(): PedelecSessionStatus;
  /** Reports a failure to the session's error listeners (unless its connection went meanwhile). */
  report(error: PedelecError): void;
  /** What arrives for the session is no longer routed to it. */
  release(): void;
}

/**
 * Resolves once Core says the session is idle again; rejects with why it is not. The handle already
 * hears what arrives for its session.
 */
export function reactivate(session: ReactivatingSession): Promise<void> {
  return session
    .request()
    .then(
      (reply) => {
        if (reply?.sessionId !== session.sessionId)
          throw protocolError('reactivate_session response did not include sessionId');
        if (session.status() !== 'idle')
          throw protocolError('reactivate_session resolved before the authoritative idle snapshot', {
            sessionId: session.sessionId,
          });
      },
      (failure: unknown) => {
        throw normalizeError(failure, 'SESSION_RESUME_FAILED', 'session resume failed');
      },
    )
    .catch((error: PedelecError) => {
      session.report(error);
      // Refused for good: the handle is forgotten again, as after end().
      if (FINAL_RESUME_FAILURES.has(error.code) && session.status() !== 'idle') session.release();
      throw error;
    });
}
