/**
 * pedelec-elements — element and event classes plus the core SDK. Importing this module registers
 * nothing; import `pedelec-elements/define.js` (or one `define/<tag>.js`) for that.
 */
export * from './core/index.js';
export * from './transports.js';
export * from './elements/index.js';
export * from './events/index.js';
