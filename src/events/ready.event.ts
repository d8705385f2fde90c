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
  /**
   * `sessionId`, `provider`, `model` (undefined: the provider's default) and `resumed` (true when an
   * earlier session was resumed, with `persist` or `resume-id`).
   */
  declare readonly detail: PedelecReadyDetail;
}

declare module './pedelec-event.js' {
  interface PedelecEventMap {
    'pedelec-ready': PedelecReadyEvent;
  }
}
