/**
 * Every bridge frame both ways, kept in a bounded ring for the inspector (which may open later than
 * the page) and pushed live to whoever listens. Frames are stored as text, cut to a size an inspector
 * can render, with the request type and session id pulled out for filtering.
 */
export type LogEntry = {
  id: number;
  at: number;
  /** `in`: page → Core; `out`: Core → page; `info`: connection opened/closed. */
  dir: 'in' | 'out' | 'info';
  connectionId: string;
  origin: string | null;
  type: string | null;
  sessionId: string | null;
  text: string;
  truncated: boolean;
};

const KEEP = 1000;
const MAX_TEXT = 16 * 1024;

/**
 * The first `max` characters as a string of their own. A slice shares the original's memory in V8,
 * so a kept slice of a 16 MiB frame would keep the whole frame alive: a thousand of them, the heap.
 */
const head = (text: string, max: number): string =>
  text.length > max ? Buffer.from(text.slice(0, max)).toString() : text;

export class MessageLog {
  private readonly entries: LogEntry[] = [];
  private readonly listeners = new Set<(entry: LogEntry) => void>();
  private nextId = 1;

  subscribe(listener: (entry: LogEntry) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  recent(): LogEntry[] {
    return this.entries.slice();
  }

  record(dir: LogEntry['dir'], connectionId: string, origin: string | null, text: string, message?: unknown): void {
    const fields = typeof message === 'object' && message !== null ? (message as Record<string, unknown>) : {};
    const entry: LogEntry = {
      id: this.nextId++,
      at: Date.now(),
      dir,
      connectionId,
      origin,
      type: typeof fields.type === 'string' ? head(fields.type, 100) : null,
      sessionId: typeof fields.sessionId === 'string' ? head(fields.sessionId, 100) : null,
      text: head(text, MAX_TEXT),
      truncated: text.length > MAX_TEXT,
    };
    this.entries.push(entry);
    if (this.entries.length > KEEP) this.entries.shift();
    for (const listener of this.listeners) {
      try {
        listener(entry);
      } catch {
        // A broken observer never breaks the bridge.
      }
    }
  }
}
