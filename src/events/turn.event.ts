import { PedelecEvent } from './pedelec-event.js';

export type PedelecTurnDetail = { readonly turnId: string; readonly kind: 'user' | 'prepare'; readonly text?: string };

/**
 * Fired on the session when a turn starts, whoever started it (the chat panel, or page code calling
 * `sendText()`).
 */
export class PedelecTurnEvent extends PedelecEvent<PedelecTurnDetail> {
  static readonly eventName = 'pedelec-turn';
  declare readonly detail: PedelecTurnDetail;

  constructor(detail: PedelecTurnDetail) {
    super(PedelecTurnEvent.eventName, detail);
  }
}

declare global {
  interface HTMLElementEventMap {
    'pedelec-turn': PedelecTurnEvent;
  }
}
