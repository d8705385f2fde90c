// The module test/support/expect.ts imports by path, typed as the package is (the package ships no
// declarations for that file).
declare module '@esm-bundle/chai/esm/chai.js' {
  export { expect } from '@esm-bundle/chai';
}
