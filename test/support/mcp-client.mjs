// An MCP client of either protocol era, as the tests use one: the 2.x SDK client pinned to
// 2026-07-28 (`modern`) or the 1.x SDK client (`legacy`, the 2025 era with sessions), over
// Streamable HTTP with a bearer token or over stdio (a command). The same few methods for both, so a
// test states a behaviour once and runs it in each era.
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';

export const MODERN = '2026-07-28';
export const ERAS = ['modern', 'legacy'];

/**
 * A connected client, closed when `t` ends. `to` is `{ url, token }` (HTTP) or `{ command, args }`
 * (stdio). Resolves `{ era, listTools(), callTool(params, signal?), watchTools(onChange), raw }`.
 */
export async function connectMcp(t, era, to, name = 'test-client') {
  const modern = era === 'modern';
  const transport = to.url
    ? new (modern ? ModernHttp : LegacyHttp)(new URL(to.url), {
        requestInit: { headers: { Authorization: `Bearer ${to.token}` } },
      })
    : new (modern ? ModernStdio : LegacyStdio)({ command: to.command, args: to.args, stderr: 'pipe' });
  const client = modern
    ? new ModernClient({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } })
    : new LegacyClient({ name, version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  if (modern && client.getNegotiatedProtocolVersion() !== MODERN)
    throw new Error(`expected protocol ${MODERN}, negotiated ${client.getNegotiatedProtocolVersion()}`);
  return {
    era,
    raw: client,
    listTools: () => client.listTools(),
    callTool: (params, signal) =>
      modern ? client.callTool(params, { signal }) : client.callTool(params, undefined, { signal }),
    /** Calls `onChange` at every tool-list change from now on (modern: over a `subscriptions/listen` stream). */
    async watchTools(onChange) {
      if (!modern) return client.setNotificationHandler(ToolListChangedNotificationSchema, onChange);
      client.setNotificationHandler('notifications/tools/list_changed', onChange);
      await client.listen({ toolsListChanged: true });
    },
  };
}
