/**
 * The page's end of the MCP page link (docs/mcp.md; the frames in page-link-contract.ts) as a small
 * client over a socket, with no framework and no DOM: it owns the socket's life, and asks a
 * {@link PageLinkHandler} for everything else — who the page is, its tools, each call's answer. The
 * element that wires it (`<pedelec-session mcp>`, elements/foreign-agents/mcp/) decides which URL;
 * tests hand it a fake socket, or `ws` against a real pedelec-dev.
 *
 * On open it says `hello` and publishes the tools, then publishes them again whenever they differ (as
 * canonical JSON) from what it last sent; every `call` runs with an AbortSignal of its own, which a
 * `cancel` of that call, or the link closing, aborts. A link that drops is opened again after
 * {@link LINK_RETRY_MS}; one pedelec-dev refuses (a close code 4000–4999) is reported once, and not
 * tried again until {@link PageLinkClient.connect} names another URL or none.
 *
 * Imported by the link's element only, so it travels in the link's lazy chunk and never in the core
 * entry; pedelec-elements/protocol exports it for Node tools and tests.
 */
import { normalizeError, pedelecError, type PedelecError } from './errors.js';
import { canonicalJson } from './json.js';
import {
  isLinkRefusal,
  PAGE_LINK_VERSION,
  readServerFrame,
  resultFrame,
  type CallAnswer,
  type HelloFrame,
  type CallFrame,
  type PageLinkFrame,
  type LinkApprover,
  type PageTool,
} from './page-link-contract.js';

/** The waits before each new try of a link that dropped: 1 s, doubling, then every 30 s. */
export const LINK_RETRY_MS: readonly number[] = [1000, 2000, 4000, 8000, 16000, 30000];

/** `readyState` of an open socket: `WebSocket.OPEN` in browsers and in `ws` alike. */
const OPEN = 1;

/**
 * What the client needs of a socket: the browser's `WebSocket` and `ws`'s both are one. Its handlers
 * take what either passes (a message event's `data`, a close event's `code` and `reason`): the client
 * sets them and never calls them, so they are typed to take `never`, which any handler does.
 */
export interface LinkSocket {
  readonly readyState: number;
  onopen: ((event: never) => void) | null;
  onmessage: ((event: never) => void) | null;
  onclose: ((event: never) => void) | null;
  onerror: ((event: never) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

/** Opens a socket to `url` (`(url) => new WebSocket(url)` in a page). */
export type LinkSocketFactory = (url: string) => LinkSocket;

/** What the client asks of the page it links. */
export interface PageLinkHandler {
  /**
   * Who the page is, for its `hello` on the link to `url` (asked on every open, and awaited: a key may
   * have to be fetched first): its label, if any, title, URL and link key.
   */
  hello(url: string): HelloFields | Promise<HelloFields>;
  /** The tools the page offers now (asked on every open and every {@link PageLinkClient.connect}). */
  tools(): PageTool[];
  /**
   * Runs one call and answers it. `signal` aborts (reason `ABORTED`) when the client cancels the call
   * or the link closes; the answer is then not sent. A rejection is answered `TOOL_HANDLER_ERROR`.
   */
  call(tool: string, args: unknown, signal: AbortSignal, approvedBy?: LinkApprover): Promise<CallAnswer>;
  /** pedelec-dev refused the link: `MCP_LINK_REFUSED`, with the URL, the close code and its reason. */
  refused(error: PedelecError): void;
}

/** What a page's `hello` says besides its type and version. */
export type HelloFields = { label?: string | null } & Omit<HelloFrame, 'type' | 'version' | 'label'>;

/** The page's end of one MCP page link. */
export class PageLinkClient {
  #socket: LinkSocket | null = null;
  /** The URL the link is for (open, opening, or waiting to try again); `null` with none. */
  #url: string | null = null;
  /** The URL pedelec-dev refused: not tried again until `connect()` names another one or none. */
  #refused: string | null = null;
  /** Tries since the link was last open: the index into {@link LINK_RETRY_MS}. */
  #retries = 0;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** What was last published, as canonical JSON. */
  #published = '';
  readonly #running = new Map<string, AbortController>();

  /**
   * @param handler - the page's side: its identity, tools and calls.
   * @param openSocket - opens the link's socket.
   */
  constructor(
    private readonly handler: PageLinkHandler,
    private readonly openSocket: LinkSocketFactory,
  ) {}

  /** The URL the link is for — open, opening or waiting to try again — or `null` for none. */
  get url(): string | null {
    return this.#url;
  }

  /**
   * Brings the link in line with `url`, the link the page wants now (`null`: none). Another URL
   * closes the link and opens one to it; the same URL publishes the tools if they changed. A URL
   * pedelec-dev refused is left alone until another one (or none) has been asked for.
   */
  connect(url: string | null): void {
    // A refusal holds while the page asks for the URL refused; asking for another one (or none) ends it.
    if (url !== this.#refused) this.#refused = null;
    const wanted = this.#refused === null ? url : null;
    if (wanted !== this.#url) {
      this.#close();
      if (wanted !== null) this.#open(wanted);
      return;
    }
    this.#publish();
  }

  /** Closes the link for good (`connect(null)`): running calls abort, nothing is tried again. */
  close(): void {
    this.connect(null);
  }

  #open(url: string): void {
    this.#url = url;
    const socket = this.openSocket(url);
    this.#socket = socket;
    socket.onopen = () => void this.#hello(socket, url);
    socket.onmessage = (event: { data: unknown }) => {
      if (this.#socket === socket) this.#receive(event.data);
    };
    // A socket that fails is closed next, and its close decides; `ws` would throw an unheard error.
    socket.onerror = () => {};
    socket.onclose = ({ code, reason }: { code: number; reason: string }) => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      this.#abortAll('the MCP page link closed');
      if (isLinkRefusal(code)) {
        this.#refused = url;
        this.#url = null;
        const why = reason || `closed with ${code}`;
        this.handler.refused(
          pedelecError('MCP_LINK_REFUSED', `pedelec-dev refused the MCP page link: ${why}`, { url, reason: why, code }),
        );
        return;
      }
      const wait = LINK_RETRY_MS[Math.min(this.#retries++, LINK_RETRY_MS.length - 1)];
      this.#retryTimer = setTimeout(() => this.#open(url), wait);
    };
  }

  /** Says who the page is on `socket`, just opened, then publishes the tools. */
  async #hello(socket: LinkSocket, url: string): Promise<void> {
    if (this.#socket !== socket) return;
    this.#retries = 0;
    const { label, ...about } = await this.handler.hello(url);
    if (this.#socket !== socket) return; // closed while the page found its key
    this.#send({ type: 'hello', version: PAGE_LINK_VERSION, ...(label && { label }), ...about });
    this.#published = '';
    this.#publish();
  }

  #close(): void {
    clearTimeout(this.#retryTimer);
    const socket = this.#socket;
    this.#socket = null;
    this.#url = null;
    this.#retries = 0;
    this.#abortAll('the MCP page link closed');
    if (socket && socket.readyState <= OPEN) socket.close(1000);
  }

  /** Sends the tools offered now, if they changed since the last time. */
  #publish(): void {
    if (this.#socket?.readyState !== OPEN) return;
    const tools = this.handler.tools();
    const key = canonicalJson(tools);
    if (key === this.#published) return;
    this.#published = key;
    this.#send({ type: 'tools', tools });
  }

  #receive(data: unknown): void {
    const frame = readServerFrame(data);
    if (frame?.type === 'call') return void this.#call(frame);
    if (frame?.type !== 'cancel') return;
    // Forgotten first: pedelec-dev expects no result for a cancelled call.
    const controller = this.#running.get(frame.id);
    this.#running.delete(frame.id);
    controller?.abort(pedelecError('ABORTED', 'The MCP client cancelled the call'));
  }

  async #call({ id, tool, args, approvedBy }: CallFrame): Promise<void> {
    const controller = new AbortController();
    this.#running.set(id, controller);
    let answer: CallAnswer;
    try {
      answer = await this.handler.call(tool, args, controller.signal, approvedBy);
    } catch (thrown) {
      answer = { ok: false, error: normalizeError(thrown, 'TOOL_HANDLER_ERROR', 'The call failed') };
    }
    if (this.#running.get(id) !== controller) return; // cancelled, or the link closed meanwhile
    this.#running.delete(id);
    this.#send(resultFrame(id, answer));
  }

  #abortAll(why: string): void {
    for (const controller of this.#running.values()) controller.abort(pedelecError('ABORTED', why));
    this.#running.clear();
  }

  #send(frame: PageLinkFrame): void {
    // A socket pedelec-dev is closing (a refusal) may not have said so yet: a browser logs a send to it.
    if (this.#socket?.readyState === OPEN) this.#socket.send(JSON.stringify(frame));
  }
}
