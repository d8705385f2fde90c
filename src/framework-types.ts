/**
 * What a template may bind on each element — attributes, properties and events — written once for
 * every framework's typings (`pedelec-elements/react`, `pedelec-elements/vue`). Types only.
 *
 * Attributes keep their kebab-case names (`timeout-ms`); where the element also has a writable
 * property of that name in camelCase (`timeoutMs`), both are listed. Read-only properties (`status`,
 * `sessionId`, `definition`…) are not bindable and are left out on purpose.
 */
import type { PedelecChatElement, PedelecSessionElement, PedelecToolElement } from './elements/index.js';
import type {
  PedelecArtifactEvent,
  PedelecChatDeltaEvent,
  PedelecChatMessageEvent,
  PedelecEndedEvent,
  PedelecErrorEvent,
  PedelecReadyEvent,
  PedelecStatusEvent,
  PedelecToolCallEvent,
  PedelecToolResultEvent,
  PedelecToolStartEvent,
  PedelecToolsChangedEvent,
  PedelecTurnEvent,
  PedelecUsageEvent,
  PedelecWarningEvent,
} from './events/index.js';

/** `<pedelec-session>`: inputs only (the element never writes them). */
export interface PedelecSessionProps {
  provider?: string;
  model?: string;
  guidance?: string;
  /** From script any `ws:`/`wss:` URL; as an attribute, loopback hosts only. */
  bridge?: string;
  'extension-id'?: string;
  extensionId?: string;
  'bridge-timeout-ms'?: number | string;
  bridgeTimeoutMs?: number;
  autostart?: boolean;
  persist?: boolean;
  /** An existing session to resume (the `sessionId` property is read-only: it is the session's own id). */
  'resume-id'?: string;
  resumeId?: string;
  novalidate?: boolean;
  noValidate?: boolean;
  debug?: boolean;
  /** Also offer the tools to the browser's own agent (WebMCP): `expose` (empty means `expose`), `import` (reserved). */
  webmcp?: string | boolean | null;
  /** Origins an embedded page's WebMCP tools are shown to: a property only (markup cannot set it). */
  exposedTo?: readonly string[];
  /** Extra JS-defined tools, merged after the declared ones. */
  tools?: PedelecSessionElement['tools'];
  /** Generic handler for calls nothing else answers. */
  fallback?: PedelecSessionElement['fallback'];
}

/** Events fired on (or bubbling through) `<pedelec-session>`. */
export interface PedelecSessionEvents {
  'pedelec-tool-call': PedelecToolCallEvent;
  'pedelec-tool-start': PedelecToolStartEvent;
  'pedelec-tool-result': PedelecToolResultEvent;
  'pedelec-turn': PedelecTurnEvent;
  'pedelec-ready': PedelecReadyEvent;
  'pedelec-status': PedelecStatusEvent;
  'pedelec-chat-delta': PedelecChatDeltaEvent;
  'pedelec-chat-message': PedelecChatMessageEvent;
  'pedelec-usage': PedelecUsageEvent;
  'pedelec-artifact': PedelecArtifactEvent;
  'pedelec-error': PedelecErrorEvent;
  'pedelec-ended': PedelecEndedEvent;
  'pedelec-tools-changed': PedelecToolsChangedEvent;
  'pedelec-warning': PedelecWarningEvent;
}

/** `<pedelec-tool>`. */
export interface PedelecToolProps {
  name?: string;
  description?: string;
  'timeout-ms'?: number | string;
  timeoutMs?: number;
  /** The args schema as JSON text. */
  schema?: string;
  disabled?: boolean;
  /** A human-readable name for foreign agents (WebMCP); never sent to Pedelec. */
  title?: string;
  /** Tells foreign agents (WebMCP) the tool changes nothing. */
  'read-only'?: boolean;
  readOnly?: boolean;
  /** Tells foreign agents (WebMCP) results may hold content the page does not vouch for. */
  'untrusted-content'?: boolean;
  untrustedContent?: boolean;
  /** Offered to the Pedelec agent only, never to foreign agents (WebMCP). */
  private?: boolean;
  /** The handler (a property, never an attribute): `(args, ctx) => result`; annotate `args` with your type. */
  handler?: PedelecToolElement['handler'];
  /** The args schema as an object (a property). */
  argsSchema?: PedelecToolElement['argsSchema'];
}

/** Events fired on `<pedelec-tool>`. */
export interface PedelecToolEvents {
  'pedelec-tool-call': PedelecToolCallEvent;
}

/** `<pedelec-arg>`: attributes (the declaration is read from them). */
export interface PedelecArgProps {
  name?: string;
  type?: 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';
  required?: boolean;
  description?: string;
  /** A JSON array, or comma-separated for strings. */
  enum?: string;
  minimum?: number | string;
  maximum?: number | string;
  'min-length'?: number | string;
  'max-length'?: number | string;
  pattern?: string;
  'min-items'?: number | string;
  'max-items'?: number | string;
  'unique-items'?: boolean;
  /** Item type name for simple arrays. */
  items?: 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';
  /** JSON (for strings, text that is not JSON is taken literally). */
  default?: string;
  /** A JSON array of example values. */
  examples?: string;
}

/** `<pedelec-guidance>`: its text content is the guidance; nothing else to bind. */
export type PedelecGuidanceProps = Record<never, never>;

/** `<pedelec-chat>`. */
export interface PedelecChatProps {
  /** The id of the `<pedelec-session>` to talk to (looked up in the chat's root), as on `<label for>`. */
  for?: string;
  /** The `for` attribute as a property, named as on `<label>`. */
  htmlFor?: string;
  /** Render the agent's replies as Markdown. */
  markdown?: boolean;
  /** The session to talk to (a property); wins over `for` and the nearest session. */
  forElement?: PedelecChatElement['forElement'];
  /** Your own Markdown renderer (a property). */
  renderMarkdown?: PedelecChatElement['renderMarkdown'];
}

/** Events fired on `<pedelec-chat>` itself (its session's events fire on the session). */
export interface PedelecChatEvents {
  /** `MARKDOWN_RENDER_FAILED`: a `renderMarkdown` threw (that message shows as text). */
  'pedelec-error': PedelecErrorEvent;
}

/** Every element's bindable props and events, by tag. */
export interface PedelecElementTypes {
  'pedelec-session': { props: PedelecSessionProps; events: PedelecSessionEvents };
  'pedelec-tool': { props: PedelecToolProps; events: PedelecToolEvents };
  'pedelec-arg': { props: PedelecArgProps; events: Record<never, never> };
  'pedelec-guidance': { props: PedelecGuidanceProps; events: Record<never, never> };
  'pedelec-chat': { props: PedelecChatProps; events: PedelecChatEvents };
}
