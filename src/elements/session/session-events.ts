/**
 * The session a `<pedelec-session>` holds: its callbacks as the element's DOM events, and what it was
 * created with, to tell what changed since (`pedelec-tools-changed`).
 */
import type {
  PedelecError,
  PedelecEventContext,
  PedelecSession,
  PedelecSessionStatus,
  SerializableSkillsManifest,
} from '../../core/index.js';
import { PedelecToolsChangedEvent } from '../../events/tools-changed.event.js';
import type { ElementToolbox } from './element-toolbox.js';
import { Staleness, type SessionConfig } from './staleness.js';
import { PedelecArtifactEvent } from '../../events/artifact.event.js';
import { PedelecChatDeltaEvent } from '../../events/chat-delta.event.js';
import { PedelecChatMessageEvent } from '../../events/chat-message.event.js';
import { PedelecEndedEvent } from '../../events/ended.event.js';
import { PedelecErrorEvent } from '../../events/error.event.js';
import { PedelecWarningEvent } from '../../events/warning.event.js';
import { PedelecReadyEvent } from '../../events/ready.event.js';
import { PedelecTurnEvent } from '../../events/turn.event.js';
import { PedelecUsageEvent } from '../../events/usage.event.js';

export type SessionEventHandlers = {
  status(status: PedelecSessionStatus, context: PedelecEventContext): void;
  ended(): void;
  /** Whether `error` reports an answer given after its deadline: a developer's warning, not an error. */
  lateAnswer(error: PedelecError): boolean;
};

/**
 * Listens to `session`, dispatching through `emit`; returns the function that stops listening.
 * Errors and the end stay subscribed after that: an ended session only reports results that could not
 * be delivered any more, and those are said, not lost; and a status listener may start the next
 * session at `ended`, which lets this one go before it reports its end (it does once).
 */
export function sessionEvents(
  session: PedelecSession,
  emit: (event: Event) => void,
  on: SessionEventHandlers,
): () => void {
  session.onError((error, context) =>
    emit(
      on.lateAnswer(error) ? new PedelecWarningEvent({ warning: error }) : new PedelecErrorEvent({ error, context }),
    ),
  );
  session.onEnded((context) => {
    on.ended();
    emit(new PedelecEndedEvent({ context }));
  });
  // `pedelec-chat-delta` gives every character of each assistant message once: the fragments as they
  // come, then whatever of the whole message they did not deliver (all of it when the provider does
  // not stream; nothing more when fragments and message disagree — the message event has it whole).
  let delivered = '';
  const stops = [
    session.onStatus((status, context) => on.status(status, context)),
    session.onChatDelta((text, context) => {
      delivered += text;
      emit(new PedelecChatDeltaEvent({ text, context }));
    }),
    session.onChat((text, context) => {
      const rest = text.startsWith(delivered) ? text.slice(delivered.length) : '';
      delivered = '';
      if (rest) emit(new PedelecChatDeltaEvent({ text: rest, context: { ...context, type: 'chat_delta' } }));
      emit(new PedelecChatMessageEvent({ text, context }));
    }),
    session.onUsage((usage, context) => emit(new PedelecUsageEvent({ usage, context }))),
    session.onArtifact((artifact, context) => emit(new PedelecArtifactEvent({ artifact, context }))),
    session.onTurn((turn) => {
      delivered = '';
      emit(new PedelecTurnEvent(turn));
    }),
  ];
  return () => stops.forEach((stop) => stop());
}

/** `pedelec-ready` for a session just created or resumed. */
export const readyEvent = (session: PedelecSession, resumed: boolean): PedelecReadyEvent =>
  new PedelecReadyEvent({ sessionId: session.sessionId, provider: session.provider, model: session.model, resumed });

/** What a held session reports to its element. */
export interface HeldSessionHost {
  emit: (event: Event) => void;
  status: (status: PedelecSessionStatus, context?: PedelecEventContext) => void;
  /** The manifest and configuration declared now. */
  declared(): { manifest: SerializableSkillsManifest | undefined; config: SessionConfig };
}

export class HeldSession {
  readonly staleness = new Staleness();

  constructor(
    private readonly host: HeldSessionHost,
    private readonly toolbox: ElementToolbox,
  ) {}

  /** Stops listening to the held session; does nothing while none is held. */
  #stop: () => void = () => {};

  /** Listens to `session`, just created or resumed with `created`, and reports it ready. */
  hold(
    session: PedelecSession,
    created: { manifest: SerializableSkillsManifest | undefined; config: SessionConfig },
    resumed: boolean,
  ): void {
    const { host } = this;
    this.staleness.take(created.manifest, created.config);
    this.#stop = sessionEvents(session, host.emit, {
      status: host.status,
      ended: () => this.toolbox.forgetCallsOf(session.sessionId),
      lateAnswer: (error) =>
        error.code === 'SUBMIT_TOOL_RESULT_FAILED' &&
        this.toolbox.lateAnswer((error.details as { toolRequestId?: unknown } | undefined)?.toolRequestId),
    });
    host.status(session.getStatus());
    // Changed while it was being created: stale from the start.
    this.checkStale();
    host.emit(readyEvent(session, resumed));
  }

  /** Stops listening (errors and the end stay, see {@link sessionEvents}); nothing to compare with any more. */
  release(): void {
    this.#stop();
    this.#stop = () => {};
    this.staleness.clear();
  }

  /** One `pedelec-tools-changed` per new difference between what is declared now and what the session has. */
  checkStale(): void {
    const { manifest, config } = this.host.declared();
    const change = this.staleness.check(manifest, config);
    if (change) this.host.emit(new PedelecToolsChangedEvent(change));
  }
}
