// Generated from custom-elements.json by `npm run docs`: change the JSDoc in src/, then run it again.
/**
 * What a template may bind on each element — attributes, properties and events — for every
 * framework's typings (`pedelec-elements/react`, `pedelec-elements/vue`). Types only.
 *
 * Attributes keep their own names (`timeout-ms`); where the element has a writable property of
 * another name for one (`timeoutMs`), both are listed. Attributes the element writes (`status`) and
 * read-only properties (`sessionId`, `definition`…) are not bindable and are left out.
 */
import type {
  GenericToolHandler,
  PedelecArgElement,
  PedelecArtifactEvent,
  PedelecChatDeltaEvent,
  PedelecChatElement,
  PedelecChatMessageEvent,
  PedelecEndedEvent,
  PedelecErrorEvent,
  PedelecGuidanceElement,
  PedelecReadyEvent,
  PedelecSessionElement,
  PedelecStatusEvent,
  PedelecToolApprovalDecidedEvent,
  PedelecToolApprovalEvent,
  PedelecToolCallEvent,
  PedelecToolElement,
  PedelecToolResultEvent,
  PedelecToolStartEvent,
  PedelecToolsChangedEvent,
  PedelecTurnEvent,
  PedelecUsageEvent,
  PedelecWarningEvent,
  PedelecWorkspace,
  RenderArtifact,
  RenderMarkdown,
  RenderToolResult,
  ToolArgsSchema,
  ToolDefinition,
  ToolSpecificHandler,
} from './index.js';

/** `<pedelec-arg>`: Declares one property of a tool's args schema; nest them for objects and arrays of objects. */
export interface PedelecArgProps {
  /** The property name (any string; `__proto__` is an ordinary name). */
  name?: string;
  /** The JSON type of the value. */
  type?: 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';
  /** The agent must give this property. */
  required?: boolean;
  /** Guidance for the agent. */
  description?: string;
  /** Allowed values: a JSON array, or comma-separated for strings. */
  enum?: string;
  /** Inclusive lower bound (numbers). */
  minimum?: number | string;
  /** Inclusive upper bound (numbers). */
  maximum?: number | string;
  /** Minimum length in Unicode code points (strings). */
  'min-length'?: number | string;
  /** Minimum length in Unicode code points (strings). */
  minLength?: string | null;
  /** Maximum length in Unicode code points (strings). */
  'max-length'?: number | string;
  /** Maximum length in Unicode code points (strings). */
  maxLength?: string | null;
  /** An ECMAScript regular expression the string must contain a match of. */
  pattern?: string;
  /** Minimum number of items (arrays). */
  'min-items'?: number | string;
  /** Minimum number of items (arrays). */
  minItems?: string | null;
  /** Maximum number of items (arrays). */
  'max-items'?: number | string;
  /** Maximum number of items (arrays). */
  maxItems?: string | null;
  /** No two items may be equal (arrays). */
  'unique-items'?: boolean;
  /** No two items may be equal (arrays). */
  uniqueItems?: string | null;
  /** Item type name for simple arrays (`items="string"`). */
  items?: 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';
  /** JSON (for strings, text that is not JSON is taken literally). Guidance only: never filled in. */
  default?: string;
  /** A JSON array of example values. */
  examples?: string;
}

/** `<pedelec-arg>` fires no events of its own. */
export type PedelecArgEvents = Record<never, never>;

/** `<pedelec-chat>`: A chat panel for the agent of its session: streaming replies, tool activity, setup guidance. */
export interface PedelecChatProps {
  /** The id of the `<pedelec-session>` to talk to, looked up in this element's root (also when it appears later), as `<label for>` names its control. Without it: the nearest session around the element. Property: `htmlFor`. */
  for?: string;
  /** The id of the `<pedelec-session>` to talk to, looked up in this element's root (also when it appears later), as `<label for>` names its control. Without it: the nearest session around the element. Property: `htmlFor`. */
  htmlFor?: string | null;
  /** Render the agent's replies as Markdown (loads `pedelec-elements/markdown` on first use, or uses `renderMarkdown`). */
  markdown?: boolean;
  /** Show the session's total tokens under the conversation, updated as Core reports them (property `showUsage`). */
  'show-usage'?: boolean;
  /** Show the session's total tokens under the conversation, updated as Core reports them (property `showUsage`). */
  showUsage?: boolean;
  /** Keep at most this many rows (messages, tool calls, errors): beyond, the oldest go. Without it (or not a positive number), every row stays. Property: `maxMessages`. */
  'max-messages'?: number | string;
  /** Keep at most this many rows (messages, tool calls, errors): beyond, the oldest go. Without it (or not a positive number), every row stays. Property: `maxMessages`. */
  maxMessages?: number | null;
  /** The session to talk to; wins over `for` and the nearest session. */
  forElement?: PedelecSessionElement | null;
  /** Your own Markdown renderer (`markdown` mode): returns a Node that is inserted as is, so sanitizing is yours. */
  renderMarkdown?: RenderMarkdown | undefined;
  /** Your own artifact view: `(artifact, { read }) => Node | null`, `read()` resolving the file; null (or a throw) shows the chat's own. */
  renderArtifact?: RenderArtifact | undefined;
}

/** The events of `<pedelec-chat>`. */
export interface PedelecChatEvents {
  /** `MARKDOWN_RENDER_FAILED` (once) when a `renderMarkdown` throws (that message shows as text). */
  'pedelec-error': PedelecErrorEvent;
}

/** `<pedelec-guidance>`: Guidance for the agent: when to use which tool. Its text content is sent, never shown. Nothing to bind. */
export type PedelecGuidanceProps = Record<never, never>;

/** `<pedelec-guidance>` fires no events of its own. */
export type PedelecGuidanceEvents = Record<never, never>;

/** `<pedelec-session>`: Owns the bridge and one agent session; gives the agent the tools declared inside it. */
export interface PedelecSessionProps {
  /** Provider code (`codex`, `claude`, `ollama`…); empty: the user's default. */
  provider?: string | null;
  /** An explicit model (explicit model mode); empty: Pedelec's effort profile for the provider chooses one (profile mode). Without `provider`, the user's default provider. */
  model?: string | null;
  /** Profile mode (no `model`): `default`, `low` or `high` (empty: `default`), how hard the provider's effort profile works (property `effortLevel`). */
  'effort-level'?: string;
  /** Profile mode (no `model`): `default`, `low` or `high` (empty: `default`), how hard the provider's effort profile works (property `effortLevel`). */
  effortLevel?: string | null;
  /** With `model`: the provider's own effort, `low`, `medium`, `high`, `xhigh` or `max` (empty: the provider's default). */
  effort?: string | null;
  /** Guidance for the agent (or a `<pedelec-guidance>` child, not both). */
  guidance?: string | null;
  /** Empty: the Pedelec extension. `ws://localhost:…`, `ws://127.0.0.1:…` or `ws://[::1]:…`: a development Core. Other hosts only through the `bridge` property, so injected markup cannot send the tools elsewhere. */
  bridge?: string;
  /** Another build of the Pedelec extension. */
  'extension-id'?: string;
  /** Another build of the Pedelec extension. */
  extensionId?: string | null;
  /** How long a bridge request may go unanswered, in ms (unset: 30 000). */
  'bridge-timeout-ms'?: number | string;
  /** How long a bridge request may go unanswered, in ms (unset: 30 000). */
  bridgeTimeoutMs?: number | undefined;
  /** Start the session on connection (off by default: creating a session may open the extension's approval popup), once the elements have taken the properties set before the kit loaded (`tools`, a tool's `argsSchema`). */
  autostart?: boolean;
  /** Keep the session across reloads of this tab: created with `autoEndOnDisconnect: false` (it runs on in Core after the tab closes, until ended) and resumed while the manifest (tools and guidance) is unchanged; otherwise, or if resuming fails, the old one is ended and a fresh one created (`pedelec-ready` says `resumed: false`). The record's key in sessionStorage is `pedelec-elements:v1:<bridge as written, or ext:<extension-id>>:<id or page path>`: two persisted sessions on one page need distinct ids. `end()` or `restart()` before any start also ends the session an earlier page recorded. */
  persist?: boolean;
  /** An existing session to resume (property `resumeId`). */
  'resume-id'?: string;
  /** An existing session to resume (property `resumeId`). */
  resumeId?: string | null;
  /** Do not validate the agent's arguments against the tools' schemas (property `noValidate`). */
  novalidate?: boolean;
  /** Do not validate the agent's arguments against the tools' schemas (property `noValidate`). */
  noValidate?: boolean;
  /** Also log warnings to the console (otherwise only a developer's mistakes reach it). */
  debug?: boolean;
  /** How long a consequential tool's call waits for a person, for the tools that do not say (property `toolApprovalTimeoutMs`; default 300 000). */
  'approval-timeout-ms'?: number | string;
  /** How long a consequential tool's call waits for a person, for the tools that do not say (property `toolApprovalTimeoutMs`; default 300 000). */
  toolApprovalTimeoutMs?: number | undefined;
  /** Also link the tools to `pedelec-dev --mcp` for desktop MCP clients, with no bridge or `start()`: `ws://127.0.0.1:7717/tools`. Loopback hosts only from markup; other hosts through the `mcp` property. */
  mcp?: string;
  /** The page's label on the MCP link, which names its tools when several pages offer one name (unset: the element's `id`). */
  'mcp-label'?: string;
  /** WebMCP, the browser's own agent, as a token list: `expose` (empty means `expose`) offers the tools to the browser's agent, with no bridge or `start()`; `import` offers the page's other WebMCP tools (`<form toolname>`, other scripts') to the Pedelec agent. As a property: `true` sets `expose`, `false` or `null` removes the attribute. */
  webmcp?: string | boolean | null;
  /** Extra JS-defined tools, merged after the declared ones. */
  tools?: ToolDefinition[];
  /** Other origins the WebMCP tools are shown to (property only: markup cannot expose tools to another origin). */
  exposedTo?: readonly string[] | undefined;
  /** In a frame, offer the tools to foreign agents (WebMCP, the MCP link) all the same; without it a framed session offers them none (property only: markup cannot decide it). */
  allowFramed?: boolean | undefined;
  /** The key `pedelec-dev` printed for the MCP page link; needed by pages it does not serve itself, unless it runs with `--mcp-open-links` (property only: a key does not belong in markup). */
  mcpKey?: string | undefined;
  /** The workspace new sessions are created in (from the core's `openWorkspace`), where the agent works on the user's folder; null: Pedelec makes one for each session (`session.workspace`). */
  workspace?: PedelecWorkspace | null;
  /** Generic handler for calls nothing else answers. */
  fallback?: GenericToolHandler | null;
}

/** The events of `<pedelec-session>`. */
export interface PedelecSessionEvents {
  /** A consequential tool's call waits for a person (bubbling from its `<pedelec-tool>`): answer with `respondWith()`. */
  'pedelec-tool-approval': PedelecToolApprovalEvent;
  /** A decision on a consequential tool's call: who decided, and how. */
  'pedelec-tool-approval-decided': PedelecToolApprovalDecidedEvent;
  /** From a `<pedelec-tool>` inside it (the event bubbles): a listener here can answer the calls of every tool. */
  'pedelec-tool-call': PedelecToolCallEvent;
  /** Every tool call, before it is answered. */
  'pedelec-tool-start': PedelecToolStartEvent;
  /** Every tool call's answer, with `ok` and `durationMs`. */
  'pedelec-tool-result': PedelecToolResultEvent;
  /** A turn starts, whoever started it. */
  'pedelec-turn': PedelecTurnEvent;
  /** The agent session exists (created or resumed). */
  'pedelec-ready': PedelecReadyEvent;
  /** `status` changed. */
  'pedelec-status': PedelecStatusEvent;
  /** A piece of the agent's reply: every character of it once, in order. */
  'pedelec-chat-delta': PedelecChatDeltaEvent;
  /** A whole assistant message, once complete. */
  'pedelec-chat-message': PedelecChatMessageEvent;
  /** Core reported the session's token usage. */
  'pedelec-usage': PedelecUsageEvent;
  /** The provider produced a file in the session's assets during a turn. */
  'pedelec-artifact': PedelecArtifactEvent;
  /** A failure the page can act on (stable `code`). */
  'pedelec-error': PedelecErrorEvent;
  /** The agent session ended. */
  'pedelec-ended': PedelecEndedEvent;
  /** Tools or configuration changed after start. */
  'pedelec-tools-changed': PedelecToolsChangedEvent;
  /** A non-fatal finding, e.g. an unsupported schema keyword. */
  'pedelec-warning': PedelecWarningEvent;
}

/** `<pedelec-tool>`: Declares one agent tool: name, description, args schema; the handler attaches by property or event. */
export interface PedelecToolProps {
  /** The tool's name: a letter, then letters, digits, `_`, `.`, `-`. Unique in its session. */
  name?: string | null;
  /** What the tool does, its side effects, and when the agent should pick it. */
  description?: string | null;
  /** How long Core waits for the result, in ms: a positive integer (unset: Core's default, 60 000). One that is not (`timeout-ms="abc"` reads as NaN, a bare `timeout-ms` as 0) leaves the tool out, with the reason in `invalidReason`. */
  'timeout-ms'?: number | string;
  /** How long Core waits for the result, in ms: a positive integer (unset: Core's default, 60 000). One that is not (`timeout-ms="abc"` reads as NaN, a bare `timeout-ms` as 0) leaves the tool out, with the reason in `invalidReason`. */
  timeoutMs?: number | null;
  /** The args schema as JSON text. Exactly one of four ways to declare it: this attribute, an inline `<script type="application/json">`, `<pedelec-arg>` children, or the `argsSchema` property. */
  schema?: string | null;
  /** Leaves the tool out of the manifest; calls to it get `TOOL_UNAVAILABLE`. */
  disabled?: boolean;
  /** A human-readable name, for foreign agents that show one (WebMCP, MCP). Not sent to Pedelec. */
  title?: string;
  /** Tells foreign agents (WebMCP, MCP) that the tool changes nothing (property `readOnly`). */
  'read-only'?: boolean;
  /** Tells foreign agents (WebMCP, MCP) that the tool changes nothing (property `readOnly`). */
  readOnly?: boolean;
  /** Tells foreign agents that results may hold content the page does not vouch for (property `untrustedContent`). */
  'untrusted-content'?: boolean;
  /** Tells foreign agents that results may hold content the page does not vouch for (property `untrustedContent`). */
  untrustedContent?: boolean;
  /** Offered to the Pedelec agent only, never to foreign agents (WebMCP, MCP). */
  private?: boolean;
  /** A person approves each agent's call before the handler runs (the page's `pedelec-tool-approval` answer, else the chat's card); foreign agents are told (WebMCP `consequentialHint`, MCP `destructiveHint`). `invoke()` needs no approval. */
  consequential?: boolean;
  /** With `consequential`: the person approving may edit the arguments (property `approvalEditable`). */
  'approval-editable'?: boolean;
  /** With `consequential`: the person approving may edit the arguments (property `approvalEditable`). */
  approvalEditable?: boolean;
  /** With `consequential`: how long a call waits for a person, in ms (property `approvalTimeoutMs`; unset: the session's `approval-timeout-ms`, else 300 000). Then `TOOL_APPROVAL_TIMEOUT`. */
  'approval-timeout-ms'?: number | string;
  /** With `consequential`: how long a call waits for a person, in ms (property `approvalTimeoutMs`; unset: the session's `approval-timeout-ms`, else 300 000). Then `TOOL_APPROVAL_TIMEOUT`. */
  approvalTimeoutMs?: number | null;
  /** The id of a `<form>` (in the tool's document or shadow root) that is the tool: its schema (unless declared otherwise) and its inline handler, which fills, checks and submits it. */
  form?: string;
  /** With `form`: a call submits the form; without, it waits for the user to submit it (`:state(awaiting-submit)`). */
  autosubmit?: boolean;
  /** The handler (JS only). Changing it is never a tool change. */
  handler?: ToolSpecificHandler | undefined;
  /** The args schema as an object (JS only). Assign a new object to change it. */
  argsSchema?: ToolArgsSchema | undefined;
  /** How `<pedelec-chat>` shows a result in the call's row (JS only): `(result, { args, tool, error }) => Node | string | null`; a string is text, never HTML; null (or a throw) shows the JSON. */
  renderResult?: RenderToolResult | undefined;
}

/** The events of `<pedelec-tool>`. */
export interface PedelecToolEvents {
  /** A consequential call waits for a person: answer with `respondWith(true | false | { approved, reason?, args? })` (bubbles, composed, not cancelable). */
  'pedelec-tool-approval': PedelecToolApprovalEvent;
  /** A call to answer with `respondWith()` or `deny()` (bubbles, composed, not cancelable). */
  'pedelec-tool-call': PedelecToolCallEvent;
}

/** Every element by tag: its class, bindable props and events. */
export interface PedelecElementTypes {
  'pedelec-arg': { element: PedelecArgElement; props: PedelecArgProps; events: PedelecArgEvents };
  'pedelec-chat': { element: PedelecChatElement; props: PedelecChatProps; events: PedelecChatEvents };
  'pedelec-guidance': { element: PedelecGuidanceElement; props: PedelecGuidanceProps; events: PedelecGuidanceEvents };
  'pedelec-session': { element: PedelecSessionElement; props: PedelecSessionProps; events: PedelecSessionEvents };
  'pedelec-tool': { element: PedelecToolElement; props: PedelecToolProps; events: PedelecToolEvents };
}
