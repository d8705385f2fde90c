/**
 * `openai`: an agent backed by any OpenAI-compatible Chat Completions endpoint with tool calling and
 * streaming — Ollama's `/v1`, LM Studio, vLLM, OpenAI itself.
 *
 * Configuration (read from the Core's `env`; `--base-url` and `--model` set the same variables):
 * - `PEDELEC_DEV_BASE_URL` — the API base, e.g. `http://127.0.0.1:11434/v1`; requests go to
 *   `POST {base}/chat/completions`.
 * - `PEDELEC_DEV_MODEL` — the model to ask for.
 * - `PEDELEC_DEV_API_KEY` — optional; sent only as `Authorization: Bearer …` to that endpoint. It is
 *   never put in an event, an error, a log line or `list_providers` (error texts that come back from
 *   the endpoint are scrubbed of it, including masked forms such as `sk-ab…wxyz`), and there is
 *   deliberately no flag for it, so it never shows in `ps`.
 * - `PEDELEC_DEV_TIMEOUT_MS` — optional, default 60 000: how long the endpoint may stay silent (before
 *   its response starts, or between two pieces of the stream) before the turn fails `PROVIDER_UNAVAILABLE`.
 *
 * Availability: the agent is available when both a base URL and a model are configured. The model is
 * required because pages written for production name no model of this endpoint (or one of another
 * provider), and an OpenAI-compatible server has no "default model" to fall back on; failing at start
 * (`--agent openai`) or in `list_providers` with a clear reason beats a 404 on the first message.
 * The configured model serves every session, except that a page asking for provider `openai` with a
 * model of its own gets that model.
 *
 * A turn: the session's guidance is the system message; the conversation history is kept per session.
 * The page's tools become function tools (the args schema as `parameters`, names mapped by
 * {@link ToolNameMap}). The loop runs model → tool calls → page (one at a time, in order, through
 * `ctx.callTool`) → `role: "tool"` results → model, until the model answers without tool calls, at
 * most {@link MAX_ROUNDS} model requests (then `AGENT_LOOP_LIMIT`). Each request's text starts a new
 * paragraph of the reply. A call that never reaches the page (arguments that are not JSON, or refused
 * by the Core: unknown tool, arguments not matching) is told as a line of the reply of its own — the
 * page shows nothing else of it, and the protocol has no event for it.
 */
import type { JsonValue } from '../../core/json.js';
import { MAX_TIMER_MS } from '../../core/protocol.js';
import { SseParser } from './sse.js';
import { ToolNameMap } from './tool-names.js';
import { AgentError, type AgentSession, type AgentSessionInfo, type DevAgent, type TurnContext } from './types.js';

/** Model requests per user turn. */
export const MAX_ROUNDS = 16;
export const DEFAULT_TIMEOUT_MS = 60_000;
/** An error body or a non-streamed answer larger than this is not read further. */
const MAX_ERROR_BODY = 64 * 1024;
const MAX_JSON_BODY = 16 * 1024 * 1024;
/** How much of the endpoint's own error text is passed on. */
const MAX_DETAIL = 300;

export type OpenAIConfig = {
  /** `{base}/chat/completions`. */
  endpoint: URL;
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
};

type Env = Readonly<Record<string, string | undefined>>;

/** Reads the configuration, or says what is missing (without echoing any value: a URL may hold secrets). */
export function readOpenAIConfig(env: Env): OpenAIConfig | { unavailable: string } {
  const rawBase = env.PEDELEC_DEV_BASE_URL?.trim();
  const model = env.PEDELEC_DEV_MODEL?.trim();
  if (!rawBase) {
    // Name only what is missing: a model given with --model needs no second mention.
    const alsoModel = model ? '' : ', and PEDELEC_DEV_MODEL (or --model)';
    return {
      unavailable: `no endpoint configured: set PEDELEC_DEV_BASE_URL (or --base-url), e.g. http://127.0.0.1:11434/v1 for Ollama${alsoModel}`,
    };
  }
  let base: URL;
  try {
    base = new URL(rawBase);
  } catch {
    return { unavailable: 'PEDELEC_DEV_BASE_URL is not a valid URL (expected e.g. http://127.0.0.1:11434/v1)' };
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    return { unavailable: 'PEDELEC_DEV_BASE_URL must be an http:// or https:// URL' };
  if (base.username !== '' || base.password !== '') {
    return {
      unavailable: 'PEDELEC_DEV_BASE_URL must not contain a user name or password; put the key in PEDELEC_DEV_API_KEY',
    };
  }
  if (!model) return { unavailable: 'no model configured: set PEDELEC_DEV_MODEL (or --model), e.g. llama3.1' };
  const apiKey = env.PEDELEC_DEV_API_KEY?.trim() || undefined;
  if (apiKey !== undefined && !/^[\x20-\x7e]+$/.test(apiKey)) {
    return { unavailable: 'PEDELEC_DEV_API_KEY contains characters that cannot be sent in an HTTP header' };
  }
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  const rawTimeout = env.PEDELEC_DEV_TIMEOUT_MS?.trim();
  if (rawTimeout) {
    if (!/^\d{1,10}$/.test(rawTimeout) || Number(rawTimeout) < 1 || Number(rawTimeout) > MAX_TIMER_MS) {
      return { unavailable: 'PEDELEC_DEV_TIMEOUT_MS must be a positive number of milliseconds' };
    }
    timeoutMs = Number(rawTimeout);
  }
  const endpoint = new URL(base.href);
  endpoint.hash = '';
  endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, '')}/chat/completions`;
  return { endpoint, apiKey, model, timeoutMs };
}

/**
 * Removes the key from a text that came from (or went near) the endpoint: the key itself, and any
 * word sharing four consecutive characters with it (masked echoes like `sk-pr****wxyz`). Over-eager on
 * purpose: a redacted harmless word costs nothing.
 */
export function keyRedactor(key: string | undefined): (text: string) => string {
  if (!key) return (text) => text;
  const parts = new Set<string>();
  if (key.length >= 8) for (let i = 0; i + 4 <= key.length; i++) parts.add(key.slice(i, i + 4));
  return (text) => {
    let out = text.split(key).join('[redacted]');
    if (parts.size > 0) {
      out = out.replace(/[^\s"'`,;()<>[\]{}]+/g, (word) => {
        for (const part of parts) if (word.includes(part)) return '[redacted]';
        return word;
      });
    }
    return out;
  };
}

// ───────────────────────────── wire types ─────────────────────────────

type ChatToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };
type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

type AssembledCall = { id: string; name: string; arguments: string };
type Reply = { text: string; calls: AssembledCall[] };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

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

function parseArguments(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  // Some models send nothing at all for a tool without arguments.
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

/** Reads a body up to `limit` bytes; `progress` runs as each piece arrives (the silence timer). */
async function readLimited(
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

/** The endpoint's own explanation from an error body (`{"error":{"message":…}}` and the usual variants). */
function upstreamMessage(body: string): string {
  let message = body;
  try {
    const parsed: unknown = JSON.parse(body);
    if (isObject(parsed)) {
      const error = parsed.error;
      if (isObject(error) && typeof error.message === 'string') message = error.message;
      else if (typeof error === 'string') message = error;
      else if (typeof parsed.message === 'string') message = parsed.message;
      else if (typeof parsed.detail === 'string') message = parsed.detail;
    }
  } catch {
    // not JSON: the text itself
  }
  message = message.replace(/\s+/g, ' ').trim();
  return message.length > MAX_DETAIL ? `${message.slice(0, MAX_DETAIL)}…` : message;
}

/**
 * What the page is told in one turn. Each model request's text starts a paragraph of its own (one
 * reply of the model does not run into the next: "Sure, let me do that." then "Done."), and so does
 * each note of the agent's own (a call that was not run).
 */
class TurnText {
  private said = false;
  private breakDue = false;

  constructor(private readonly ctx: TurnContext) {}

  say = (text: string): void => {
    if (text === '') return;
    this.ctx.say(this.said && this.breakDue ? `\n\n${text}` : text);
    this.said = true;
    this.breakDue = false;
  };

  /** What is said next starts a new paragraph (if anything was said before it). */
  paragraph(): void {
    this.breakDue = true;
  }

  /** A line of the agent's own, as a paragraph of its own. */
  note(text: string): void {
    this.paragraph();
    this.say(text);
    this.paragraph();
  }
}

/** The line that tells the person a call was not run: what the page would otherwise never show. */
function refusalLine(tool: string, code: string, message: string): string {
  const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);
  return `Tool call refused — ${shorten(tool, 64)}: ${shorten(message, MAX_DETAIL)} (${code})`;
}

// ───────────────────────────── the agent ─────────────────────────────

class OpenAISession implements AgentSession {
  private readonly history: ChatMessage[] = [];
  private readonly names: ToolNameMap;
  private readonly tools: object[] | undefined;
  private readonly model: string;
  private readonly redact: (text: string) => string;

  constructor(
    private readonly config: OpenAIConfig,
    private readonly info: AgentSessionInfo,
  ) {
    const manifest = info.skills?.tools ?? [];
    this.names = new ToolNameMap(manifest.map((t) => t.name));
    this.tools =
      manifest.length === 0
        ? undefined
        : manifest.map((t) => ({
            type: 'function',
            function: { name: this.names.toWire(t.name), description: t.description, parameters: t.argsSchema },
          }));
    this.model = info.provider === 'openai' && info.model ? info.model : config.model;
    this.redact = keyRedactor(config.apiKey);
  }

  async turn(text: string, ctx: TurnContext): Promise<void> {
    this.history.push({ role: 'user', content: text });
    const asked = this.history.length;
    const out = new TurnText(ctx);
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      let reply: Reply;
      out.paragraph();
      try {
        reply = await this.complete(ctx, round, out.say);
      } catch (error) {
        // A turn that failed before any round completed leaves no trace: the user sends it again,
        // and failed messages do not pile up in every later request.
        if (this.history.length === asked) this.history.pop();
        throw error;
      }
      if (reply.calls.length === 0) {
        this.history.push({ role: 'assistant', content: reply.text });
        return;
      }
      // Arguments go back as JSON whatever the model sent: endpoints such as Ollama's and vLLM's parse
      // every call in the history and refuse the whole request (and every later turn) otherwise. A
      // call whose arguments were not JSON is answered with a tool error below.
      const parsed = reply.calls.map((c) => parseArguments(c.arguments));
      const assistant: ChatMessage = {
        role: 'assistant',
        content: reply.text === '' ? null : reply.text,
        tool_calls: reply.calls.map((c, i) => {
          const args = parsed[i]!;
          return {
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: args.ok ? JSON.stringify(args.value) : '{}' },
          };
        }),
      };
      if (round === MAX_ROUNDS) {
        // Keep the history valid (every call answered) for the next turn, without running more calls.
        const notRun = JSON.stringify({
          error: {
            code: 'AGENT_LOOP_LIMIT',
            message: `Not run: the turn reached its limit of ${MAX_ROUNDS} model requests.`,
          },
        });
        this.history.push(
          assistant,
          ...reply.calls.map((c): ChatMessage => ({ role: 'tool', tool_call_id: c.id, content: notRun })),
        );
        throw new AgentError(
          'AGENT_LOOP_LIMIT',
          `The model kept calling tools: the turn stopped after ${MAX_ROUNDS} model requests without a final answer.`,
          { source: 'core', details: { rounds: MAX_ROUNDS } },
        );
      }
      // The round goes into the history only once every call has its result, so a turn that fails
      // half-way leaves a history the endpoint still accepts.
      const results: ChatMessage[] = [];
      for (const [i, call] of reply.calls.entries())
        results.push({ role: 'tool', tool_call_id: call.id, content: await this.runCall(call, parsed[i]!, ctx, out) });
      this.history.push(assistant, ...results);
    }
  }

  /**
   * Runs one call on the page (or answers it here when its arguments are not JSON); the tool message
   * content. A call that never reaches the page — refused here or by the Core — is told to the person
   * as a line of the reply, since the page shows nothing of it.
   */
  private async runCall(
    call: AssembledCall,
    args: ReturnType<typeof parseArguments>,
    ctx: TurnContext,
    out: TurnText,
  ): Promise<string> {
    const tool = this.names.toOriginal(call.name);
    if (!args.ok) {
      out.note(refusalLine(tool, 'TOOL_ARGS_INVALID', `the model's arguments are not valid JSON: ${args.reason}`));
      return JSON.stringify({
        error: {
          code: 'TOOL_ARGS_INVALID',
          message: `The arguments of ${call.name} are not valid JSON (${args.reason}). Call the tool again with a JSON object that matches its parameters.`,
        },
      });
    }
    const result: JsonValue = await ctx.callTool(tool, args.value);
    if (ctx.refused(result)) {
      const { code, message } = (result as { error: { code: string; message: string } }).error;
      out.note(refusalLine(tool, code, message));
    }
    return JSON.stringify(result);
  }

  private fail(code: string, message: string, details?: Record<string, unknown>): AgentError {
    return new AgentError(code, this.redact(message), { source: 'provider', details });
  }

  /** One model request: streams its text to the page (through `say`) and returns the text and tool calls. */
  private async complete(ctx: TurnContext, round: number, say: (text: string) => void): Promise<Reply> {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, this.config.timeoutMs);
    };
    // Why a read or fetch failed: the session ended, the endpoint went silent, or something else.
    const interrupted = (otherwise: () => AgentError): unknown => {
      if (ctx.signal.aborted) return ctx.signal.reason;
      if (timedOut) {
        return this.fail(
          'PROVIDER_UNAVAILABLE',
          `The endpoint did not answer within ${Number((this.config.timeoutMs / 1000).toFixed(1))} s.`,
          {
            timeoutMs: this.config.timeoutMs,
          },
        );
      }
      return otherwise();
    };

    const messages: ChatMessage[] = [];
    const guidance = this.info.skills?.guidance ?? '';
    if (guidance.trim() !== '') messages.push({ role: 'system', content: guidance });
    messages.push(...this.history);
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
      throw this.fail(
        'PROVIDER_REQUEST_TOO_LARGE',
        `The conversation is too large to send (${(error as Error).message}); restart the session.`,
      );
    }
    arm();
    try {
      let response: Response;
      try {
        response = await fetch(this.config.endpoint, {
          method: 'POST',
          headers,
          body: payload,
          signal: controller.signal,
          redirect: 'error',
        });
      } catch (error) {
        throw interrupted(() => {
          const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
          const why =
            typeof cause?.code === 'string'
              ? cause.code
              : typeof cause?.message === 'string'
                ? cause.message
                : (error as Error).message;
          return this.fail(
            'PROVIDER_UNAVAILABLE',
            `Cannot reach the endpoint at ${this.config.endpoint.origin} (${why}).`,
          );
        });
      }

      if (!response.ok) {
        let detail = '';
        try {
          detail = upstreamMessage((await readLimited(response.body, MAX_ERROR_BODY)).text);
        } catch (error) {
          if (ctx.signal.aborted || timedOut) throw interrupted(() => error as AgentError);
        }
        throw this.statusFailure(response, detail);
      }

      const type = response.headers.get('content-type') ?? '';
      if (/json/i.test(type) && !/event-stream/i.test(type))
        return await this.wholeReply(response, say, round, interrupted, arm);
      return await this.streamedReply(response, ctx, say, round, arm, interrupted);
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
      // Closes the connection if the body was left unread (an error, [DONE] before the end, …).
      controller.abort();
    }
  }

  private statusFailure(response: Response, detail: string): AgentError {
    const status = response.status;
    const said = detail ? `: ${detail}` : '.';
    if (status === 401 || status === 403) {
      return this.fail(
        'PROVIDER_AUTH_FAILED',
        `The endpoint refused the request (HTTP ${status}); check PEDELEC_DEV_API_KEY${said}`,
        { status },
      );
    }
    if (status === 404) {
      return this.fail(
        'PROVIDER_MODEL_NOT_FOUND',
        `The endpoint answered 404 for model "${this.model}" (is the model installed, and does the base URL end in /v1?)${said}`,
        { status, model: this.model },
      );
    }
    if (status === 429) {
      const retryAfter = response.headers.get('retry-after');
      const seconds = retryAfter !== null && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : undefined;
      return this.fail(
        'PROVIDER_RATE_LIMITED',
        `The endpoint is rate limiting requests (HTTP 429)${said}`,
        seconds === undefined ? { status } : { status, retryAfterSeconds: seconds },
      );
    }
    if (status >= 500 || status === 408)
      return this.fail('PROVIDER_UNAVAILABLE', `The endpoint failed (HTTP ${status})${said}`, { status });
    return this.fail('PROVIDER_PROTOCOL_ERROR', `The endpoint rejected the request (HTTP ${status})${said}`, {
      status,
    });
  }

  /** An error object inside a 200 stream or body (`{"error":{…}}`). */
  private embeddedFailure(error: unknown): AgentError {
    const e = isObject(error) ? error : {};
    const message = typeof e.message === 'string' ? e.message : typeof error === 'string' ? error : 'unknown error';
    const status = typeof e.status === 'number' ? e.status : typeof e.code === 'number' ? e.code : undefined;
    const detail = upstreamMessage(JSON.stringify({ error: { message } }));
    if (status === 401 || status === 403)
      return this.fail('PROVIDER_AUTH_FAILED', `The endpoint refused the request: ${detail}`, { status });
    if (status === 404)
      return this.fail('PROVIDER_MODEL_NOT_FOUND', `The endpoint does not know model "${this.model}": ${detail}`, {
        status,
      });
    if (status === 429 || e.code === 'rate_limit_exceeded')
      return this.fail('PROVIDER_RATE_LIMITED', `The endpoint is rate limiting requests: ${detail}`);
    return this.fail('PROVIDER_UNAVAILABLE', `The endpoint reported an error: ${detail}`);
  }

  private protocolError(what: string): AgentError {
    return this.fail('PROVIDER_PROTOCOL_ERROR', `The endpoint's answer could not be used: ${what}.`);
  }

  /** A server that ignored `stream: true` and sent one chat.completion object. */
  private async wholeReply(
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
      throw interrupted(() => this.protocolError('the response broke off'));
    }
    if (!body.complete) throw this.protocolError('the response is too large');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.text);
    } catch {
      throw this.protocolError('the response is not valid JSON');
    }
    if (isObject(parsed) && parsed.error !== undefined && parsed.error !== null)
      throw this.embeddedFailure(parsed.error);
    const choice = isObject(parsed) && Array.isArray(parsed.choices) ? parsed.choices[0] : undefined;
    const message = isObject(choice) && isObject(choice.message) ? choice.message : undefined;
    if (!message) throw this.protocolError('the response has no choices[0].message');
    const text = typeof message.content === 'string' ? message.content : '';
    say(text);
    const calls = new CallAssembler(this.names);
    if (Array.isArray(message.tool_calls))
      message.tool_calls.forEach((call, index) => calls.add(isObject(call) ? { index, ...call } : call));
    return { text, calls: calls.finish(round) };
  }

  private async streamedReply(
    response: Response,
    ctx: TurnContext,
    say: (text: string) => void,
    round: number,
    arm: () => void,
    interrupted: (otherwise: () => AgentError) => unknown,
  ): Promise<Reply> {
    if (!response.body) throw this.protocolError('the response has no body');
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser();
    const calls = new CallAssembler(this.names);
    let text = '';
    let finished = false; // a choice said finish_reason
    let done = false; // data: [DONE]

    const handle = (data: string): void => {
      if (data.trim() === '[DONE]') {
        done = true;
        return;
      }
      let chunk: unknown;
      try {
        chunk = JSON.parse(data);
      } catch {
        throw this.protocolError('a stream event is not JSON');
      }
      if (!isObject(chunk)) throw this.protocolError('a stream event is not a JSON object');
      if (chunk.error !== undefined && chunk.error !== null) throw this.embeddedFailure(chunk.error);
      if (!Array.isArray(chunk.choices)) return; // e.g. a usage-only chunk
      const choice =
        chunk.choices.find((c) => isObject(c) && (c.index === undefined || c.index === 0)) ?? chunk.choices[0];
      if (!isObject(choice)) return;
      const delta = isObject(choice.delta) ? choice.delta : undefined;
      if (delta) {
        if (typeof delta.content === 'string' && delta.content !== '') {
          text += delta.content;
          say(delta.content);
        }
        if (Array.isArray(delta.tool_calls)) delta.tool_calls.forEach((piece, position) => calls.add(piece, position));
      }
      if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') finished = true;
    };
    /** An event's data lines as one payload; lines that only parse one by one come from a server that left out the blank line. */
    const handleEvent = (lines: string[]): void => {
      if (lines.length > 1) {
        const joined = lines.join('\n');
        let whole = true;
        try {
          JSON.parse(joined);
        } catch {
          whole = false;
        }
        if (!whole) {
          for (const line of lines) if (!done) handle(line);
          return;
        }
        handle(joined);
        return;
      }
      handle(lines[0]);
    };

    try {
      while (!done) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch {
          throw interrupted(() =>
            this.protocolError(`the stream broke off${finished ? '' : ' before the answer was complete'}`),
          );
        }
        if (ctx.signal.aborted) throw ctx.signal.reason;
        let events;
        try {
          events = chunk.done
            ? parser.push(decoder.decode()).concat(parser.end())
            : parser.push(decoder.decode(chunk.value, { stream: true }));
        } catch (error) {
          throw this.protocolError((error as Error).message);
        }
        for (const event of events) {
          if (done) break;
          handleEvent(event.lines);
        }
        if (chunk.done) break;
        arm();
      }
    } finally {
      if (!done) await reader.cancel().catch(() => {});
    }
    if (!done && !finished) throw this.protocolError('the stream ended before its end marker (data: [DONE])');
    return { text, calls: calls.finish(round) };
  }
}

/** The agent, or why it cannot run (see the module comment for what is required). */
export function openaiAgent(env: Env): DevAgent | { unavailable: string } {
  const config = readOpenAIConfig(env);
  if ('unavailable' in config) return config;
  return {
    code: 'openai',
    name: 'OpenAI-compatible endpoint',
    defaultModel: config.model,
    openSession: (info) => new OpenAISession(config, info),
  };
}
