/**
 * The define entries hide declaration-only elements before any of them upgrades, so nothing flashes
 * on first paint (see elements/hidden.ts).
 */
export { hideDeclarationsIn as injectHiddenStyle } from '../elements/hidden.js';
