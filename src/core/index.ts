/**
 * pedelec-elements/core — the framework-free Pedelec SDK, source-compatible with the public Pedelec
 * browser SDK. Node-safe: nothing here touches the DOM, `window` or `chrome` at import time.
 */
export { Pedelec } from './client.js';
export type { CreateSessionInput, ResumeSessionOptions } from './client.js';
export { PedelecSession, isAssetPath } from './session.js';
export { defineTool, normalizeSkills, Toolbox, TOOL_NAME_PATTERN } from './tools.js';
export type {
  GenericToolHandler,
  NormalizedSkills,
  NormalizedTool,
  SerializableSkillsManifest,
  SerializableToolManifest,
  SkillsInput,
  ToolCall,
  ToolDefinition,
  ToolNameOf,
  ToolOutcome,
  ToolSpecificHandler,
  ToolboxHooks,
} from './tools.js';
export { PEDELEC_EXTENSION_ID, PEDELEC_PROTOCOL_VERSION, PORT_NAME } from './protocol.js';
export type { BridgePort, PortEvent, PortFactory } from './protocol.js';
export { extensionTransport } from './transports/extension.js';
export { isPedelecError, normalizeError, pedelecError } from './errors.js';
export type { PedelecError } from './errors.js';
export { toBridgeJson } from './json.js';
export type { JsonPrimitive, JsonValue } from './json.js';
export type * from './schema/types.js';
export type * from './types.js';
