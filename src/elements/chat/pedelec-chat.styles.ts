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
    padding: 0.75rem;
  }
  /*
   * The log is a block of pages of rows (chat-templates.ts), each a small flex column: a flex
   * container lays out all its items again when one changes — 27 ms per tool call over 10 000 rows,
   * a few rows over a page. The space between rows is the flex gap, not a rule like ".page > * + *":
   * with one, each frame of a streamed Markdown reply restyled the whole reply (1 400 elements at the
   * end of 50 KB, against 20).
   */
  .page {
    display: flex;
    flex-direction: column;
    gap: 0.5rem;
  }
  .page + .page {
    margin-top: 0.5rem;
  }
  /*
   * What is finished — every page of rows but the last, and each finished row — is skipped by style,
   * layout and paint while out of view: a long conversation costs what shows (per frame at 10 000
   * rows, about 175 ms with rows alone skipped, 5 ms with their pages too). It all stays in the DOM:
   * read by screen readers, found by the page's search. Each keeps the size it had when last shown —
   * remembered from its first frame on, so that nothing moves when it turns skippable.
   */
  .page {
    contain-intrinsic-size: auto 60rem;
  }
  .page:not(:last-child) {
    content-visibility: auto;
  }
  .page > * {
    contain-intrinsic-size: auto 2.5rem;
  }
  [part~='user'],
  [part~='agent'][aria-busy='false'],
  [part~='done'],
  [part~='failed'],
  [part~='error'] {
    content-visibility: auto;
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
  /*
   * The blocks a long text reply continues in (agent-bodies.ts): laid out and painted on their own,
   * so each frame of a streamed reply lays out and paints its last block, not all before it.
   */
  [part~='agent'] > div:not(.blocks) {
    contain: layout paint;
  }
  /* What overflows a message (a wide table) scrolls within it: a finished row clips its overflow. */
  .md {
    white-space: normal;
    overflow-x: auto;
  }
  /* A Markdown table reads as one: its cells ruled, as in the editors the agents' replies come from. */
  .md table {
    border-collapse: collapse;
  }
  .md :is(th, td) {
    border: var(--_line);
    padding: 0.25rem 0.5rem;
  }
  /* The first and last blocks of a reply: the bubble's padding is their space. */
  .md > .sr + * {
    margin-top: 0;
  }
  .md > :last-child,
  .blocks > :last-child {
    margin-bottom: 0;
  }
  /*
   * A reply of the default renderer keeps its finished blocks in groups (MarkdownStream) that the
   * browser lays out and paints once, then steps over: a frame of a long streamed reply costs what
   * changed (a group is contained, not skipped while out of view as rows are: a reply that arrives
   * at once would take guessed sizes). Blocks are spaced by their bottom margins alone, so a group,
   * which contains its blocks' margins, spaces them exactly as the text rendered at once does.
   */
  .blocks > div {
    contain: layout paint;
  }
  .blocks * {
    margin-top: 0;
  }
  pre {
    overflow-x: auto;
    padding: 0.5rem;
    border-radius: 6px;
    background: light-dark(#0000000d, #ffffff14);
  }
  [part~='tool'],
  [part~='tool-result'],
  [part~='decision'] {
    font-size: 0.85em;
  }
  /* Under its call's row, indented: it belongs to that row. */
  [part~='tool-result'] {
    margin-top: -0.25rem;
    padding-inline-start: 1em;
  }
  [part~='tool'],
  [part~='decision'] {
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
  [part~='usage'] {
    margin: 0;
    padding: 0.25rem 0.75rem;
    font-size: 0.8em;
    text-align: end;
    color: var(--pedelec-chat-muted-color, light-dark(#565a63, #a9adb6));
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
