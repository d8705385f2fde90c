/** Registers <pedelec-guidance> (a side effect). */
import { PedelecGuidanceElement } from '../elements/guidance/pedelec-guidance.element.js';
import { injectHiddenStyle } from './style.js';

injectHiddenStyle();
PedelecGuidanceElement.define();

declare global {
  interface HTMLElementTagNameMap {
    'pedelec-guidance': PedelecGuidanceElement;
  }
}

// The events' types (HTMLElementEventMap, DocumentEventMap…) come with this entry too: its typings
// reach every event module through this type.
export type { PedelecEventMap } from '../events/index.js';
