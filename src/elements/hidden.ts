import { css } from '@lit/reactive-element';

/**
 * Declaration-only elements render nothing: a shadow root without a slot, hidden — wherever they
 * are, also inside other components' shadow roots where a document stylesheet would not reach.
 */
export const hiddenStyles = css`
  :host {
    display: none !important;
  }
`;
