import type { ToolApprovalAnswer, ToolApprovalRequest } from '../core/index.js';
import { PedelecEvent } from './pedelec-event.js';

/** A consequential call waiting for a person: the core's approval request, as the page's event carries it. */
export type PedelecToolApprovalDetail = ToolApprovalRequest;

/**
 * Fired on a consequential `<pedelec-tool>` (on the session for a JS tool) when the Pedelec agent calls
 * it, before the handler runs: the page asks a person, in its own UI. Bubbles and is composed. Answer
 * synchronously, during dispatch, with `respondWith(true | false | { approved, reason?, args? })` or a
 * promise of it; unanswered, the session's `<pedelec-chat>` shows a card, and with no chat the call
 * fails with `TOOL_APPROVAL_UNAVAILABLE`. Never fired for foreign agents' calls (the page is a surface
 * they can drive) nor for `invoke()`. Not cancelable.
 */
export class PedelecToolApprovalEvent extends PedelecEvent<PedelecToolApprovalDetail> {
  static readonly eventName = 'pedelec-tool-approval';

  /** Ends the dispatch: the answer given, if any. Later answers throw. */
  static close(
    event: PedelecToolApprovalEvent,
  ): { value: ToolApprovalAnswer | Promise<ToolApprovalAnswer> } | undefined {
    event.#open = false;
    return event.#answer;
  }
  /** `tool`, `args`, `via`, `editable`, `signal` and `context` (the call's `ToolCallContext`). */
  declare readonly detail: PedelecToolApprovalDetail;
  #answer: { value: ToolApprovalAnswer | Promise<ToolApprovalAnswer> } | undefined;
  #open = true;

  constructor(detail: PedelecToolApprovalDetail) {
    super(PedelecToolApprovalEvent.eventName, detail, true);
  }

  /** Answers for the person: `true` / `false`, `{ approved, reason?, args? }`, or a promise of one. */
  respondWith(answer: ToolApprovalAnswer | Promise<ToolApprovalAnswer>): void {
    if (!this.#open)
      throw new DOMException(
        'pedelec-tool-approval is answered during dispatch only; pass a promise',
        'InvalidStateError',
      );
    if (this.#answer) throw new DOMException('pedelec-tool-approval was already answered', 'InvalidStateError');
    this.#answer = { value: answer };
  }
}

declare module './pedelec-event.js' {
  interface PedelecEventMap {
    'pedelec-tool-approval': PedelecToolApprovalEvent;
  }
}
