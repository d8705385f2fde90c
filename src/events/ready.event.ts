import { SessionEvent } from './pedelec-event.js';

export type PedelecReadyDetail = {
  readonly sessionId: string;
  readonly provider: string;
  readonly model: string | undefined;
  readonly resumed: boolean;
};

/**
 * Fired on the session when its agent session exists: created, or resumed (`persist`).
 */
export class PedelecReadyEvent extends SessionEvent<PedelecReadyDetail> {
  static readonly eventName = 'pedelec-ready';
  declare readonly detail: PedelecReadyDetail;
}

declare module './pedelec-event.js' {
  interface PedelecEventMap {
    'pedelec-ready': PedelecReadyEvent;
  }
}
