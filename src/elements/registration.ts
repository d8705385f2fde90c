import type { ReactiveController, ReactiveElement } from '@lit/reactive-element';
import { updateNow } from './update-now.js';

/**
 * How members (`<pedelec-tool>`, `<pedelec-guidance>`…) find their session: a member announces itself
 * with a bubbling, composed event; the nearest session on the shadow-including ancestor chain stops it
 * and answers with itself. On disconnect a member calls its session directly (an event from a
 * detached node reaches no one).
 */
export interface SessionOwner {
  /** A member announced itself (or moved here from another session). */
  adopt(member: Element): void;
  /** A member left, or found a nearer session. */
  release(member: Element): void;
  /** A member's declaration changed. */
  memberChanged(member: Element): void;
}

/**
 * Members connected anywhere in this realm. A session that connects while there are none has no
 * registered member below it to take over, so it skips asking its subtree (a walk of every
 * descendant) — the common case of a page whose session and tools arrive together.
 */
let connectedMembers = 0;

/** Whether any member is connected (and so may need to announce itself again to a new session). */
export const anyMemberConnected = (): boolean => connectedMembers > 0;

const memberships = new WeakMap<Element, Membership>();

/** Tells a member's session now of the mutations its observer would deliver a microtask later. */
export const flushChanges = (member: Element): void => memberships.get(member)?.flush();

/** Tells a member's session that its declaration changed (what it reads from arrived: a form's binding). */
export const memberChanged = (member: Element): void => memberships.get(member)?.changed();

/** Asks a member to announce itself again: a nearer session may have been defined since (one not yet upgraded cannot). */
export const reregister = (member: Element): void => memberships.get(member)?.reregister();

export class RegisterEvent extends Event {
  static readonly eventName = 'pedelec-register';
  owner: SessionOwner | null = null;

  constructor(readonly member: Element) {
    super(RegisterEvent.eventName, { bubbles: true, composed: true });
  }
}

/** Makes `owner` the session of the members that announce themselves below `session`, unless a nearer one took them. */
export function ownMembers(session: EventTarget, owner: SessionOwner): void {
  session.addEventListener(RegisterEvent.eventName, (event) => {
    const register = event as RegisterEvent;
    if (register.owner) return;
    register.stopPropagation();
    register.owner = owner;
    owner.adopt(register.member);
  });
}

/**
 * Announces `member` and returns its owner (or null). Releases the previous owner when the nearest
 * session is now another one.
 */
export function register(member: Element, previous: SessionOwner | null): SessionOwner | null {
  const event = new RegisterEvent(member);
  member.dispatchEvent(event);
  if (previous && previous !== event.owner) previous.release(member);
  return event.owner;
}

/**
 * A member's side of registration, as a Lit reactive controller: joins the nearest session on
 * connect, leaves on disconnect, and tells its session when its declaration (children, attributes,
 * text) changes.
 */
export class Membership implements ReactiveController {
  owner: SessionOwner | null = null;
  #observer: MutationObserver | null = null;
  /** Changes reported (or unobserved) since the last `takeChanges()`. */
  #dirty = true;
  readonly #member: ReactiveElement;
  readonly #watch: MutationObserverInit;

  constructor(member: ReactiveElement, watch: MutationObserverInit) {
    this.#member = member;
    this.#watch = watch;
    member.addController(this);
    memberships.set(member, this);
  }

  hostConnected(): void {
    connectedMembers++;
    this.owner = register(this.#member, this.owner);
    this.#dirty = true; // nothing was observed while disconnected
    this.#observer ??= new MutationObserver(() => this.changed());
    this.#observer.observe(this.#member, this.#watch);
  }

  hostDisconnected(): void {
    connectedMembers--;
    this.#observer?.disconnect();
    const owner = this.owner;
    this.owner = null;
    owner?.release(this.#member);
  }

  /** Announce again: a nearer session may have been defined since. */
  reregister(): void {
    if (this.#member.isConnected) this.owner = register(this.#member, this.owner);
  }

  /** The member's declaration changed (its properties, in its `willUpdate`; its children or attributes). */
  changed(): void {
    this.#dirty = true;
    this.owner?.memberChanged(this.#member);
  }

  /**
   * Reports now, not a microtask later, what the page changed in this task: the member's pending
   * update runs (its `willUpdate` reports property changes) and the mutations still pending in the
   * observer are taken (taken records are never delivered, so they are reported here).
   */
  flush(): void {
    updateNow(this.#member);
    if (this.#observer?.takeRecords().length) this.changed();
  }

  /**
   * Whether the member's children or attributes changed since the last call — reported by the
   * observer or still pending in it — so a cached reading of them is stale. Always true while
   * disconnected (nothing is observed then).
   */
  takeChanges(): boolean {
    if (!this.#member.isConnected || !this.#observer) return true;
    this.flush();
    const dirty = this.#dirty;
    this.#dirty = false;
    return dirty;
  }
}
