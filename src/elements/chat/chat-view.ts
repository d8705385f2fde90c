/**
 * The chat's view: the conversation, the composer, the availability line, their templates and styles.
 * The only part of the kit that needs a template library (lit-html), so `<pedelec-chat>` imports it on
 * its first update and pages without a chat — and the CDN main file — do not carry it. The element
 * itself only binds to its session and keeps the events that arrive before this module does.
 */
import { adoptStyles } from '@lit/reactive-element';
import { html, render } from 'lit-html';
import { normalizeError, type PedelecError } from '../../core/index.js';
import { PedelecErrorEvent } from '../../events/error.event.js';
import type { PedelecSessionElement } from '../session/pedelec-session.element.js';
import { SESSION_TAG } from '../tags.js';
import { ADVICE, adviceFor, providerAdvice } from './advice.js';
import type { PedelecChatElement, RenderMarkdown } from './pedelec-chat.element.js';
import { chatHostStyles } from './chat-host.styles.js';
import { chatStyles } from './pedelec-chat.styles.js';
import { Transcript, type ChatEntry } from './transcript.js';

const BUSY = ['starting', 'running', 'waiting_tool_result'];

/** The lazily loaded default renderer (`pedelec-elements/markdown`), shared by every chat. */
let loading: Promise<void> | undefined;
let defaultRenderer: RenderMarkdown | undefined;

const bridgeOf = (s: PedelecSessionElement) => `${s.bridge}|${s.extensionId}`;

/** One chat's view and conversation state; created by its element once this module is loaded. */
export class ChatView {
  #host: PedelecChatElement;
  #root: ShadowRoot;
  #transcript = new Transcript();
  #note = '';
  /** The bridge the note is about: page scripts often set the session's `bridge` after connection. */
  #checked = '';
  /** Counts availability checks: only the latest one may set the line. */
  #checks = 0;
  #shown: PedelecError | null = null;
  #md = new WeakMap<ChatEntry, [string, Node | string]>();
  #stick = true;
  #renderFailed = false;
  #scrollQueued = false;
  /** Where our last scroll put the log (see #onScroll). */
  #scrolledTo = -1;

  constructor(host: PedelecChatElement) {
    this.#host = host;
    this.#root = host.renderRoot as ShadowRoot;
    adoptStyles(this.#root, [chatHostStyles, chatStyles]);
  }

  /** The element bound a session (`fresh`: another one than the conversation's: start a new one). */
  bound(fresh: boolean): void {
    if (fresh) {
      this.#transcript = new Transcript();
      this.#note = '';
    }
    const s = this.#host.boundSession;
    // Bound again after missing events (detached meanwhile, as tab panels do): a turn that ended
    // while the chat was away is over here too.
    // Not while detached: put back in the same task (a portal, a dialog), it has missed nothing.
    if (this.#host.isConnected && !BUSY.includes(s?.status as string)) this.#transcript.settle();
    if (s) {
      customElements.whenDefined(SESSION_TAG).then(() => {
        if (this.#host.boundSession === s) this.#check();
      });
    }
  }

  /** The session updated: look again if its bridge changed since the last check. */
  sessionUpdated(): void {
    const s = this.#host.boundSession;
    if (s && bridgeOf(s) !== this.#checked) this.#check();
  }

  /** The agent is reachable (a session is ready, a reply streams in): no advice, and no check still out may give one. */
  #reached(): void {
    this.#checks++;
    this.#note = '';
  }

  /** Asks the session what is missing and turns the answer into guidance (never rejects). */
  async #check(): Promise<void> {
    const s = this.#host.boundSession;
    if (!s?.checkAvailability) return;
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
    if (s === this.#host.boundSession && bridge === this.#checked && id === this.#checks) {
      this.#note = note;
      this.#host.requestUpdate();
    }
  }

  /** One of the session's events (the element already checked it comes from its session). */
  event(event: Event): void {
    const t = this.#transcript;
    const d = (event as CustomEvent).detail;
    switch (event.type) {
      case 'pedelec-turn':
        if (d.kind === 'user') t.user(d.text ?? '');
        break;
      case 'pedelec-chat-delta':
        t.delta(d.text);
        this.#reached();
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
        this.#reached();
        break;
      case 'pedelec-error': {
        // Declaration problems (`event.element`) are for the page's developer, not the person chatting.
        if ((event as Event & { element?: Element | null }).element) return;
        const error: PedelecError = d.error;
        this.#showError(error);
        if (/^DEFAULT_PROVIDER_|^PROVIDER_NOT_FOUND/.test(error.code)) this.#note = ADVICE.provider;
        else if (!this.#host.boundSession?.session || /^(EXTENSION|BRIDGE|NATIVE)_/.test(error.code)) this.#check();
      }
    }
  }

  #showError(error: PedelecError): void {
    this.#shown = error;
    this.#transcript.error(`${error.message} (${error.code})`);
  }

  get #busy(): boolean {
    const s = this.#host.boundSession;
    // A failed send_text or prepare ends its turn without changing the status (sdk-api.md): running
    // counts as busy only while a turn is in progress.
    return s?.status === 'starting' || (BUSY.includes(s?.status as string) && !!s?.session?.turnActive);
  }

  /** Sends the composer's text. While a turn runs the text stays where it is (`SESSION_BUSY` is no error). */
  #send(): void {
    const s = this.#host.boundSession;
    const input = this.#root.querySelector('textarea')!;
    const text = input.value.trim();
    if (!s || !text || this.#busy) return;
    input.value = '';
    const transcript = this.#transcript;
    const rows = transcript.entries.length;
    // A bridge that went away (a dev Core restarted, say) is reconnected by restart(), explicitly.
    const sent = s.client?.unavailableReason ? s.restart().then(() => s.sendText(text)) : s.sendText(text);
    sent.catch((error: PedelecError) => {
      // The chat has moved on to another conversation: this failure belongs to the old one.
      if (this.#transcript !== transcript) return;
      // A message that never became a turn (busy, or no session could start) is given back, so the
      // user can send it again as the availability line says — before what they typed meanwhile; one
      // that was sent stays in the log.
      if (!transcript.entries.slice(rows).some((e) => e.kind === 'user' && e.text === text))
        input.value = input.value ? `${text}\n${input.value}` : text;
      if (error?.code === 'SESSION_BUSY') {
        // Not an error: the turn in progress goes on.
      } else if (error !== this.#shown) {
        this.#showError(error);
        this.#host.requestUpdate();
      }
    });
  }

  #onKey = (event: KeyboardEvent): void => {
    // Enter sends; Shift+Enter is a new line; Enter that confirms an IME composition is the IME's.
    if (event.key !== 'Enter' || event.shiftKey || event.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    this.#send();
  };

  /** Still something to set up: look again when the user comes back to type. */
  #onFocus = (): void => {
    if (this.#note) this.#check();
  };

  #onSubmit = (event: Event): void => {
    event.preventDefault();
    this.#send();
    this.#root.querySelector('textarea')!.focus();
  };

  /** Markdown replies: the renderer's Node, cached per message until its text changes. */
  #body(entry: ChatEntry & { text: string }): unknown {
    const render = this.#host.renderMarkdown ?? defaultRenderer;
    if (!render) {
      loading ??= import('../../markdown.js').then((m) => void (defaultRenderer = m.renderMarkdown));
      loading.then(
        () => this.#host.requestUpdate(),
        () => {},
      );
      return entry.text;
    }
    let cached = this.#md.get(entry);
    if (cached?.[0] !== entry.text) {
      let body: Node | string;
      try {
        body = render(entry.text);
      } catch (error) {
        // A page renderer that throws must not freeze the chat: this message shows as text, and the
        // page hears about it once.
        body = entry.text;
        if (!this.#renderFailed) {
          this.#renderFailed = true;
          const { message } = normalizeError(error, 'MARKDOWN_RENDER_FAILED', 'renderMarkdown failed');
          const failed = new PedelecErrorEvent({ error: { code: 'MARKDOWN_RENDER_FAILED', message } }, this.#host);
          this.#host.dispatchEvent(failed);
        }
      }
      this.#md.set(entry, (cached = [entry.text, body]));
    }
    return cached[1];
  }

  /** Before rendering: forget rendered Markdown when the mode or renderer changed. */
  willUpdate(markdownChanged: boolean): void {
    if (markdownChanged) this.#md = new WeakMap();
  }

  /**
   * After rendering: a log that was at its bottom follows the conversation — scrolled once per frame.
   * Reading the log's size on every update forced a layout of the whole growing reply per streamed
   * delta: quadratic in the reply's length (a 60 KB reply in 15 000 deltas took a minute).
   */
  updated(): void {
    if (!this.#stick || this.#scrollQueued) return;
    this.#scrollQueued = true;
    requestAnimationFrame(() => {
      this.#scrollQueued = false;
      const log = this.#root.querySelector('[role=log]');
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

  #row(e: ChatEntry) {
    switch (e.kind) {
      case 'user':
        return html`<div part="message user"><span class="sr">You: </span>${e.text}</div>`;
      case 'agent': {
        const md = this.#host.markdown && e.text;
        return html`<div part="message agent" class=${md ? 'md' : ''} aria-busy=${e.busy}><span class="sr">Agent: </span>${md ? this.#body(e) : e.text}</div>`;
      }
      case 'tool':
        return html`<div part="tool ${e.state}">${e.name}: ${e.state}${e.ms !== undefined ? ` in ${Math.round(e.ms)} ms` : e.state === 'running' ? '…' : ''}</div>`;
      default:
        return html`<div part="error">${e.text}</div>`;
    }
  }

  render(): void {
    const entries = this.#transcript.entries;
    const note = this.#host.boundSession?.getAttribute('approval') === 'pending' ? ADVICE.pending : this.#note;
    // Kept on few lines: Lit ships template text as written.
    render(
      html`<div part="log" role="log" aria-label="Conversation" tabindex="0" @scroll=${this.#onScroll}>${entries.length ? entries.map((e) => this.#row(e)) : html`<slot name="empty"></slot>`}</div>
<p part="availability" role="status">${note}</p>
<form part="composer" @submit=${this.#onSubmit}><textarea part="input" aria-label="Message" rows="2" placeholder="Message the agent…" @keydown=${this.#onKey} @focus=${this.#onFocus}></textarea><button part="send" aria-disabled=${this.#busy}>Send</button></form>`,
      this.#root,
    );
  }
}
