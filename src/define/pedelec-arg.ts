/** Registers <pedelec-arg> (a side effect). */
import { PedelecArgElement } from '../elements/arg/pedelec-arg.element.js';
import { injectHiddenStyle } from './style.js';

injectHiddenStyle();
PedelecArgElement.define();

declare global {
  interface HTMLElementTagNameMap {
    'pedelec-arg': PedelecArgElement;
  }
}

// The events' types (HTMLElementEventMap, DocumentEventMap…) come with this entry too: its typings
// reach every event module through this type.
export type { PedelecEventMap } from '../events/index.js';
