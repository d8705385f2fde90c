/**
 * What the WebMCP chunk's parts (webmcp-exposure.ts, webmcp-import.ts) share: the `webmcp`
 * attribute's tokens, where the page's model context is, and which form a `<pedelec-tool form>` binds.
 */

/**
 * Whether a `webmcp` attribute value asks for `expose`: present and empty, or holding the token.
 * (`import`, the other token of the list, is for the page's other tools: it does not expose.)
 */
export const exposes = (value: string | null): boolean =>
  value !== null && (!value.trim() || value.toLowerCase().split(/\s+/).includes('expose'));

/** Whether a `webmcp` attribute value holds `token` (`import`, `forward`, `consequential`). */
export const hasToken = (value: string | null, token: string): boolean =>
  value !== null && value.toLowerCase().split(/\s+/).includes(token);

/** Whether a `webmcp` attribute value asks for `import`. */
export const imports = (value: string | null): boolean => hasToken(value, 'import');

/**
 * The page's model context now, if the browser (or a polyfill the page loaded) has one: Chromium's
 * `document.modelContext`, or Firefox's older `navigator.modelContext`.
 */
export const modelContext = (): unknown =>
  (globalThis.document as { modelContext?: unknown } | undefined)?.modelContext ??
  (globalThis.navigator as { modelContext?: unknown } | undefined)?.modelContext;

/**
 * The `<form>` a `<pedelec-tool form="id">` binds: by id, in the tool's document or shadow root. The
 * form binding (tool/form-schema.ts, in a chunk of its own) looks it up the same way.
 */
export function boundForm(tool: Element): HTMLFormElement | null {
  const id = tool.getAttribute('form');
  const found = id ? (tool.getRootNode() as Partial<Document>).getElementById?.(id) : null;
  return found?.localName === 'form' ? (found as HTMLFormElement) : null;
}
