/**
 * The listener half of a session handle (docs/design/sdk-api.md "Events"): each `on…` method adds a
 * listener of one kind and returns the function that removes it. `PedelecSession` extends it and
 * emits; `onTool` is the session's own (it answers calls, it does not listen).
 */
import type { PedelecError } from './errors.js';
import type { Listeners } from './listeners.js';
import type {
  ChatDeltaEventContext,
  ChatEventContext,
  EndedEventContext,
  ErrorEventContext,
  PedelecEventContext,
  PedelecSessionStatus,
  PedelecSessionUsage,
  ProviderArtifactHandler,
  StatusEventContext,
  TurnEvent,
  UsageEventContext,
} from './types.js';

export type SessionEventKind = 'chat' | 'chatDelta' | 'usage' | 'artifact' | 'status' | 'error' | 'ended' | 'turn';

export class SessionListeners {
  #listeners: Listeners<SessionEventKind>;

  /** @internal Made by `PedelecSession`, which emits into `listeners`. */
  constructor(listeners: Listeners<SessionEventKind>) {
    this.#listeners = listeners;
  }

  /** Each whole assistant message, once complete. */
  onChat(listener: (text: string, ctx: ChatEventContext) => void): () => void {
    return this.#listeners.on('chat', listener);
  }
  /** The fragments of the assistant's messages exactly as the provider streams them (not every provider does). */
  onChatDelta(listener: (text: string, ctx: ChatDeltaEventContext) => void): () => void {
    return this.#listeners.on('chatDelta', listener);
  }
  /** @deprecated Use {@link SessionListeners.onChat}, which now delivers whole messages. */
  onChatMessage(listener: (text: string, ctx: ChatEventContext) => void): () => void {
    return this.onChat(listener);
  }
  /** (ours) Core reported more token usage (also `session.usage`). */
  onUsage(listener: (usage: PedelecSessionUsage, ctx: UsageEventContext) => void): () => void {
    return this.#listeners.on('usage', listener);
  }
  /** The provider produced a file during a turn; read it with `readAsset(artifact.path, 'file')`. */
  onArtifact(listener: ProviderArtifactHandler): () => void {
    return this.#listeners.on('artifact', listener);
  }
  onStatus(listener: (status: PedelecSessionStatus, ctx: StatusEventContext) => void): () => void {
    return this.#listeners.on('status', listener);
  }
  onError(listener: (error: PedelecError, ctx: ErrorEventContext) => void): () => void {
    return this.#listeners.on('error', listener);
  }
  onEnded(listener: (ctx: EndedEventContext) => void): () => void {
    return this.#listeners.on('ended', listener);
  }
  /** (ours) A turn starts — `sendText()` or `prepare()`, whoever called it. */
  onTurn(listener: (turn: TurnEvent, ctx: PedelecEventContext) => void): () => void {
    return this.#listeners.on('turn', listener);
  }
}
