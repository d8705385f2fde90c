/**
 * The development Core as a library: start it in process (tests, tooling) with {@link startDevCore}.
 * The `pedelec-dev` command (cli.ts) is a thin wrapper around the same function.
 */
export { startDevCore, DEFAULT_PORT, MAX_FRAME_BYTES, type DevCore, type DevCoreOptions } from './server.js';
export type { McpOpen } from './mcp/mcp-endpoint.js';
export { RESERVED_PREFIX } from './http/http-routes.js';
export { parseCli } from './cli/parse.js';
export { USAGE } from './cli/help.js';
export { DevCoreError } from './errors.js';
export { PROTOCOL_NAMES, type ProtocolName } from './bridge/protocol-profile.js';
export { loadScriptFile, parseScript, type ScriptRules } from './agents/script.js';
export { AgentError, DEV_AGENT_CODES, OperatorDesk } from './agents/index.js';
export type {
  AgentSession,
  AgentSessionInfo,
  ArtifactKind,
  DevAgent,
  PublishedArtifact,
  TurnContext,
} from './agents/types.js';
export { pieces } from './agents/stream.js';
