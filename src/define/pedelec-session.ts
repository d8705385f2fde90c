/** Registers <pedelec-session> (a side effect). */
import { PedelecSessionElement } from '../elements/session/pedelec-session.element.js';
import { SESSION_TAG } from '../elements/tags.js';
import { injectHiddenStyle } from './style.js';
import { defineOnce } from './define-once.js';

injectHiddenStyle();
defineOnce(SESSION_TAG, PedelecSessionElement);

declare global {
  interface HTMLElementTagNameMap {
    'pedelec-session': PedelecSessionElement;
  }
}

// The events' types (HTMLElementEventMap, DocumentEventMap…) come with this entry too: its typings
// reach every event module through this type.
export type { PedelecEventMap } from '../events/index.js';
