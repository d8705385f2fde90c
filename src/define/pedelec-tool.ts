/** Registers <pedelec-tool> (a side effect). */
import { PedelecToolElement } from '../elements/tool/pedelec-tool.element.js';
import { injectHiddenStyle } from './style.js';

injectHiddenStyle();
PedelecToolElement.define();

declare global {
  interface HTMLElementTagNameMap {
    'pedelec-tool': PedelecToolElement;
  }
}

// The events' types (HTMLElementEventMap, DocumentEventMap…) come with this entry too: its typings
// reach every event module through this type.
export type { PedelecEventMap } from '../events/index.js';
