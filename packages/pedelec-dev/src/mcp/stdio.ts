/**
 * `pedelec-dev mcp`: MCP over stdio, for clients that start a server as a command and cannot send
 * headers. It serves nothing itself: it relays the client's requests to the running
 * `pedelec-dev --mcp` at `/mcp`, with the token from the token file, and that server's
 * `list_changed` back — both sides the official SDK's classes. The client's name is passed on, so the
 * inspector's log names the desktop client, not this relay.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
// `Server` is marked deprecated in favour of `McpServer`; the relay passes JSON Schemas on as they are.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { DevCoreError } from '../errors.js';
import { fetchWithSignalPerRequest } from './signal-per-request.js';
import { defaultTokenFile, readToken } from './token-file.js';

/** How long one call may run: as long as a page's tool may (a form waits up to five minutes). */
const CALL_TIMEOUT_MS = 10 * 60_000;

export type StdioOptions = { port: number; host?: string; tokenFile?: string; version: string };

/**
 * Checks that a `pedelec-dev --mcp` runs on the port (its token file holds a token, `/mcp` answers),
 * then relays stdin/stdout to it until either side closes. A missing server is a `DevCoreError`
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
  const headers = { Authorization: `Bearer ${token}` };
  try {
    // Any HTTP answer means a server is there; the token is checked when the client connects.
    const probe = await fetch(url, { method: 'DELETE', headers, signal: AbortSignal.timeout(5000) });
    await probe.body?.cancel();
    if (probe.status === 401) throw notRunning(`its token is not the one in ${file}`);
  } catch (error) {
    if (error instanceof DevCoreError) throw error;
    throw notRunning(`nothing answers at ${url.href}`);
  }

  const relay = new Server({ name: 'pedelec-dev', version }, { capabilities: { tools: { listChanged: true } } });
  let upstream: Promise<Client> | null = null;
  const connected = (): Promise<Client> => {
    upstream ??= (async () => {
      const client = new Client({ name: relay.getClientVersion()?.name ?? 'stdio client', version });
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => relay.sendToolListChanged());
      client.onclose = () => void relay.close();
      // A fetch that keeps the transport's connection-long signal from gaining a listener per call
      // (signal-per-request.ts): this relay runs as long as the desktop client does.
      const fetch = fetchWithSignalPerRequest();
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch }));
      return client;
    })();
    return upstream;
  };
  relay.oninitialized = () => void connected().catch(() => relay.close());
  // The SDK's `request` leaves its abort listener on the signal it is given; `extra.signal` lives
  // for one request only, so nothing gathers on it.
  relay.setRequestHandler(ListToolsRequestSchema, async (request, extra) =>
    (await connected()).listTools(request.params, { signal: extra.signal }),
  );
  relay.setRequestHandler(CallToolRequestSchema, async (request, extra) =>
    (await connected()).callTool(request.params, undefined, { signal: extra.signal, timeout: CALL_TIMEOUT_MS }),
  );
  const closed = new Promise<void>((resolve) => (relay.onclose = resolve));
  await relay.connect(new StdioServerTransport());
  process.stdin.once('end', () => void relay.close()); // the client went away
  await closed;
  const client = await (upstream as Promise<Client> | null)?.catch(() => null);
  await client?.close();
}
