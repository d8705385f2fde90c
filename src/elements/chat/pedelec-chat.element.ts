import { ReactiveElement, type PropertyValues } from '@lit/reactive-element';
import type { PedelecAvailability, PedelecError } from '../../core/index.js';
import type { PedelecSessionElement } from '../session/pedelec-session.element.js';
import { SESSION_TAG } from '../tags.js';
import { Transcript, type ChatEntry } from './transcript.js';

/** Turns Markdown into DOM the chat inserts as is (sanitizing is the renderer's job). */
export type RenderMarkdown = (markdown: string) => Node;

const EVENTS = 'turn chat-delta tool-start tool-result status error ended ready'.split(' ').map((name) => `pedelec-${name}`);
const BUSY = ['starting', 'running', 'waiting_tool_result'];

/** What to tell the user, per availability state: what to do, not what went wrong. */
const SAY = {
  extension: 'Install the Pedelec browser extension, then reload this page.',
  approve: "This site needs your approval: send a message, then approve it in the Pedelec extension's popup.",
  pending: "Approve this site in the Pedelec extension's popup to continue.",
  desktop: 'Open the Pedelec Desktop app, then send your message again.',
  provider: "Choose an AI provider in Pedelec's settings, then send your message again.",
  dev: 'The development Core is not reachable: start it with `npx pedelec-dev`, then send your message again.',
};

/** The lazily loaded default renderer (`pedelec-elements/markdown`), shared by every chat. */
let loading: Promise<void> | undefined;
let defaultRenderer: RenderMarkdown | undefined;

/** The templates and styles (chat-view.ts), loaded on the first update of the first chat. */
let view: typeof import('./chat-view.js') | undefined;
let viewLoading: Promise<unknown> | undefined;

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

  #transcript = new Transcript();
  /** The session whose events we listen to now, and the one the transcript belongs to. */
  #bound: PedelecSessionElement | null = null;
  #owner: PedelecSessionElement | null = null;
  #note = '';
  /** The bridge the note is about: page scripts often set the session's `bridge` after connection. */
  #checked = '';
  readonly #watch = { hostUpdated: () => this.#bound && this.#bridgeOf(this.#bound) !== this.#checked && this.#check() };
  #shown: PedelecError | null = null;
  #md = new WeakMap<ChatEntry, [string, Node]>();
  #stick = true;
  readonly #observer = new MutationObserver(() => {
    this.#bind();
    this.requestUpdate();
  });

  constructor() {
    super();
    this.session = null;
    this.markdown = false;
    this.sessionElement = null;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#bind();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#bind();
  }

  /** Binding order: `sessionElement`; `session="id"` in this root; the nearest session (shadow-including). */
  #resolve(): PedelecSessionElement | null {
    if (!this.isConnected) return null;
    if (this.sessionElement) return this.sessionElement;
    let found: Node | null | undefined;
    if (this.session) found = (this.getRootNode() as Document | ShadowRoot).getElementById(this.session);
    else for (found = this.parentNode; found && (found as Element).localName !== SESSION_TAG; ) found = found.parentNode ?? (found as ShadowRoot).host;
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
      if (next && next !== this.#owner) {
        this.#owner = next;
        this.#transcript = new Transcript();
        this.#note = '';
      }
      if (next) {
        customElements.whenDefined(SESSION_TAG).then(() => {
          if (this.#bound !== next) return;
          next.addController(this.#watch);
          this.#check();
        });
      }
      this.requestUpdate();
    }
    // Watch for the `session` id appearing (or moving), and for the session's `approval` attribute.
    this.#observer.disconnect();
    if (this.isConnected && this.session) this.#observer.observe(this.getRootNode(), { childList: true, subtree: true, attributeFilter: ['id'] });
    if (next) this.#observer.observe(next, { attributeFilter: ['approval'] });
  }

  /** Asks the session what is missing and turns the answer into guidance (never rejects). */
  async #check(): Promise<void> {
    const s = this.#bound;
    if (!s?.checkAvailability) return;
    const bridge = (this.#checked = this.#bridgeOf(s));
    const a: PedelecAvailability = await s.checkAvailability();
    const error = a.error;
    let note =
      a.available ? ''
      : error?.code === 'INVALID_INPUT' ? error.message
      : error?.code === 'BRIDGE_UNAVAILABLE' || (!a.extension.available && /^wss?:/i.test(s.bridge ?? '')) ? SAY.dev
      : !a.extension.available ? SAY.extension
      : !a.approval.approved ? error?.message ?? SAY.approve
      : SAY.desktop;
    // Availability does not tell whether a default provider is set: ask, unless the session names one.
    if (!note && !s.provider) note = await s.client?.getSettings().then((x) => (x.defaultProvider ? '' : SAY.provider), () => '') ?? '';
    if (s === this.#bound && bridge === this.#checked) {
      this.#note = note;
      this.requestUpdate();
    }
  }

  #bridgeOf(s: PedelecSessionElement): string {
    return `${s.bridge}|${s.extensionId}`;
  }

  /** @internal The session's events (this element is the listener object). */
  handleEvent(event: Event): void {
    if (event.target !== this.#bound) return;
    const t = this.#transcript;
    const d = (event as CustomEvent).detail;
    switch (event.type) {
      case 'pedelec-turn':
        if (d.kind === 'user') t.user(d.text ?? '');
        break;
      case 'pedelec-chat-delta':
        t.delta(d.text);
        break;
      case 'pedelec-tool-start':
        if (!d.local) t.toolStart(d.context.toolRequestId, d.tool);
        break;
      case 'pedelec-tool-result':
        t.toolResult(d.context.toolRequestId, d.ok, d.durationMs);
        break;
      case 'pedelec-status':
        if (!BUSY.includes(d.status)) t.settle();
        break;
      case 'pedelec-ended':
        t.settle();
        break;
      case 'pedelec-ready':
        this.#note = '';
        break;
      case 'pedelec-error': {
        // Declaration problems (`event.element`) are for the page's developer, not the person chatting.
        if ((event as Event & { element?: Element | null }).element) return;
        const error: PedelecError = d.error;
        this.#showError(error);
        if (/^DEFAULT_PROVIDER_|^PROVIDER_NOT_FOUND/.test(error.code)) this.#note = SAY.provider;
        else if (!this.#bound!.session || /^(EXTENSION|BRIDGE|NATIVE)_/.test(error.code)) this.#check();
      }
    }
    this.requestUpdate();
  }

  #showError(error: PedelecError): void {
    this.#shown = error;
    this.#transcript.error(`${error.message} (${error.code})`);
  }

  get #busy(): boolean {
    return BUSY.includes(this.#bound?.status as string);
  }

  get #input(): HTMLTextAreaElement {
    return this.renderRoot.querySelector('textarea')!;
  }

  /** Sends the composer's text. While a turn runs the text stays where it is (`SESSION_BUSY` is no error). */
  #send(): void {
    const s = this.#bound;
    const input = this.#input;
    const text = input.value.trim();
    if (!s || !text || this.#busy) return;
    input.value = '';
    // A bridge that went away (a dev Core restarted, say) is reconnected by restart(), explicitly.
    const sent = s.client?.unavailableReason ? s.restart().then(() => s.sendText(text)) : s.sendText(text);
    sent.catch((error: PedelecError) => {
      if (error?.code === 'SESSION_BUSY') {
        if (!input.value) input.value = text;
      } else if (error !== this.#shown) {
        this.#showError(error);
        this.requestUpdate();
      }
    });
  }

  #onKey(event: KeyboardEvent): void {
    // Enter sends; Shift+Enter is a new line; Enter that confirms an IME composition is the IME's.
    if (event.key !== 'Enter' || event.shiftKey || event.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    this.#send();
  }

  /** Still something to set up: look again when the user comes back to type. */
  #onFocus(): void {
    if (this.#note) this.#check();
  }

  #onSubmit(event: Event): void {
    event.preventDefault();
    this.#send();
    this.#input.focus();
  }

  /** Markdown replies: the renderer's Node, cached per message until its text changes. */
  #body(entry: ChatEntry & { text: string }): unknown {
    const render = this.renderMarkdown ?? defaultRenderer;
    if (!render) {
      loading ??= import('../../markdown.js').then((m) => void (defaultRenderer = m.renderMarkdown));
      loading.then(() => this.requestUpdate(), () => {});
      return entry.text;
    }
    let cached = this.#md.get(entry);
    if (cached?.[0] !== entry.text) this.#md.set(entry, (cached = [entry.text, render(entry.text)]));
    return cached[1];
  }

  /**
   * The first update waits for the view (templates and styles); `updateComplete` includes that wait.
   * In Markdown mode, at most one render per animation frame, however fast the deltas come.
   */
  protected override async scheduleUpdate(): Promise<void> {
    if (!view) await (viewLoading ??= import('./chat-view.js').then((m) => (view = m)));
    if (this.markdown) await new Promise(requestAnimationFrame);
    super.scheduleUpdate();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('markdown') || changed.has('renderMarkdown')) this.#md = new WeakMap();
    const log = this.renderRoot.querySelector?.('[role=log]');
    this.#stick = !log || log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('session') || changed.has('sessionElement')) this.#bind();
    const log = this.renderRoot.querySelector('[role=log]')!;
    if (this.#stick) log.scrollTop = log.scrollHeight;
  }

  protected override update(changed: PropertyValues<this>): void {
    super.update(changed);
    view!.renderChat(this.renderRoot as ShadowRoot, this, {
      entries: this.#transcript.entries,
      note: this.#bound?.getAttribute('approval') === 'pending' ? SAY.pending : this.#note,
      busy: this.#busy,
      markdown: this.markdown ? (entry) => this.#body(entry) : null,
      onSubmit: (event) => this.#onSubmit(event),
      onKey: (event) => this.#onKey(event),
      onFocus: () => this.#onFocus(),
    });
  }
}
