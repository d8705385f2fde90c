import { SessionEvent } from './pedelec-event.js';
import type { PedelecEventContext } from '../core/index.js';
import type { PedelecElementStatus } from '../elements/session/status.js';
export type PedelecStatusDetail = {
  readonly status: PedelecElementStatus;
  readonly previousStatus: PedelecElementStatus;
  readonly context?: PedelecEventContext;
};

/**
 * Fired on the session whenever its `status` changes; `context` is the core context when the change
 * came from the agent session.
 */
export class PedelecStatusEvent extends SessionEvent<PedelecStatusDetail> {
  static readonly eventName = 'pedelec-status';
  /**
   * `status` and `previousStatus` (`inactive`, `starting`, `idle`, `running`, `waiting_tool_result`,
   * `ended` or `error`), and `context?`: the core context when the change came from the agent session.
   */
  declare readonly detail: PedelecStatusDetail;
}

declare module './pedelec-event.js' {
  interface PedelecEventMap {
    'pedelec-status': PedelecStatusEvent;
  }
}
