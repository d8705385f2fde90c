/**
 * `pedelec-dev`'s command-line flags, each described once: {@link CLI_FLAGS} is what the parser accepts
 * (parse.ts) and what the usage line and `--help` print (help.ts), so no flag can be accepted without
 * being documented or documented without being accepted. A flag's own checks (a folder that must
 * exist, a URL) are here, beside it.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { MAX_TIMER_MS } from 'pedelec-elements/protocol';
import { DEV_AGENT_CODES } from '../agents/index.js';
import { loadScriptFile } from '../agents/script.js';
import { DEFAULT_ASSET_QUOTA_BYTES } from '../assets/quota.js';
import { DEFAULT_WORKSPACE_QUOTA_BYTES } from '../workspaces/workspace-store.js';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS } from '../bridge/registry.js';
import { APPROVAL_MODES } from '../inspector/approval.js';
import { DevCoreError } from '../errors.js';
import { PROTOCOL_NAMES } from '../bridge/protocol-profile.js';
import { DEFAULT_ORIGINS, parseOriginPattern } from '../http/security.js';
import { DEFAULT_PORT, type DevCoreOptions } from '../server.js';

/** The {@link DevCoreOptions} fields a value of type `T` can be written to as it is. */
type Fields<T> = {
  [K in keyof DevCoreOptions]-?: [T] extends [NonNullable<DevCoreOptions[K]>] ? K : never;
}[keyof DevCoreOptions];
/** The fields whose values are strings of some kind (a choice's values are checked, then written). */
type StringFields = {
  [K in keyof DevCoreOptions]-?: NonNullable<DevCoreOptions[K]> extends string ? K : never;
}[keyof DevCoreOptions];

/** Where a flag's checked value goes: a field as it is, or a conversion that may also refuse it. */
export type Target<T, F extends keyof DevCoreOptions> =
  { field: F; set?: undefined } | { set: (options: DevCoreOptions, value: T) => void; field?: undefined };

/** A flag that takes a value; `arg` names it in the usage line and in `--help` (`--port N`). */
type ValuedFlag =
  | ({ kind: 'string'; arg: string } & Target<string, Fields<string>>)
  | ({
      kind: 'integer';
      arg: string;
      min: number;
      max: number;
      /** What a bad number is told it should have been; by default "a whole number from min to max". */
      expected?: string;
    } & Target<number, Fields<number>>)
  /** Several values: repeated, comma-separated, or following the flag (`--allow-origin A B`). */
  | ({ kind: 'list'; arg: string } & Target<string[], Fields<string[]>>)
  | ({
      kind: 'choice';
      arg: string;
      values: readonly string[];
      /** What a bad choice is told it should have been; by default the values, "a, b or c". */
      expected?: string;
    } & Target<string, StringFields>);

export type CliFlag = {
  /** `port` for `--port`. */
  name: string;
  /** A one-letter alias, `-h`. */
  short?: string;
  /** Its line in `--help`, which adds the default and what it needs. */
  help: string;
  /** Shown in `--help`; the parser leaves the option out, and the Core applies its own default. */
  default?: string;
  /**
   * A flag it only makes sense with (given, or given this value — its default counts): otherwise
   * "--X needs --Y [value]: why". The flag named must come earlier in the table, so that a bad value
   * of it is reported as such rather than as this flag's missing prerequisite.
   */
  needs?: { flag: string; value?: string; why?: string };
  /** Also accepted by `pedelec-dev mcp`, which ignores `needs` (it has no --mcp to need). */
  stdio?: boolean;
} & (
  | { kind: 'boolean'; command: 'help' | 'version' }
  | ({ kind: 'boolean'; command?: undefined } & Target<true, Fields<true>>)
  | (ValuedFlag & { command?: undefined })
);

/** Values MCP calls may be approved with (`DevCoreOptions['mcpApproval']`). */
const MCP_APPROVAL_MODES: readonly NonNullable<DevCoreOptions['mcpApproval']>[] = ['auto', 'prompt'];

/** Every flag, in the order `--help` lists them and the parser checks them. */
export const CLI_FLAGS: readonly CliFlag[] = [
  {
    name: 'port',
    kind: 'integer',
    arg: 'N',
    min: 0,
    max: 65535,
    expected: 'a number from 0 to 65535',
    field: 'port',
    default: String(DEFAULT_PORT),
    stdio: true,
    help: 'port to listen on; 0 picks a free one',
  },
  {
    name: 'host',
    kind: 'string',
    arg: 'H',
    set: (options, host) => (options.host = nonBlank(host, '--host needs an address')),
    default: '127.0.0.1',
    help: 'address to bind; a non-loopback one needs --allow-remote',
  },
  {
    name: 'allow-remote',
    kind: 'boolean',
    field: 'allowRemote',
    help: 'allow a non-loopback --host (and accept it as a Host header)',
  },
  {
    name: 'allow-origin',
    kind: 'list',
    arg: 'URL',
    set: (options, origins) => {
      for (const origin of origins) parseOriginPattern(origin); // a typo fails now, not at the first connection
      options.allowOrigins = origins;
    },
    help:
      'also accept WebSocket clients from this origin (repeatable or comma-separated; the port may be *). ' +
      `Always allowed: ${DEFAULT_ORIGINS.join(', ')}`,
  },
  {
    name: 'allow-no-origin',
    kind: 'boolean',
    field: 'allowNoOrigin',
    help:
      'also accept /bridge clients that send no Origin: local scripts (the core SDK in Node with ws), never ' +
      'browsers, which always send one',
  },
  {
    name: 'agent',
    kind: 'choice',
    arg: 'NAME',
    values: DEV_AGENT_CODES,
    expected: `one of ${DEV_AGENT_CODES.join(', ')}`,
    field: 'agent',
    default: 'scripted',
    help: 'who answers: scripted, operator (you, in the inspector), openai',
  },
  {
    name: 'base-url',
    kind: 'string',
    arg: 'URL',
    set: (options, url) => setAgentEnv(options, { PEDELEC_DEV_BASE_URL: baseUrlOf(url) }),
    help:
      "the openai agent's OpenAI-compatible API base (sets PEDELEC_DEV_BASE_URL), e.g. " +
      'http://127.0.0.1:11434/v1 for Ollama',
  },
  {
    name: 'model',
    kind: 'string',
    arg: 'NAME',
    set: (options, model) => setAgentEnv(options, { PEDELEC_DEV_MODEL: nonBlank(model, '--model needs a model name') }),
    help: "the openai agent's model (sets PEDELEC_DEV_MODEL)",
  },
  {
    name: 'script',
    kind: 'string',
    arg: 'FILE',
    set: (options, file) => (options.script = loadScriptFile(resolve(file))),
    help: 'JSON rules for the scripted agent ({"rules":[{"match":{"regex":…},"steps":[…]}]})',
  },
  {
    name: 'serve',
    kind: 'string',
    arg: 'DIR',
    set: (options, dir) => (options.serveDir = folderOf('--serve', dir)),
    help:
      'serve DIR at /: every path but /bridge, /tools, /mcp and /_pedelec/… (where pedelec-dev serves the kit ' +
      'and the inspector); npm start serves demo/',
  },
  {
    name: 'approval',
    kind: 'choice',
    arg: 'MODE',
    values: APPROVAL_MODES,
    field: 'approval',
    default: 'auto',
    help: 'auto: allowed origins are approved; prompt: the inspector asks; deny: refused',
  },
  {
    name: 'strict-providers',
    kind: 'boolean',
    field: 'strictProviders',
    help: `refuse provider codes other than ${DEV_AGENT_CODES.join(', ')}`,
  },
  {
    name: 'protocol',
    kind: 'choice',
    arg: 'P',
    values: PROTOCOL_NAMES,
    field: 'protocol',
    default: 'current',
    help:
      "current: today's Pedelec protocol (session_snapshot, chat_message, operation_completed, operationId on " +
      'turn events); 0.1: the SDK 0.1 protocol',
  },
  {
    name: 'no-fragments',
    kind: 'boolean',
    set: (options) => (options.fragments = false),
    needs: { flag: 'protocol', value: 'current', why: 'a 0.1 page sees a reply only through its chat_delta fragments' },
    help: 'replies come as whole chat_message events only, no chat_delta, as from a provider that does not stream',
  },
  {
    name: 'core-statuses',
    kind: 'boolean',
    field: 'coreStatuses',
    needs: { flag: 'protocol', value: 'current', why: '0.1 sends no session_snapshot' },
    help:
      "session_snapshot in today's Core's spelling: status waitingToolResult, and pendingToolRequest as " +
      '{ requestId, threadId, operationId, toolName, args, createdAt, timeoutMs }; without it, ' +
      'waiting_tool_result and { toolRequestId, tool, args, operationId }',
  },
  {
    name: 'max-sessions',
    kind: 'integer',
    arg: 'N',
    min: 1,
    max: 100_000,
    field: 'maxSessions',
    default: String(DEFAULT_MAX_SESSIONS),
    help: 'at most N live sessions in all, and a tenth of that (rounded up) per origin',
  },
  {
    name: 'session-idle-ms',
    kind: 'integer',
    arg: 'N',
    min: 1,
    max: MAX_TIMER_MS,
    field: 'sessionIdleMs',
    default: String(DEFAULT_SESSION_IDLE_MS),
    help: 'end a session left with no page for N ms; it can be resumed until then',
  },
  {
    name: 'asset-quota-mb',
    kind: 'integer',
    arg: 'N',
    min: 1,
    max: 1_048_576,
    set: (options, mib) => (options.assetQuotaBytes = mib * 1024 * 1024),
    default: String(DEFAULT_ASSET_QUOTA_BYTES / (1024 * 1024)),
    help: "all sessions' assets together, at most N MiB on disk",
  },
  {
    name: 'workspace-root',
    kind: 'string',
    arg: 'DIR',
    set: (options, dir) => (options.workspaceRoot = resolve(dir)),
    default: 'pedelec-dev/workspaces in your data folder',
    help: 'pages may open workspace folders inside DIR (DIR itself too); made when first used',
  },
  {
    name: 'workspace',
    kind: 'string',
    arg: 'DIR',
    set: (options, dir) => (options.workspace = folderOf('--workspace', dir)),
    help: 'the folder the user picks when a page opens a workspace without a path (else the inspector asks)',
  },
  {
    name: 'workspace-quota-mb',
    kind: 'integer',
    arg: 'N',
    min: 1,
    max: 1_048_576,
    set: (options, mib) => (options.workspaceQuotaBytes = mib * 1024 * 1024),
    default: String(DEFAULT_WORKSPACE_QUOTA_BYTES / (1024 * 1024)),
    help: 'what pages upload into workspaces, at most N MiB in all',
  },
  {
    name: 'deno',
    kind: 'string',
    arg: 'FILE',
    set: (options, file) => (options.deno = resolve(file)),
    help: 'the Deno that runs workspace scripts (default: the one installed with pedelec-dev, else deno on PATH)',
  },
  {
    name: 'mcp',
    kind: 'boolean',
    field: 'mcp',
    help:
      'MCP on: pages link their tools at /tools (<pedelec-session mcp="ws://…/tools">) and MCP clients call them ' +
      'at /mcp with the bearer token printed at start',
  },
  {
    name: 'mcp-approval',
    kind: 'choice',
    arg: 'M',
    values: MCP_APPROVAL_MODES,
    field: 'mcpApproval',
    default: 'auto',
    needs: { flag: 'mcp' },
    help:
      "auto: MCP calls run at once (a consequential tool's once the MCP client's user approves); " +
      "prompt: each waits for your click in the inspector, unless the client's user approved it",
  },
  {
    name: 'mcp-open-links',
    kind: 'boolean',
    field: 'mcpOpenLinks',
    needs: { flag: 'mcp' },
    help: 'pages link their tools without the link key (for a machine only you use)',
  },
  {
    name: 'mcp-token-file',
    kind: 'string',
    arg: 'F',
    set: (options, file) => (options.mcpTokenFile = resolve(file)),
    default: '~/.pedelec-dev/<port>.token',
    needs: { flag: 'mcp' },
    stdio: true,
    help: 'where the MCP token is kept, readable by you only, and reused at the next start',
  },
  { name: 'help', short: 'h', kind: 'boolean', command: 'help', stdio: true, help: 'show this help' },
  { name: 'version', short: 'v', kind: 'boolean', command: 'version', help: 'print the version' },
];

/** Widest line of `--help`'s flag list, as the prose around it. */

/** The flags `pedelec-dev mcp` takes. */
export const STDIO_FLAGS = CLI_FLAGS.filter((flag) => flag.stdio);

function nonBlank(text: string, message: string): string {
  if (text.trim() === '') fail(message);
  return text;
}

function baseUrlOf(text: string): string {
  let url: URL | null = null;
  try {
    url = new URL(text);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    fail('--base-url: expected an http:// or https:// URL, e.g. http://127.0.0.1:11434/v1');
  if (url.username !== '' || url.password !== '')
    fail('--base-url: must not contain a user name or password; put the key in PEDELEC_DEV_API_KEY');
  return text;
}

/** The openai agent reads its configuration from the environment: the flags override those variables. */
function setAgentEnv(options: DevCoreOptions, variables: Record<string, string>): void {
  // For this process's Core only: process.env itself is left alone.
  options.env = { ...(options.env ?? process.env), ...variables };
}

function folderOf(flag: string, text: string): string {
  const dir = resolve(text);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // reported below
  }
  if (!isDir) fail(`${flag} ${text}: not a folder`);
  return dir;
}

/** A mistake in the arguments (the parser adds the usage line). */
export function fail(message: string): never {
  throw new DevCoreError('INVALID_OPTION', message);
}
