/**
 * Declaration-only elements hold text for the agent, never for the reader: hide them before any
 * element upgrades so nothing flashes on first paint. A constructed stylesheet, adopted once per
 * document: no inline `<style>`, so a CSP without `style-src 'unsafe-inline'` allows it too.
 */
let sheet: CSSStyleSheet | null = null;

export function injectHiddenStyle(): void {
  if (typeof document === 'undefined' || typeof CSSStyleSheet === 'undefined' || !('adoptedStyleSheets' in document)) return;
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync('pedelec-guidance,pedelec-tool,pedelec-arg{display:none}');
  }
  if (!document.adoptedStyleSheets.includes(sheet)) document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}
