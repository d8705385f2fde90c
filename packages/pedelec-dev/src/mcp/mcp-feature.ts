/**
 * MCP as a feature of the Core (`--mcp`): pages link their tools on `/tools`, the
 * {@link PageDirectory} names them across pages, and MCP clients call them at `/mcp` with the bearer
 * token. Off, `/mcp` answers 404 and a page's link on `/tools` is closed with
 * {@link LINK_REFUSED_CLOSE_CODE}, naming the flag — so the page can say why.
 */
import { WebSocketServer, type WebSocket } from 'ws';
import { LINK_REFUSED_CLOSE_CODE } from 'pedelec-elements/protocol';
import { closeSockets, type DevFeature } from '../http/feature.js';
import { plain } from '../http/http-routes.js';
import { answerLinkKey, isLinkKey, LINK_KEY_PATH, linkKeyOf, noLinkKey } from './link-key.js';
import { answerProof, PROOF_PATH } from './server-proof.js';
import type { OriginRules } from '../http/security.js';
import { SHOWN_ARGS_CHARS, type Approvals } from '../inspector/approval.js';
import type { MessageLog } from '../inspector/message-log.js';
import { McpEndpoint, type McpOpen } from './mcp-endpoint.js';
import { PageDirectory } from './page-directory.js';
import { LINKS_FULL_CLOSE_CODE, MAX_LINKS, MAX_LINKS_PER_ORIGIN, PageLink, type PageLinkEvents } from './page-link.js';

export type McpFeatureInputs = {
  /** The bearer token `/mcp` requires; `null` when MCP is off. */
  token: string | null;
  originRules: OriginRules;
  version: string;
  /** The server's own origins: its pages are given the link key. */
  ownOrigins: ReadonlySet<string>;
  /** Links need no key (`--mcp-open-links`, for single-user machines). */
  openLinks: boolean;
  /** `prompt`: every call waits for the operator's approval in the inspector. */
  approval: 'auto' | 'prompt';
  approvals: Approvals;
  log: MessageLog;
  /** The largest frame a page may send on `/tools`. */
  maxFrameBytes: number;
  reportBug: (error: unknown) => void;
};

/** The feature, and what MCP clients hold open on it now (none while MCP is off). */
export type McpFeature = DevFeature & { open(): McpOpen };

export function mcpFeature(inputs: McpFeatureInputs): McpFeature {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: inputs.maxFrameBytes });
  const { token } = inputs;
  if (token === null) {
    return {
      routes: [
        { path: '/mcp', handle: (_req, res) => plain(res, 404, 'MCP is off: start pedelec-dev with --mcp.') },
        // No key to give; answered all the same, so a served page asking for one logs no failed request.
        { path: LINK_KEY_PATH, handle: (_req, res) => noLinkKey(res) },
      ],
      sockets: [
        {
          path: '/tools',
          forPages: true,
          sockets,
          accept: (ws) => ws.close(LINK_REFUSED_CLOSE_CODE, 'pedelec-dev: start it with --mcp to link pages on /tools'),
        },
      ],
      open: () => ({ sessions: 0, listenStreams: 0 }),
      close: () => closeSockets([sockets]),
    };
  }
  const directory = new PageDirectory();
  const endpoint = mcpEndpoint(inputs, token, directory);
  const linkKey = linkKeyOf(token);
  const links = pageLinkEvents(inputs.log, directory, inputs.openLinks ? null : linkKey);
  const room = new LinkRoom();
  return {
    routes: [
      { path: '/mcp', handle: (req, res) => endpoint.handle(req, res) },
      { path: PROOF_PATH, handle: (req, res, _path, query) => answerProof(req, res, query, token) },
      { path: LINK_KEY_PATH, handle: (req, res) => answerLinkKey(req, res, inputs.ownOrigins, linkKey) },
    ],
    sockets: [{ path: '/tools', forPages: true, sockets, accept: (ws, _req, origin) => room.admit(ws, origin, links) }],
    open: () => endpoint.open,
    async close() {
      await endpoint.close();
      await closeSockets([sockets]);
    },
  };
}

function mcpEndpoint(inputs: McpFeatureInputs, token: string, directory: PageDirectory): McpEndpoint {
  const { approvals, log } = inputs;
  return new McpEndpoint({
    token,
    originRules: inputs.originRules,
    directory,
    version: inputs.version,
    approve:
      inputs.approval === 'prompt'
        ? ({ client, tool, page, args }, signal) => {
            const text = JSON.stringify(args);
            const shown = text.length > SHOWN_ARGS_CHARS ? `${text.slice(0, SHOWN_ARGS_CHARS)}…` : text;
            const call = {
              client,
              tool,
              page: `${page.title || page.url} (${page.label})`,
              url: page.url,
              args: shown,
            };
            return approvals.askCall(page.origin, call, signal);
          }
        : undefined,
    onCall: ({ client, tool, ok, ms }) =>
      log.record('info', 'mcp', null, `MCP call ${tool} by ${client}: ${ok ? 'answered' : 'error'} in ${ms} ms`),
    reportBug: inputs.reportBug,
  });
}

/** What a page's link tells the directory, and the inspector's log; `linkKey` `null`: links are open. */
function pageLinkEvents(log: MessageLog, directory: PageDirectory, linkKey: string | null): PageLinkEvents {
  return {
    keyRefusal(key: unknown) {
      if (linkKey === null || isLinkKey(key, linkKey)) return null;
      const fix = 'set mcpKey to the key pedelec-dev printed, or start it with --mcp-open-links';
      return `${key === undefined ? 'no link key' : 'wrong link key'}; ${fix}`;
    },
    joined(link: PageLink) {
      const { title, url, origin } = link.identity!;
      log.record('info', link.id, origin, `MCP page link from ${url}${title ? ` (${title})` : ''}`);
      directory.joined(link);
    },
    toolsChanged: (link: PageLink) => directory.toolsChanged(link),
    toolLeftOut(link: PageLink, tool: string, reason: string) {
      const { url, origin } = link.identity!;
      log.record('info', link.id, origin, `MCP page link from ${url}: tool ${tool} left out, ${reason}`);
    },
    left(link: PageLink) {
      if (link.identity) log.record('info', link.id, link.identity.origin, 'MCP page link closed');
      directory.left(link);
    },
  };
}

/**
 * The links open at once, bounded in all and per origin (one page, or one origin's pages, cannot take
 * every place): a link past either bound is closed at once with a reason the page reports.
 */
class LinkRoom {
  readonly #byOrigin = new Map<string | null, number>();
  #total = 0;

  admit(ws: WebSocket, origin: string | null, events: PageLinkEvents): void {
    const fromOrigin = this.#byOrigin.get(origin) ?? 0;
    if (this.#total >= MAX_LINKS || fromOrigin >= MAX_LINKS_PER_ORIGIN) {
      const which =
        this.#total >= MAX_LINKS ? `${MAX_LINKS} page links` : `${MAX_LINKS_PER_ORIGIN} page links from ${origin}`;
      return ws.close(LINKS_FULL_CLOSE_CODE, `pedelec-dev: ${which} are open; close a page first`.slice(0, 123));
    }
    this.#total++;
    this.#byOrigin.set(origin, fromOrigin + 1);
    ws.once('close', () => {
      this.#total--;
      const left = (this.#byOrigin.get(origin) ?? 1) - 1;
      if (left) this.#byOrigin.set(origin, left);
      else this.#byOrigin.delete(origin);
    });
    new PageLink(ws, origin, events);
  }
}
