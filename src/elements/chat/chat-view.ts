/**
 * The chat's view: its templates and styles, the only part of the kit that needs a template library
 * (lit-html). `<pedelec-chat>` imports it on its first update, so pages without a chat — and the CDN
 * file — do not carry it; the element itself (binding, transcript, composer logic) is always there.
 */
import { adoptStyles } from '@lit/reactive-element';
import { html, render } from 'lit-html';
import { chatStyles } from './pedelec-chat.styles.js';
import type { ChatEntry } from './transcript.js';

/** What the view needs from its element, read on every render. */
export type ChatModel = {
  entries: readonly ChatEntry[];
  note: string;
  busy: boolean;
  /** Markdown mode: the rendered body of an agent message (the element caches and loads the renderer). */
  markdown: ((entry: ChatEntry & { text: string }) => unknown) | null;
  onSubmit(event: Event): void;
  onKey(event: KeyboardEvent): void;
  onFocus(): void;
};

const styled = new WeakSet<ShadowRoot>();

function row(e: ChatEntry, markdown: ChatModel['markdown']) {
  switch (e.kind) {
    case 'user':
      return html`<div part="message user"><span class="sr">You: </span>${e.text}</div>`;
    case 'agent': {
      const md = markdown && e.text;
      return html`<div part="message agent" class=${md ? 'md' : ''} aria-busy=${e.busy}><span class="sr">Agent: </span>${md ? markdown(e) : e.text}</div>`;
    }
    case 'tool':
      return html`<div part="tool ${e.state}">${e.name}: ${e.state}${e.ms === undefined ? '…' : ` in ${Math.round(e.ms)} ms`}</div>`;
    default:
      return html`<div part="error">${e.text}</div>`;
  }
}

/** Renders the panel into the element's shadow root (styles adopted on first use). */
export function renderChat(root: ShadowRoot, host: HTMLElement, m: ChatModel): void {
  if (!styled.has(root)) {
    styled.add(root);
    adoptStyles(root, [chatStyles]);
  }
  // Kept on few lines: Lit ships template text as written.
  render(
    html`<div part="log" role="log" aria-label="Conversation" tabindex="0">${m.entries.length ? m.entries.map((e) => row(e, m.markdown)) : html`<slot name="empty"></slot>`}</div>
<p part="availability" role="status" ?hidden=${!m.note}>${m.note}</p>
<form part="composer" @submit=${m.onSubmit}><textarea part="input" aria-label="Message" rows="2" placeholder="Message the agent…" @keydown=${m.onKey} @focus=${m.onFocus}></textarea><button part="send" aria-disabled=${m.busy}>Send</button></form>`,
    root,
    { host },
  );
}
