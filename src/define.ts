/** Registers every pedelec element (a side effect, by design: see package.json "sideEffects"). */
import { injectGuidanceStyle } from './define/style.js';

injectGuidanceStyle();
