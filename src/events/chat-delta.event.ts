import { SessionEvent } from './pedelec-event.js';
import type { ChatDeltaEventContext } from '../core/index.js';
export type PedelecChatDeltaDetail = { readonly text: string; readonly context: ChatDeltaEventContext };

/**
 * Fired on the session for each piece of the agent's reply: append `text` (pieces ignore sentence
 * boundaries).
 */
export class PedelecChatDeltaEvent extends SessionEvent<PedelecChatDeltaDetail> {
  static readonly eventName = 'pedelec-chat-delta';
  /**
   * `text` (append it: every character of the reply arrives once, in order, whether the provider
   * streams or not) and `context`.
   */
  declare readonly detail: PedelecChatDeltaDetail;
}

declare module './pedelec-event.js' {
  interface PedelecEventMap {
    'pedelec-chat-delta': PedelecChatDeltaEvent;
  }
}
