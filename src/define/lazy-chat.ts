/**
 * The CDN file's `<pedelec-chat>`: defined when the tag is first used, so a page without a chat never
 * downloads it. The loader watches the document — and, through each connected `<pedelec-session>`,
 * that session's root, a shadow root included — for the tag; then imports the element (a chunk beside
 * the CDN file), whose definition upgrades every chat already in the page; sessions start once it is
 * there, so a chat sees every event of a session resumed at once. A chat in another shadow
 * root, with no session there, needs `import 'pedelec-elements/define/pedelec-chat.js'`.
 */
import { lazyModule } from '../core/lazy-module.js';
import { track } from '../elements/arriving.js';
import { onSessionConnected } from '../elements/session-connected.js';
import { CHAT_TAG } from '../elements/tags.js';

/** Before it is defined a chat keeps the place it will take: no jump when it upgrades. */
const PLACEHOLDER = `${CHAT_TAG}:not(:defined){display:block;height:24rem}`;

const watched = new WeakSet<Node>();
const observers = new Set<MutationObserver>();
const loadChat = lazyModule(() => import('./pedelec-chat.js'));

const defined = () => !!customElements.get(CHAT_TAG);

/** Whether `node` is, or holds, a chat. */
const holdsChat = (node: Node): boolean =>
  node instanceof Element && (node.localName === CHAT_TAG || !!node.querySelector(CHAT_TAG));

/** Loads the chat; the sessions of `root` (a document or shadow root holding a chat) wait for it. */
function load(root: Node): void {
  if (defined()) return;
  // A session that started before its chat is defined would stream events no chat hears: starts wait.
  // A chunk that could not be fetched (offline, say): the next chat that appears tries again.
  track(
    root,
    loadChat().then(() => {
      observers.forEach((observer) => observer.disconnect());
      observers.clear();
    }),
  );
}

function watch(root: Node): void {
  if (defined() || !(root instanceof Document || root instanceof ShadowRoot)) return;
  // Looked for again when a session connects: one added with its chat starts only once the chat is defined.
  if (root.querySelector(CHAT_TAG)) return load(root);
  if (watched.has(root)) return;
  watched.add(root);
  const observer = new MutationObserver((records) => {
    if (records.some((record) => [...record.addedNodes].some(holdsChat))) load(root);
  });
  observer.observe(root, { childList: true, subtree: true });
  observers.add(observer);
}

/** Installs the loader on `doc` (the CDN file, once). */
export function loadChatWhenUsed(doc: Document | undefined = globalThis.document): void {
  if (!doc || defined()) return;
  const Sheet = doc.defaultView?.CSSStyleSheet;
  if (Sheet && 'adoptedStyleSheets' in doc) {
    const sheet = new Sheet();
    sheet.replaceSync(PLACEHOLDER);
    doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
  }
  onSessionConnected(watch);
  watch(doc);
}
