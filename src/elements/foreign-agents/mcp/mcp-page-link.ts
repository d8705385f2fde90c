/**
 * `<pedelec-session mcp="ws://127.0.0.1:7717/tools">` (spec every-agent.md §4): the page side of the
 * MCP page link to `pedelec-dev --mcp`, through which desktop MCP clients call the session's tools.
 * A lazy chunk of its own, loaded by the foreign agents' entry (foreign-agents.ts): only a session with
 * `mcp` downloads it — with the link's client (core/page-link-client.ts), which nothing else imports.
 *
 * The client owns the link (its frames in docs/mcp.md: `hello`, the tools on every change, each call's
 * `result`, `cancel`s; trying again after a drop; one `MCP_LINK_REFUSED` when pedelec-dev refuses it).
 * This part only wires it to the element: which URL, when (a microtask after each change), and the
 * element's label, offered tools and calls — each on the element's one path, `via: 'mcp'`, so
 * validation, the deadline and the result check are those of an agent's call. No extension and no
 * `start()` needed.
 */
import { pedelecError } from '../../../core/errors.js';
import { PageLinkClient, type LinkSocketFactory } from '../../../core/page-link-client.js';
import { isPlainObject } from '../../../core/json.js';
import { LINK_KEY_PATH } from '../../../core/page-link-contract.js';
import { parseBridge } from '../../bridge-url.js';
import { agentSide, foreignTool, framed, importedDefinitions, type AgentSide, type ForeignAgentHost } from '../host.js';

/** What the link needs from its session element besides what every foreign agent's part does. */
export interface PageLinkHost extends AgentSide {
  /** The `mcp` value, whether it was set from script (then any host is allowed), and the `mcpKey`. */
  mcp(): { url: string | undefined; scripted: boolean; key: string | undefined };
  /** What the page calls itself on the link: `mcp-label`, else the element's `id`, else none. */
  label(): string | null;
}

/** The MCP page link of one session element. */
export class McpPageLink {
  readonly #client: PageLinkClient;
  /** The `mcp` value last warned about as unusable: warned once while it stays. */
  #warned: string | null = null;
  /** The `mcpKey` the link was opened with. */
  #key: string | undefined;

  /**
   * @param host - the session element, as the link sees it.
   * @param openSocket - opens the link's socket (a page's `WebSocket`).
   */
  constructor(
    private readonly host: PageLinkHost,
    openSocket: LinkSocketFactory = (url) => new WebSocket(url),
  ) {
    this.#client = new PageLinkClient(
      {
        hello: async (url) => {
          const key = host.mcp().key || (await servedKey(url));
          return {
            label: host.label(),
            title: document.title,
            url: location.href,
            ...(framed(window) && { framed: true as const, topOrigin: topOrigin(window) }),
            ...(key && { key }),
          };
        },
        tools: () => host.offered().map(foreignTool),
        call: (tool, args, signal, approvedBy) => host.call(tool, args, signal, approvedBy),
        refused: (error) => host.warn(error),
      },
      openSocket,
    );
  }

  /** Brings the link in line with the element (called once for a batch of changes: foreign-agents.ts). */
  sync(): void {
    // A new key is a new link: a link refused for want of one is tried again with it.
    const { key } = this.host.mcp();
    if (key !== this.#key) this.#client.close();
    this.#key = key;
    this.#client.connect(this.#wantedUrl());
  }

  /** The link URL the element asks for now, `null` for none (or one that cannot be used: warned once). */
  #wantedUrl(): string | null {
    const { url, scripted } = this.host.mcp();
    if (!this.host.connected() || !url?.trim()) return (this.#warned = null);
    const parsed = parseBridge(url, scripted);
    if ('code' in parsed || parsed.kind !== 'websocket') {
      const problem = 'code' in parsed ? parsed : pedelecError('INVALID_INPUT', 'mcp must be a ws:// or wss:// URL');
      if (this.#warned !== url) this.host.warn({ ...problem, message: problem.message.replace(/^bridge/, 'mcp') });
      this.#warned = url;
      return null;
    }
    return parsed.url;
  }
}

/** The chunk's entry (lazy-part.ts): the link of a session element, through its host. */
export function partOf(host: ForeignAgentHost): McpPageLink {
  return new McpPageLink({
    // The page's other WebMCP tools (imported) go to MCP clients only when the page forwards them.
    ...agentSide(host, 'mcp', (tools) =>
      /(^|\s)forward(\s|$)/i.test(host.inputs().webmcp ?? '')
        ? tools
        : tools.filter(({ definition }) => !definition || !importedDefinitions.has(definition)),
    ),
    mcp: () => host.inputs().mcp,
    label: () => host.inputs().label,
  });
}

/**
 * The link key `pedelec-dev` gives the pages it serves, when the link goes back to the page's own
 * server; else (or when it gives none) no key.
 */
async function servedKey(linkUrl: string): Promise<string | undefined> {
  if (new URL(linkUrl).host !== location.host) return undefined;
  try {
    const response = await fetch(LINK_KEY_PATH, { method: 'POST' });
    const body: unknown = response.ok ? await response.json() : null;
    return isPlainObject(body) && typeof body.key === 'string' ? body.key : undefined;
  } catch {
    return undefined; // not pedelec-dev, or gone: the link's refusal says what is missing
  }
}

/** In a frame, the top-level document's origin when the page may read it (same origin), else none. */
function topOrigin(window: Window): string | undefined {
  try {
    return window.top?.location.origin;
  } catch {
    return undefined; // another origin's document: not the page's to read
  }
}
