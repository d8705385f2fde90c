/**
 * chai's `expect`, the same in Node and in the browser (open-wc's `expect` needs a DOM). Imported from
 * the package's ES module build by path: its `main` names a file the package does not ship, so Node
 * could not load it by name (bundlers and the browser runner read `module` instead).
 */
export { expect } from '@esm-bundle/chai/esm/chai.js';
