import { SessionEvent } from './pedelec-event.js';
import type { PedelecError } from '../core/index.js';
export type PedelecWarningDetail = { readonly warning: PedelecError };

/**
 * Fired on the session for non-fatal findings, e.g. a schema keyword outside the Pedelec subset.
 * Never console output unless `debug` is set.
 */
export class PedelecWarningEvent extends SessionEvent<PedelecWarningDetail> {
  static readonly eventName = 'pedelec-warning';
  /**
   * `warning` (`{ code, message, details? }`), e.g. `SCHEMA_NOT_VALIDATED`; every code is in the error
   * reference.
   */
  declare readonly detail: PedelecWarningDetail;
}

declare module './pedelec-event.js' {
  interface PedelecEventMap {
    'pedelec-warning': PedelecWarningEvent;
  }
}
