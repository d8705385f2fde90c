import { SessionEvent } from './pedelec-event.js';
import type { ToolCallContext } from '../core/index.js';
export type PedelecToolStartDetail = {
  readonly tool: string;
  readonly args: unknown;
  readonly context: ToolCallContext;
  readonly local: boolean;
};

/**
 * Fired on the session for every tool call, whatever answers it, before it is answered.
 */
export class PedelecToolStartEvent extends SessionEvent<PedelecToolStartDetail> {
  static readonly eventName = 'pedelec-tool-start';
  declare readonly detail: PedelecToolStartDetail;
}

declare module './pedelec-event.js' {
  interface PedelecEventMap {
    'pedelec-tool-start': PedelecToolStartEvent;
  }
}
