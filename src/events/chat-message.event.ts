import { SessionEvent } from './pedelec-event.js';
import type { ChatEventContext } from '../core/index.js';
export type PedelecChatMessageDetail = { readonly text: string; readonly context: ChatEventContext };

/**
 * Fired on the session once each assistant message is complete, with its whole text. Its text has
 * already arrived through `pedelec-chat-delta`: render one or the other.
 */
export class PedelecChatMessageEvent extends SessionEvent<PedelecChatMessageDetail> {
  static readonly eventName = 'pedelec-chat-message';
  /** `text` (the whole message) and `context`. */
  declare readonly detail: PedelecChatMessageDetail;
}

declare module './pedelec-event.js' {
  interface PedelecEventMap {
    'pedelec-chat-message': PedelecChatMessageEvent;
  }
}
