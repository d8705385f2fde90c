import { type PedelecError, type ToolCallContext } from '../core/index.js';
import { pedelecError } from '../core/errors.js';
import { PedelecEvent } from './pedelec-event.js';

export type PedelecToolCallDetail = {
  readonly tool: string;
  readonly args: unknown;
  readonly context: ToolCallContext;
};

/** How a listener answered; read by the session right after dispatch. */
export type ToolCallAnswer = { respond: unknown } | { deny: PedelecError };

/**
 * Fired on a `<pedelec-tool>` when the agent (or `invoke()`) calls it and no named JS handler is
 * registered for it. Bubbles and is composed, so a listener on the tool, on a component around it, or
 * on the document can answer. Answer synchronously, during dispatch, with `respondWith(value or
 * promise)` or `deny(message?)`. Not cancelable: `preventDefault()` means nothing here (Angular calls it
 * when a handler returns `false`).
 */
export class PedelecToolCallEvent extends PedelecEvent<PedelecToolCallDetail> {
  static readonly eventName = 'pedelec-tool-call';
  /**
   * `tool` (the tool's name), `args` (as the agent sent them; checked against the tool's schema unless
   * `novalidate`) and `context` (the call's `ToolCallContext`: `toolRequestId`, `signal`, `deadline`,
   * `via`…).
   */
  declare readonly detail: PedelecToolCallDetail;
  /** @internal The answer, once given. */
  answer: ToolCallAnswer | undefined;
  #open = true;
  readonly #onLate: (error: PedelecError) => void;

  constructor(detail: PedelecToolCallDetail, onLate: (error: PedelecError) => void = () => {}) {
    super(PedelecToolCallEvent.eventName, detail, true);
    this.#onLate = onLate;
  }

  /** Answers the call with a JSON result, or a promise of one (a rejection becomes `TOOL_HANDLER_ERROR`). */
  respondWith(value: unknown): void {
    this.#settle({ respond: value });
  }

  /** Refuses the call: the agent gets `TOOL_CALL_DENIED` with this message. */
  deny(message?: string): void {
    const { tool } = this.detail;
    this.#settle({ deny: pedelecError('TOOL_CALL_DENIED', message ?? 'Tool call denied by the page', { tool }) });
  }

  /** @internal Called by the session once dispatch returns: later answers are refused. */
  close(): ToolCallAnswer | undefined {
    this.#open = false;
    return this.answer;
  }

  #settle(answer: ToolCallAnswer): void {
    if (this.answer) throw new DOMException('pedelec-tool-call was already answered', 'InvalidStateError');
    if (!this.#open) {
      // The page hears of it twice, with one message: as an event (the throw may land nowhere) and as the throw.
      const { tool } = this.detail;
      const late = pedelecError(
        'TOOL_RESPOND_LATE',
        `pedelec-tool-call for ${tool} was answered after dispatch; pass a promise to respondWith() instead`,
        { tool },
      );
      this.#onLate(late);
      throw new DOMException(late.message, 'InvalidStateError');
    }
    this.answer = answer;
  }
}

declare module './pedelec-event.js' {
  interface PedelecEventMap {
    'pedelec-tool-call': PedelecToolCallEvent;
  }
}
