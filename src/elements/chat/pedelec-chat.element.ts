import { checkAttributes } from '../unknown-attributes.js';
import { LitElement, type PropertyValues } from 'lit';
import { lazyModule } from '../../core/lazy-module.js';
import type { PedelecArtifactEvent } from '../../events/artifact.event.js';
import type { PedelecSessionElement } from '../session/pedelec-session.element.js';
import type { RenderArtifact } from './artifact-row.js';
import { AgentBodies } from './agent-bodies.js';
import { chatTemplate } from './chat-templates.js';
import { Conversation } from './conversation.js';
import { chatStyles } from './pedelec-chat.styles.js';
import { SessionBinding } from './session-binding.js';
import { defineElement } from '../define-element.js';
import { CHAT_TAG } from '../tags.js';

/** The approval card, loaded when the chat is first asked: most conversations never need it. */
const loadApprovalCard = lazyModule(() => import('./approval-card.js'));
/** The artifact row, loaded when the chat sees its first artifact. */
const loadArtifactRow = lazyModule(() => import('./artifact-row.js'));

/** Turns Markdown into DOM the chat inserts as is (sanitizing is the renderer's job). */
export type RenderMarkdown = (markdown: string) => Node;
export type { ArtifactTools, RenderArtifact } from './artifact-row.js';

/** The session a chat talks to now, for the kit's tests: not a member of the element. */
export let boundSessionOf!: (chat: PedelecChatElement) => PedelecSessionElement | null;

/**
 * A ready chat panel for the agent of its `<pedelec-session>`: the conversation (user turns — also
 * those page code starts with `sendText()` —, the agent's streamed reply, one row per tool call,
 * errors), a composer, and a line that tells the user what to set up when the agent is not reachable.
 * It is where a consequential tool's call is approved when the page does not answer
 * `pedelec-tool-approval` itself: a card in the transcript (the tool, its arguments, Approve and Reject
 * with an optional reason, the arguments editable when the tool allows it), and a row for every
 * decision on the session's consequential calls, whoever decided. Artifacts show where they arrived:
 * raster images (PNG, JPEG, GIF, WebP) inline, every other file as a download link (never opened in
 * the page), unless `renderArtifact` shows it.
 * Agent text is shown as text; the `markdown` attribute opts into sanitized Markdown. Light and dark
 * follow `prefers-color-scheme` (force one with `color-scheme` on the element); its default height is
 * `24rem`.
 *
 * @summary A chat panel for the agent of its session: streaming replies, tool activity, setup guidance.
 * @tag pedelec-chat
 *
 * @attr {string} for - The id of the `<pedelec-session>` to talk to, looked up in this element's root (also when it appears later), as `<label for>` names its control. Without it: the nearest session around the element. Property: `htmlFor`.
 * @attr {boolean} markdown - Render the agent's replies as Markdown (loads `pedelec-elements/markdown` on first use, or uses `renderMarkdown`).
 * @attr {boolean} show-usage - Show the session's total tokens under the conversation, updated as Core reports them (property `showUsage`).
 * @attr {number} max-messages - Keep at most this many rows (messages, tool calls, errors): beyond, the oldest go. Without it (or not a positive number), every row stays. Property: `maxMessages`.
 *
 * @prop {PedelecSessionElement | null} forElement - The session to talk to; wins over `for` and the nearest session.
 * @prop {RenderMarkdown | undefined} renderMarkdown - Your own Markdown renderer (`markdown` mode): returns a Node that is inserted as is, so sanitizing is yours.
 * @prop {RenderArtifact | undefined} renderArtifact - Your own artifact view: `(artifact, { read }) => Node | null`, `read()` resolving the file; null (or a throw) shows the chat's own.
 *
 * @fires {PedelecErrorEvent} pedelec-error - `MARKDOWN_RENDER_FAILED` (once) when a `renderMarkdown` throws (that message shows as text).
 *
 * @slot empty - Shown in the transcript before the conversation starts.
 *
 * @csspart log - The transcript (`role="log"`).
 * @csspart message - A user or agent message; also `user` or `agent`.
 * @csspart user - A message the user sent.
 * @csspart agent - A message from the agent (`aria-busy="true"` while it streams).
 * @csspart tool - A tool call row; also `running`, `done` or `failed`.
 * @csspart tool-result - Under an answered call's row: the tool's `renderResult` view, else the result's JSON (folded in a `details`).
 * @csspart running - A tool call still running.
 * @csspart done - A tool call that was answered.
 * @csspart failed - A tool call the kit answered with an error (not found, denied, invalid, threw…).
 * @csspart approval - An approval card (`role="group"`); also `waiting`, `approved`, `rejected` or `withdrawn` (the call stopped waiting).
 * @csspart artifact - An artifact: an image (`img`, its name as alt text) or a download link (`a`), or your renderer's Node.
 * @csspart decision - A row saying who approved or rejected a consequential tool's call; also `approved` or `rejected`.
 * @csspart error - An error row.
 * @csspart availability - The line saying what to set up.
 * @csspart usage - With `show-usage`: the line with the session's total tokens (once Core reported some).
 * @csspart composer - The form around the text field and the send button.
 * @csspart input - The text field.
 * @csspart send - The send button.
 *
 * @cssprop [--pedelec-chat-background=light-dark(#fff, #1b1c1f)] - Panel background.
 * @cssprop [--pedelec-chat-color=light-dark(#1b1c1f, #e6e7ea)] - Text colour.
 * @cssprop [--pedelec-chat-border-color=light-dark(#d4d6db, #3a3c42)] - Borders.
 * @cssprop [--pedelec-chat-radius=12px] - Corner radius of the panel and messages.
 * @cssprop [--pedelec-chat-font=inherit] - Font shorthand.
 * @cssprop [--pedelec-chat-accent=light-dark(#2f5bea, #3d63e0)] - Send button and focus ring; the user's messages by default.
 * @cssprop --pedelec-chat-user-background - The user's messages (default: the accent).
 * @cssprop [--pedelec-chat-user-color=#fff] - Text of the user's messages.
 * @cssprop [--pedelec-chat-agent-background=light-dark(#eff0f3, #2a2c31)] - The agent's messages.
 * @cssprop [--pedelec-chat-muted-color=light-dark(#565a63, #a9adb6)] - Tool rows.
 * @cssprop [--pedelec-chat-error-color=light-dark(#b3261e, #ff8a80)] - Errors and failed tool calls.
 * @cssprop [--pedelec-chat-notice-background=light-dark(#fff4d6, #3d3413)] - The availability line.
 */
export class PedelecChatElement extends LitElement {
  /**
   * Registers the element as `tag` (default `pedelec-chat`) in `registry` (default the page's
   * `customElements`). A tag already taken there is left as it is.
   */
  static define(tag = CHAT_TAG, registry: CustomElementRegistry | undefined = globalThis.customElements): void {
    defineElement(tag, this, registry);
  }

  static override styles = chatStyles;

  static override properties = {
    htmlFor: { type: String, attribute: 'for' },
    markdown: { type: Boolean },
    showUsage: { type: Boolean, attribute: 'show-usage' },
    // Its own accessor: the limit applies at once, also to events that arrive before the next update.
    maxMessages: { type: Number, attribute: 'max-messages', noAccessor: true },
    forElement: { attribute: false },
    renderMarkdown: { attribute: false },
  };

  static {
    boundSessionOf = (chat) => chat.#binding.session;
  }

  declare htmlFor: string | null;
  declare markdown: boolean;
  declare showUsage: boolean;
  declare forElement: PedelecSessionElement | null;
  declare renderMarkdown: RenderMarkdown | undefined;
  /**
   * Read when an artifact arrives, not rendered: a plain property (not a reactive one) keeps a value
   * set before the element was defined all the same.
   */
  declare renderArtifact: RenderArtifact | undefined;

  readonly #binding = new SessionBinding(this, {
    // Another session: another conversation.
    bound: (fresh) => this.#conversation.bound(fresh, this.isConnected),
    // Its bridge may have changed.
    updated: () => this.#conversation.sessionUpdated(),
    event: (event) => {
      if (event.type === 'pedelec-artifact') this.#placeArtifact(event as PedelecArtifactEvent);
      else this.#conversation.event(event);
      this.requestUpdate();
    },
    // The card goes in the transcript where the call arrived, and takes focus once it shows.
    ask: (question) =>
      loadApprovalCard().then(({ askInChat }) =>
        askInChat(question, (card) => {
          this.#conversation.transcript.place(card);
          this.requestUpdate();
          return this.updateComplete;
        }),
      ),
  });
  readonly #conversation = new Conversation(
    () => this.#binding.session,
    () => this.requestUpdate(),
  );
  readonly #bodies = new AgentBodies(this);
  #maxMessages: number | null = null;
  /** Whether the log follows the conversation (it was at its bottom when last scrolled). */
  #stick = true;
  #scrollQueued = false;
  /** Where our last scroll put the log (see #onScroll). */
  #scrolledTo = -1;

  constructor() {
    super();
    this.htmlFor = null;
    this.markdown = this.showUsage = false;
    this.forElement = null;
  }

  /**
   * The artifact's row takes its place at once, where it arrived; what it shows comes with its chunk.
   * A chunk that did not load leaves the row empty: the file is still the session's to read.
   */
  #placeArtifact({ detail: { artifact } }: PedelecArtifactEvent): void {
    const row = document.createElement('div');
    const session = this.#binding.session?.session;
    this.#conversation.transcript.place(row);
    loadArtifactRow().then(
      ({ fillArtifactRow }) => fillArtifactRow(row, artifact, session, this),
      () => {},
    );
  }

  get maxMessages(): number | null {
    return this.#maxMessages;
  }

  set maxMessages(value: number | null) {
    const old = this.#maxMessages;
    this.#maxMessages = value;
    const max = Number(value);
    this.#conversation.maxRows = Number.isInteger(max) && max > 0 ? max : Infinity;
    this.requestUpdate('maxMessages', old);
  }

  /** In Markdown mode, at most one render per animation frame, however fast the deltas come. */
  protected override async scheduleUpdate(): Promise<void> {
    if (this.markdown) await new Promise(requestAnimationFrame);
    // Lit's own scheduleUpdate updates at once and returns nothing to wait for.
    void super.scheduleUpdate();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (!this.hasUpdated) checkAttributes(this, PedelecChatElement.observedAttributes);
    if (changed.has('markdown') || changed.has('renderMarkdown')) this.#bodies.reset();
    if (changed.has('htmlFor') || changed.has('forElement')) this.#binding.bind();
  }

  protected override render() {
    const conversation = this.#conversation;
    return chatTemplate({
      pages: conversation.transcript.pages,
      generation: this.#bodies.generation,
      note: conversation.note,
      usage: this.showUsage ? this.#binding.session?.session?.usage.totalTokens : undefined,
      busy: conversation.busy,
      markdown: this.markdown,
      agentBody: (entry) => this.#bodies.shown(entry),
      onScroll: this.#onScroll,
      onSubmit: this.#onSubmit,
      onKeydown: this.#onKeydown,
      onFocus: () => conversation.focused(),
    });
  }

  /**
   * After rendering: a log that was at its bottom follows the conversation — scrolled once per frame.
   * Reading the log's size on every update forced a layout of the whole growing reply per streamed
   * delta: quadratic in the reply's length.
   */
  protected override updated(): void {
    if (!this.#stick || this.#scrollQueued) return;
    this.#scrollQueued = true;
    requestAnimationFrame(() => {
      this.#scrollQueued = false;
      const log = this.renderRoot.querySelector('[role=log]');
      if (!log || !this.#stick) return;
      log.scrollTop = log.scrollHeight;
      this.#scrolledTo = log.scrollTop;
    });
  }

  /**
   * Whether the log is at its bottom, noted when the user scrolls it. Our own scroll's event comes
   * later, when more of the reply may have arrived below: where the log still is where we put it,
   * nobody scrolled away, and it keeps following.
   */
  #onScroll = (event: Event): void => {
    const log = event.currentTarget as HTMLElement;
    if (log.scrollTop === this.#scrolledTo) return;
    this.#stick = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  };

  #onKeydown = (event: KeyboardEvent): void => {
    // Enter sends; Shift+Enter is a new line; Enter that confirms an IME composition is the IME's.
    if (event.key !== 'Enter' || event.shiftKey || event.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    this.#send();
  };

  #onSubmit = (event: Event): void => {
    event.preventDefault();
    this.#send();
    this.#input.focus();
  };

  /** The composer's text field (by its part: an approval card in the log may hold a text field too). */
  get #input(): HTMLTextAreaElement {
    return this.renderRoot.querySelector('[part=input]')!;
  }

  /** Sends the composer's text. While a turn runs the text stays where it is. */
  #send(): void {
    const input = this.#input;
    const text = input.value.trim();
    if (!this.#binding.session || !text || this.#conversation.busy) return;
    input.value = '';
    // A message that never became a turn comes back, before what the user typed meanwhile.
    void this.#conversation.send(text).then((back) => {
      if (back) input.value = input.value ? `${back}\n${input.value}` : back;
    });
  }
}
