/**
 * `pedelec-dev` command-line flags → {@link DevCoreOptions}. Every mistake is a `DevCoreError` with a
 * message fit to print as is, so the CLI can fail at start instead of misbehaving later.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { MAX_TIMER_MS } from 'pedelec-elements/protocol';
import { DEV_AGENT_CODES } from './agents/index.js';
import { loadScriptFile } from './agents/script.js';
import { APPROVAL_MODES, type ApprovalMode } from './inspector/approval.js';
import { DevCoreError } from './errors.js';
import { PROTOCOL_NAMES, type ProtocolName } from './bridge/protocol-profile.js';
import { parseOriginPattern } from './http/security.js';
import type { DevCoreOptions } from './server.js';

export const USAGE =
  'Usage: pedelec-dev [--port N] [--host 127.0.0.1] [--allow-remote] [--allow-origin URL…] [--allow-no-origin] ' +
  '[--agent scripted|operator|openai] [--base-url URL] [--model NAME] [--script FILE] [--serve DIR] [--approval auto|prompt|deny] ' +
  '[--strict-providers] [--protocol current|0.1] [--no-fragments] [--core-statuses] [--max-sessions N] [--session-idle-ms N] [--asset-quota-mb N] [--mcp] [--mcp-token-file F] [--mcp-approval auto|prompt]\n' +
  '       pedelec-dev mcp [--port N] [--mcp-token-file F]';

export const HELP = `${USAGE}

The development Core for pedelec-elements: speaks the Pedelec bridge protocol over WebSocket at
/bridge, so <pedelec-session bridge="ws://127.0.0.1:7717/bridge"> works without the extension. It
speaks today's protocol (as the current extension and Desktop do) unless --protocol 0.1 is given.

  --port N            port to listen on (default 7717; 0 picks a free one)
  --host H            address to bind (default 127.0.0.1; non-loopback needs --allow-remote)
  --allow-remote      allow a non-loopback --host (and accept it as a Host header)
  --allow-origin URL  also accept WebSocket clients from this origin (repeatable or comma-separated;
                      the port may be *). Always allowed: http://localhost:*, http://127.0.0.1:*
  --allow-no-origin   also accept /bridge clients that send no Origin: local scripts (the core SDK
                      in Node with ws), never browsers, which always send one
  --agent NAME        who answers: scripted (default), operator (you, in the inspector), openai
  --base-url URL      the openai agent's OpenAI-compatible API base (sets PEDELEC_DEV_BASE_URL),
                      e.g. http://127.0.0.1:11434/v1 for Ollama
  --model NAME        the openai agent's model (sets PEDELEC_DEV_MODEL)
  --script FILE       JSON rules for the scripted agent ({"rules":[{"match":{"regex":…},"steps":[…]}]})
  --serve DIR         serve DIR at /: every path but /bridge, /tools, /mcp and /_pedelec/… (where
                      pedelec-dev serves the kit and the inspector); npm start serves demo/
  --approval MODE     auto (default): allowed origins are approved; prompt: the inspector asks; deny
  --strict-providers  refuse provider codes other than scripted, operator, openai
  --protocol P        current (default): today's Pedelec protocol (session_snapshot, chat_message,
                      operation_completed, operationId on turn events); 0.1: the SDK 0.1 protocol
  --no-fragments      replies come as whole chat_message events only, no chat_delta (a provider that
                      does not stream); needs --protocol current
  --core-statuses     session_snapshot in today's Core's spelling: status waitingToolResult, and
                      pendingToolRequest as { requestId, threadId, operationId, toolName, args,
                      createdAt, timeoutMs }; without it, waiting_tool_result and { toolRequestId,
                      tool, args, operationId }; needs --protocol current
  --max-sessions N    at most N live sessions in all (default 200), a tenth of that per origin (20)
  --session-idle-ms N end a session left with no page for N ms (default 600000; resumable until then)
  --asset-quota-mb N  all sessions' assets together, at most N MiB on disk (default 1024)
  --mcp               MCP on: pages link their tools at /tools (<pedelec-session mcp="ws://…/tools">)
                      and MCP clients call them at /mcp with the bearer token printed at start
  --mcp-token-file F  where that token is kept, readable by you only, and reused at the next start
                      (default ~/.pedelec-dev/<port>.token)
  --mcp-approval M    auto (default): MCP calls run at once; prompt: each waits for your click in
                      the inspector
  -h, --help          show this help
  -v, --version       print the version

pedelec-dev mcp [--port N] [--mcp-token-file F] speaks MCP over stdio, for clients that start a
command: it relays to the pedelec-dev --mcp running on port N (default 7717), with the token from
its token file.

The kit is served at /_pedelec/cdn/pedelec-elements.js (its chunks beside it) and /_pedelec/dist/…
with Access-Control-Allow-Origin: *, so a page from another origin — a Vite dev server at
http://localhost:5173, say — can load it: <script type="module"
src="http://127.0.0.1:7717/_pedelec/cdn/pedelec-elements.js">.

The openai agent's API key is read only from the environment variable PEDELEC_DEV_API_KEY (there is
no flag, so it never shows in the process list); it is sent to the endpoint and nowhere else.
PEDELEC_DEV_TIMEOUT_MS (default 60000) bounds how long the endpoint may stay silent.`;

export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'start'; options: DevCoreOptions }
  | { kind: 'stdio'; port: number; tokenFile?: string };

function fail(message: string): never {
  throw new DevCoreError('INVALID_OPTION', `${message}\n${USAGE}`);
}

/** A whole number from 1 to `max`, or a clear error naming the flag. */
function positiveInteger(flag: string, text: string, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > max)
    fail(`${flag} ${text}: expected a whole number from 1 to ${max}`);
  return value;
}

/** `--allow-origin A B` (the documented `URL…` form) → `--allow-origin A --allow-origin B`. */
function expandOrigins(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    out.push(argv[i]);
    if (argv[i] !== '--allow-origin') continue;
    let first = true;
    while (i + 1 < argv.length && !argv[i + 1].startsWith('-')) {
      if (!first) out.push('--allow-origin');
      out.push(argv[++i]);
      first = false;
    }
  }
  return out;
}

/** `--port N`: 0…65535, or a clear error. */
function portOf(text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) fail(`--port ${text}: expected a number from 0 to 65535`);
  return Number(text);
}

/** `pedelec-dev mcp [--port N] [--mcp-token-file F]`. */
function parseStdio(argv: readonly string[]): CliCommand {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        'mcp-token-file': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) return { kind: 'help' };
  const port = values.port === undefined ? 7717 : portOf(values.port);
  if (port === 0) fail('pedelec-dev mcp --port: the port of the running pedelec-dev --mcp, not 0');
  const tokenFile = values['mcp-token-file'];
  return tokenFile === undefined ? { kind: 'stdio', port } : { kind: 'stdio', port, tokenFile: resolve(tokenFile) };
}

export function parseCli(argv: readonly string[]): CliCommand {
  if (argv[0] === 'mcp') return parseStdio(argv.slice(1));
  let parsed;
  try {
    parsed = parseArgs({
      args: expandOrigins(argv),
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'allow-remote': { type: 'boolean' },
        'allow-origin': { type: 'string', multiple: true },
        agent: { type: 'string' },
        'base-url': { type: 'string' },
        model: { type: 'string' },
        script: { type: 'string' },
        serve: { type: 'string' },
        approval: { type: 'string' },
        'strict-providers': { type: 'boolean' },
        protocol: { type: 'string' },
        'no-fragments': { type: 'boolean' },
        'core-statuses': { type: 'boolean' },
        'allow-no-origin': { type: 'boolean' },
        'max-sessions': { type: 'string' },
        'session-idle-ms': { type: 'string' },
        'asset-quota-mb': { type: 'string' },
        mcp: { type: 'boolean' },
        'mcp-token-file': { type: 'string' },
        'mcp-approval': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (error) {
    fail((error as Error).message);
  }
  const v = parsed.values;
  if (v.help) return { kind: 'help' };
  if (v.version) return { kind: 'version' };

  const options: DevCoreOptions = {};
  if (v.port !== undefined) options.port = portOf(v.port);
  if (v.host !== undefined) {
    if (v.host.trim() === '') fail('--host needs an address');
    options.host = v.host;
  }
  if (v['allow-remote']) options.allowRemote = true;
  if (v['allow-no-origin']) options.allowNoOrigin = true;
  if (v['allow-origin']) {
    const list = v['allow-origin']
      .flatMap((item) => item.split(','))
      .map((item) => item.trim())
      .filter(Boolean);
    for (const item of list) parseOriginPattern(item); // a typo fails now, not at the first connection
    options.allowOrigins = list;
  }
  if (v.agent !== undefined) {
    if (!DEV_AGENT_CODES.includes(v.agent)) fail(`--agent ${v.agent}: expected one of ${DEV_AGENT_CODES.join(', ')}`);
    options.agent = v.agent;
  }
  // The openai agent reads its configuration from the environment; the flags override those variables
  // (only for this process's Core, process.env itself is left alone).
  const agentEnv: Record<string, string> = {};
  if (v['base-url'] !== undefined) {
    let url: URL | null = null;
    try {
      url = new URL(v['base-url']);
    } catch {
      // reported below
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      fail('--base-url: expected an http:// or https:// URL, e.g. http://127.0.0.1:11434/v1');
    if (url.username !== '' || url.password !== '')
      fail('--base-url: must not contain a user name or password; put the key in PEDELEC_DEV_API_KEY');
    agentEnv.PEDELEC_DEV_BASE_URL = v['base-url'];
  }
  if (v.model !== undefined) {
    if (v.model.trim() === '') fail('--model needs a model name');
    agentEnv.PEDELEC_DEV_MODEL = v.model;
  }
  if (Object.keys(agentEnv).length > 0) options.env = { ...process.env, ...agentEnv };
  if (v.script !== undefined) options.script = loadScriptFile(resolve(v.script));
  if (v.serve !== undefined) {
    const dir = resolve(v.serve);
    let isDir = false;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      // reported below
    }
    if (!isDir) fail(`--serve ${v.serve}: not a folder`);
    options.serveDir = dir;
  }
  if (v.approval !== undefined) {
    if (!(APPROVAL_MODES as readonly string[]).includes(v.approval))
      fail(`--approval ${v.approval}: expected auto, prompt or deny`);
    options.approval = v.approval as ApprovalMode;
  }
  if (v['strict-providers']) options.strictProviders = true;
  if (v.protocol !== undefined) {
    if (!(PROTOCOL_NAMES as readonly string[]).includes(v.protocol))
      fail(`--protocol ${v.protocol}: expected ${PROTOCOL_NAMES.join(' or ')}`);
    options.protocol = v.protocol as ProtocolName;
  }
  if (v['no-fragments']) {
    if (options.protocol === '0.1')
      fail('--no-fragments needs --protocol current: a 0.1 page sees a reply only through its chat_delta fragments');
    options.fragments = false;
  }
  if (v['core-statuses']) {
    if (options.protocol === '0.1') fail('--core-statuses needs --protocol current: 0.1 sends no session_snapshot');
    options.coreStatuses = true;
  }
  if (v['max-sessions'] !== undefined)
    options.maxSessions = positiveInteger('--max-sessions', v['max-sessions'], 100_000);
  if (v['session-idle-ms'] !== undefined)
    options.sessionIdleMs = positiveInteger('--session-idle-ms', v['session-idle-ms'], MAX_TIMER_MS);
  if (v['asset-quota-mb'] !== undefined)
    options.assetQuotaBytes = positiveInteger('--asset-quota-mb', v['asset-quota-mb'], 1_048_576) * 1024 * 1024;
  if (v.mcp) options.mcp = true;
  if (v['mcp-approval'] !== undefined) {
    if (!v.mcp) fail('--mcp-approval needs --mcp');
    if (v['mcp-approval'] !== 'auto' && v['mcp-approval'] !== 'prompt')
      fail(`--mcp-approval ${v['mcp-approval']}: expected auto or prompt`);
    options.mcpApproval = v['mcp-approval'];
  }
  if (v['mcp-token-file'] !== undefined) {
    if (!v.mcp) fail('--mcp-token-file needs --mcp');
    options.mcpTokenFile = resolve(v['mcp-token-file']);
  }
  return { kind: 'start', options };
}
