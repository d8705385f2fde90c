/**
 * Which `<pedelec-session>` a chat talks to, as a reactive controller: its `forElement` property;
 * else `for="<id>"`, looked up in the chat's root (and again when that id appears later); else the
 * nearest session around it (shadow-including). It listens to the bound session's events, offers the
 * chat's approval card to it for as long as it is bound, and tells its chat when the binding changes
 * or the session updates (its bridge, say).
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { PedelecArtifactEvent } from '../../events/artifact.event.js';
import { PedelecChatDeltaEvent } from '../../events/chat-delta.event.js';
import { PedelecEndedEvent } from '../../events/ended.event.js';
import { PedelecErrorEvent } from '../../events/error.event.js';
import { PedelecReadyEvent } from '../../events/ready.event.js';
import { PedelecStatusEvent } from '../../events/status.event.js';
import { PedelecToolApprovalDecidedEvent } from '../../events/tool-approval-decided.event.js';
import { PedelecToolResultEvent } from '../../events/tool-result.event.js';
import { PedelecToolStartEvent } from '../../events/tool-start.event.js';
import { PedelecTurnEvent } from '../../events/turn.event.js';
import { PedelecUsageEvent } from '../../events/usage.event.js';
import { offerApprovalSurface, type ApprovalSurface } from '../approval-surfaces.js';
import { onSessionConnected } from '../session-connected.js';
import { PedelecSessionElement } from '../session/pedelec-session.element.js';

/** The session events a chat shows. */
export const CHAT_EVENTS = [
  PedelecTurnEvent.eventName,
  PedelecChatDeltaEvent.eventName,
  PedelecToolStartEvent.eventName,
  PedelecToolResultEvent.eventName,
  PedelecToolApprovalDecidedEvent.eventName,
  PedelecStatusEvent.eventName,
  PedelecErrorEvent.eventName,
  PedelecEndedEvent.eventName,
  PedelecReadyEvent.eventName,
  PedelecArtifactEvent.eventName,
  PedelecUsageEvent.eventName,
];

/** The chat, as its binding sees it. */
export interface BindingHost extends ReactiveControllerHost, HTMLElement {
  /** The `for` attribute: the id of the session to talk to. */
  readonly htmlFor: string | null;
  readonly forElement: PedelecSessionElement | null;
}

/** What the binding tells its chat. */
export type BindingHooks = {
  /** The bound session changed; `fresh`: another one than the conversation's, which starts anew. */
  bound(fresh: boolean): void;
  /** The bound session updated (its bridge may have changed). */
  updated(): void;
  /** One of the bound session's events. */
  event(event: Event): void;
  /** Asks the person about a consequential tool's call of the bound session (the chat's card). */
  ask: ApprovalSurface;
};

export class SessionBinding implements ReactiveController {
  /** The session whose events the chat listens to now. */
  session: PedelecSessionElement | null = null;
  /** The session the conversation belongs to: binding to another one starts a new conversation. */
  #owner: PedelecSessionElement | null = null;
  readonly #watch = { hostUpdated: () => this.hooks.updated() };
  /** Takes the chat's card back from the session it was offered to. */
  #withdraw: (() => void) | null = null;
  /** Stops waiting for a session to connect; set while the chat has none. */
  #stopWaiting: (() => void) | null = null;
  readonly #observer = new MutationObserver((records) => {
    this.bind();
    // The session's `approval` attribute shows in the availability line; other changes in the root
    // (watched for the `for` id) only re-bind: a chat must not re-render for every DOM change.
    if (records.some((record) => record.attributeName === 'approval')) this.host.requestUpdate();
  });

  constructor(
    private readonly host: BindingHost,
    private readonly hooks: BindingHooks,
  ) {
    host.addController(this);
  }

  readonly #listener = (event: Event) => {
    if (event.target === this.session) this.hooks.event(event);
  };

  hostConnected(): void {
    this.bind();
  }

  hostDisconnected(): void {
    this.bind();
  }

  /** A chat without a session waits for one to connect (or to upgrade, when it was defined after the chat). */
  #waitForSession(waiting: boolean): void {
    if (waiting && !this.#stopWaiting) this.#stopWaiting = onSessionConnected(() => this.bind());
    else if (!waiting && this.#stopWaiting) {
      this.#stopWaiting();
      this.#stopWaiting = null;
    }
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
      previous?.removeController(this.#watch);
      // At once, not when the chat's view is ready: a chat still loading is a surface the session has.
      this.#withdraw?.();
      this.#withdraw = next && offerApprovalSurface(next, this.hooks.ask);
      this.session = next;
      const fresh = !!next && next !== this.#owner;
      if (fresh) this.#owner = next;
      next?.addController(this.#watch);
      this.hooks.bound(fresh);
      this.host.requestUpdate();
    }
    this.#observer.disconnect();
    const { host } = this;
    this.#waitForSession(host.isConnected && !next);
    if (host.isConnected && host.htmlFor) {
      this.#observer.observe(host.getRootNode(), { childList: true, subtree: true, attributeFilter: ['id'] });
    }
    if (next) this.#observer.observe(next, { attributeFilter: ['approval'] });
  }

  #resolve(): PedelecSessionElement | null {
    const { host } = this;
    if (!host.isConnected) return null;
    if (host.forElement) return host.forElement;
    if (host.htmlFor) {
      const named = (host.getRootNode() as Document | ShadowRoot).getElementById(host.htmlFor);
      return named instanceof PedelecSessionElement ? named : null;
    }
    // The nearest session around the chat, shadow-including.
    let around: Node | null = host.parentNode;
    while (around && !(around instanceof PedelecSessionElement))
      around = around.parentNode ?? (around as ShadowRoot).host ?? null;
    return around;
  }
}
