/** The CDN entry: everything registered, Lit bundled in (see rollup.config.mjs). */
import './define.js';

export * from './index.js';
