import { css } from 'lit';

/**
 * The chat's styles. Light and dark from one set of rules: `color-scheme: light dark` follows
 * `prefers-color-scheme`, and `light-dark()` picks the colour. A page overrides any colour with the
 * documented custom properties, or forces a scheme with `pedelec-chat { color-scheme: light }`. Written
 * to be read: the build minifies the CSS.
 */
export const chatStyles = css`
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
  [part~='log'] {
    flex: 1;
    overflow-y: auto;
    display: flex;
    flex-direction: column;
    gap: 0.5rem;
    padding: 0.75rem;
  }
  [part~='message'] {
    position: relative;
    max-width: 85%;
    padding: 0.5rem 0.75rem;
    border-radius: var(--_radius);
    white-space: pre-wrap;
    overflow-wrap: anywhere;
  }
  [part~='user'] {
    align-self: flex-end;
    color: var(--pedelec-chat-user-color, #fff);
    background: var(--pedelec-chat-user-background, var(--_accent));
  }
  [part~='agent'] {
    align-self: flex-start;
    background: var(--pedelec-chat-agent-background, light-dark(#eff0f3, #2a2c31));
  }
  .md {
    white-space: normal;
  }
  .md > .sr + * {
    margin-top: 0;
  }
  .md > :last-child {
    margin-bottom: 0;
  }
  pre {
    overflow-x: auto;
    padding: 0.5rem;
    border-radius: 6px;
    background: light-dark(#0000000d, #ffffff14);
  }
  [part~='tool'] {
    font-size: 0.85em;
    color: var(--pedelec-chat-muted-color, light-dark(#565a63, #a9adb6));
  }
  [part~='failed'],
  [part~='error'] {
    color: var(--pedelec-chat-error-color, light-dark(#b3261e, #ff8a80));
  }
  [part~='availability'] {
    margin: 0;
    padding: 0.5rem 0.75rem;
    font-size: 0.9em;
    background: var(--pedelec-chat-notice-background, light-dark(#fff4d6, #3d3413));
  }
  [part~='availability']:empty {
    padding: 0;
  }
  [part~='composer'] {
    display: flex;
    gap: 0.5rem;
    padding: 0.5rem;
    border-top: var(--_line);
  }
  textarea {
    flex: 1;
    resize: none;
    padding: 0.5rem;
    font: inherit;
    color: inherit;
    background: none;
    border: var(--_line);
    border-radius: 8px;
  }
  button {
    padding: 0 1rem;
    font: inherit;
    color: #fff;
    background: var(--_accent);
    border: 0;
    border-radius: 8px;
    cursor: pointer;
  }
  [aria-disabled='true'] {
    opacity: 0.55;
    cursor: not-allowed;
  }
  :focus-visible {
    outline: 2px solid var(--_accent);
    outline-offset: 1px;
  }
  .sr {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }
`;
