/**
 * Declaration-only elements hold text for the agent, never for the reader: hide them before any
 * element upgrades so nothing flashes on first paint. Injected once per document, only in a browser.
 */
export function injectHiddenStyle(): void {
  if (typeof document === 'undefined' || document.querySelector('style[data-pedelec-elements]')) return;
  const style = document.createElement('style');
  style.dataset.pedelecElements = '';
  style.textContent = 'pedelec-guidance,pedelec-tool,pedelec-arg{display:none}';
  document.head.append(style);
}
