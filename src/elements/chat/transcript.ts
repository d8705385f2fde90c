/** One row of a chat transcript. Agent rows are `busy` while their turn runs. */
export type ChatEntry =
  | { kind: 'user'; text: string }
  | { kind: 'agent'; text: string; busy: boolean }
  | { kind: 'tool'; id: string; name: string; state: 'running' | 'done' | 'failed'; ms?: number }
  | { kind: 'error'; text: string };

/**
 * What `<pedelec-chat>` shows, as plain data: user turns, the agent's streamed text, one row per tool
 * call and errors. No DOM here, so it can be driven without a browser.
 */
export class Transcript {
  readonly entries: ChatEntry[] = [];

  user(text: string): void {
    this.settle();
    this.entries.push({ kind: 'user', text });
  }

  /** Appends a piece of the agent's reply: to the streaming message, or as a new one after a tool row. */
  delta(text: string): void {
    const last = this.entries[this.entries.length - 1];
    if (last?.kind === 'agent' && last.busy) last.text += text;
    else this.entries.push({ kind: 'agent', text, busy: true });
  }

  toolStart(id: string, name: string): void {
    this.entries.push({ kind: 'tool', id, name, state: 'running' });
  }

  toolResult(id: string, ok: boolean, ms: number): void {
    for (const e of this.entries) {
      // Only a row still running: one settled as failed when its turn ended stays failed (Core
      // stopped waiting; a late result never reached the agent).
      if (e.kind === 'tool' && e.id === id && e.state === 'running') {
        e.state = ok ? 'done' : 'failed';
        e.ms = ms;
      }
    }
  }

  error(text: string): void {
    this.entries.push({ kind: 'error', text });
  }

  /**
   * The turn ended: no message is streaming any more, and a tool call still running has no one
   * waiting for it (Core stopped waiting at its deadline): it failed.
   */
  settle(): void {
    for (const e of this.entries) {
      if (e.kind === 'agent') e.busy = false;
      else if (e.kind === 'tool' && e.state === 'running') e.state = 'failed';
    }
  }
}
