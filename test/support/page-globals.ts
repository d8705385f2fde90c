/**
 * What the core SDK reads from a page, for core tests that run in Node: `window` (with
 * `location.origin` and focus events) and `document` (visibility and focus, for `page_activity`).
 * In a browser they exist already and nothing is installed.
 */

/** The origin a Node test's "page" has (a browser test's is the test server's). */
export const NODE_PAGE_ORIGIN = 'http://localhost:8000';

/** A visible, focused document. Its fields are getters on the prototype, so a test may shadow one with its own property and delete it again. */
class VisibleDocument extends EventTarget {
  get visibilityState(): DocumentVisibilityState {
    return 'visible';
  }
  get hidden(): boolean {
    return false;
  }
  hasFocus(): boolean {
    return true;
  }
}

export function installPageGlobals(): void {
  if (typeof window !== 'undefined') return;
  const document = new VisibleDocument();
  const location = { origin: NODE_PAGE_ORIGIN, href: `${NODE_PAGE_ORIGIN}/`, pathname: '/' };
  const win = Object.assign(new EventTarget(), { document, location });
  Object.assign(globalThis, { window: win, document, location });
}
