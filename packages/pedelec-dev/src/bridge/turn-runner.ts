/**
 * A session's turns, one at a time: claiming the session for one, running the agent with its
 * `TurnContext` (what it says, its tool calls and published files, kept in the agent's order), and
 * ending it — in the event order the header of session.ts describes. Apart from session.ts, which keeps
 * the session's routes and its life (end, reactivation), and from session-events.ts, which words what
 * the page is told.
 */
import type { JsonValue } from 'pedelec-elements/core';
import type {
  AgentSession,
  AgentSessionInfo,
  AgentWorkspace,
  PublishedArtifact,
  TurnContext,
} from '../agents/types.js';
import { storeArtifact, type AssetWriter } from '../assets/artifacts.js';
import { DevCoreError } from '../errors.js';
import type { OperationKind, ReportedTurn, SessionEvents } from './session-events.js';
import type { ToolCallRelay } from './tool-call-relay.js';

export type Turn = ReportedTurn & {
  /**
   * The session's stop signal when the turn began: aborted when the session ends. A session that is
   * reactivated gets a new one, so an agent still finishing a turn of before the end stays silent.
   */
  readonly signal: AbortSignal;
  done: boolean;
  /** Tool calls and artifact writes of the turn, one after another; the turn ends once they are all done. */
  queue: Promise<void>;
};

/** What the runner asks of its session. */
export type TurnHost = {
  readonly id: string;
  readonly provider: string;
  /** What the agent is told of the session (`TurnContext.session`). */
  readonly info: AgentSessionInfo;
  /** Stores a published artifact in the session's asset folder; without it, publishing fails. */
  readonly writeAsset: AssetWriter | undefined;
  /** The session's workspace as the agent works in it (none with the 0.1 protocol). */
  readonly workspace: AgentWorkspace | null;
  ended(): boolean;
  /** What a call or write fails with once the session has ended. */
  endedReason(): DevCoreError;
};

const noop = () => {};

export class TurnRunner {
  private turn: Turn | null = null;
  /** Aborts the running turn's agent when the session ends; replaced when it is reactivated. */
  private stop = new AbortController();

  constructor(
    private readonly session: TurnHost,
    private readonly agentSession: AgentSession,
    private readonly events: SessionEvents,
    private readonly toolCalls: ToolCallRelay<Turn>,
  ) {}

  /** The turn that holds the session, if any. */
  get current(): Turn | null {
    return this.turn;
  }

  /** A turn's events and calls stop once it is done, or once the session it began in has ended. */
  isOver(turn: Turn): boolean {
    return turn.done || turn.signal.aborted || this.session.ended();
  }

  /** Claims the session for one turn; the function returned starts it (see DevSession.reserveTurn). */
  reserve(kind: OperationKind, text: string, operationId: string | undefined): () => void {
    const { id: sessionId } = this.session;
    if (this.session.ended()) throw new DevCoreError('THREAD_NOT_FOUND', 'The session has ended', { sessionId });
    if (this.turn) {
      throw new DevCoreError('THREAD_BUSY', 'A turn is already running in this session; wait for it to end', {
        sessionId,
      });
    }
    const turn: Turn = {
      kind,
      operationId,
      startedAt: new Date().toISOString(),
      signal: this.stop.signal,
      done: false,
      queue: Promise.resolve(),
      message: '',
    };
    this.turn = turn;
    return () => void this.run(turn, text);
  }

  /** The session ends: the running turn is over, and its agent is aborted with `reason`. */
  abort(reason: DevCoreError): void {
    if (this.turn) this.turn.done = true;
    this.turn = null;
    this.stop.abort(reason);
  }

  /** The session is reactivated: the turns from now on have a stop signal of their own. */
  renew(): void {
    this.stop = new AbortController();
  }

  private async run(turn: Turn, text: string): Promise<void> {
    this.events.userText(text);
    this.events.setStatus(turn, 'running');
    const ctx = this.context(turn);
    let failure: unknown = undefined;
    let failed = false;
    try {
      if (turn.kind === 'prepare') await this.agentSession.prepare?.(ctx);
      else await this.agentSession.turn(text, ctx);
      // A call the agent started without awaiting still belongs to this turn.
      await turn.queue;
    } catch (thrown) {
      failed = true;
      failure = thrown;
    }
    turn.done = true;
    if (this.turn === turn) this.turn = null;
    if (this.session.ended() || turn.signal.aborted) return;
    this.events.sendMessage(turn);
    this.events.reportUsage(turn);
    if (!failed) {
      // Back to back, in this order, as today's Core does; a 0.1 page finishes its turn on the idle.
      this.events.setStatus(turn, 'idle');
      this.events.completeOperation(turn, { success: true });
      return;
    }
    // An error event ends the turn on a 0.1 page by itself; an `idle` after it could arrive after the
    // page has already started its next turn and finish that one early, so none is sent.
    this.events.turnFailed(turn, failure);
  }

  private context(turn: Turn): TurnContext {
    return {
      session: this.session.info,
      kind: turn.kind,
      signal: turn.signal,
      say: (text: string) => {
        if (this.isOver(turn) || typeof text !== 'string' || text === '') return;
        this.events.said(turn, text);
      },
      callTool: (name: string, args?: unknown, options?: { timeoutMs?: number }) => {
        // One call at a time, in order: the page's status has room for a single pending call.
        const call = turn.queue.then(() => this.toolCalls.call(turn, name, args, options));
        turn.queue = call.then(noop, noop);
        return call;
      },
      refused: (result: JsonValue) => this.toolCalls.isRefusal(result),
      publishArtifact: (name: string, content: string | Uint8Array, mimeType?: string) => {
        // In the same queue as tool calls: the turn waits for the file, and events keep the agent's order.
        const publish = turn.queue.then(() => this.publishArtifact(turn, name, content, mimeType));
        turn.queue = publish.then(noop, noop);
        return publish;
      },
      workspace: this.session.workspace,
    };
  }

  private async publishArtifact(
    turn: Turn,
    name: unknown,
    content: unknown,
    mimeType: unknown,
  ): Promise<PublishedArtifact> {
    if (this.isOver(turn)) throw this.session.endedReason();
    const { id, provider, writeAsset } = this.session;
    const artifact = await storeArtifact({ id, provider, writeAsset }, name, content, mimeType);
    if (!this.isOver(turn)) this.events.artifactPublished(turn, artifact);
    return artifact;
  }
}
