/**
 * `<pedelec-guidance>` holds text for the agent, never for the reader: hide it before any element
 * upgrades so it does not flash on first paint. Injected once per document, and only in a browser.
 */
export function injectGuidanceStyle(): void {
  if (typeof document === 'undefined' || document.querySelector('style[data-pedelec-elements]')) return;
  const style = document.createElement('style');
  style.dataset.pedelecElements = '';
  style.textContent = 'pedelec-guidance{display:none}';
  document.head.append(style);
}
