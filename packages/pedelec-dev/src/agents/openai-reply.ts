/**
 * Reading the endpoint's answer to one request: a Server-Sent Events stream of chunks (text passed
 * on to the page as it arrives), or one whole chat.completion object from a server that ignored
 * `stream: true` — and in either, the tool calls put together from their pieces. Apart from the
 * request itself (openai-request.ts): how lenient to be with what servers actually send is here alone.
 */
import { isObject, type EndpointErrors } from './openai-errors.js';
import { SseParser } from './sse.js';
import type { ToolNameMap } from './tool-names.js';
import type { AgentError, TurnContext } from './types.js';

/** A non-streamed answer larger than this is not read further. */
const MAX_JSON_BODY = 16 * 1024 * 1024;

export type AssembledCall = { id: string; name: string; arguments: string };
export type Reply = { text: string; calls: AssembledCall[] };

/**
 * Puts streamed tool calls together. Pieces belong to a call by `index` — a different `id` at an
 * index in use starts another call (servers that send index 0 for each) —; without an index (some
 * servers), by `id`, else to the last call. `id` is taken once; `function.name` and
 * `function.arguments` fragments are concatenated (a server that repeats the whole name in every piece
 * is recognised and not doubled); arguments sent as an object instead of a string are serialised.
 */
class CallAssembler {
  private readonly calls = new Map<number, { id: string; name: string; arguments: string }>();
  /** The call that pieces with a given `index` now belong to (a server may reuse index 0 for each call). */
  private readonly byIndex = new Map<number, number>();
  private last: number | undefined;

  constructor(private readonly names: ToolNameMap) {}

  /** `position`: the piece's place in its chunk's `tool_calls` (a second whole call there is a new call). */
  add(piece: unknown, position = 0): void {
    if (!isObject(piece)) return;
    const id = typeof piece.id === 'string' && piece.id !== '' ? piece.id : undefined;
    const index =
      typeof piece.index === 'number' && Number.isInteger(piece.index) && piece.index >= 0 ? piece.index : undefined;
    // Calls are kept in the order they started; `key` is that position.
    let key: number | undefined;
    if (index !== undefined) {
      key = this.byIndex.get(index);
      const current = key === undefined ? undefined : this.calls.get(key);
      // A new id at an index in use: another call, not more of that one.
      if (current && id !== undefined && current.id !== '' && current.id !== id) key = undefined;
    } else if (id !== undefined) key = [...this.calls].find(([, c]) => c.id === id)?.[0];
    else if (position === 0) key = this.last;
    key ??= this.calls.size;
    if (index !== undefined) this.byIndex.set(index, key);
    this.last = key;
    let call = this.calls.get(key);
    if (!call) {
      call = { id: '', name: '', arguments: '' };
      this.calls.set(key, call);
    }
    if (id !== undefined && call.id === '') call.id = id;
    const fn = isObject(piece.function) ? piece.function : undefined;
    if (!fn) return;
    if (typeof fn.name === 'string' && fn.name !== '') {
      if (!(fn.name === call.name && this.names.has(call.name))) call.name += fn.name;
    }
    if (typeof fn.arguments === 'string') call.arguments += fn.arguments;
    else if (isObject(fn.arguments)) call.arguments += JSON.stringify(fn.arguments);
  }

  finish(round: number): AssembledCall[] {
    return [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([key, call]) => ({ ...call, id: call.id || `call_${round}_${key}` }));
  }
}

/** One streamed answer as its events arrive: the text so far, its tool calls, and how far it got. */
class StreamedAnswer {
  text = '';
  readonly calls: CallAssembler;
  /** A choice said finish_reason. */
  finished = false;
  /** The stream's end marker came: `data: [DONE]`. */
  done = false;

  constructor(
    names: ToolNameMap,
    private readonly errors: EndpointErrors,
    private readonly say: (text: string) => void,
  ) {
    this.calls = new CallAssembler(names);
  }

  /** An event's data lines as one payload; lines that only parse one by one come from a server that left out the blank line. */
  event(lines: string[]): void {
    if (lines.length > 1) {
      const joined = lines.join('\n');
      let whole = true;
      try {
        JSON.parse(joined);
      } catch {
        whole = false;
      }
      if (!whole) {
        for (const line of lines) if (!this.done) this.data(line);
        return;
      }
      this.data(joined);
      return;
    }
    this.data(lines[0]);
  }

  /** One payload: the end marker, or a chunk whose first choice carries text, call pieces or the finish. */
  private data(data: string): void {
    if (data.trim() === '[DONE]') {
      this.done = true;
      return;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw this.errors.protocolError('a stream event is not JSON');
    }
    if (!isObject(chunk)) throw this.errors.protocolError('a stream event is not a JSON object');
    if (chunk.error !== undefined && chunk.error !== null) throw this.errors.embeddedFailure(chunk.error);
    if (!Array.isArray(chunk.choices)) return; // e.g. a usage-only chunk
    const choice: unknown =
      chunk.choices.find((c) => isObject(c) && (c.index === undefined || c.index === 0)) ?? chunk.choices[0];
    if (!isObject(choice)) return;
    const delta = isObject(choice.delta) ? choice.delta : undefined;
    if (delta) {
      if (typeof delta.content === 'string' && delta.content !== '') {
        this.text += delta.content;
        this.say(delta.content);
      }
      if (Array.isArray(delta.tool_calls))
        delta.tool_calls.forEach((piece, position) => this.calls.add(piece, position));
    }
    if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') this.finished = true;
  }
}

/** Reads a body up to `limit` bytes; `progress` runs as each piece arrives (the silence timer). */
export async function readLimited(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
  progress = () => {},
): Promise<{ text: string; complete: boolean }> {
  if (!body) return { text: '', complete: true };
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: text + decoder.decode(), complete: true };
    progress();
    size += value.byteLength;
    text += decoder.decode(value, { stream: true });
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return { text, complete: false };
    }
  }
}

/** Reads the answers of one session's requests. */
export class ReplyReader {
  constructor(
    private readonly names: ToolNameMap,
    private readonly errors: EndpointErrors,
  ) {}

  /** A server that ignored `stream: true` and sent one chat.completion object. */
  async whole(
    response: Response,
    say: (text: string) => void,
    round: number,
    interrupted: (otherwise: () => AgentError) => unknown,
    arm: () => void,
  ): Promise<Reply> {
    let body: { text: string; complete: boolean };
    try {
      // The timeout is a silence limit here too: each piece of the body re-arms it.
      body = await readLimited(response.body, MAX_JSON_BODY, arm);
    } catch {
      throw interrupted(() => this.errors.protocolError('the response broke off'));
    }
    if (!body.complete) throw this.errors.protocolError('the response is too large');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.text);
    } catch {
      throw this.errors.protocolError('the response is not valid JSON');
    }
    if (isObject(parsed) && parsed.error !== undefined && parsed.error !== null)
      throw this.errors.embeddedFailure(parsed.error);
    const choice: unknown = isObject(parsed) && Array.isArray(parsed.choices) ? parsed.choices[0] : undefined;
    const message = isObject(choice) && isObject(choice.message) ? choice.message : undefined;
    if (!message) throw this.errors.protocolError('the response has no choices[0].message');
    const text = typeof message.content === 'string' ? message.content : '';
    say(text);
    const calls = new CallAssembler(this.names);
    if (Array.isArray(message.tool_calls))
      message.tool_calls.forEach((call, index) => calls.add(isObject(call) ? { index, ...call } : call));
    return { text, calls: calls.finish(round) };
  }

  /** A Server-Sent Events stream of chunks: its text goes to `say` as it arrives. */
  async streamed(
    response: Response,
    ctx: TurnContext,
    say: (text: string) => void,
    round: number,
    arm: () => void,
    interrupted: (otherwise: () => AgentError) => unknown,
  ): Promise<Reply> {
    if (!response.body) throw this.errors.protocolError('the response has no body');
    // A fetch body streams bytes.
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser();
    const answer = new StreamedAnswer(this.names, this.errors, say);
    try {
      while (!answer.done) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch {
          throw interrupted(() =>
            this.errors.protocolError(
              `the stream broke off${answer.finished ? '' : ' before the answer was complete'}`,
            ),
          );
        }
        if (ctx.signal.aborted) throw ctx.signal.reason;
        let events;
        try {
          events = chunk.done
            ? parser.push(decoder.decode()).concat(parser.end())
            : parser.push(decoder.decode(chunk.value, { stream: true }));
        } catch (error) {
          throw this.errors.protocolError((error as Error).message);
        }
        for (const event of events) {
          if (answer.done) break;
          answer.event(event.lines);
        }
        if (chunk.done) break;
        arm();
      }
    } finally {
      if (!answer.done) await reader.cancel().catch(() => {});
    }
    if (!answer.done && !answer.finished)
      throw this.errors.protocolError('the stream ended before its end marker (data: [DONE])');
    return { text: answer.text, calls: answer.calls.finish(round) };
  }
}
