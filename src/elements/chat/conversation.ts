/**
 * What a chat shows besides its layout: the transcript of the conversation with its session, the
 * availability line (what to set up), whether a turn is running, and sending the user's text. No
 * templates here: the element renders this state.
 */
import type { PedelecError } from '../../core/index.js';
import { PedelecChatDeltaEvent } from '../../events/chat-delta.event.js';
import { PedelecEndedEvent } from '../../events/ended.event.js';
import { PedelecErrorEvent } from '../../events/error.event.js';
import { PedelecReadyEvent } from '../../events/ready.event.js';
import { PedelecStatusEvent } from '../../events/status.event.js';
import { PedelecToolApprovalDecidedEvent } from '../../events/tool-approval-decided.event.js';
import { PedelecToolResultEvent } from '../../events/tool-result.event.js';
import { PedelecToolStartEvent } from '../../events/tool-start.event.js';
import { PedelecTurnEvent } from '../../events/turn.event.js';
import type { PedelecSessionElement } from '../session/pedelec-session.element.js';
import { ADVICE, adviceFor, errorAdvice, providerAdvice } from './advice.js';
import { decisionText } from './decisions.js';
import { resultView } from './tool-result.js';
import { Transcript } from './transcript.js';

const BUSY = ['starting', 'running', 'waiting_tool_result'];

/** The bridge a check was about: page scripts often set the session's `bridge` after connection. */
const bridgeOf = (s: PedelecSessionElement) => `${s.bridge}|${s.extensionId}`;

export class Conversation {
  transcript = new Transcript();
  /** The availability line: what to set up ('' when nothing). */
  #note = '';
  #checked = '';
  /** Counts availability checks: only the latest one may set the line. */
  #checks = 0;
  /** The error shown last, so a failed send reported by the session too shows once. */
  #shown: PedelecError | null = null;

  /** `session`: the chat's session now; `changed`: the state to show changed. */
  constructor(
    private readonly session: () => PedelecSessionElement | null,
    private readonly changed: () => void,
  ) {}

  /** Rows the transcript keeps at most (`max-messages`): beyond, the oldest go. */
  set maxRows(rows: number) {
    this.transcript.max = rows;
  }

  /** The availability line now: the extension's approval wait wins over the last check's advice. */
  get note(): string {
    return this.session()?.getAttribute('approval') === 'pending' ? ADVICE.pending : this.#note;
  }

  /**
   * Whether a turn runs. A failed send_text or prepare ends its turn without changing the status
   * (sdk-api.md): `running` counts only while a turn is in progress.
   */
  get busy(): boolean {
    const s = this.session();
    return s?.status === 'starting' || (BUSY.includes(s?.status as string) && !!s?.session?.turnActive);
  }

  /**
   * The chat was bound to a session (`fresh`: another one: a new conversation). A turn that ended while
   * the chat was away (detached, as tab panels do) is over here too; and what to set up is asked anew.
   */
  bound(fresh: boolean, connected: boolean): void {
    if (fresh) {
      const { max } = this.transcript;
      this.transcript = new Transcript();
      this.transcript.max = max;
      this.#note = '';
    }
    if (connected && !this.busy) this.transcript.settle();
    // After the code that bound it has run, and only if the chat is still bound then: a chat added and
    // removed in one go asks nothing.
    const s = this.session();
    if (!s) return;
    // Counts as checked already: the session's own first update must not ask a second time.
    this.#checked = bridgeOf(s);
    queueMicrotask(() => {
      if (this.session() === s) void this.check();
    });
  }

  /** The session updated: look again if its bridge changed since the last check. */
  sessionUpdated(): void {
    const s = this.session();
    if (s && bridgeOf(s) !== this.#checked) void this.check();
  }

  /** Asks the session what is missing and turns the answer into advice (never rejects). */
  async check(): Promise<void> {
    const s = this.session();
    if (!s) return;
    const bridge = (this.#checked = bridgeOf(s));
    // Only the latest check speaks, and none that started before the agent was reached.
    const id = ++this.#checks;
    let note = adviceFor(await s.checkAvailability(), s.bridge);
    // Availability does not tell whether a default provider is set and available: ask, unless the
    // session names one.
    const client = s.client;
    if (!note && !s.provider && client) {
      note = await client
        .getSettings()
        // No default provider: nothing to look up.
        .then(async ({ defaultProvider }) =>
          providerAdvice(defaultProvider, defaultProvider ? await client.listProviders() : []),
        )
        .catch(() => '');
    }
    if (s === this.session() && bridge === this.#checked && id === this.#checks) {
      this.#note = note;
      this.changed();
    }
  }

  /** The user comes back to type with something still to set up: look again. */
  focused(): void {
    if (this.#note) void this.check();
  }

  /** One of the session's events. */
  event(event: Event): void {
    const t = this.transcript;
    switch (event.type) {
      case PedelecTurnEvent.eventName: {
        const { kind, text } = (event as PedelecTurnEvent).detail;
        if (kind === 'user') t.user(text ?? '');
        break;
      }
      case PedelecChatDeltaEvent.eventName:
        t.delta((event as PedelecChatDeltaEvent).detail.text);
        this.#reached();
        break;
      case PedelecToolStartEvent.eventName: {
        const { via, tool, context } = (event as PedelecToolStartEvent).detail;
        // The conversation's own calls only: not the page's invoke(), nor another agent's.
        if (via === 'pedelec') t.toolStart(context.toolRequestId, tool);
        break;
      }
      case PedelecToolResultEvent.eventName: {
        const { detail } = event as PedelecToolResultEvent;
        const s = this.session();
        t.toolResult(
          detail.context.toolRequestId,
          detail.ok,
          detail.durationMs,
          s ? () => resultView(s, detail) : undefined,
        );
        break;
      }
      case PedelecToolApprovalDecidedEvent.eventName: {
        // Every agent's calls, unlike tool rows: who let a consequential call run matters whoever made it.
        const { detail } = event as PedelecToolApprovalDecidedEvent;
        t.decision(decisionText(detail), detail.approved);
        break;
      }
      case PedelecStatusEvent.eventName:
        if (!BUSY.includes((event as PedelecStatusEvent).detail.status)) t.settle();
        break;
      case PedelecEndedEvent.eventName:
        t.settle();
        break;
      case PedelecReadyEvent.eventName:
        this.#reached();
        break;
      case PedelecErrorEvent.eventName: {
        // Declaration problems (`event.element`) are for the page's developer, not the person chatting.
        const { detail, element } = event as PedelecErrorEvent;
        if (element) return;
        this.#showError(detail.error);
        const advice = errorAdvice(detail.error);
        if (advice) this.#note = advice;
        else if (/^DEFAULT_PROVIDER_|^PROVIDER_NOT_FOUND/.test(detail.error.code)) this.#note = ADVICE.provider;
        else if (!this.session()?.session || /^(EXTENSION|BRIDGE|NATIVE)_/.test(detail.error.code)) void this.check();
      }
    }
  }

  /**
   * Sends `text`. Resolves with the text to give back to the composer: a message that never became a
   * turn (busy, or no session could start) is given back so the user can send it again as the
   * availability line says; '' otherwise. `SESSION_BUSY` is no error: the turn in progress goes on.
   */
  async send(text: string): Promise<string> {
    const s = this.session();
    if (!s) return text;
    const transcript = this.transcript;
    const mark = transcript.added;
    try {
      // A bridge that went away (a dev Core restarted, say) is reconnected by restart(), explicitly.
      if (s.client?.unavailableReason) await s.restart();
      await s.sendText(text);
      return '';
    } catch (thrown) {
      const error = thrown as PedelecError;
      // The chat has moved on to another conversation: this failure belongs to the old one.
      if (this.transcript !== transcript) return '';
      if (error?.code !== 'SESSION_BUSY' && error !== this.#shown) {
        this.#showError(error);
        this.changed();
      }
      return transcript.since(mark).some((e) => e.kind === 'user' && e.text === text) ? '' : text;
    }
  }

  /** The agent is reachable (a session is ready, a reply streams in): no advice, and no check still out may give one. */
  #reached(): void {
    this.#checks++;
    this.#note = '';
  }

  #showError(error: PedelecError): void {
    this.#shown = error;
    this.transcript.error(`${errorAdvice(error) || error.message} (${error.code})`);
  }
}
