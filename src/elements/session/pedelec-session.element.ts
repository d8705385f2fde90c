import { checkAttributes } from '../unknown-attributes.js';
import { ReactiveElement, css, type PropertyValues } from '@lit/reactive-element';
import type {
  GenericToolHandler,
  Pedelec,
  PedelecAvailability,
  PedelecSession,
  PedelecWorkspace,
  SerializableSkillsManifest,
  ToolDefinition,
  ToolSpecificHandler,
} from '../../core/index.js';
import { sessionConnected } from '../session-connected.js';
import { ScriptedUrl } from './scripted-url.js';
import { ElementStatus, type PedelecElementStatus } from './status.js';
import { inPage, inputChanged, wireSession, type InvokeResult, type SessionParts } from './session-parts.js';
import { defineElement } from '../define-element.js';
import { SESSION_TAG } from '../tags.js';
import type { ToolBuild } from './tool-registry.js';

/** For the kit's tests: how many manifest builds ran (one per batch of changes). Not a member of the element. */
export let buildsOf!: (el: PedelecSessionElement) => number;
/** For the chat: the tools as last built (each with its element or JS definition). Not a member of the element. */
export let toolsBuiltOf!: (el: PedelecSessionElement) => ToolBuild;
/** For the kit's leak tests: the sizes of the element's bookkeeping. */
export let bookkeepingOf!: (el: PedelecSessionElement) => ReturnType<SessionParts['bookkeeping']>;

/**
 * Owns the bridge to the agent and one agent session; the tools, guidance and chat inside it belong
 * to it. Starts lazily (first `start()`, `sendText()` or `prepare()`), or on connection with `autostart`. Core takes the tools when the session is created: a later change makes `toolsStale` true and fires `pedelec-tools-changed`, and `restart()` applies it. Removing the element ends its session (unless `persist`) after a microtask, so a framework that moves it tears nothing down.
 *
 * @summary Owns the bridge and one agent session; gives the agent the tools declared inside it.
 * @tag pedelec-session
 * @attr {string} provider - Provider code (`codex`, `claude`, `ollama`…); empty: the user's default.
 * @attr {string} model - An explicit model (explicit model mode); empty: Pedelec's effort profile for the provider chooses one (profile mode). Without `provider`, the user's default provider.
 * @attr {string} effort-level - Profile mode (no `model`): `default`, `low` or `high` (empty: `default`), how hard the provider's effort profile works (property `effortLevel`).
 * @attr {string} effort - With `model`: the provider's own effort, `low`, `medium`, `high`, `xhigh` or `max` (empty: the provider's default).
 * @attr {string} guidance - Guidance for the agent (or a `<pedelec-guidance>` child, not both).
 * @attr {string} bridge - Empty: the Pedelec extension. `ws://localhost:…`, `ws://127.0.0.1:…` or `ws://[::1]:…`: a development Core. Other hosts only through the `bridge` property, so injected markup cannot send the tools elsewhere.
 * @attr {string} extension-id - Another build of the Pedelec extension.
 * @attr {number} bridge-timeout-ms - How long a bridge request may go unanswered, in ms (unset: 30 000).
 * @attr {boolean} autostart - Start the session on connection (off by default: creating a session may open the extension's approval popup), once the elements have taken the properties set before the kit loaded (`tools`, a tool's `argsSchema`).
 * @attr {boolean} persist - Keep the session across reloads of this tab: created with `autoEndOnDisconnect: false` (it runs on in Core after the tab closes, until ended) and resumed while the manifest (tools and guidance) is unchanged; otherwise, or if resuming fails, the old one is ended and a fresh one created (`pedelec-ready` says `resumed: false`). The record's key in sessionStorage is `pedelec-elements:v1:<bridge as written, or ext:<extension-id>>:<id or page path>`: two persisted sessions on one page need distinct ids. `end()` or `restart()` before any start also ends the session an earlier page recorded.
 * @attr {string} resume-id - An existing session to resume (property `resumeId`).
 * @attr {boolean} novalidate - Do not validate the agent's arguments against the tools' schemas (property `noValidate`).
 * @attr {boolean} debug - Also log warnings to the console (otherwise only a developer's mistakes reach it).
 * @attr {number} approval-timeout-ms - How long a consequential tool's call waits for a person, for the tools that do not say (property `toolApprovalTimeoutMs`; default 300 000).
 * @attr {string} mcp - Also link the tools to `pedelec-dev --mcp` for desktop MCP clients, with no bridge or `start()`: `ws://127.0.0.1:7717/tools`. Loopback hosts only from markup; other hosts through the `mcp` property.
 * @attr {string} mcp-label - The page's label on the MCP link, which names its tools when several pages offer one name (unset: the element's `id`).
 * @attr {string} status - Reflected (output), once the element has left `inactive`: the `status` property.
 * @attr {string} approval - Reflected (output): `pending` while the origin awaits the user's approval in the extension's popup.
 * @prop {string | undefined} bridge - The bridge URL; set from script, any `ws:`/`wss:` host is accepted.
 * @prop {string | undefined} mcp - The MCP page link URL; set from script, any `ws:`/`wss:` host is accepted.
 * @prop {PedelecElementStatus} status - Read-only: `inactive`, `starting`, `idle`, `running`, `waiting_tool_result`, `ended` or `error`. Also `:state(<status>)`.
 * @prop {string | null} sessionId - Read-only: the agent session's id.
 * @prop {PedelecSession | null} session - Read-only: the core session.
 * @prop {Pedelec | null} client - Read-only: the (shared) core client.
 * @prop {SerializableSkillsManifest | undefined} manifest - Read-only: the skills manifest it would send now.
 * @prop {ToolDefinition[]} tools - Extra JS-defined tools, merged after the declared ones.
 * @prop {GenericToolHandler | null} fallback - Generic handler for calls nothing else answers.
 * @prop {string | boolean | null} webmcp - WebMCP, the browser's own agent, as a token list: `expose` (empty means `expose`) offers the tools to the browser's agent, with no bridge or `start()`; `import` offers the page's other WebMCP tools (`<form toolname>`, other scripts') to the Pedelec agent. As a property: `true` sets `expose`, `false` or `null` removes the attribute.
 * @prop {readonly string[] | undefined} exposedTo - Other origins the WebMCP tools are shown to (property only: markup cannot expose tools to another origin).
 * @prop {string | undefined} mcpKey - The key `pedelec-dev` printed for the MCP page link; needed by pages it does not serve itself, unless it runs with `--mcp-open-links` (property only: a key does not belong in markup).
 * @prop {boolean | undefined} allowFramed - In a frame, offer the tools to foreign agents (WebMCP, the MCP link) all the same; without it a framed session offers them none (property only: markup cannot decide it).
 * @prop {string[]} webmcpTools - Read-only: the tool names registered with the browser's agent now.
 * @prop {PedelecWorkspace | null} workspace - The workspace new sessions are created in (from the core's `openWorkspace`), where the agent works on the user's folder; null: Pedelec makes one for each session (`session.workspace`).
 * @prop {boolean} toolsStale - Read-only: tools, `provider`, `model`, `effort-level`, `effort`, `guidance`, `bridge` (or `extension-id`), `novalidate` or `workspace` changed since the session was created (also while it was being created); `restart()` applies them. The running session keeps its connection until then.
 * @fires {PedelecToolApprovalEvent} pedelec-tool-approval - A consequential tool's call waits for a person (bubbling from its `<pedelec-tool>`): answer with `respondWith()`.
 * @fires {PedelecToolApprovalDecidedEvent} pedelec-tool-approval-decided - A decision on a consequential tool's call: who decided, and how.
 * @fires {PedelecToolCallEvent} pedelec-tool-call - From a `<pedelec-tool>` inside it (the event bubbles): a listener here can answer the calls of every tool.
 * @fires {PedelecToolStartEvent} pedelec-tool-start - Every tool call, before it is answered.
 * @fires {PedelecToolResultEvent} pedelec-tool-result - Every tool call's answer, with `ok` and `durationMs`.
 * @fires {PedelecTurnEvent} pedelec-turn - A turn starts, whoever started it.
 * @fires {PedelecReadyEvent} pedelec-ready - The agent session exists (created or resumed).
 * @fires {PedelecStatusEvent} pedelec-status - `status` changed.
 * @fires {PedelecChatDeltaEvent} pedelec-chat-delta - A piece of the agent's reply: every character of it once, in order.
 * @fires {PedelecChatMessageEvent} pedelec-chat-message - A whole assistant message, once complete.
 * @fires {PedelecUsageEvent} pedelec-usage - Core reported the session's token usage.
 * @fires {PedelecArtifactEvent} pedelec-artifact - The provider produced a file in the session's assets during a turn.
 * @fires {PedelecErrorEvent} pedelec-error - A failure the page can act on (stable `code`).
 * @fires {PedelecEndedEvent} pedelec-ended - The agent session ended.
 * @fires {PedelecToolsChangedEvent} pedelec-tools-changed - Tools or configuration changed after start.
 * @fires {PedelecWarningEvent} pedelec-warning - A non-fatal finding, e.g. an unsupported schema keyword.
 * @slot - `<pedelec-tool>`, `<pedelec-guidance>`, `<pedelec-chat>` and any other content.
 * @cssstate inactive - No agent session, and none being created.
 * @cssstate starting - Creating or resuming the session (including the extension's approval popup).
 * @cssstate idle - The session waits for the user.
 * @cssstate running - The agent is working on a turn.
 * @cssstate waiting_tool_result - The agent waits for a tool call's result.
 * @cssstate ended - The session ended; `start()` or `restart()` creates a new one.
 * @cssstate error - The session failed; `restart()` creates a new one.
 */
export class PedelecSessionElement extends ReactiveElement {
  /**
   * Registers the element as `tag` (default `pedelec-session`) in `registry` (default the page's
   * `customElements`). A tag already taken there is left as it is.
   */
  static define(tag = SESSION_TAG, registry: CustomElementRegistry | undefined = globalThis.customElements): void {
    defineElement(tag, this, registry);
  }

  static override styles = css`
    :host {
      display: contents;
    }
  `;

  static override properties = {
    provider: { type: String },
    model: { type: String },
    effortLevel: { type: String, attribute: 'effort-level' },
    effort: { type: String },
    guidance: { type: String },
    bridgeTimeoutMs: { type: Number, attribute: 'bridge-timeout-ms' },
    toolApprovalTimeoutMs: { type: Number, attribute: 'approval-timeout-ms' },
    extensionId: { type: String, attribute: 'extension-id' },
    autostart: { type: Boolean },
    persist: { type: Boolean },
    resumeId: { type: String, attribute: 'resume-id' },
    noValidate: { type: Boolean, attribute: 'novalidate' },
    debug: { type: Boolean },
    // Not attribute bindings: markup and script are trusted differently (`bridge`, `exposedTo`).
    bridge: { attribute: false },
    mcp: { attribute: false },
    exposedTo: { attribute: false },
    allowFramed: { attribute: false },
    mcpKey: { attribute: false },
    // The attribute is the value: observed through Lit, read and written by the accessors below.
    webmcp: {},
    tools: { attribute: false },
    fallback: { attribute: false },
    workspace: { attribute: false },
  };

  static override get observedAttributes(): string[] {
    return [...super.observedAttributes, 'bridge', 'mcp'];
  }

  static {
    buildsOf = (el) => el.#declarations.builds;
    toolsBuiltOf = (el) => el.#declarations.built;
    bookkeepingOf = (el) => el.#parts.bookkeeping();
  }

  declare provider: string | null;
  declare model: string | null;
  declare effortLevel: string | null;
  declare effort: string | null;
  declare guidance: string | null;
  declare bridgeTimeoutMs: number | undefined;
  declare toolApprovalTimeoutMs: number | undefined;
  declare extensionId: string | null;
  declare autostart: boolean;
  declare persist: boolean;
  declare resumeId: string | null;
  declare noValidate: boolean;
  declare debug: boolean;
  declare tools: ToolDefinition[];
  declare exposedTo: readonly string[] | undefined;
  declare allowFramed: boolean | undefined;
  declare mcpKey: string | undefined;
  declare workspace: PedelecWorkspace | null;

  readonly #internals = typeof this.attachInternals === 'function' ? this.attachInternals() : null;
  readonly #urls = { bridge: new ScriptedUrl(this, 'bridge'), mcp: new ScriptedUrl(this, 'mcp') };
  readonly #parts = wireSession(this, {
    emit: (event) => this.#emit(event),
    status: (status, context) => this.#status.set(status, context),
    scripted: (name) => this.#urls[name].scripted,
  });
  readonly #declarations = this.#parts.declarations;
  readonly #toolbox = this.#parts.toolbox;
  readonly #lifecycle = this.#parts.lifecycle;
  readonly #status = new ElementStatus(this, this.#internals, (event) => this.#emit(event));

  constructor() {
    super();
    this.provider = this.model = this.effortLevel = this.effort = null;
    this.guidance = this.extensionId = this.resumeId = this.workspace = null;
    this.autostart = this.persist = this.noValidate = this.debug = false;
    this.tools = [];
  }

  // ───────────────────────────── public state ─────────────────────────────

  get bridge(): string | undefined {
    return this.#urls.bridge.value;
  }
  set bridge(value: string | undefined) {
    this.#urls.bridge.set(value);
  }
  get mcp(): string | undefined {
    return this.#urls.mcp.value;
  }
  set mcp(value: string | undefined) {
    this.#urls.mcp.set(value);
  }
  get webmcp(): string | null {
    return this.getAttribute('webmcp');
  }
  set webmcp(value: string | boolean | null) {
    if (value === false || value == null) this.removeAttribute('webmcp');
    else this.setAttribute('webmcp', value === true ? 'expose' : value);
  }
  get webmcpTools(): string[] {
    return this.#parts.foreign.loaded?.webmcpTools ?? [];
  }
  get status(): PedelecElementStatus {
    return this.#status.current;
  }
  get sessionId(): string | null {
    return this.session?.sessionId ?? null;
  }
  get session(): PedelecSession | null {
    return this.#lifecycle.session;
  }
  get client(): Pedelec | null {
    return this.#lifecycle.client;
  }
  get toolsStale(): boolean {
    return this.#lifecycle.held.staleness.stale;
  }
  /** The skills manifest this element would send now (undefined: no tools and no guidance). */
  get manifest(): SerializableSkillsManifest | undefined {
    this.#declarations.upToDate();
    return this.#declarations.manifest;
  }
  get fallback(): GenericToolHandler | null {
    return this.#toolbox.generic;
  }
  set fallback(handler: GenericToolHandler | null) {
    const old = this.#toolbox.generic;
    this.#toolbox.generic = typeof handler === 'function' ? handler : null;
    this.requestUpdate('fallback', old);
  }

  // ───────────────────────────── lifecycle ─────────────────────────────

  override connectedCallback(): void {
    super.connectedCallback();
    checkAttributes(this, [...PedelecSessionElement.observedAttributes, 'status', 'approval']);
    inPage(this.#parts, true);
    sessionConnected(this.getRootNode());
    // Properties set before the upgrade (`bridge`, `tools`…) are put back by Lit in the first update:
    // an autostart waits for those, once.
    const autostart = () => this.autostart && this.#lifecycle.autostart();
    if (this.hasUpdated) autostart();
    else void this.updateComplete.then(autostart);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    inPage(this.#parts, false);
  }

  override attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    super.attributeChangedCallback(name, old, value);
    if (name === 'bridge' || name === 'mcp') this.#urls[name].attributeChanged(old);
    // `webmcp`'s accessor reads the attribute, which holds the new value already: Lit sees no change.
    else if (name === 'webmcp') this.requestUpdate('webmcp', old);
  }

  /** The shadow root shows the children as they are: one slot, built once (no template library needed). */
  protected override createRenderRoot(): HTMLElement | DocumentFragment {
    const root = super.createRenderRoot();
    root.append(document.createElement('slot'));
    return root;
  }

  /** What the session derives from its properties: a rebuild of what it declares, its foreign agents. */
  protected override willUpdate(changed: PropertyValues<this>): void {
    inputChanged(this.#parts, changed.keys(), this.isConnected);
  }

  // ───────────────────────────── methods ─────────────────────────────

  /** Creates (or, with `persist` / `resume-id`, resumes) the agent session. While starting, returns the same promise. */
  start(): Promise<PedelecSession> {
    return this.#lifecycle.start();
  }
  /** Sends the user's text (starting the session first if needed); resolves when the turn finished. */
  sendText(text: string): Promise<void> {
    return this.#lifecycle.started().then((session) => session.sendText(text));
  }
  /** Warms the provider up (starting the session first if needed). */
  prepare(): Promise<void> {
    return this.#lifecycle.started().then((session) => session.prepare());
  }
  /** Ends the agent session; `sendText()` then rejects `SESSION_ENDED` until `start()` or `restart()`. While starting: ends the session once it exists, unless `start()` is called again first (the last call wins). */
  end(): Promise<void> {
    return this.#lifecycle.end();
  }
  /**
   * Starts over: rejects a running turn (`SESSION_ENDED`), aborts running handlers, ends the old
   * session (a failure there is reported, not fatal), replaces a disconnected client — the explicit
   * reconnect — and creates a fresh session with the current tools (never resuming `resume-id` again). Clears `toolsStale`. A second call while one runs returns the same promise.
   */
  restart(): Promise<PedelecSession> {
    return this.#lifecycle.restart();
  }
  /** The bridge's availability, for telling the user what to do (never rejects). */
  checkAvailability(): Promise<PedelecAvailability> {
    return this.#lifecycle.checkAvailability();
  }

  /**
   * Runs a tool locally through exactly the path an agent call takes — availability, validation,
   * handler resolution, result check, deadline — without sending anything. Works before `start()`.
   * Never rejects: `error` is exactly what the agent would have received.
   */
  invoke(name: string, args: unknown, options: { signal?: AbortSignal } = {}): Promise<InvokeResult> {
    return this.#parts.call('local', name, args, options.signal);
  }

  /** Registers a named handler (`onTool(name, fn)`) or the generic fallback (`onTool(fn)`); returns an unsubscribe. */
  onTool(handler: GenericToolHandler): () => void;
  onTool<TArgs = unknown, TResult = unknown>(
    toolName: string,
    handler: ToolSpecificHandler<TArgs, TResult>,
  ): () => void;
  onTool(nameOrHandler: string | GenericToolHandler, handler?: ToolSpecificHandler): () => void {
    return this.#toolbox.onTool(nameOrHandler, handler);
  }

  // ───────────────────────────── inside ─────────────────────────────

  /** Every event goes out here (one place, so the manifest analyzer reads the @fires tags, not guesses). */
  #emit(event: Event): void {
    this.dispatchEvent(event);
  }
}
