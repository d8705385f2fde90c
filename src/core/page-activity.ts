/**
 * Whether the page is in front — visible and focused — for the `page_activity` messages of the
 * current Pedelec protocol (current-pedelec.md §1): the extension uses them to know which tab the
 * user is looking at. Node-safe: without a document there is nothing to watch.
 */

/** Whether the page is visible and has focus now. */
function pageActive(doc: Document): boolean {
  if (doc.visibilityState === 'hidden') return false;
  try {
    return doc.hasFocus();
  } catch {
    return false;
  }
}

/**
 * Reports the page's activity now, and again on window focus (always) and on visibility changes
 * (only when it changed), as the public SDK does. Returns the function that stops watching.
 */
export function watchPageActivity(report: (active: boolean) => void): () => void {
  const win = (globalThis as { window?: Window }).window;
  const doc = win?.document;
  if (!win || !doc || typeof win.addEventListener !== 'function') return () => {};
  let last = pageActive(doc);
  report(last);
  const onFocus = () => {
    if (doc.visibilityState === 'hidden') return;
    last = true;
    report(true);
  };
  const onVisibility = () => {
    const active = pageActive(doc);
    if (active === last) return;
    last = active;
    report(active);
  };
  win.addEventListener('focus', onFocus);
  doc.addEventListener('visibilitychange', onVisibility);
  return () => {
    win.removeEventListener('focus', onFocus);
    doc.removeEventListener('visibilitychange', onVisibility);
  };
}
