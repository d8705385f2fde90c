import { SessionEvent } from './pedelec-event.js';

export type PedelecTurnDetail = { readonly turnId: string; readonly kind: 'user' | 'prepare'; readonly text?: string };

/**
 * Fired on the session when a turn starts, whoever started it (the chat panel, or page code calling
 * `sendText()`).
 */
export class PedelecTurnEvent extends SessionEvent<PedelecTurnDetail> {
  static readonly eventName = 'pedelec-turn';
  /**
   * `turnId`, `kind` (`'user'` for `sendText()`, `'prepare'` for `prepare()`) and `text?`, the user's
   * text.
   */
  declare readonly detail: PedelecTurnDetail;
}

declare module './pedelec-event.js' {
  interface PedelecEventMap {
    'pedelec-turn': PedelecTurnEvent;
  }
}
