import { ReactiveElement, type PropertyValues } from '@lit/reactive-element';
import type { PedelecSessionElement } from '../session/pedelec-session.element.js';
import { normalizeError } from '../../core/errors.js';
import { PedelecErrorEvent } from '../../events/error.event.js';
import { SESSION_TAG } from '../tags.js';
import type { ChatView } from './chat-view.js';
import { chatHostStyles } from './chat-host.styles.js';

/** Turns Markdown into DOM the chat inserts as is (sanitizing is the renderer's job). */
export type RenderMarkdown = (markdown: string) => Node;

const EVENTS = 'turn chat-delta tool-start tool-result status error ended ready'
  .split(' ')
  .map((name) => `pedelec-${name}`);

/** The chat's view (chat-view.ts: transcript, composer, availability, templates, styles), imported by the first update of the first chat. */
let viewModule: Promise<typeof import('./chat-view.js')> | undefined;
/** When the last import failed: a later update tries again, at most every few seconds. */
let viewFailedAt = -Infinity;
const VIEW_RETRY_MS = 3000;
/** How many times a chat without its view tries again by itself (a blank panel has nothing to type into). */
const VIEW_RETRIES = 5;

/** The view module, or null when it cannot be loaded (now). */
function loadView(): Promise<typeof import('./chat-view.js') | null> {
  if (!viewModule && Date.now() - viewFailedAt < VIEW_RETRY_MS) return Promise.resolve(null);
  viewModule ??= import('./chat-view.js').catch((error: unknown) => {
    viewModule = undefined;
    viewFailedAt = Date.now();
    throw error;
  });
  return viewModule;
}

/**
 * A ready chat panel for the agent of its `<pedelec-session>`: the conversation (user turns — also
 * those page code starts with `sendText()` —, the agent's streamed reply, one row per tool call,
 * errors), a composer, and a line that tells the user what to set up when the agent is not reachable.
 * Agent text is shown as text; the `markdown` attribute opts into sanitized Markdown.
 *
 * @summary A chat panel for the agent of its session: streaming replies, tool activity, setup guidance.
 * @tag pedelec-chat
 *
 * @attr session - The id of the `<pedelec-session>` to talk to, looked up in this element's root (also when it appears later). Without it: the nearest session around the element.
 * @attr markdown - Render the agent's replies as Markdown (loads `pedelec-elements/markdown` on first use, or uses `renderMarkdown`).
 *
 * @prop {PedelecSessionElement | null} sessionElement - The session to talk to; wins over `session` and the nearest session.
 * @prop {RenderMarkdown | undefined} renderMarkdown - Your own Markdown renderer (`markdown` mode): returns a Node that is inserted as is, so sanitizing is yours.
 *
 * @fires {PedelecErrorEvent} pedelec-error - `CHAT_VIEW_UNAVAILABLE` (once) when its view, a chunk beside the kit, cannot be loaded (it tries again by itself, and on later updates); `MARKDOWN_RENDER_FAILED` (once) when a `renderMarkdown` throws (that message shows as text).
 *
 * @slot empty - Shown in the transcript before the conversation starts.
 *
 * @csspart log - The transcript (`role="log"`).
 * @csspart message - A user or agent message; also `user` or `agent`.
 * @csspart user - A message the user sent.
 * @csspart agent - A message from the agent (`aria-busy="true"` while it streams).
 * @csspart tool - A tool call row; also `running`, `done` or `failed`.
 * @csspart running - A tool call still running.
 * @csspart done - A tool call that was answered.
 * @csspart failed - A tool call the kit answered with an error (not found, denied, invalid, threw…).
 * @csspart error - An error row.
 * @csspart availability - The line saying what to set up.
 * @csspart composer - The form around the text field and the send button.
 * @csspart input - The text field.
 * @csspart send - The send button.
 *
 * @cssprop --pedelec-chat-background - Panel background.
 * @cssprop --pedelec-chat-color - Text colour.
 * @cssprop --pedelec-chat-border-color - Borders.
 * @cssprop --pedelec-chat-radius - Corner radius of the panel and messages (12px).
 * @cssprop --pedelec-chat-font - Font shorthand (inherits by default).
 * @cssprop --pedelec-chat-accent - Send button and focus ring; the user's messages by default.
 * @cssprop --pedelec-chat-user-background - The user's messages.
 * @cssprop --pedelec-chat-user-color - Text of the user's messages.
 * @cssprop --pedelec-chat-agent-background - The agent's messages.
 * @cssprop --pedelec-chat-muted-color - Tool rows.
 * @cssprop --pedelec-chat-error-color - Errors and failed tool calls.
 * @cssprop --pedelec-chat-notice-background - The availability line.
 */
export class PedelecChatElement extends ReactiveElement {
  static override styles = chatHostStyles;

  static override properties = {
    session: { type: String },
    markdown: { type: Boolean },
    sessionElement: { attribute: false },
    renderMarkdown: { attribute: false },
  };

  declare session: string | null;
  declare markdown: boolean;
  declare sessionElement: PedelecSessionElement | null;
  declare renderMarkdown: RenderMarkdown | undefined;

  /** The session whose events we listen to now. */
  #bound: PedelecSessionElement | null = null;
  /** The session the conversation belongs to: binding to another one starts a new conversation. */
  #owner: PedelecSessionElement | null = null;
  #view: ChatView | null = null;
  /** The session's events that arrived before the view was loaded, replayed into it in order. */
  #early: Event[] = [];
  #reportedFailure = false;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #retries = 0;
  readonly #watch = { hostUpdated: () => this.#view?.sessionUpdated() };
  readonly #observer = new MutationObserver((records) => {
    this.#bind();
    // The session's `approval` attribute shows in the availability line; other changes in the root
    // (watched for the `session` id) only re-bind — a chat must not re-render for every DOM change.
    if (records.some((record) => record.attributeName === 'approval')) this.requestUpdate();
  });

  constructor() {
    super();
    this.session = null;
    this.markdown = false;
    this.sessionElement = null;
  }

  /** @internal The session this chat talks to now. */
  get boundSession(): PedelecSessionElement | null {
    return this.#bound;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#bind();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#bind();
  }

  /** Binding order: `sessionElement`; `session="id"` in this root; the nearest session (shadow-including). */
  #resolve(): PedelecSessionElement | null {
    if (!this.isConnected) return null;
    if (this.sessionElement) return this.sessionElement;
    let found: Node | null | undefined;
    if (this.session) found = (this.getRootNode() as Document | ShadowRoot).getElementById(this.session);
    else
      for (found = this.parentNode; found && (found as Element).localName !== SESSION_TAG;)
        found = found.parentNode ?? (found as ShadowRoot).host;
    return (found as Element)?.localName === SESSION_TAG ? (found as PedelecSessionElement) : null;
  }

  #bind(): void {
    const next = this.#resolve();
    const prev = this.#bound;
    if (next !== prev) {
      for (const type of EVENTS) {
        prev?.removeEventListener(type, this);
        next?.addEventListener(type, this);
      }
      prev?.removeController?.(this.#watch);
      this.#bound = next;
      const fresh = !!next && next !== this.#owner;
      if (fresh) {
        this.#owner = next;
        this.#early = [];
      }
      if (next) {
        customElements.whenDefined(SESSION_TAG).then(() => {
          if (this.#bound === next) next.addController(this.#watch);
        });
      }
      this.#view?.bound(fresh);
      this.requestUpdate();
    }
    // Watch for the `session` id appearing (or moving), and for the session's `approval` attribute.
    this.#observer.disconnect();
    if (this.isConnected && this.session)
      this.#observer.observe(this.getRootNode(), { childList: true, subtree: true, attributeFilter: ['id'] });
    if (next) this.#observer.observe(next, { attributeFilter: ['approval'] });
  }

  /** @internal The session's events (this element is the listener object). */
  handleEvent(event: Event): void {
    if (event.target !== this.#bound) return;
    if (this.#view) this.#view.event(event);
    else this.#early.push(event);
    this.requestUpdate();
  }

  /**
   * The first update waits for the view; `updateComplete` includes that wait. In Markdown mode, at
   * most one render per animation frame, however fast the deltas come.
   */
  protected override async scheduleUpdate(): Promise<void> {
    if (!this.#view) {
      const module = await loadView().catch((error: unknown) => {
        // Say so once, as a value: the page can tell the user; the events are kept for a retry.
        if (!this.#reportedFailure) {
          this.#reportedFailure = true;
          const { message } = normalizeError(error, 'CHAT_VIEW_UNAVAILABLE', "The chat's view could not be loaded");
          // Built apart from the dispatch, so the manifest analyzer takes the @fires tag, not a nameless guess.
          const unavailable = new PedelecErrorEvent({ error: { code: 'CHAT_VIEW_UNAVAILABLE', message } }, this);
          this.dispatchEvent(unavailable);
        }
        return null;
      });
      // Without its view the panel is blank (no composer to type into): it tries again by itself, a
      // few times, after the pause between imports — not only when an event arrives.
      if (!module && !this.#view && this.isConnected && !this.#retry && this.#retries < VIEW_RETRIES) {
        this.#retries++;
        this.#retry = setTimeout(() => {
          this.#retry = undefined;
          this.requestUpdate();
        }, VIEW_RETRY_MS + 100);
      }
      if (module && !this.#view) {
        const view = (this.#view = new module.ChatView(this));
        for (const event of this.#early.splice(0)) view.event(event);
        view.bound(false);
      }
    }
    if (this.markdown && this.#view) await new Promise(requestAnimationFrame);
    // Always: an update that has nothing to render yet still completes, so later ones can run.
    super.scheduleUpdate();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    this.#view?.willUpdate(changed.has('markdown') || changed.has('renderMarkdown'));
  }

  protected override update(changed: PropertyValues<this>): void {
    super.update(changed);
    this.#view?.render();
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('session') || changed.has('sessionElement')) this.#bind();
    this.#view?.updated();
  }
}
