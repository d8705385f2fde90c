/**
 * Whether the page is in front — visible and focused — for the `page_activity` messages of the
 * current Pedelec protocol (current-pedelec.md §1): the extension uses them to know which tab the
 * user is looking at. Node-safe: without a document there is nothing to watch.
 */

/** Whether the page is hidden: `document.hidden` where the browser has it. */
function pageHidden(doc: Document): boolean {
  return typeof doc.hidden === 'boolean' ? doc.hidden : doc.visibilityState === 'hidden';
}

function pageFocused(doc: Document): boolean {
  try {
    return doc.hasFocus();
  } catch {
    return false;
  }
}

/** What a client does with the page's activity: say it on each connection, and when it changes. */
export type PageActivity = {
  /** Reports the activity now, whatever was said before: each new connection hears it first. */
  announce(): void;
  /** Stops watching. */
  stop(): void;
};

/**
 * Watches the page's activity for `report`, as the public SDK does: `announce()` says it (on each
 * connection); then window focus says "active" again (always), and a visibility change says what
 * changed — hidden, or back in front and focused (visible but unfocused says nothing).
 */
export function watchPageActivity(report: (active: boolean) => void): PageActivity {
  const win = (globalThis as { window?: Window }).window;
  const doc = win?.document;
  if (!win || !doc || typeof win.addEventListener !== 'function') return { announce() {}, stop() {} };
  let last: boolean | undefined;
  const say = (active: boolean) => {
    last = active;
    report(active);
  };
  const onFocus = () => {
    if (!pageHidden(doc)) say(true);
  };
  const onVisibility = () => {
    const next = pageHidden(doc) ? false : pageFocused(doc) ? true : undefined;
    if (next !== undefined && next !== last) say(next);
  };
  win.addEventListener('focus', onFocus);
  doc.addEventListener('visibilitychange', onVisibility);
  return {
    announce: () => say(!pageHidden(doc) && pageFocused(doc)),
    stop() {
      win.removeEventListener('focus', onFocus);
      doc.removeEventListener('visibilitychange', onVisibility);
    },
  };
}
