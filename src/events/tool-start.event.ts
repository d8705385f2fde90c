import { SessionEvent } from './pedelec-event.js';
import type { ToolCallContext, ToolCallVia } from '../core/index.js';
export type PedelecToolStartDetail = {
  readonly tool: string;
  readonly args: unknown;
  readonly context: ToolCallContext;
  /** Who called: the Pedelec agent (`pedelec`), the page's `invoke()` (`local`), the browser's agent (`webmcp`), an MCP client (`mcp`). */
  readonly via: ToolCallVia;
};

/**
 * Fired on the session for every tool call, whatever answers it, before it is answered.
 */
export class PedelecToolStartEvent extends SessionEvent<PedelecToolStartDetail> {
  static readonly eventName = 'pedelec-tool-start';
  /**
   * `tool`, `args`, `context` (the call's `ToolCallContext`) and `via`: who called — `'pedelec'` (the
   * agent), `'local'` (`invoke()`), `'webmcp'` (the browser's agent) or `'mcp'` (an MCP client).
   */
  declare readonly detail: PedelecToolStartDetail;
}

declare module './pedelec-event.js' {
  interface PedelecEventMap {
    'pedelec-tool-start': PedelecToolStartEvent;
  }
}
