/**
 * `pedelec-dev mcp`: MCP over stdio, for clients that start a server as a command and cannot send
 * headers. It serves nothing itself: it relays the client's requests to the running
 * `pedelec-dev --mcp` at `/mcp`, with the token from the token file, and that server's tool-list
 * changes back. Both eras are served on stdio by the SDK's `serveStdio` (the client's opening picks
 * one per connection); upstream the relay always speaks 2026-07-28, which holds no session that a
 * restart of the server could lose. The client's name is passed on, so the inspector's log names the
 * desktop client, not this relay.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CLIENT_CAPABILITIES_META_KEY, Server, type ClientCapabilities } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { DevCoreError } from '../errors.js';
import { serverProves } from './server-proof.js';
import { fetchWithSignalPerRequest } from './signal-per-request.js';
import { defaultTokenFile, readToken } from './token-file.js';

/** How long one call may run: as long as a page's tool may (a form waits up to five minutes). */
const CALL_TIMEOUT_MS = 10 * 60_000;
/** The revision the relay speaks to the server. */
const UPSTREAM_VERSION = '2026-07-28';

export type StdioOptions = { port: number; host?: string; tokenFile?: string; version: string };

const unproven = (port: number, file: string) =>
  new DevCoreError(
    'MCP_SERVER_UNPROVEN',
    `the server on port ${port} does not prove it holds the token in ${file}, so the token was not sent to it; stop what runs there, or start pedelec-dev --mcp --port ${port} with that token file`,
  );

/**
 * Checks that a `pedelec-dev --mcp` runs on the port (its token file holds a token, `/mcp` answers),
 * then relays stdin/stdout to it until the client closes stdin. A missing server is a `DevCoreError`
 * (`MCP_NOT_RUNNING`) with a message fit to print as is.
 */
export async function runStdio({ port, host = '127.0.0.1', tokenFile, version }: StdioOptions): Promise<void> {
  const file = tokenFile ?? defaultTokenFile(port);
  const url = new URL(`http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`);
  const token = readToken(file);
  const notRunning = (why: string) =>
    new DevCoreError(
      'MCP_NOT_RUNNING',
      `no pedelec-dev --mcp on port ${port} (${why}); start one first: pedelec-dev --mcp --port ${port}`,
    );
  if (!token) throw notRunning(`no token in ${file}`);
  // The token goes only to a server that proves it holds it (server-proof.ts).
  const proven = await serverProves(url, token);
  if (proven === 'unreachable') throw notRunning(`nothing answers at ${url.href}`);
  if (proven === 'absent') throw notRunning(`what answers at ${url.origin} is not a pedelec-dev --mcp`);
  if (!proven) throw unproven(port, file);

  const upstream = new Upstream(url, token, version);
  const closed = new Promise<void>((resolve) => {
    const handle = serveStdio((context) => upstream.relayServer(context.era), {
      onerror: () => {}, // a client's protocol mistakes are answered to it; nothing more to do here
    });
    // The client closing stdin ends the connection: the SDK's transport closes itself then.
    process.stdin.once('end', () => void handle.close().finally(resolve));
  });
  await closed;
  await upstream.close();
}

/** The first wait before connecting again after the server went away; it doubles up to the next. */
const RECONNECT_FIRST_MS = 250;
const RECONNECT_MOST_MS = 5000;

/**
 * The one connection to the server, opened at the first request and shared by the relay's instances.
 * When the server goes away (its listen stream ends unasked), the connection is forgotten and made
 * again — at once for the next request, and in the background with a growing wait, so that a
 * restarted server's tool changes reach the client without it asking first.
 */
class Upstream {
  #client: Promise<Client> | null = null;
  /** The relay instance serving the client now (the SDK may make a probe instance first and drop it). */
  #current: Server | null = null;
  #clientName = 'stdio client';
  #closed = false;

  constructor(
    private readonly url: URL,
    private readonly token: string,
    private readonly version: string,
  ) {}

  relayServer(era: 'legacy' | 'modern'): Server {
    const relay = new Server(
      { name: 'pedelec-dev', version: this.version },
      { capabilities: { tools: { listChanged: true } } },
    );
    this.#current = relay;
    const client = () => this.#connected(relay.getClientVersion()?.name ?? `stdio client (${era})`);
    // The SDK's `request` leaves its abort listener on the signal it is given; `ctx.mcpReq.signal`
    // lives for one request only, so nothing gathers on it.
    relay.setRequestHandler('tools/list', async (request, ctx) =>
      (await client()).listTools(request.params, { signal: ctx.mcpReq.signal }),
    );
    relay.setRequestHandler('tools/call', async (request, ctx) => {
      const { inputResponses, signal } = ctx.mcpReq;
      const requestState = ctx.mcpReq.requestState<string>();
      // The server asks the client's user to approve a consequential call (call-approval.ts) only if
      // the client shows forms: the relay says whether this one does, and passes the question back to
      // it as it came (`2026-07-28`; the SDK asks a 2025-era client with `elicitation/create`), then
      // the user's answer on with the state the server keeps the question under.
      const capabilities: ClientCapabilities | undefined =
        era === 'modern'
          ? (ctx.mcpReq.envelope as Record<string, ClientCapabilities> | undefined)?.[CLIENT_CAPABILITIES_META_KEY]
          : relay.getClientCapabilities();
      const elicitation = capabilities?.elicitation;
      const params = {
        ...request.params,
        ...(inputResponses && { inputResponses }),
        ...(requestState !== undefined && { requestState }),
        _meta: { ...request.params._meta, [CLIENT_CAPABILITIES_META_KEY]: elicitation ? { elicitation } : {} },
      };
      return (await client()).callTool(params, { signal, timeout: CALL_TIMEOUT_MS, allowInputRequired: true });
    });
    // A 2025-era client hears of tool changes without asking first: connect as soon as it is ready.
    relay.oninitialized = () => void client().catch(() => {});
    relay.onerror = () => {};
    return relay;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = await this.#client?.catch(() => null);
    await client?.close();
  }

  /** The connected client; a failed connection is forgotten, so the next request tries again. */
  #connected(clientName = this.#clientName): Promise<Client> {
    this.#clientName = clientName;
    this.#client ??= this.#connect(clientName).catch((error: unknown) => {
      this.#client = null;
      throw error;
    });
    return this.#client;
  }

  async #connect(clientName: string): Promise<Client> {
    // The server on the port may have been replaced since: it proves again that it holds the token.
    if ((await serverProves(this.url, this.token)) !== true)
      throw new DevCoreError('MCP_SERVER_UNPROVEN', 'the server on the port does not prove it holds the token');
    const client = new Client(
      { name: clientName, version: this.version },
      { versionNegotiation: { mode: { pin: UPSTREAM_VERSION } } },
    );
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      this.#current?.sendToolListChanged().catch(() => {});
    });
    // A fetch that keeps the transport's connection-long signal from gaining a listener per call
    // (signal-per-request.ts): this relay runs as long as the desktop client does.
    const fetch = fetchWithSignalPerRequest();
    await client.connect(
      new StreamableHTTPClientTransport(this.url, {
        requestInit: { headers: { Authorization: `Bearer ${this.token}` } },
        fetch,
      }),
    );
    const subscription = await client.listen({ toolsListChanged: true });
    void subscription.closed.then((how) => {
      if (how === 'local' || this.#closed) return;
      // The server went away: what it listed is gone with it.
      this.#client = null;
      void client.close().catch(() => {});
      this.#current?.sendToolListChanged().catch(() => {});
      this.#reconnect(RECONNECT_FIRST_MS);
    });
    return client;
  }

  /** Connects again after `waitMs` (unless a request did first), waiting longer after each failure. */
  #reconnect(waitMs: number): void {
    const timer = setTimeout(() => {
      if (this.#closed || this.#client) return;
      this.#connected().then(
        () => this.#current?.sendToolListChanged().catch(() => {}),
        () => this.#reconnect(Math.min(waitMs * 2, RECONNECT_MOST_MS)),
      );
    }, waitMs);
    timer.unref(); // never what keeps the relay running once its client has gone
  }
}
