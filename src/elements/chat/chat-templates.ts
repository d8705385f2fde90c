/**
 * The chat's templates: the log of the conversation (one row per message, tool call, approval card,
 * artifact, decision or error), the availability line, the composer. Written to be read: the build minifies them.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { guard } from 'lit/directives/guard.js';
import { repeat } from 'lit/directives/repeat.js';
import type { ResultView } from './tool-result.js';
import type { ChatEntry, TranscriptPage } from './transcript.js';

/** What the templates need from the chat. */
export type ChatView = {
  pages: readonly TranscriptPage[];
  /** Changes when every row must render again (how agent messages render changed). */
  generation: number;
  note: string;
  /** The session's total tokens to show (`show-usage`), or undefined: no usage line. */
  usage: number | undefined;
  busy: boolean;
  /** The agent's message, as it shows: its text's nodes, or (Markdown mode) the rendered Node. */
  agentBody(entry: ChatEntry & { kind: 'agent' }): unknown;
  /** Markdown mode: agent rows get the `md` class (their rendered blocks bring their own spacing). */
  markdown: boolean;
  onScroll: (event: Event) => void;
  onSubmit: (event: Event) => void;
  onKeydown: (event: KeyboardEvent) => void;
  onFocus: () => void;
};

export function chatTemplate(view: ChatView): TemplateResult {
  const pages = repeat(
    view.pages,
    (page) => page.id,
    (page) => pageTemplate(view, page),
  );
  return html`
    <div part="log" role="log" aria-label="Conversation" tabindex="0" @scroll=${view.onScroll}>
      ${view.pages.length ? pages : html`<slot name="empty"></slot>`}
    </div>
    <p part="availability" role="status">${view.note}</p>
    ${view.usage === undefined ? nothing : html`<p part="usage">${view.usage.toLocaleString()} tokens</p>`}
    <form part="composer" @submit=${view.onSubmit}>
      <textarea
        part="input"
        aria-label="Message"
        rows="2"
        placeholder="Message the agent…"
        @keydown=${view.onKeydown}
        @focus=${view.onFocus}
      ></textarea>
      <button part="send" aria-disabled=${view.busy}>Send</button>
    </form>
  `;
}

/**
 * A page of rows, rendered again only when one of its rows changed: an event costs the rows it
 * changed, not the length of the conversation. Rows are keyed, so trimming the oldest moves nothing.
 * A page is a block of its own: the browser lays out the pages that changed, and steps over the rest.
 */
const pageTemplate = (view: ChatView, page: TranscriptPage) =>
  guard(
    [page.version, view.generation],
    () =>
      html`<div class="page">
        ${repeat(
          page.entries,
          (entry) => entry,
          (entry) => rowTemplate(view, entry),
        )}
      </div>`,
  );

/** One row. Text in rows sits right after the tags: messages keep their whitespace (`pre-wrap`). */
function rowTemplate(view: ChatView, entry: ChatEntry): TemplateResult {
  switch (entry.kind) {
    case 'user':
      return html`<div part="message user"><span class="sr">You: </span>${entry.text}</div>`;
    case 'agent': {
      const markdown = view.markdown && !!entry.text;
      return html`<div part="message agent" class=${markdown ? 'md' : ''} aria-busy=${entry.busy}
        ><span class="sr">Agent: </span>${view.agentBody(entry)}</div
      >`;
    }
    case 'tool': {
      const after = entry.ms !== undefined ? ` in ${Math.round(entry.ms)} ms` : entry.state === 'running' ? '…' : '';
      return html`<div part="tool ${entry.state}">${entry.name}: ${entry.state}${after}</div>
        ${entry.shown ? resultTemplate(entry.shown) : nothing}`;
    }
    case 'placed':
      // It renders itself (approval-card.ts, artifact-row.ts): here it is only placed.
      return html`${entry.node}`;
    case 'decision':
      return html`<div part="decision ${entry.approved ? 'approved' : 'rejected'}">${entry.text}</div>`;
    default:
      return html`<div part="error">${entry.text}</div>`;
  }
}

/** A tool's result under its row: the tool's own view, or its JSON folded away (it is for the curious). */
const resultTemplate = (shown: ResultView) =>
  'own' in shown
    ? html`<div part="tool-result">${shown.own}</div>`
    : html`<details part="tool-result"><summary>Result</summary><pre>${shown.json}</pre></details>`;
