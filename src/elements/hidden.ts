/**
 * Declaration-only elements (`<pedelec-tool>`, `<pedelec-arg>`, `<pedelec-guidance>`) hold text for the
 * agent, never for the reader. In a document, `<pedelec-tool>` and `<pedelec-arg>` are hidden by one
 * constructed stylesheet adopted by that document (`!important`, and adopted again on each connection
 * should the page have replaced the document's sheets) — no shadow root each, which made declaring
 * many tools markedly slower (docs/performance.md). Everywhere else — inside someone else's shadow root, where that sheet
 * does not reach, in a browser without adopted stylesheets — and always for `<pedelec-guidance>`, whose
 * text is the one thing that could show, an element gets a shadow root without a slot, hidden: its
 * content is then not rendered at all. Constructed sheets, not `<style>`: a CSP without
 * `style-src 'unsafe-inline'` allows them.
 */
import { adoptStyles, css } from '@lit/reactive-element';
import { ARG_TAG, GUIDANCE_TAG, TOOL_TAG } from './tags.js';

/** The tags the document-wide sheet hides; an element defined under another tag hides itself. */
const HIDDEN_TAGS = [GUIDANCE_TAG, TOOL_TAG, ARG_TAG];
const HIDE = `${HIDDEN_TAGS.join(',')}{display:none!important}`;
const hostHidden = css`
  :host {
    display: none !important;
  }
`;
/** One sheet per document (a constructed sheet belongs to the document it was made for); null: unsupported. */
const sheets = new WeakMap<Document, CSSStyleSheet | null>();
/** The same for the hidden shadow roots' `:host` rule: an element may live in another (iframe) document. */
const hostSheets = new WeakMap<Document, CSSStyleSheet | null>();

/** `doc`'s constructed sheet holding `rule`, made once per document (null where unsupported). */
function sheetIn(cache: WeakMap<Document, CSSStyleSheet | null>, doc: Document, rule: string): CSSStyleSheet | null {
  let sheet = cache.get(doc);
  if (sheet === undefined) {
    const Sheet = doc.defaultView?.CSSStyleSheet;
    sheet = Sheet && 'adoptedStyleSheets' in doc ? new Sheet() : null;
    sheet?.replaceSync(rule);
    cache.set(doc, sheet);
  }
  return sheet;
}
const checked = new WeakSet<Document>();

/** Adopts the hiding stylesheet into `doc` unless it is there; false where adopted sheets are unsupported. */
export function hideDeclarationsIn(doc: Document | undefined = globalThis.document): boolean {
  if (!doc) return false;
  const sheet = sheetIn(sheets, doc, HIDE);
  if (!sheet) return false;
  // Checked once per task, not per element: a thousand tools connect in one.
  if (checked.has(doc)) return true;
  checked.add(doc);
  queueMicrotask(() => checked.delete(doc));
  if (!doc.adoptedStyleSheets.includes(sheet)) doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
  return true;
}

/**
 * Hides a declaration element where it is connected now — call it on every connection, since an
 * element may move from a document into a shadow root. `own`: always use a hidden shadow root (so
 * does an element defined under a tag of its own).
 */
export function hideDeclaration(element: HTMLElement, own = false): void {
  const root = element.getRootNode();
  const inDocument = root.nodeType === Node.DOCUMENT_NODE;
  const bySheet = !own && HIDDEN_TAGS.includes(element.localName);
  if (inDocument && hideDeclarationsIn(root as Document) && bySheet) return;
  if (!(inDocument || 'host' in root)) return;
  // On every connection: the element may have moved into another document since its root was made.
  const shadow = element.shadowRoot ?? element.attachShadow({ mode: 'open' });
  const sheet = sheetIn(hostSheets, element.ownerDocument, ':host{display:none!important}');
  if (!sheet) adoptStyles(shadow, [hostHidden]);
  else if (!shadow.adoptedStyleSheets.includes(sheet))
    shadow.adoptedStyleSheets = [...shadow.adoptedStyleSheets, sheet];
}
