/**
 * What a session's pages are told of it, in the protocol's words: status changes, a turn's events with
 * its `operationId`, the assistant message whole (`chat_message`), the token estimate
 * (`usage_updated`), the end of an operation, and the `session_snapshot` of where the session stands.
 * It keeps what that takes (status, usage, the last completed operation). Apart from session.ts and
 * turn-runner.ts, which decide when each is said: the order of a turn's events is theirs, and the
 * header of session.ts describes it.
 */
import type { JsonValue, PedelecError } from 'pedelec-elements/core';
import type { BridgeEventType } from 'pedelec-elements/protocol';
import type { PublishedArtifact } from '../agents/types.js';
import { toWireError } from '../errors.js';
import type { ProtocolProfile } from './protocol-profile.js';
import type { SessionRoutes } from './session-routes.js';
import type { ToolRequest, WaitingCall } from './tool-call-relay.js';

export type SessionStatus = 'idle' | 'running' | 'waiting_tool_result' | 'error' | 'ended';

/** A session's status as today's Core spells it in snapshots (`--core-statuses`); the others are the same. */
const CORE_SPELLING: Partial<Record<SessionStatus, string>> = { waiting_tool_result: 'waitingToolResult' };

export type OperationKind = 'user' | 'prepare';

/** A turn as its events need it; turn-runner.ts's `Turn` adds what running it takes. */
export type ReportedTurn = {
  readonly kind: OperationKind;
  /** The page's id for this turn (or one made by the Core); `undefined` when the protocol has no operations. */
  readonly operationId: string | undefined;
  /** When the turn was claimed, for the snapshot's `activeOperation.startedAt`. */
  readonly startedAt: string;
  /** The assistant message so far: the text said since the last `chat_message`. */
  message: string;
};

type CompletedOperation = {
  operationId: string;
  operationKind: OperationKind;
  success: boolean;
  error?: PedelecError;
  completedAt: string;
};

/** What the events ask of their session. */
export type EventHooks = {
  /** Whether the session has ended: nothing is sent then (its `ended` event is the session's own). */
  ended(): boolean;
  /** The status changed, or a turn failed: the inspector's list is told. */
  changed(): void;
};

/** The length of a value's JSON text, for the token estimate; 0 for what cannot be serialized (too deep). */
function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return 0;
  }
}

export class SessionEvents {
  /**
   * The status the inspector and the snapshot show. Set with an event by {@link setStatus}; set silently
   * when a turn fails (its `error` event says so), when the session ends and when it is reactivated.
   */
  status: SessionStatus = 'idle';
  private lastCompleted: CompletedOperation | null = null;
  /**
   * Characters of the conversation so far, for the token estimate of `usage_updated`: the user's texts,
   * the assistant's text, and the JSON of every tool call's args and of every result the agent got back
   * from the page (or its timeout). Tokens are estimated as ceil(characters / 4) (UTF-16 code units): a
   * deterministic running figure, not any real tokenizer's.
   */
  private conversationChars = 0;
  /** The last `usage_updated` total; `undefined` until the first turn has ended. */
  private totalTokens: number | undefined = undefined;

  constructor(
    private readonly session: { readonly id: string; readonly provider: string },
    private readonly routes: SessionRoutes,
    private readonly protocol: ProtocolProfile,
    private readonly hooks: EventHooks,
  ) {}

  private emit(type: BridgeEventType, fields: Record<string, unknown>): void {
    if (this.hooks.ended()) return;
    this.routes.send(type, fields);
  }

  /** An event of a turn: it carries the turn's operationId when the protocol has operations. */
  turnEvent(turn: ReportedTurn, type: BridgeEventType, fields: Record<string, unknown>): void {
    this.emit(type, turn.operationId === undefined ? fields : { operationId: turn.operationId, ...fields });
  }

  setStatus(turn: ReportedTurn, status: SessionStatus): void {
    this.status = status;
    this.turnEvent(turn, 'status_changed', { status });
    this.hooks.changed();
  }

  /** The user's text of a turn that begins: it counts towards the token estimate. */
  userText(text: string): void {
    this.conversationChars += text.length;
  }

  /** Text the agent said: kept for the whole message (today's protocol) and sent as a delta (0.1). */
  said(turn: ReportedTurn, text: string): void {
    this.conversationChars += text.length;
    if (this.protocol.chatMessages) turn.message += text;
    if (this.protocol.chatFragments) this.turnEvent(turn, 'chat_delta', { text });
  }

  /** A tool call is going out to the page (the tool-call relay's `sent`). */
  toolCallSent(turn: ReportedTurn, { toolRequestId, tool, args }: ToolRequest): void {
    this.conversationChars += jsonLength(args);
    // The message said before the call is complete: the page gets it whole before the call.
    this.sendMessage(turn);
    this.setStatus(turn, 'waiting_tool_result');
    this.turnEvent(turn, 'tool_call', { toolRequestId, tool, args });
  }

  /** The page answered a call, or it timed out (the tool-call relay's `settled`). */
  toolCallSettled(turn: ReportedTurn, result: JsonValue): void {
    this.conversationChars += jsonLength(result);
    if (!this.hooks.ended()) this.setStatus(turn, 'running');
  }

  /** The assistant message said since the last one, whole, as `chat_message` (today's protocol). */
  sendMessage(turn: ReportedTurn): void {
    if (!this.protocol.chatMessages || turn.message === '') return;
    const text = turn.message;
    turn.message = '';
    this.turnEvent(turn, 'chat_message', { text });
  }

  reportUsage(turn: ReportedTurn): void {
    if (!this.protocol.operations) return;
    this.totalTokens = Math.ceil(this.conversationChars / 4);
    this.turnEvent(turn, 'usage_updated', { totalTokens: this.totalTokens });
  }

  completeOperation(turn: ReportedTurn, outcome: { success: boolean; error?: PedelecError }): void {
    if (turn.operationId === undefined) return;
    this.lastCompleted = {
      operationId: turn.operationId,
      operationKind: turn.kind,
      success: outcome.success,
      ...(outcome.error && { error: outcome.error }),
      completedAt: new Date().toISOString(),
    };
    this.turnEvent(turn, 'operation_completed', {
      operationKind: turn.kind,
      success: outcome.success,
      ...(outcome.error && { error: outcome.error }),
    });
  }

  /** A turn that failed with `failure`: its `error` event, then the failed operation's end. */
  turnFailed(turn: ReportedTurn, failure: unknown): void {
    const error = toWireError(failure);
    const source = (failure as { source?: unknown })?.source === 'provider' ? 'provider' : 'core';
    this.status = 'error';
    this.turnEvent(turn, 'error', { error, source, provider: this.session.provider });
    this.completeOperation(turn, { success: false, error });
    this.hooks.changed();
  }

  /** A file the agent published (today's protocol). */
  artifactPublished(turn: ReportedTurn, artifact: PublishedArtifact): void {
    // 0.1 has no such event: the file is there all the same, for list_assets and downloads.
    if (this.protocol.operations) this.turnEvent(turn, 'provider_artifact', { artifact });
  }

  /** Where the session stands, for `session_snapshot`: `turn` is the one running, `waiting` its call to the page. */
  snapshot(turn: ReportedTurn | null, waiting: WaitingCall | undefined): Record<string, unknown> {
    const { coreStatuses } = this.protocol;
    // `threadId`: SDK 0.4.6 ignores a snapshot that does not name its thread (the session, here).
    const snapshot: Record<string, unknown> = {
      threadId: this.session.id,
      status: (coreStatuses && CORE_SPELLING[this.status]) || this.status,
      latestSeq: this.routes.latestSeq,
    };
    if (this.totalTokens !== undefined) snapshot.usage = { totalTokens: this.totalTokens };
    if (turn?.operationId !== undefined) {
      snapshot.activeOperation = {
        operationId: turn.operationId,
        operationKind: turn.kind,
        startedAt: turn.startedAt,
      };
    }
    if (this.lastCompleted) snapshot.lastCompletedOperation = { ...this.lastCompleted };
    if (waiting) {
      const { toolRequestId, tool, args, operationId, createdAt, timeoutMs } = waiting;
      // Two shapes, never mixed, so a page's reader is tested on each: Core's names, or this Core's own.
      snapshot.pendingToolRequest = coreStatuses
        ? {
            requestId: toolRequestId,
            threadId: this.session.id,
            operationId,
            toolName: tool,
            args,
            createdAt,
            timeoutMs,
          }
        : { toolRequestId, tool, args, operationId };
    }
    return snapshot;
  }
}
