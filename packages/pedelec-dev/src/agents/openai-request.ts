/**
 * One model request to the Chat Completions endpoint: what is sent (the model, the session's guidance
 * as the system message, the conversation, the page's tools as function tools), the silence timer,
 * the session's abort, and an endpoint that cannot be reached or answers an HTTP error. Apart from
 * the turn loop (openai-session.ts), which decides what to ask, and from openai-reply.ts, which reads
 * the answer.
 */
import type { OpenAIConfig } from './openai.js';
import { EndpointErrors, upstreamMessage } from './openai-errors.js';
import { readLimited, ReplyReader, type Reply } from './openai-reply.js';
import type { ToolNameMap } from './tool-names.js';
import type { AgentError, AgentSessionInfo, TurnContext } from './types.js';

/** An error body larger than this is not read further. */
const MAX_ERROR_BODY = 64 * 1024;

export type ChatToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };
export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** The requests of one session, all to the same endpoint and model. */
export class ChatCompletions {
  private readonly tools: object[] | undefined;
  private readonly model: string;
  private readonly errors: EndpointErrors;
  private readonly replies: ReplyReader;

  constructor(
    private readonly config: OpenAIConfig,
    private readonly info: AgentSessionInfo,
    names: ToolNameMap,
    /** Tools of the agent's own (the workspace's), beside the page's. */
    own: readonly { name: string; description: string; parameters: object }[] = [],
  ) {
    const manifest = info.skills?.tools ?? [];
    const tools = [
      ...manifest.map((t) => ({ name: names.toWire(t.name), description: t.description, parameters: t.argsSchema })),
      ...own.map((t) => ({ ...t, name: names.toWire(t.name) })),
    ];
    this.tools = tools.length === 0 ? undefined : tools.map((fn) => ({ type: 'function', function: fn }));
    this.model = info.provider === 'openai' && info.model ? info.model : config.model;
    this.errors = new EndpointErrors(this.model, config.apiKey);
    this.replies = new ReplyReader(names, this.errors);
  }

  /** One model request on `history`: streams its text to the page (through `say`) and returns the text and tool calls. */
  async complete(
    history: readonly ChatMessage[],
    ctx: TurnContext,
    round: number,
    say: (text: string) => void,
  ): Promise<Reply> {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const watch = new RequestWatch(ctx.signal, this.config.timeoutMs, this.errors);
    const { payload, headers } = this.request(history);
    watch.arm();
    try {
      let response: Response;
      try {
        response = await fetch(this.config.endpoint, {
          method: 'POST',
          headers,
          body: payload,
          signal: watch.signal,
          redirect: 'error',
        });
      } catch (error) {
        throw watch.interrupted(() => this.unreachable(error));
      }

      if (!response.ok) throw await this.statusFailure(response, watch);

      const type = response.headers.get('content-type') ?? '';
      if (/json/i.test(type) && !/event-stream/i.test(type))
        return await this.replies.whole(response, say, round, watch.interrupted, watch.arm);
      return await this.replies.streamed(response, ctx, say, round, watch.arm, watch.interrupted);
    } finally {
      watch.finish();
    }
  }

  /**
   * What is sent: the body as JSON (the model, the session's guidance as the system message, `history`,
   * the page's tools) and the headers. A conversation too large to serialize fails here.
   */
  private request(history: readonly ChatMessage[]): { payload: string; headers: Record<string, string> } {
    const messages: ChatMessage[] = [];
    const guidance = this.info.skills?.guidance ?? '';
    if (guidance.trim() !== '') messages.push({ role: 'system', content: guidance });
    messages.push(...history);
    const body: Record<string, unknown> = { model: this.model, messages, stream: true };
    if (this.tools) body.tools = this.tools;
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Accept: 'text/event-stream, application/json',
    };
    if (this.config.apiKey) headers.Authorization = `Bearer ${this.config.apiKey}`;

    let payload: string;
    try {
      payload = JSON.stringify(body);
    } catch (error) {
      // Not the endpoint's fault: say what it is (a conversation too large to serialize).
      throw this.errors.fail(
        'PROVIDER_REQUEST_TOO_LARGE',
        `The conversation is too large to send (${(error as Error).message}); restart the session.`,
      );
    }
    return { payload, headers };
  }

  /** A fetch that failed without an answer: the endpoint cannot be reached, and why as the error says. */
  private unreachable(error: unknown): AgentError {
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const why =
      typeof cause?.code === 'string'
        ? cause.code
        : typeof cause?.message === 'string'
          ? cause.message
          : (error as Error).message;
    return this.errors.fail(
      'PROVIDER_UNAVAILABLE',
      `Cannot reach the endpoint at ${this.config.endpoint.origin} (${why}).`,
    );
  }

  /** The failure an HTTP error answer stands for, with what its body says (read up to a limit). */
  private async statusFailure(response: Response, watch: RequestWatch): Promise<AgentError> {
    let detail = '';
    try {
      detail = upstreamMessage((await readLimited(response.body, MAX_ERROR_BODY)).text);
    } catch (error) {
      if (watch.stopped) throw watch.interrupted(() => error as AgentError);
    }
    return this.errors.statusFailure(response, detail);
  }
}

/**
 * What watches one request: the session's abort and the silence timer (re-armed by each piece of the
 * answer), either of which aborts the fetch and the read, and why a read or fetch failed.
 */
class RequestWatch {
  private readonly controller = new AbortController();
  private timedOut = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly session: AbortSignal,
    private readonly timeoutMs: number,
    private readonly errors: EndpointErrors,
  ) {
    session.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onAbort = () => this.controller.abort();

  /** The fetch's signal. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Whether the session ended or the endpoint went silent. */
  get stopped(): boolean {
    return this.session.aborted || this.timedOut;
  }

  /** Starts the silence timer again. */
  readonly arm = (): void => {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, this.timeoutMs);
  };

  /** Why a read or fetch failed: the session ended, the endpoint went silent, or something else. */
  readonly interrupted = (otherwise: () => AgentError): unknown => {
    if (this.session.aborted) return this.session.reason;
    if (this.timedOut) {
      return this.errors.fail(
        'PROVIDER_UNAVAILABLE',
        `The endpoint did not answer within ${Number((this.timeoutMs / 1000).toFixed(1))} s.`,
        {
          timeoutMs: this.timeoutMs,
        },
      );
    }
    return otherwise();
  };

  /** The request is over: the timer and the session's listener go. */
  finish(): void {
    clearTimeout(this.timer);
    this.session.removeEventListener('abort', this.onAbort);
    // Closes the connection if the body was left unread (an error, [DONE] before the end, …).
    this.controller.abort();
  }
}
