import type { ToolApprovalDecision } from '../core/index.js';
import { SessionEvent } from './pedelec-event.js';

export type PedelecToolApprovalDecidedDetail = ToolApprovalDecision;

/**
 * Fired on the session at every decision on a consequential tool's call: `decidedBy` says who — the
 * page (`pedelec-tool-approval`), the chat's card, an MCP client's user, `pedelec-dev`'s operator, or
 * `browser-hint` (a WebMCP call, left to the browser's own confirmation: nobody is claimed to have
 * decided).
 */
export class PedelecToolApprovalDecidedEvent extends SessionEvent<PedelecToolApprovalDecidedDetail> {
  static readonly eventName = 'pedelec-tool-approval-decided';
  /** `tool`, `args` (as the call runs), `via`, `decidedBy`, `approved`, `reason` (when given) and `at`. */
  declare readonly detail: PedelecToolApprovalDecidedDetail;
}

declare module './pedelec-event.js' {
  interface PedelecEventMap {
    'pedelec-tool-approval-decided': PedelecToolApprovalDecidedEvent;
  }
}
