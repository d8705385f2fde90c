import { css } from '@lit/reactive-element';

// A module of its own: the element imports it (in the CDN main file), the view's styles stay in the
// view's chunk. Colours as in pedelec-chat.styles.ts (light-dark(), overridable custom properties).

/** The panel itself, in the element: it has its size and colours before its view has loaded. */
export const chatHostStyles = css`
  :host {
    --_accent: var(--pedelec-chat-accent, light-dark(#2f5bea, #3d63e0));
    --_line: 1px solid var(--pedelec-chat-border-color, light-dark(#d4d6db, #3a3c42));
    --_radius: var(--pedelec-chat-radius, 12px);
    color-scheme: light dark;
    display: flex;
    flex-direction: column;
    box-sizing: border-box;
    height: 24rem;
    overflow: hidden;
    font: var(--pedelec-chat-font, inherit);
    color: var(--pedelec-chat-color, light-dark(#1b1c1f, #e6e7ea));
    background: var(--pedelec-chat-background, light-dark(#fff, #1b1c1f));
    border: var(--_line);
    border-radius: var(--_radius);
  }
  :host([hidden]) {
    display: none;
  }
`;
