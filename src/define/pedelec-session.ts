/** Registers <pedelec-session> (a side effect). */
import { PedelecSessionElement } from '../elements/session/pedelec-session.element.js';
import { injectHiddenStyle } from './style.js';

injectHiddenStyle();
PedelecSessionElement.define();

declare global {
  interface HTMLElementTagNameMap {
    'pedelec-session': PedelecSessionElement;
  }
}

// The events' types (HTMLElementEventMap, DocumentEventMap…) come with this entry too: its typings
// reach every event module through this type.
export type { PedelecEventMap } from '../events/index.js';
