import { PedelecEvent } from './pedelec-event.js';

export type PedelecReadyDetail = { readonly sessionId: string; readonly provider: string; readonly model: string | undefined; readonly resumed: boolean };

/**
 * Fired on the session when its agent session exists: created, or resumed (`persist`).
 */
export class PedelecReadyEvent extends PedelecEvent<PedelecReadyDetail> {
  static readonly eventName = 'pedelec-ready';
  declare readonly detail: PedelecReadyDetail;

  constructor(detail: PedelecReadyDetail) {
    super(PedelecReadyEvent.eventName, detail);
  }
}

declare global {
  interface HTMLElementEventMap {
    'pedelec-ready': PedelecReadyEvent;
  }
}
