/** Registers <pedelec-guidance> (a side effect). */
import { PedelecGuidanceElement } from '../elements/guidance/pedelec-guidance.element.js';
import { GUIDANCE_TAG } from '../elements/tags.js';
import { injectHiddenStyle } from './style.js';
import { defineOnce } from './define-once.js';

injectHiddenStyle();
defineOnce(GUIDANCE_TAG, PedelecGuidanceElement);

declare global {
  interface HTMLElementTagNameMap {
    'pedelec-guidance': PedelecGuidanceElement;
  }
}

// The events' types (HTMLElementEventMap, DocumentEventMap…) come with this entry too: its typings
// reach every event module through this type.
export type { PedelecEventMap } from '../events/index.js';
