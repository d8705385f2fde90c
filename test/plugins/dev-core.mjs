// A web-test-runner plugin that runs the development Core (`pedelec-dev`) beside the browser tests
// (docs/design/toolchain.md: start it in serverStart, stop it in serverStop, serve a tiny module with the ports).
//
// Five Cores, all in process on free loopback ports (port 0), all allowing the test server's origin:
// - `main`: the default scripted agent, as `npx pedelec-dev` runs it (today's protocol);
// - `rules`: the scripted agent with a `--script` rules document (SCRIPT_RULES below);
// - `restartable`: closed and started again on the same port by `GET /__pedelec-dev/restart`, which
//   drops every connection it had (there is no way to drop a single one);
// - `legacy`: the 0.1 protocol (`--protocol 0.1`), as a 0.1.x extension speaks it;
// - `whole`: today's protocol from a provider that does not stream (`--no-fragments`): replies arrive
//   only as whole `chat_message`s, never as `chat_delta`.
// - `mcp`: MCP on (`--mcp`): pages link their tools on `/tools`; `GET /__pedelec-dev/mcp?tool=…&args=…`
//   calls one through the official MCP SDK client over `/mcp` (no `tool`: lists them) and answers
//   what the client received.
// Plus `closedPort`: a loopback port that was free a moment ago and that nothing listens on.
//
// The test server also serves the kit's cdn/ folder at `/_pedelec/cdn/`, where pedelec-dev serves it
// (its reserved prefix), so the demo pages load here as they do under `npm start`.
//
// Tests read all of this from the virtual module `/__pedelec-dev.js`. `GET /__pedelec-dev/connections`
// tells which bridge connection of the `main` Core carries each live session and which connections
// are open — read from the Core's own inspector feed (the same one the inspector page shows).
//
// The Core runs from its TypeScript sources (through tsx, with test/tsconfig.json's `paths` sending
// `pedelec-elements/*` to the kit's src/), so the element tests need no build.
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tsImport } from 'tsx/esm/api';
import { WebSocket } from 'ws';
import { testTsconfig } from '../../scripts/test-tiers.mjs';

const sourceModule = (path) =>
  tsImport(new URL(`../../packages/pedelec-dev/src/${path}`, import.meta.url).href, {
    parentURL: import.meta.url,
    tsconfig: testTsconfig,
  });
const cdnFolder = new URL('../../cdn/', import.meta.url);
const KIT_PREFIX = '/_pedelec/cdn/';

/** How many tool calls the `bench` rule makes in one turn: 1 000 round trips to measure, plus one to start the clock. */
export const BENCH_CALLS = 1001;

/** The `rules` Core's `--script` document (the JSON format of dev-core.md). */
export const SCRIPT_RULES = {
  rules: [
    {
      match: { regex: '^count$' },
      steps: [{ say: 'Counting…' }, { call: 'update_counter', args: { delta: 1 } }, { say: 'Now {{result.value}}' }],
    },
    {
      match: { regex: '^add (-?\\d+) and (-?\\d+)$' },
      steps: [
        { call: 'update_counter', args: { delta: 1 } },
        { call: 'update_counter', args: { delta: 2 } },
        { say: 'You said "{{match.0}}"; the counter went {{results.0.value}} then {{results.1.value}}.' },
      ],
    },
    {
      match: { regex: '^bench$' },
      steps: [
        ...Array.from({ length: BENCH_CALLS }, () => ({ call: 'ping', args: {} })),
        { say: 'bench done, last {{result.n}}' },
      ],
    },
  ],
};

/** A loopback port nothing listens on (free a moment ago; the OS does not hand it out again at once). */
function closedLoopbackPort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Follows the Core's inspector feed: which connection carries which session, which connections are open. */
function watchConnections(core) {
  const bySession = new Map();
  const open = new Set();
  const closed = new Set();
  const onEntry = (entry) => {
    if (entry.dir === 'info') {
      if (entry.text.startsWith('connected')) open.add(entry.connectionId);
      else if (entry.text.startsWith('closed')) {
        open.delete(entry.connectionId);
        closed.add(entry.connectionId);
      }
    } else if (entry.sessionId && !bySession.has(entry.sessionId)) {
      bySession.set(entry.sessionId, entry.connectionId);
    } else if (entry.dir === 'out' && entry.type === 'response') {
      // The create_session response names its session only inside `result`.
      try {
        const sessionId = JSON.parse(entry.text)?.result?.sessionId;
        if (typeof sessionId === 'string' && !bySession.has(sessionId)) bySession.set(sessionId, entry.connectionId);
      } catch {
        /* a truncated entry: the session's events name it anyway */
      }
    }
  };
  const socket = new WebSocket(
    `${core.url.replace(/^http/, 'ws')}/_pedelec/inspector/socket?token=${core.inspectorToken}`,
    {
      origin: core.url,
    },
  );
  const ready = new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.type === 'hello') {
        for (const entry of message.log) onEntry(entry);
        resolve();
      } else if (message.type === 'log') onEntry(message.entry);
    });
  });
  socket.on('error', () => {});
  return {
    ready,
    snapshot(sessionIds) {
      return {
        sessions: Object.fromEntries(sessionIds.map((id) => [id, bySession.get(id) ?? null])),
        open: [...open],
      };
    },
    close: () => socket.terminate(),
  };
}

/** The official MCP SDK client, over Streamable HTTP with the Core's bearer token. */
async function connectMcpClient(core) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const client = new Client({ name: 'browser-tests', version: '1.0.0' });
  const headers = { Authorization: `Bearer ${core.mcpToken}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(core.mcpUrl), { requestInit: { headers } }));
  return client;
}

/**
 * @param {{ log?: (message: string) => void }} [options]
 * @returns {import('@web/dev-server-core').Plugin}
 */
export function devCorePlugin(options = {}) {
  let startDevCore;
  let parseScript;
  let allowOrigins = [];
  const cores = {};
  let watcher = null;
  let closedPort = 0;
  let restarting = Promise.resolve();
  /** The MCP client of `/__pedelec-dev/mcp`, connected on first use. */
  let mcpClient = null;

  const start = (extra = {}) =>
    startDevCore({
      port: 0,
      host: '127.0.0.1',
      allowOrigins,
      onBug: (e) => console.error('pedelec-dev (tests): bug:', e),
      ...extra,
    });

  return {
    name: 'pedelec-dev',

    async serverStart({ config }) {
      ({ startDevCore } = await sourceModule('server.ts'));
      ({ parseScript } = await sourceModule('agents/script.ts'));
      const scheme = config.http2 ? 'https' : 'http';
      const hostname =
        !config.hostname || config.hostname === '0.0.0.0' || config.hostname === '::' ? 'localhost' : config.hostname;
      allowOrigins = [`${scheme}://${hostname.includes(':') ? `[${hostname}]` : hostname}:${config.port ?? 8000}`];
      cores.main = await start();
      cores.rules = await start({ script: parseScript(SCRIPT_RULES, 'test rules') });
      cores.restartable = await start();
      cores.legacy = await start({ protocol: '0.1' });
      cores.whole = await start({ fragments: false });
      cores.mcp = await start({ mcp: true });
      closedPort = await closedLoopbackPort();
      watcher = watchConnections(cores.main);
      await watcher.ready;
      options.log?.(
        `pedelec-dev for the browser tests: ${cores.main.url} (rules ${cores.rules.url}, restartable ${cores.restartable.url}, ` +
          `legacy ${cores.legacy.url}, whole ${cores.whole.url})`,
      );
    },

    async serverStop() {
      watcher?.close();
      await mcpClient?.then((client) => client.close()).catch(() => {});
      await restarting.catch(() => {});
      await Promise.all(Object.values(cores).map((core) => core.close()));
    },

    async serve(context) {
      if (context.path.startsWith(KIT_PREFIX)) {
        // A plain file name of the cdn/ folder, nothing else (no folders, no dotfiles).
        const name = context.path.slice(KIT_PREFIX.length);
        const file = new URL(name, cdnFolder);
        if (!/^[\w-][\w.-]*\.js$/.test(name) || !existsSync(file)) return undefined;
        return { body: readFileSync(file, 'utf8'), type: 'js' };
      }
      if (context.path === '/__pedelec-dev.js') {
        const describe = (core) => ({ url: core.url, bridgeUrl: core.bridgeUrl, port: core.port });
        const info = {
          ...describe(cores.main),
          rules: describe(cores.rules),
          restartable: describe(cores.restartable),
          legacy: describe(cores.legacy),
          whole: describe(cores.whole),
          mcp: { ...describe(cores.mcp), toolsUrl: cores.mcp.toolsUrl, linkKey: cores.mcp.mcpLinkKey },
          closedPort,
          benchCalls: BENCH_CALLS,
        };
        return {
          body: `export const devCore = ${JSON.stringify(info)};\nexport default devCore;\n`,
          type: 'js',
          headers: { 'cache-control': 'no-store' },
        };
      }
      if (context.path === '/__pedelec-dev/connections') {
        const ids = (context.query.sessions ?? '').split(',').filter(Boolean);
        return { body: JSON.stringify(watcher.snapshot(ids)), type: 'json', headers: { 'cache-control': 'no-store' } };
      }
      if (context.path === '/__pedelec-dev/mcp') {
        mcpClient ??= connectMcpClient(cores.mcp);
        const client = await mcpClient;
        const { tool, args } = context.query;
        const answer = tool
          ? await client.callTool({ name: tool, arguments: JSON.parse(args ?? '{}') })
          : await client.listTools();
        return { body: JSON.stringify(answer), type: 'json', headers: { 'cache-control': 'no-store' } };
      }
      if (context.path === '/__pedelec-dev/restart') {
        // Close the restartable Core (its pages get `ended`, then their socket closes) and start a
        // fresh one on the same port, so a page's restart() can reconnect.
        const run = restarting.then(async () => {
          const { port } = cores.restartable;
          await cores.restartable.close();
          cores.restartable = await start({ port });
        });
        restarting = run.catch(() => {});
        await run;
        return {
          body: JSON.stringify({ port: cores.restartable.port }),
          type: 'json',
          headers: { 'cache-control': 'no-store' },
        };
      }
      return undefined;
    },
  };
}

export default devCorePlugin;
