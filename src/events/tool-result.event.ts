import { SessionEvent } from './pedelec-event.js';
import type { JsonValue, PedelecError, ToolCallContext, ToolCallVia } from '../core/index.js';
export type PedelecToolResultDetail = {
  readonly tool: string;
  readonly args: unknown;
  /** What went back to the agent: the handler's JSON, or the kit's `{ error }` result. */
  readonly result: JsonValue | { error: PedelecError };
  readonly ok: boolean;
  readonly durationMs: number;
  readonly context: ToolCallContext;
  /** Who called: the Pedelec agent (`pedelec`), the page's `invoke()` (`local`), the browser's agent (`webmcp`), an MCP client (`mcp`). */
  readonly via: ToolCallVia;
};

/**
 * Fired on the session when a tool call is answered. `ok` is false exactly when the kit answered with
 * an error result of its own (not found, unavailable, denied, invalid args or result, handler threw);
 * a domain error object returned by a handler is `ok: true`.
 */
export class PedelecToolResultEvent extends SessionEvent<PedelecToolResultDetail> {
  static readonly eventName = 'pedelec-tool-result';
  /**
   * `tool`, `args`, `result` (what went back: the handler's JSON, or the kit's `{ error }`), `ok`
   * (false only for the kit's own error results), `durationMs`, `context` and `via` (as in
   * `pedelec-tool-start`).
   */
  declare readonly detail: PedelecToolResultDetail;
}

declare module './pedelec-event.js' {
  interface PedelecEventMap {
    'pedelec-tool-result': PedelecToolResultEvent;
  }
}
