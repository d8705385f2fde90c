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
