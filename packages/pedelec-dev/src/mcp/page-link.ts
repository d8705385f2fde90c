/**
 * One page on `/tools`, the MCP page link (docs/mcp.md; its contract, shared with the kit's side of it,
 * in pedelec-elements/protocol): the page says who it is (`hello`, whose `version` must be
 * {@link PAGE_LINK_VERSION}) and publishes its tools (`tools`, on every change); pedelec-dev sends it
 * `call`s and `cancel`s and gets each call's `result`. The page runs every call on the path an agent's
 * call takes (validation, deadline, result check), so this side only routes.
 *
 * A page whose `hello` lacks the link key (link-key.ts) is refused, unless links are open to any page.
 * A page that breaks the link's rules (a frame that is not JSON, a frame before `hello`, a tool list
 * that is not one) is closed with a reason it reports; a tool that is not MCP's Tool shape is left out
 * (the inspector's log says why), the page's other tools are offered; a version this side does not speak is closed
 * with {@link LINK_REFUSED_CLOSE_CODE}, which the page reports as `MCP_LINK_REFUSED`.
 */
import { randomUUID } from 'node:crypto';
import type { RawData, WebSocket } from 'ws';
import {
  answerOf,
  isPlainObject,
  LINK_REFUSED_CLOSE_CODE,
  PAGE_LINK_VERSION,
  type CallAnswer,
  type CallFrame,
  type PageLinkFrame,
  type PageTool,
  type ServerLinkFrame,
} from 'pedelec-elements/protocol';
import { frameText } from '../errors.js';

/** A page may have this many calls running at once; more are answered at once with an error. */
export const MAX_RUNNING_CALLS = 64;
/** At most this many tools per page. */
export const MAX_PAGE_TOOLS = 512;
/** Links at once, in all and from one origin; a link past either is refused with {@link LINKS_FULL_CLOSE_CODE}. */
export const MAX_LINKS = 64;
export const MAX_LINKS_PER_ORIGIN = 16;
/** The close code of a link refused for want of room (the page reports it as `MCP_LINK_REFUSED`). */
export const LINKS_FULL_CLOSE_CODE = 4429;
/** A tool's description and title, in characters, and its input schema as JSON text, in bytes. */
export const MAX_DESCRIPTION_CHARS = 8192;
export const MAX_TITLE_CHARS = 256;
export const MAX_SCHEMA_BYTES = 64 * 1024;
/** A call's answer as the page sent it (its `result` frame), in bytes; a larger one is not passed on. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** An error's message, in characters (longer is cut), and its details as JSON text, in bytes (larger are left out). */
export const MAX_ERROR_MESSAGE_CHARS = 4096;
export const MAX_ERROR_DETAILS_BYTES = 64 * 1024;

/** A frame from the page as read: a JSON object, whose `type` this side compares with the contract's. */
type PageFrameFields = { type?: PageLinkFrame['type']; [key: string]: unknown };

/** Who the page says it is (its `hello`), and its origin as the browser sent it. */
export type PageIdentity = {
  label: string | null;
  title: string;
  url: string;
  origin: string | null;
  /** The page is in a frame (its session allowed it); `topOrigin`: the top document's, when it said. */
  framed: boolean;
  topOrigin: string | null;
};

export type PageLinkEvents = {
  /**
   * Why the link key a page's `hello` carries (`undefined`: none) does not let it in; `null` when it
   * does (the right key, or `--mcp-open-links`).
   */
  keyRefusal(key: unknown): string | null;
  /** The page said who it is: it counts as a page from now on. */
  joined(link: PageLink): void;
  /** Its tools changed. */
  toolsChanged(link: PageLink): void;
  /** A tool of its list cannot be offered to MCP clients: left out, for `reason`; the rest are offered. */
  toolLeftOut(link: PageLink, tool: string, reason: string): void;
  /** It went away (after `joined`, or before). */
  left(link: PageLink): void;
};

const cancelled = (): CallAnswer => ({
  ok: false,
  error: { code: 'ABORTED', message: 'The client cancelled the call' },
});

/** The answers a page sent (not ones this side made up: gone, busy, cancelled, unreadable). */
const fromPages = new WeakSet<CallAnswer>();
/** Whether `answer` is what a page sent: its error's code is the page's word, not pedelec-dev's. */
export const answeredByPage = (answer: CallAnswer): boolean => fromPages.has(answer);

const pageGone = (why: string): CallAnswer => ({
  ok: false,
  error: { code: 'PAGE_GONE', message: `page gone: ${why}` },
});

/** The reason a link is closed with fits a close frame (123 bytes). */
const closeReason = (text: string) => (Buffer.byteLength(text) <= 123 ? text : `${text.slice(0, 100)}…`);

export class PageLink {
  readonly id = `page_${randomUUID().slice(0, 8)}`;
  readonly connectedAt = Date.now();
  identity: PageIdentity | null = null;
  tools: PageTool[] = [];
  readonly #running = new Map<string, (answer: CallAnswer) => void>();
  #nextCall = 1;
  #gone = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly origin: string | null,
    private readonly events: PageLinkEvents,
  ) {
    socket.on('message', (data, isBinary) => this.#receive(data, isBinary));
    socket.on('close', () => this.#left('the page closed its link'));
    socket.on('error', () => {}); // always followed by 'close'
  }

  /**
   * Runs `tool` in the page; resolves with its answer, never rejects. `signal` cancels it in the page too.
   * `approvedBy` names who approved a consequential tool's call: the page refuses one without it.
   */
  call(tool: string, args: unknown, signal?: AbortSignal, approvedBy?: CallFrame['approvedBy']): Promise<CallAnswer> {
    if (this.#gone) return Promise.resolve(pageGone('the page closed its link'));
    if (this.#running.size >= MAX_RUNNING_CALLS) {
      const message = `the page is running ${MAX_RUNNING_CALLS} calls already; try again when one has finished`;
      return Promise.resolve({ ok: false, error: { code: 'PAGE_BUSY', message } });
    }
    // Cancelled before it started (while an approval was asked): the page never hears of it.
    if (signal?.aborted) return Promise.resolve(cancelled());
    const id = String(this.#nextCall++);
    return new Promise<CallAnswer>((resolve) => {
      const onAbort = () => {
        this.#running.delete(id);
        this.#send({ type: 'cancel', id });
        resolve(cancelled());
      };
      this.#running.set(id, (answer) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(answer);
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#send({ type: 'call', id, tool, args: args ?? {}, ...(approvedBy && { approvedBy }) });
    });
  }

  close(code: number, reason: string): void {
    this.socket.close(code, closeReason(reason));
  }

  #send(message: ServerLinkFrame): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(frameText(message, () => ({ type: 'cancel', id: message.id })));
  }

  #receive(data: RawData, isBinary: boolean): void {
    let parsed: unknown;
    try {
      // With ws's default binaryType ('nodebuffer'), a message arrives as one Buffer.
      parsed = isBinary ? undefined : JSON.parse((data as Buffer).toString());
    } catch {
      // reported below
    }
    if (!isPlainObject(parsed))
      return this.close(1007, 'pedelec-dev: a link frame must be a JSON object in a text frame');
    // Typed by the contract, so that comparing with a frame type it does not name fails the type check.
    const frame: PageFrameFields = parsed;
    if (this.identity === null) return this.#hello(frame);
    if (frame.type === 'tools') return this.#tools(frame.tools);
    if (frame.type === 'result') return this.#result(frame, (data as Buffer).length);
    this.close(1008, `pedelec-dev: unknown link frame type ${JSON.stringify(frame.type)}`);
  }

  #hello(frame: PageFrameFields): void {
    if (frame.type !== 'hello') return this.close(1008, 'pedelec-dev: the first link frame must be hello');
    if (frame.version !== PAGE_LINK_VERSION) {
      const reason = `pedelec-dev speaks page link version ${PAGE_LINK_VERSION}, not ${JSON.stringify(frame.version)}`;
      return this.close(LINK_REFUSED_CLOSE_CODE, reason);
    }
    const keyRefusal = this.events.keyRefusal(frame.key);
    if (keyRefusal !== null) return this.close(LINK_REFUSED_CLOSE_CODE, `pedelec-dev: ${keyRefusal}`);
    const text = (value: unknown, max: number) => (typeof value === 'string' ? value.slice(0, max) : '');
    const label = text(frame.label, 64);
    this.identity = {
      label: label === '' ? null : label,
      title: text(frame.title, 200),
      url: text(frame.url, 2048),
      origin: this.origin,
      framed: frame.framed === true,
      topOrigin: frame.framed === true ? text(frame.topOrigin, 2048) || null : null,
    };
    this.events.joined(this);
  }

  #tools(tools: unknown): void {
    const problem = toolsProblem(tools);
    if (problem) return this.close(1008, `pedelec-dev: ${problem}`);
    // One tool that is not MCP's Tool shape must not break every client's tools/list: it is left out.
    this.tools = (tools as unknown[]).flatMap((tool, i) => {
      const why = toolProblem(tool);
      if (why === null) return [offerable(tool as PageTool)];
      const name = isPlainObject(tool) && typeof tool.name === 'string' && tool.name ? tool.name : `tools[${i}]`;
      this.events.toolLeftOut(this, name, why);
      return [];
    });
    this.events.toolsChanged(this);
  }

  #result(frame: PageFrameFields, bytes: number): void {
    const settle = typeof frame.id === 'string' ? this.#running.get(frame.id) : undefined;
    if (!settle) return; // cancelled meanwhile, or never asked
    this.#running.delete(frame.id as string);
    if (bytes > MAX_ANSWER_BYTES) {
      const message = `The page's answer is ${bytes} bytes; pedelec-dev passes on at most ${MAX_ANSWER_BYTES}`;
      return settle({ ok: false, error: { code: 'PAGE_ANSWER_TOO_LARGE', message } });
    }
    const answer = answerOf(frame);
    if (answer) fromPages.add(bounded(answer));
    settle(
      answer ?? {
        ok: false,
        error: { code: 'INTERNAL_ERROR', message: 'The page answered the call in a form pedelec-dev cannot read' },
      },
    );
  }

  #left(why: string): void {
    if (this.#gone) return;
    this.#gone = true;
    for (const settle of this.#running.values()) settle(pageGone(why));
    this.#running.clear();
    this.events.left(this);
  }
}

/** Why a `tools` frame's list is not one pedelec-dev can read; `null` when it is. */
function toolsProblem(tools: unknown): string | null {
  if (!Array.isArray(tools)) return 'tools must be an array';
  if (tools.length > MAX_PAGE_TOOLS) return `a page may offer at most ${MAX_PAGE_TOOLS} tools`;
  return null;
}

/** `answer` with its error's message cut and its details left out past their bounds (in place). */
function bounded(answer: CallAnswer): CallAnswer {
  if (answer.ok) return answer;
  const { error } = answer;
  if (error.message.length > MAX_ERROR_MESSAGE_CHARS)
    error.message = `${error.message.slice(0, MAX_ERROR_MESSAGE_CHARS)}…`;
  if (error.details !== undefined && Buffer.byteLength(JSON.stringify(error.details)) > MAX_ERROR_DETAILS_BYTES) {
    delete error.details;
    error.message += ` (its details were longer than ${MAX_ERROR_DETAILS_BYTES} bytes, and left out)`;
  }
  return answer;
}

/** Why one page tool is not MCP's Tool shape; `null` when it is. */
function toolProblem(tool: unknown): string | null {
  if (!isPlainObject(tool)) return 'it is not an object';
  if (typeof tool.name !== 'string' || tool.name === '') return 'it has no name';
  if (typeof tool.description !== 'string') return 'its description is not a string';
  if (tool.description.length > MAX_DESCRIPTION_CHARS)
    return `its description is longer than ${MAX_DESCRIPTION_CHARS} characters`;
  if (tool.title !== undefined && typeof tool.title !== 'string') return 'its title is not a string';
  if (typeof tool.title === 'string' && tool.title.length > MAX_TITLE_CHARS)
    return `its title is longer than ${MAX_TITLE_CHARS} characters`;
  // Offered without its flag, a consequential tool would run with nobody asked.
  if (tool.consequential !== undefined && typeof tool.consequential !== 'boolean')
    return 'its consequential is not a boolean';
  const schema = tool.inputSchema;
  if (!isPlainObject(schema) || schema.type !== 'object') return 'its inputSchema is not an object schema';
  if (Buffer.byteLength(JSON.stringify(schema)) > MAX_SCHEMA_BYTES)
    return `its inputSchema is larger than ${MAX_SCHEMA_BYTES} bytes`;
  if (schema.properties !== undefined && !isPlainObject(schema.properties))
    return 'its inputSchema.properties is not an object';
  const nodes = Object.values(schema.properties ?? {});
  if (nodes.some((node) => !isPlainObject(node) && typeof node !== 'boolean'))
    return 'a property of its inputSchema is not a schema';
  const { required } = schema;
  if (required !== undefined && !(Array.isArray(required) && required.every((name) => typeof name === 'string')))
    return 'its inputSchema.required is not a list of names';
  return null;
}

/**
 * A tool whose properties may be JSON Schema's boolean schemas, with each as the object schema that
 * means the same (`true` → `{}`, `false` → `{ "not": {} }`): MCP clients read every property as an
 * object, and one that cannot would fail its whole list.
 */
function offerable(tool: PageTool): PageTool {
  const properties = tool.inputSchema.properties as Record<string, unknown> | undefined;
  if (!properties || !Object.values(properties).some((node) => typeof node === 'boolean')) return tool;
  const objects = Object.fromEntries(
    Object.entries(properties).map(([name, node]) => [name, node === true ? {} : node === false ? { not: {} } : node]),
  );
  return { ...tool, inputSchema: { ...tool.inputSchema, properties: objects } } as PageTool;
}
