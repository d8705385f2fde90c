/**
 * pedelec-elements — element and event classes plus the core SDK. Importing this module registers
 * nothing; import `pedelec-elements/define.js` (or one `define/<tag>.js`) for that. The transports
 * for `new Pedelec({ transport })` are a separate entry, `pedelec-elements/transports`: the CDN file
 * (which re-exports this module) carries only what the elements use.
 */
export * from './core/index.js';
export * from './elements/index.js';
export * from './events/index.js';
