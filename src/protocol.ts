/**
 * pedelec-elements/protocol — what both ends of the bridge must agree on, for a Core written beside the
 * kit (`pedelec-dev` is one): the args-schema validator that decides which tool calls are valid, the
 * protocol's message names, limits and close codes, error values, a call's answer as an MCP
 * `CallToolResult` (as the page's WebMCP tools give it), the one definition of "this machine", and the
 * MCP page link's contract with the page's client of it. Node-safe, no DOM. Not part of the Pedelec
 * SDK's API: it follows the kit's version exactly, and `pedelec-dev` depends on that same version.
 */
export {
  analyzeArgsSchema,
  argsError,
  argsMessage,
  compileArgsValidator,
  MAX_SCHEMA_DEPTH,
} from './core/schema/compile.js';
export type { ArgsError, ArgsValidator, SchemaProblem } from './core/schema/compile.js';
export { appendKey, isPlainObject } from './core/json.js';
export { pedelecError } from './core/errors.js';
export { isModuleName, isWorkspacePath } from './core/workspace-names.js';
export { APPROVAL_HELD_REQUESTS, DEFAULT_TOOL_TIMEOUT_MS, MAX_TIMER_MS } from './core/bridge-port.js';
export { ORIGIN_REFUSED_CLOSE_CODE } from './core/transports/websocket.js';
export { BRIDGE_EVENT_TYPES, BRIDGE_NOTIFICATION_TYPES, BRIDGE_REQUEST_TYPES } from './core/bridge-messages.js';
export type {
  BridgeEventType,
  BridgeInboundType,
  BridgeNotificationType,
  BridgeRequestType,
  BridgeResponseType,
} from './core/bridge-messages.js';
export { callToolResult } from './core/call-tool-result.js';
export type { CallToolResult } from './core/call-tool-result.js';
export {
  answerOf,
  isLinkRefusal,
  LINK_KEY_PATH,
  LINK_REFUSED_CLOSE_CODE,
  PAGE_LINK_VERSION,
  readServerFrame,
  resultFrame,
} from './core/page-link-contract.js';
export type {
  CallAnswer,
  CallFrame,
  CancelFrame,
  HelloFrame,
  LinkApprover,
  PageLinkFrame,
  PageTool,
  ResultFrame,
  ServerLinkFrame,
  ToolsFrame,
} from './core/page-link-contract.js';
export { LINK_RETRY_MS, PageLinkClient } from './core/page-link-client.js';
export type { HelloFields, LinkSocket, LinkSocketFactory, PageLinkHandler } from './core/page-link-client.js';
export { isLoopbackHost } from './core/loopback.js';
