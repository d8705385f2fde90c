/**
 * The CDN entry: every element registered, Lit bundled in (see rollup.config.mjs). `<pedelec-chat>` is
 * defined when the page first uses it (define/lazy-chat.ts): its code, with Lit's templates, is a chunk
 * beside this file that pages without a chat never download. So its class is not exported here: it is
 * `customElements.get('pedelec-chat')` once defined.
 */
import './define/pedelec-session.js';
import './define/pedelec-tool.js';
import './define/pedelec-arg.js';
import './define/pedelec-guidance.js';
import { loadChatWhenUsed } from './define/lazy-chat.js';

loadChatWhenUsed();

export * from './core/index.js';
export * from './events/index.js';
export {
  PedelecSessionElement,
  PedelecToolElement,
  PedelecArgElement,
  PedelecGuidanceElement,
  SESSION_TAG,
  TOOL_TAG,
  ARG_TAG,
  GUIDANCE_TAG,
  CHAT_TAG,
  type InvokeResult,
  type PedelecElementStatus,
  type ToolDeclaration,
} from './elements/index.js';
