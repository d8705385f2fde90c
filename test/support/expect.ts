/** chai's `expect`, the same in Node and in the browser (open-wc's `expect` needs a DOM). */
export { expect } from '@esm-bundle/chai';
