import { SessionEvent } from './pedelec-event.js';
import type { PedelecEventContext } from '../core/index.js';
export type PedelecEndedDetail = { readonly context: PedelecEventContext };

/**
 * Fired on the session when its agent session has ended: by `end()`, by Core, or by teardown.
 */
export class PedelecEndedEvent extends SessionEvent<PedelecEndedDetail> {
  static readonly eventName = 'pedelec-ended';
  /** `context`: the core context of the session that ended. */
  declare readonly detail: PedelecEndedDetail;
}

declare module './pedelec-event.js' {
  interface PedelecEventMap {
    'pedelec-ended': PedelecEndedEvent;
  }
}
