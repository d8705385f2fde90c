/** Registers <pedelec-chat> (a side effect). */
import { PedelecChatElement } from '../elements/chat/pedelec-chat.element.js';

PedelecChatElement.define();

declare global {
  interface HTMLElementTagNameMap {
    'pedelec-chat': PedelecChatElement;
  }
}

// The events' types (HTMLElementEventMap, DocumentEventMap…) come with this entry too: its typings
// reach every event module through this type.
export type { PedelecEventMap } from '../events/index.js';
