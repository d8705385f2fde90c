/**
 * Declaration-only elements (`<pedelec-tool>`, `<pedelec-arg>`, `<pedelec-guidance>`) hold text for the
 * agent, never for the reader. In a document they are hidden by one constructed stylesheet adopted by
 * that document — no shadow root each, which made declaring a thousand tools a third slower. Inside
 * someone else's shadow root, where that stylesheet does not reach, each gets a hidden shadow root of
 * its own. Constructed sheets, not `<style>`: a CSP without `style-src 'unsafe-inline'` allows them.
 */
import { adoptStyles, css } from '@lit/reactive-element';

const HIDE = 'pedelec-guidance,pedelec-tool,pedelec-arg{display:none}';
const hostHidden = css`
  :host {
    display: none !important;
  }
`;
const hiddenDocuments = new WeakSet<Document>();

/** Adopts the hiding stylesheet into `doc` (once; before upgrade too, so nothing flashes on first paint). */
export function hideDeclarationsIn(doc: Document | undefined = globalThis.document): void {
  const Sheet = doc?.defaultView?.CSSStyleSheet;
  if (!doc || hiddenDocuments.has(doc) || !Sheet || !('adoptedStyleSheets' in doc)) return;
  hiddenDocuments.add(doc);
  const sheet = new Sheet();
  sheet.replaceSync(HIDE);
  doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
}

/**
 * Hides a declaration element where it is connected now — call it on every connection, since an
 * element may move from a document into a shadow root. Cheap when there is nothing to do.
 */
export function hideDeclaration(element: HTMLElement): void {
  const root = element.getRootNode();
  if (root.nodeType === Node.DOCUMENT_NODE) hideDeclarationsIn(root as Document);
  else if ('host' in root && !element.shadowRoot) adoptStyles(element.attachShadow({ mode: 'open' }), [hostHidden]);
}
