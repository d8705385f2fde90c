/**
 * pedelec-elements/core — the framework-free Pedelec SDK, source-compatible with the public Pedelec
 * browser SDK. Node-safe: nothing here touches the DOM, `window` or `chrome` at import time.
 */
export { Pedelec } from './client.js';
export type { CreateSessionInput, ResumeSessionOptions } from './session-input.js';
export { PedelecSession } from './session.js';
export { defineTool } from './tools.js';
export { attachDenoModuleSources, defineDenoModule } from './deno-modules.js';
export type { AgentDenoModuleDefinition, DenoModuleDefinition, DenoModuleSources } from './deno-modules.js';
export { PedelecWorkspace } from './workspace.js';
export type { WorkspaceRunOptions, WorkspaceRunResult } from './workspace.js';
export type {
  GenericToolHandler,
  RenderToolResult,
  SerializableSkillsManifest,
  SerializableToolManifest,
  SkillsInput,
  ToolDefinition,
  ToolNameOf,
  ToolResultContext,
  ToolSpecificHandler,
} from './tools.js';
export { PEDELEC_EXTENSION_ID, PEDELEC_PROTOCOL_VERSION } from './bridge-port.js';
export type { BridgePort, PortEvent, PortFactory } from './bridge-port.js';
export { extensionTransport } from './transports/extension.js';
export { isPedelecError, normalizeError } from './errors.js';
export type { PedelecError, PedelecErrorCode } from './errors.js';
export type { JsonPrimitive, JsonValue } from './json.js';
export type * from './schema/types.js';
export type * from './types.js';
