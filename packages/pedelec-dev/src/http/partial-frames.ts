/**
 * A timeout for half-sent WebSocket messages. `ws` keeps what has arrived of a message until the rest
 * comes, up to the 16 MiB frame limit, and waits for ever: a client that sends a frame's header and
 * part of its payload, then nothing, held that memory (and its connection) for as long as it liked.
 *
 * `ws` does not say whether a message is in progress, so this follows the client's bytes itself —
 * just the frame headers of RFC 6455 §5.2, enough to know where each frame ends — and closes the
 * connection (1008) when a message is still incomplete `timeoutMs` after its first byte. Control
 * frames (ping, pong, close) may come between the frames of a fragmented message; the message is
 * complete at the frame with FIN set.
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

/** dev-core.md: partial frames time out after 30 s. */
export const DEFAULT_PARTIAL_FRAME_TIMEOUT_MS = 30_000;

/** Where the client's byte stream stands, frame by frame. */
export class FrameTracker {
  /** The bytes of the current frame header read so far (a header is 2 to 14 bytes). */
  private header: number[] = [];
  /** Payload bytes of the current frame still to come. */
  private payloadLeft = 0;
  /** A data frame without FIN was seen: its message goes on in continuation frames. */
  private fragmented = false;
  /** The current frame is the last of a message (a data frame with FIN). */
  private endsMessage = false;
  /** Messages received whole so far. */
  messagesEnded = 0;

  /** True while a frame or a fragmented message has begun and not ended. */
  get inMessage(): boolean {
    return this.header.length > 0 || this.payloadLeft > 0 || this.fragmented;
  }

  feed(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.payloadLeft > 0) {
        const taken = Math.min(this.payloadLeft, chunk.length - i);
        this.payloadLeft -= taken;
        i += taken;
        if (this.payloadLeft === 0) this.frameEnded();
        continue;
      }
      this.header.push(chunk[i++]);
      this.headerRead();
    }
  }

  /** Once the header is whole: the payload's length, and whether a message ends with this frame. */
  private headerRead(): void {
    const h = this.header;
    if (h.length < 2) return;
    const shortLength = h[1] & 0x7f;
    const lengthBytes = shortLength === 126 ? 2 : shortLength === 127 ? 8 : 0;
    const maskBytes = h[1] & 0x80 ? 4 : 0;
    if (h.length < 2 + lengthBytes + maskBytes) return;
    let length = shortLength;
    if (lengthBytes > 0) {
      length = 0;
      // Up to 2^64 - 1 in theory; far past ws's limit (which closes the connection) either way.
      for (let k = 2; k < 2 + lengthBytes; k++) length = length * 256 + h[k];
    }
    const fin = (h[0] & 0x80) !== 0;
    const opcode = h[0] & 0x0f;
    // Data frames (0 continuation, 1 text, 2 binary) carry messages; control frames (8+) stand alone.
    if (opcode < 8) this.fragmented = !fin;
    this.endsMessage = opcode < 8 && fin;
    this.payloadLeft = length;
    this.header = [];
    if (length === 0) this.frameEnded();
  }

  private frameEnded(): void {
    if (this.endsMessage) this.messagesEnded++;
    this.endsMessage = false;
  }
}

/**
 * Watches the raw `socket` under an accepted WebSocket `ws`: a message still incomplete `timeoutMs`
 * after it began closes the connection with 1008 (and cuts it a second later: the client is in no
 * state to answer a close handshake). The clock starts with the first chunk that leaves a message
 * open and starts again with each chunk that completes one, so a steady stream of messages, whatever
 * its chunking, is never cut; only a message that stays unfinished is.
 */
export function watchPartialFrames(ws: WebSocket, socket: Duplex, timeoutMs: number): void {
  const tracker = new FrameTracker();
  let timer: NodeJS.Timeout | null = null;
  const stop = () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
  socket.on('data', (chunk: Buffer) => {
    const ended = tracker.messagesEnded;
    tracker.feed(chunk);
    if (tracker.messagesEnded !== ended) stop(); // progress: the message still open (if any) is a new one
    if (!tracker.inMessage) return stop();
    timer ??= setTimeout(() => {
      ws.close(1008, `a message was not completed within ${timeoutMs} ms`);
      setTimeout(() => ws.terminate(), 1000).unref();
    }, timeoutMs);
  });
  socket.once('close', stop);
}
