/**
 * One row of a chat transcript. Agent rows are `busy` while their turn runs. A placed row holds a node
 * that renders itself (an approval card as the person answers it, an artifact as its file arrives); a
 * decision row says who decided on a consequential tool's call.
 */
import type { ResultView } from './tool-result.js';

export type ChatEntry =
  | { kind: 'user'; text: string }
  | { kind: 'agent'; text: string; busy: boolean }
  | { kind: 'tool'; id: string; name: string; state: 'running' | 'done' | 'failed'; ms?: number; shown?: ResultView }
  | { kind: 'placed'; node: unknown }
  | { kind: 'decision'; text: string; approved: boolean }
  | { kind: 'error'; text: string };

type AgentEntry = ChatEntry & { kind: 'agent' };

/** Consecutive rows. `version` changes whenever one of its rows does. */
export type TranscriptPage = { readonly id: number; readonly entries: ChatEntry[]; version: number };

/** Rows per page: a change renders its page again, never the whole conversation. */
export const PAGE_SIZE = 32;

/** Page ids, unique across transcripts: a chat's next conversation never shows its last one's pages. */
let pageIds = 0;

/**
 * What `<pedelec-chat>` shows, as plain data: user turns, the agent's streamed text, one row per tool
 * call, approval cards and decisions, and errors, oldest first, in pages. No DOM here, so it can be
 * driven without a browser.
 *
 * Every event costs the same however long the conversation is: only rows still open (the message
 * streaming in, tool calls running) can change, and they are kept at hand; the view renders again
 * only the pages whose `version` changed.
 */
export class Transcript {
  readonly pages: TranscriptPage[] = [];
  #max = Infinity;
  /** Rows added so far, trimmed ones included: the number of the next row. */
  #added = 0;
  #length = 0;
  /** Rows that can still change — the streaming message, running tool calls — and their pages. */
  readonly #open = new Map<ChatEntry, TranscriptPage>();
  /** The message deltas append to, while it streams. */
  #streaming: AgentEntry | null = null;

  /** Rows kept at most (`max-messages`): beyond, the oldest go. */
  get max(): number {
    return this.#max;
  }

  set max(rows: number) {
    this.#max = rows;
    while (this.#length > rows) this.#trim();
  }

  /** How many rows it holds. */
  get length(): number {
    return this.#length;
  }

  /** How many rows were ever added, trimmed ones included: a mark for {@link since}. */
  get added(): number {
    return this.#added;
  }

  /** The rows added after the mark `added` (those trimmed since are gone), read from the end. */
  since(added: number): ChatEntry[] {
    let wanted = Math.min(this.#added - added, this.#length);
    const rows: ChatEntry[] = [];
    for (let p = this.pages.length - 1; p >= 0 && wanted > 0; p--) {
      const { entries } = this.pages[p];
      const taken = entries.slice(Math.max(0, entries.length - wanted));
      rows.unshift(...taken);
      wanted -= taken.length;
    }
    return rows;
  }

  user(text: string): void {
    this.settle();
    this.#add({ kind: 'user', text });
  }

  /** Appends a piece of the agent's reply: to the streaming message, or as a new one after a tool row. */
  delta(text: string): void {
    const streaming = this.#streaming;
    if (streaming && this.pages.at(-1)?.entries.at(-1) === streaming) {
      streaming.text += text;
      this.#changed(streaming);
    } else {
      this.#streaming = { kind: 'agent', text, busy: true };
      this.#add(this.#streaming, true);
    }
  }

  toolStart(id: string, name: string): void {
    this.#add({ kind: 'tool', id, name, state: 'running' }, true);
  }

  /** `shown`: what the row shows of the result, asked only if the row is still there to show it. */
  toolResult(id: string, ok: boolean, ms: number, shown?: () => ResultView): void {
    // Only a row still running: one settled as failed when its turn ended stays failed (Core
    // stopped waiting; a late result never reached the agent).
    for (const entry of this.#open.keys()) {
      if (entry.kind !== 'tool' || entry.id !== id) continue;
      entry.state = ok ? 'done' : 'failed';
      entry.ms = ms;
      entry.shown = shown?.();
      this.#closed(entry);
    }
  }

  error(text: string): void {
    this.#add({ kind: 'error', text });
  }

  /** A row that renders itself: a consequential tool's approval card, an artifact. */
  place(node: unknown): void {
    this.#add({ kind: 'placed', node });
  }

  decision(text: string, approved: boolean): void {
    this.#add({ kind: 'decision', text, approved });
  }

  /**
   * The turn ended: no message is streaming any more, and a tool call still running has no one
   * waiting for it (Core stopped waiting at its deadline): it failed.
   */
  settle(): void {
    this.#streaming = null;
    for (const entry of this.#open.keys()) {
      if (entry.kind === 'agent') entry.busy = false;
      else if (entry.kind === 'tool') entry.state = 'failed';
      this.#closed(entry);
    }
  }

  /** An open row changed for the last time. */
  #closed(entry: ChatEntry): void {
    this.#changed(entry);
    this.#open.delete(entry);
  }

  #changed(entry: ChatEntry): void {
    const page = this.#open.get(entry);
    if (page) page.version++;
  }

  #add(entry: ChatEntry, open = false): void {
    let page = this.pages.at(-1);
    if (!page || page.entries.length === PAGE_SIZE) {
      page = { id: ++pageIds, entries: [], version: 0 };
      this.pages.push(page);
    }
    page.entries.push(entry);
    page.version++;
    this.#added++;
    this.#length++;
    if (open) this.#open.set(entry, page);
    while (this.#length > this.#max) this.#trim();
  }

  /** Drops the oldest row. */
  #trim(): void {
    const first = this.pages[0];
    const entry = first.entries.shift()!;
    first.version++;
    if (first.entries.length === 0) this.pages.shift();
    this.#length--;
    this.#open.delete(entry);
    if (entry === this.#streaming) this.#streaming = null;
  }
}
