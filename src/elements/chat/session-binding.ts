/**
 * Which `<pedelec-session>` a chat talks to, as a reactive controller: its `sessionElement` property;
 * else `session="<id>"`, looked up in the chat's root (and again when that id appears later); else the
 * nearest session around it (shadow-including). It listens to the bound session's events, and tells
 * its chat when the binding changes or the session updates (its bridge, say).
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { PedelecChatDeltaEvent } from '../../events/chat-delta.event.js';
import { PedelecEndedEvent } from '../../events/ended.event.js';
import { PedelecErrorEvent } from '../../events/error.event.js';
import { PedelecReadyEvent } from '../../events/ready.event.js';
import { PedelecStatusEvent } from '../../events/status.event.js';
import { PedelecToolResultEvent } from '../../events/tool-result.event.js';
import { PedelecToolStartEvent } from '../../events/tool-start.event.js';
import { PedelecTurnEvent } from '../../events/turn.event.js';
import type { PedelecSessionElement } from '../session/pedelec-session.element.js';
import { SESSION_TAG } from '../tags.js';

/** The session events a chat shows. */
export const CHAT_EVENTS = [
  PedelecTurnEvent.eventName,
  PedelecChatDeltaEvent.eventName,
  PedelecToolStartEvent.eventName,
  PedelecToolResultEvent.eventName,
  PedelecStatusEvent.eventName,
  PedelecErrorEvent.eventName,
  PedelecEndedEvent.eventName,
  PedelecReadyEvent.eventName,
];

/** The chat, as its binding sees it. */
export interface BindingHost extends ReactiveControllerHost, HTMLElement {
  /** The `session` attribute: the id of the session to talk to. */
  readonly session: string | null;
  readonly sessionElement: PedelecSessionElement | null;
  /** The bound session changed; `fresh`: another one than the conversation's, which starts anew. */
  bound(fresh: boolean): void;
  /** The bound session updated (its bridge may have changed). */
  sessionUpdated(): void;
  /** One of the bound session's events. */
  sessionEvent(event: Event): void;
}

export class SessionBinding implements ReactiveController {
  /** The session whose events the chat listens to now. */
  session: PedelecSessionElement | null = null;
  /** The session the conversation belongs to: binding to another one starts a new conversation. */
  #owner: PedelecSessionElement | null = null;
  readonly #watch = { hostUpdated: () => this.host.sessionUpdated() };
  readonly #listener = (event: Event) => {
    if (event.target === this.session) this.host.sessionEvent(event);
  };
  readonly #observer = new MutationObserver((records) => {
    this.bind();
    // The session's `approval` attribute shows in the availability line; other changes in the root
    // (watched for the `session` id) only re-bind: a chat must not re-render for every DOM change.
    if (records.some((record) => record.attributeName === 'approval')) this.host.requestUpdate();
  });

  constructor(private readonly host: BindingHost) {
    host.addController(this);
  }

  hostConnected(): void {
    this.bind();
  }

  hostDisconnected(): void {
    this.bind();
  }

  /** Binds to the session the chat should talk to now, and watches what could change that. */
  bind(): void {
    const next = this.#resolve();
    const previous = this.session;
    if (next !== previous) {
      for (const type of CHAT_EVENTS) {
        previous?.removeEventListener(type, this.#listener);
        next?.addEventListener(type, this.#listener);
      }
      previous?.removeController?.(this.#watch);
      this.session = next;
      const fresh = !!next && next !== this.#owner;
      if (fresh) this.#owner = next;
      // A session element not upgraded yet has no controllers: watch it once it is.
      if (next)
        void customElements
          .whenDefined(SESSION_TAG)
          .then(() => this.session === next && next.addController(this.#watch));
      this.host.bound(fresh);
      this.host.requestUpdate();
    }
    this.#observer.disconnect();
    const { host } = this;
    if (host.isConnected && host.session) {
      this.#observer.observe(host.getRootNode(), { childList: true, subtree: true, attributeFilter: ['id'] });
    }
    if (next) this.#observer.observe(next, { attributeFilter: ['approval'] });
  }

  #resolve(): PedelecSessionElement | null {
    const { host } = this;
    if (!host.isConnected) return null;
    if (host.sessionElement) return host.sessionElement;
    let found: Node | null | undefined;
    if (host.session) found = (host.getRootNode() as Document | ShadowRoot).getElementById(host.session);
    else {
      found = host.parentNode;
      while (found && (found as Element).localName !== SESSION_TAG)
        found = found.parentNode ?? (found as ShadowRoot).host;
    }
    return (found as Element | null)?.localName === SESSION_TAG ? (found as PedelecSessionElement) : null;
  }
}
