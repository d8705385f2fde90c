/**
 * pedelec-elements/core — the framework-free Pedelec SDK. Node-safe: nothing here touches the DOM,
 * `window` or `chrome` at import time.
 */
export * from './errors.js';
export * from './json.js';
export type * from './schema/types.js';
