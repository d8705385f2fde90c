/**
 * `<pedelec-session mcp="ws://127.0.0.1:7717/tools">` (spec every-agent.md §4): the page side of the
 * MCP page link to `pedelec-dev --mcp`, through which desktop MCP clients call the session's tools.
 * A lazy chunk of its own, loaded by the foreign agents' entry (foreign-agents.ts): only a session with
 * `mcp` downloads it.
 *
 * Over one WebSocket per session element (messages in docs/mcp.md) the page says who it is
 * (`hello`, with the link `version`), publishes the tools it offers foreign agents on every change
 * (`tools`), and answers `call`s — each on the element's one path, `via: 'mcp'`, so validation, the
 * deadline and the result check are those of an agent's call — and `cancel`s (the handler's
 * `ctx.signal`). No extension and no `start()` needed.
 *
 * A link that drops is opened again, after 1 s, then 2, 4 … up to 30 s between tries, for as long as
 * the element is in the page with `mcp` set; pedelec-dev's refusal (a close code 4000–4999: a link
 * version it does not speak, MCP off, the page's origin not allowed) is one `MCP_LINK_REFUSED`
 * warning, and no retry until `mcp` changes.
 */
import { normalizeError, pedelecError } from '../../../core/errors.js';
import { canonicalJson } from '../../../core/json.js';
import type { LocalCallResult } from '../../../core/local-call.js';
import { parseBridge } from '../../bridge-url.js';
import { agentSide, foreignTool, type AgentSide, type ForeignAgentHost } from '../host.js';

/** The link version this page speaks; pedelec-dev closes a link of another with a reason. */
export const PAGE_LINK_VERSION = 1;
const RETRY_MS = [1000, 2000, 4000, 8000, 16000, 30000];

/** What the link needs from its session element besides what every foreign agent's part does. */
export interface PageLinkHost extends AgentSide {
  /** The `mcp` value, and whether it was set from script (then any host is allowed). */
  mcp(): { url: string | undefined; scripted: boolean };
  /** What the page calls itself on the link: `mcp-label`, else the element's `id`, else none. */
  label(): string | null;
}

export class McpPageLink {
  #socket: WebSocket | null = null;
  /** The URL the socket is for; `null` with no socket. */
  #url: string | null = null;
  /** A URL refused by pedelec-dev or by the rules: not tried again until `mcp` changes. */
  #refused: string | null = null;
  #retries = 0;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** What was last published, as canonical JSON. */
  #published = '';
  readonly #running = new Map<string, AbortController>();
  #queued = false;

  constructor(private readonly host: PageLinkHost) {}

  /** Brings the link in line with the element, a microtask later (a move in the DOM is no removal). */
  sync(): void {
    if (this.#queued) return;
    this.#queued = true;
    queueMicrotask(() => {
      this.#queued = false;
      this.#sync();
    });
  }

  #sync(): void {
    const url = this.#wantedUrl();
    if (url !== this.#url) {
      this.#close();
      if (url !== null) this.#open(url);
      return;
    }
    this.#publish();
  }

  /** The link URL the element asks for now, `null` for none (or one that cannot be used: warned once). */
  #wantedUrl(): string | null {
    const { url, scripted } = this.host.mcp();
    if (!this.host.connected() || !url?.trim()) return (this.#refused = null);
    const parsed = parseBridge(url, scripted);
    if ('code' in parsed || parsed.kind !== 'websocket') {
      const problem = 'code' in parsed ? parsed : pedelecError('INVALID_INPUT', 'mcp must be a ws:// or wss:// URL');
      if (this.#refused !== url) this.host.warn({ ...problem, message: problem.message.replace(/^bridge/, 'mcp') });
      this.#refused = url;
      return null;
    }
    return this.#refused === parsed.url ? null : parsed.url;
  }

  #open(url: string): void {
    this.#url = url;
    const socket = new WebSocket(url);
    this.#socket = socket;
    socket.onopen = () => {
      this.#retries = 0;
      const label = this.host.label();
      this.#send({
        type: 'hello',
        version: PAGE_LINK_VERSION,
        ...(label && { label }),
        title: document.title,
        url: location.href,
      });
      this.#published = '';
      this.#publish();
    };
    socket.onmessage = (event) => this.#receive(event.data);
    socket.onclose = (event) => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      this.#abortAll('the MCP page link closed');
      if (event.code >= 4000 && event.code < 5000) {
        this.#refused = url;
        this.#url = null;
        const reason = event.reason || `closed with ${event.code}`;
        this.host.warn(
          pedelecError('MCP_LINK_REFUSED', `pedelec-dev refused the MCP page link: ${reason}`, {
            url,
            reason,
            code: event.code,
          }),
        );
        return;
      }
      const wait = RETRY_MS[Math.min(this.#retries++, RETRY_MS.length - 1)];
      this.#retryTimer = setTimeout(() => {
        this.#url = null;
        this.#sync();
      }, wait);
    };
  }

  #close(): void {
    clearTimeout(this.#retryTimer);
    const socket = this.#socket;
    this.#socket = null;
    this.#url = null;
    this.#retries = 0;
    this.#abortAll('the MCP page link closed');
    if (socket && socket.readyState <= WebSocket.OPEN) socket.close(1000);
  }

  /** Sends the tools offered now, if they changed since the last time. */
  #publish(): void {
    if (this.#socket?.readyState !== WebSocket.OPEN) return;
    const tools = this.host.offered().map(foreignTool);
    const key = canonicalJson(tools);
    if (key === this.#published) return;
    this.#published = key;
    this.#send({ type: 'tools', tools });
  }

  #receive(data: unknown): void {
    let frame: { type?: unknown; id?: unknown; tool?: unknown; args?: unknown };
    try {
      frame = JSON.parse(String(data));
    } catch {
      return; // pedelec-dev sends JSON only; anything else is not for this link
    }
    if (typeof frame?.id !== 'string') return;
    if (frame.type === 'cancel')
      return this.#running.get(frame.id)?.abort(pedelecError('ABORTED', 'The MCP client cancelled the call'));
    if (frame.type === 'call' && typeof frame.tool === 'string') void this.#call(frame.id, frame.tool, frame.args);
  }

  async #call(id: string, tool: string, args: unknown): Promise<void> {
    const controller = new AbortController();
    this.#running.set(id, controller);
    let answer: LocalCallResult;
    try {
      answer = await this.host.call(tool, args, controller.signal);
    } catch (thrown) {
      answer = { ok: false, error: normalizeError(thrown, 'TOOL_HANDLER_ERROR', 'The call failed') };
    }
    if (this.#running.get(id) !== controller) return; // cancelled, or the link closed meanwhile
    this.#running.delete(id);
    this.#send(
      answer.ok
        ? { type: 'result', id, ok: true, result: answer.result }
        : { type: 'result', id, ok: false, error: answer.error },
    );
  }

  #abortAll(why: string): void {
    for (const controller of this.#running.values()) controller.abort(pedelecError('ABORTED', why));
    this.#running.clear();
  }

  #send(message: object): void {
    this.#socket?.send(JSON.stringify(message));
  }
}

/** The chunk's entry (lazy-part.ts): the link of a session element, through its host. */
export function partOf(host: ForeignAgentHost): McpPageLink {
  return new McpPageLink({
    ...agentSide(host, 'mcp', (tools) => tools),
    mcp: () => host.inputs().mcp,
    label: () => host.inputs().label,
  });
}
