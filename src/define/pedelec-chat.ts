/** Registers <pedelec-chat> (a side effect). */
import { PedelecChatElement } from '../elements/chat/pedelec-chat.element.js';
import { CHAT_TAG } from '../elements/tags.js';
import { defineOnce } from './define-once.js';

defineOnce(CHAT_TAG, PedelecChatElement);

declare global {
  interface HTMLElementTagNameMap {
    'pedelec-chat': PedelecChatElement;
  }
}

// The events' types (HTMLElementEventMap, DocumentEventMap…) come with this entry too: its typings
// reach every event module through this type.
export type { PedelecEventMap } from '../events/index.js';
