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
  /** The pieces of the line being received (joined once its end arrives: no rescans, no copies). */
  private pending: string[] = [];
  private pendingLength = 0;
  /** The last piece ended with `\r`: a `\n` first in the next one belongs to that line end. */
  private crEnded = false;
  private lines: string[] = [];

  /**
   * Feeds decoded text; returns the events completed by it. Linear in the text: each character is
   * looked at once, however long a line grows across pieces. Throws when a line grows past
   * {@link MAX_SSE_LINE}.
   */
  push(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let start = this.crEnded && text[0] === '\n' ? 1 : 0;
    this.crEnded = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (c !== '\n' && c !== '\r') continue;
      const piece = text.slice(start, i);
      const line = this.pending.length ? this.pending.join('') + piece : piece;
      this.pending = [];
      this.pendingLength = 0;
      this.line(line, events);
      if (c === '\r') {
        if (i + 1 === text.length) this.crEnded = true;
        else if (text[i + 1] === '\n') i++;
      }
      start = i + 1;
    }
    if (start < text.length) {
      this.pending.push(text.slice(start));
      this.pendingLength += text.length - start;
      if (this.pendingLength > MAX_SSE_LINE) throw new Error('an event stream line is too long');
    }
    return events;
  }

  /** Ends the stream: a last event without its closing empty line is still delivered. */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.pending.length) this.line(this.pending.join(''), events);
    this.pending = [];
    this.pendingLength = 0;
    this.line('', events);
    return events;
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === '') {
      // An event whose data is empty (a lone `data:`, a keep-alive) is not dispatched (WHATWG SSE).
      if (this.lines.length > 1 || this.lines[0]) events.push({ lines: this.lines });
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
