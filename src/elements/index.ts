export { PedelecSessionElement } from './session/pedelec-session.element.js';
export type { InvokeResult } from './session/session-parts.js';
export type { PedelecElementStatus } from './session/status.js';
export { PedelecToolElement, type ToolDeclaration } from './tool/pedelec-tool.element.js';
export { PedelecArgElement } from './arg/pedelec-arg.element.js';
export { PedelecGuidanceElement } from './guidance/pedelec-guidance.element.js';
export { SESSION_TAG, TOOL_TAG, ARG_TAG, GUIDANCE_TAG, CHAT_TAG } from './tags.js';
export { PedelecChatElement, type RenderMarkdown } from './chat/pedelec-chat.element.js';
export type { ArtifactTools, RenderArtifact } from './chat/artifact-row.js';
