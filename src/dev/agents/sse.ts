/**
 * A small Server-Sent Events reader for streamed Chat Completions: text in, the `data` of each event
 * out. It follows the SSE rules that matter here — `\n`, `\r\n` or `\r` line ends, `data:` lines of
 * one event joined by `\n`, an empty line ending the event, comments (`:`) and other fields ignored —
 * and keeps each event's lines apart too, for servers that forget the empty line between events.
 */

export type SseEvent = {
  /** The event's data lines (the value after `data:` with one leading space removed). */
  lines: string[];
};

/** A line longer than this (no line end in sight) means the body is not an event stream. */
export const MAX_SSE_LINE = 16 * 1024 * 1024;

export class SseParser {
  private buffer = '';
  private lines: string[] = [];

  /** Feeds decoded text; returns the events completed by it. Throws when a line grows past {@link MAX_SSE_LINE}. */
  push(text: string): SseEvent[] {
    this.buffer += text;
    const events: SseEvent[] = [];
    let start = 0;
    for (;;) {
      const end = this.lineEnd(start);
      if (end < 0) break;
      const line = this.buffer.slice(start, end);
      start = end + (this.buffer[end] === '\r' && this.buffer[end + 1] === '\n' ? 2 : 1);
      this.line(line, events);
    }
    this.buffer = this.buffer.slice(start);
    if (this.buffer.length > MAX_SSE_LINE) throw new Error('an event stream line is too long');
    return events;
  }

  /** Ends the stream: a last event without its closing empty line is still delivered. */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.buffer !== '') this.line(this.buffer, events);
    this.buffer = '';
    this.line('', events);
    return events;
  }

  /** The index of the next line end at or after `from`, or -1. A `\r` at the very end waits for a possible `\n`. */
  private lineEnd(from: number): number {
    for (let i = from; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (c === '\n') return i;
      if (c === '\r') return i + 1 < this.buffer.length ? i : -1;
    }
    return -1;
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === '') {
      if (this.lines.length > 0) events.push({ lines: this.lines });
      this.lines = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    if (field !== 'data') return;
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.lines.push(value);
  }
}
