import { SessionEvent } from './pedelec-event.js';
import type { PedelecError, PedelecEventContext } from '../core/index.js';

export type PedelecErrorDetail = { readonly error: PedelecError; readonly context?: PedelecEventContext };

/**
 * Fired on the session for every failure the page can act on, with a stable `error.code`. For an
 * invalid declaration, `element` is the offending element.
 */
export class PedelecErrorEvent extends SessionEvent<PedelecErrorDetail> {
  static readonly eventName = 'pedelec-error';
  /**
   * `error` (`{ code, message, details? }` with a stable `code`; every code is in the error reference)
   * and `context?`: the core context when the failure came from the agent session.
   */
  declare readonly detail: PedelecErrorDetail;
  /** The element at fault, for invalid declarations (`<pedelec-tool>`, `<pedelec-guidance>`…). */
  readonly element: Element | null;

  constructor(detail: PedelecErrorDetail, element: Element | null = null) {
    super(detail);
    this.element = element;
  }
}

declare module './pedelec-event.js' {
  interface PedelecEventMap {
    'pedelec-error': PedelecErrorEvent;
  }
}
