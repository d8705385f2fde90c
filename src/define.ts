/** Registers every pedelec element (a side effect, by design: see package.json "sideEffects"). */
import './define/pedelec-session.js';
import './define/pedelec-tool.js';
import './define/pedelec-arg.js';
import './define/pedelec-guidance.js';
import './define/pedelec-chat.js';

// The events' types (HTMLElementEventMap, DocumentEventMap…) come with this entry too: its typings
// reach every event module through this type.
export type { PedelecEventMap } from './events/index.js';
