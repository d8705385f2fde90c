import { SessionEvent } from './pedelec-event.js';
import type { UsageEventContext, UsageInfo } from '../core/index.js';
export type PedelecUsageDetail = { readonly usage: UsageInfo; readonly context: UsageEventContext };

/** Fired on the session when Core reports the session's token usage (also `session.usage`). */
export class PedelecUsageEvent extends SessionEvent<PedelecUsageDetail> {
  static readonly eventName = 'pedelec-usage';
  /** `usage` (`{ totalTokens }`; also `session.usage`) and `context`. */
  declare readonly detail: PedelecUsageDetail;
}

declare module './pedelec-event.js' {
  interface PedelecEventMap {
    'pedelec-usage': PedelecUsageEvent;
  }
}
