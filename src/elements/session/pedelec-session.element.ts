import { ReactiveElement, css, type PropertyDeclaration } from '@lit/reactive-element';
import {
  normalizeError,
  pedelecError,
  Toolbox,
  type GenericToolHandler,
  type JsonValue,
  type CreateSessionInput,
  type Pedelec,
  type PedelecAvailability,
  type PedelecError,
  type PedelecEventContext,
  type PedelecSession,
  type SerializableSkillsManifest,
  type ToolCall,
  type ToolCallContext,
  type ToolDefinition,
  type ToolOutcome,
  type ToolSpecificHandler,
} from '../../core/index.js';
import { canonicalJson } from '../../core/json.js';
import { inOrder, monotonic } from '../../core/protocol.js';
import { toolCallContext, toolTimeout } from '../../core/session.js';
import { PedelecArtifactEvent } from '../../events/artifact.event.js';
import { PedelecChatDeltaEvent } from '../../events/chat-delta.event.js';
import { PedelecChatMessageEvent } from '../../events/chat-message.event.js';
import { PedelecEndedEvent } from '../../events/ended.event.js';
import { PedelecErrorEvent } from '../../events/error.event.js';
import { PedelecReadyEvent } from '../../events/ready.event.js';
import { PedelecStatusEvent } from '../../events/status.event.js';
import { PedelecToolCallEvent } from '../../events/tool-call.event.js';
import { PedelecToolResultEvent } from '../../events/tool-result.event.js';
import { PedelecToolStartEvent } from '../../events/tool-start.event.js';
import { PedelecToolsChangedEvent } from '../../events/tools-changed.event.js';
import { PedelecTurnEvent } from '../../events/turn.event.js';
import { PedelecUsageEvent } from '../../events/usage.event.js';
import { PedelecWarningEvent } from '../../events/warning.event.js';
import { PedelecGuidanceElement } from '../guidance/pedelec-guidance.element.js';
import {
  anyMemberConnected,
  flushChanges,
  RegisterEvent,
  type Registrable,
  type SessionOwner,
} from '../registration.js';
import { PedelecToolElement } from '../tool/pedelec-tool.element.js';
import { bridgeKey, parseBridge, type BridgeConfig } from './bridge.js';
import { acquireClient, probeAvailability, releaseClient } from './client-pool.js';
import { deleteRecord, hashText, persistKey, readRecord, writeRecord } from './persist.js';
import type { PedelecElementStatus } from './status.js';
import { CONFIG_KEYS, Staleness, type SessionConfig } from './staleness.js';
import { ToolRegistry, type ToolBuild } from './tool-registry.js';

/** The result of `invoke()`: exactly what the agent would have received. Never a rejection. */
export type InvokeResult = { ok: true; result: JsonValue } | { ok: false; error: PedelecError };

/** The origin is awaiting approval: give the user time to decide in the extension's popup. */
const APPROVAL_WAIT_MS = 65_000;
const DEFAULT_TOOL_TIMEOUT_MS = 60_000;
/** Session elements in a document now (shadow roots included): for the `persist` key check. */
const connectedSessions = new Set<PedelecSessionElement>();

const sessionEnded = (sessionId?: string) =>
  pedelecError('SESSION_ENDED', 'Pedelec session has ended.', sessionId ? { sessionId } : undefined);

/**
 * A toolbox that announces every call it runs, agent or local (pedelec-tool-start), and reports its
 * outcome with its duration (pedelec-tool-result). A synchronous answer stays synchronous.
 */
class ObservedToolbox extends Toolbox {
  constructor(
    private readonly started: (call: ToolCall) => void,
    private readonly finished: (call: ToolCall, outcome: ToolOutcome, durationMs: number) => void,
  ) {
    super(true);
  }

  override run(call: ToolCall): ToolOutcome | Promise<ToolOutcome> {
    const startedAt = monotonic();
    this.started(call);
    const finish = (outcome: ToolOutcome): ToolOutcome => {
      this.finished(call, outcome, monotonic() - startedAt);
      return outcome;
    };
    const outcome = super.run(call);
    return outcome instanceof Promise ? outcome.then(finish) : finish(outcome);
  }
}

/**
 * Owns the bridge to the agent and one agent session; the tools, guidance and chat inside it belong
 * to it. Starts lazily (first `start()`, `sendText()` or `prepare()`), or on connection with `autostart`.
 *
 * @summary Owns the bridge and one agent session; gives the agent the tools declared inside it.
 * @tag pedelec-session
 *
 * @attr {string} provider - Provider code (`codex`, `claude`, `ollama`…); empty: the user's default.
 * @attr {string} model - Model for the provider; empty: the provider's default. Needs `provider`.
 * @attr {string} guidance - Guidance for the agent (or a `<pedelec-guidance>` child, not both).
 * @attr {string} bridge - Empty: the Pedelec extension. `ws://localhost:…`: a development Core (loopback hosts only from markup).
 * @attr {string} extension-id - Another build of the Pedelec extension.
 * @attr {number} bridge-timeout-ms - How long a bridge request may go unanswered (default 30 000).
 * @attr {boolean} autostart - Start the session on connection (it may open the extension's approval popup).
 * @attr {boolean} persist - Keep the session across reloads of this tab (sessionStorage), resuming it if the tools are unchanged.
 * @attr {string} session-id - An existing session to resume.
 * @attr {boolean} novalidate - Do not validate the agent's arguments against the tools' schemas.
 * @attr {boolean} debug - Also log warnings to the console.
 * @attr {string} status - Reflected (output), once the element has left `inactive`.
 * @attr {string} approval - Reflected (output): `pending` while the origin awaits the user's approval.
 *
 * @prop {string | undefined} bridge - The bridge URL; set from script, any `ws:`/`wss:` host is accepted.
 * @prop {PedelecElementStatus} status - Read-only: `inactive`, `starting`, `idle`, `running`, `waiting_tool_result`, `ended` or `error`. Also `:state(<status>)`.
 * @prop {string | null} sessionId - Read-only: the agent session's id.
 * @prop {PedelecSession | null} session - Read-only: the core session.
 * @prop {Pedelec | null} client - Read-only: the (shared) core client.
 * @prop {SerializableSkillsManifest | undefined} manifest - Read-only: the skills manifest it would send now.
 * @prop {ToolDefinition[]} tools - Extra JS-defined tools, merged after the declared ones.
 * @prop {GenericToolHandler | null} fallback - Generic handler for calls nothing else answers.
 * @prop {boolean} toolsStale - Read-only: tools or configuration changed since the session was created; `restart()` applies them.
 *
 * @fires {PedelecToolStartEvent} pedelec-tool-start - Every tool call, before it is answered.
 * @fires {PedelecToolResultEvent} pedelec-tool-result - Every tool call's answer, with `ok` and `durationMs`.
 * @fires {PedelecTurnEvent} pedelec-turn - A turn starts, whoever started it.
 * @fires {PedelecReadyEvent} pedelec-ready - The agent session exists (created or resumed).
 * @fires {PedelecStatusEvent} pedelec-status - `status` changed.
 * @fires {PedelecChatDeltaEvent} pedelec-chat-delta - A piece of the agent's reply: every character of it once, in order.
 * @fires {PedelecChatMessageEvent} pedelec-chat-message - A whole assistant message, once complete (current Pedelec).
 * @fires {PedelecUsageEvent} pedelec-usage - Core reported the session's token usage.
 * @fires {PedelecArtifactEvent} pedelec-artifact - The provider produced a file in the session's sandbox.
 * @fires {PedelecErrorEvent} pedelec-error - A failure the page can act on (stable `code`).
 * @fires {PedelecEndedEvent} pedelec-ended - The agent session ended.
 * @fires {PedelecToolsChangedEvent} pedelec-tools-changed - Tools or configuration changed after start.
 * @fires {PedelecWarningEvent} pedelec-warning - A non-fatal finding, e.g. an unsupported schema keyword.
 * @slot - `<pedelec-tool>`, `<pedelec-guidance>`, `<pedelec-chat>` and any other content.
 */
export class PedelecSessionElement extends ReactiveElement implements SessionOwner {
  static override styles = css`
    :host {
      display: contents;
    }
  `;

  static override properties = {
    provider: { type: String },
    model: { type: String },
    guidance: { type: String },
    bridgeTimeoutMs: { type: Number, attribute: 'bridge-timeout-ms' },
    extensionId: { type: String, attribute: 'extension-id' },
    autostart: { type: Boolean },
    persist: { type: Boolean },
    novalidate: { type: Boolean },
    debug: { type: Boolean },
    // Not an attribute binding: markup and script are trusted differently (see `bridge`).
    bridge: { attribute: false },
    tools: { attribute: false },
    fallback: { attribute: false },
  };

  static override get observedAttributes(): string[] {
    return [...super.observedAttributes, 'bridge'];
  }

  declare provider: string | null;
  declare model: string | null;
  declare guidance: string | null;
  declare bridgeTimeoutMs: number | undefined;
  declare extensionId: string | null;
  declare autostart: boolean;
  declare persist: boolean;
  declare novalidate: boolean;
  declare debug: boolean;
  declare tools: ToolDefinition[];

  readonly #internals: ElementInternals | null;
  readonly #registry = new ToolRegistry();
  readonly #toolbox = this.#createToolbox();
  /** Registered `<pedelec-tool>` and `<pedelec-guidance>` elements. */
  readonly #members = new Set<Element>();
  #scriptBridge: string | undefined;
  #rebuildQueued = false;
  /** The start that end() will end once it has created its session (unless start() is called again). */
  #endWhenStarted: Promise<PedelecSession> | null = null;
  /** The next start creates (restart()), whatever `session-id` says. */
  #fresh = false;
  /** Counts end() calls: an end() while restart() ends the old session stops the restart. */
  #ends = 0;
  /** Status events, in order even when a status listener starts or ends the session again. */
  #emitStatus = inOrder((event: PedelecStatusEvent) => this.#emit(event));
  #built: ToolBuild = { tools: [], byName: new Map(), invalid: [], disabled: new Set() };
  #reported = new Map<Element | null | string, string>();
  #warned = new Set<string>();
  #currentManifest: SerializableSkillsManifest | undefined;
  #guidanceError: PedelecError | null = null;

  #_status: PedelecElementStatus = 'inactive';
  #_client: Pedelec | null = null;
  /** The bridge (and timeout) the client was acquired for. */
  #clientKey: string | null = null;
  /** Where this element's running session is recorded (`persist`), as it was when started. */
  #recordKey: string | null = null;
  #_session: PedelecSession | null = null;
  #unsubscribe: Array<() => void> = [];
  #starting: Promise<PedelecSession> | null = null;
  #restarting: Promise<PedelecSession> | null = null;
  /** The session a teardown is ending (see #teardown and #live). */
  #leaving: PedelecSession | null = null;
  #endedByPage = false;
  readonly #staleness = new Staleness();
  #localCount = 0;
  /** Counts teardowns: a start that was in flight across one must not attach what it created. */
  #teardowns = 0;
  readonly #running = new Map<
    ToolCallContext,
    { element: PedelecToolElement | null; abort(reason: PedelecError): void }
  >();

  constructor() {
    super();
    this.provider = null;
    this.model = null;
    this.guidance = null;
    this.extensionId = null;
    this.autostart = false;
    this.persist = false;
    this.novalidate = false;
    this.debug = false;
    this.tools = [];
    this.#internals = typeof this.attachInternals === 'function' ? this.attachInternals() : null;
    this.#showState(null, 'inactive');
    // Members announce themselves with a composed event; the nearest session answers and stops it.
    this.addEventListener(RegisterEvent.eventName, (event) => {
      const register = event as RegisterEvent;
      if (register.owner) return;
      register.stopPropagation();
      register.owner = this;
      this.adopt(register.member);
    });
  }

  /** One toolbox for the element's life: agent calls and local invoke() share it, across restarts. */
  #createToolbox(): Toolbox {
    const toolbox = new ObservedToolbox(
      (call) => this.#toolStarted(call),
      (call, outcome, durationMs) => this.#toolFinished(call, outcome, durationMs),
    );
    toolbox.hooks = {
      unavailable: (tool) => this.#unavailable(tool),
      dispatch: (call) => this.#dispatchToolCall(call),
      inline: (tool) => this.#inlineHandler(tool),
    };
    return toolbox;
  }

  /** Every event goes out here (one place, so the manifest analyzer reads the @fires tags, not guesses). */
  #emit(event: Event): void {
    this.dispatchEvent(event);
  }

  /** `pedelec-error`; `element`: the declaration at fault. */
  #error(error: PedelecError, element: Element | null = null): void {
    this.#emit(new PedelecErrorEvent({ error }, element));
  }

  // ───────────────────────────── public state ─────────────────────────────

  /** The bridge: from script any `ws:`/`wss:` URL; from the attribute, loopback hosts only. */
  get bridge(): string | undefined {
    return this.#scriptBridge ?? this.getAttribute('bridge') ?? undefined;
  }
  set bridge(value: string | undefined) {
    const old = this.bridge;
    this.#scriptBridge = value === null ? undefined : value;
    this.requestUpdate('bridge', old);
  }

  get status(): PedelecElementStatus {
    return this.#_status;
  }
  get sessionId(): string | null {
    return this.#_session?.sessionId ?? null;
  }
  get session(): PedelecSession | null {
    return this.#_session;
  }
  get client(): Pedelec | null {
    return this.#_client;
  }
  get toolsStale(): boolean {
    return this.#staleness.stale;
  }
  /** The skills manifest this element would send now (undefined: no tools and no guidance). */
  get manifest(): SerializableSkillsManifest | undefined {
    this.#upToDate();
    return this.#currentManifest;
  }
  get fallback(): GenericToolHandler | null {
    return this.#toolbox.generic;
  }
  set fallback(handler: GenericToolHandler | null) {
    const old = this.#toolbox.generic;
    this.#toolbox.generic = typeof handler === 'function' ? handler : null;
    this.requestUpdate('fallback', old);
  }
  /** @internal For tests: how many manifest builds ran (one per batch of changes). */
  get buildCount(): number {
    return this.#registry.builds;
  }

  /** @internal For leak tests: the sizes of the element's bookkeeping (members, running calls, reported problems, cached JS definitions). */
  get bookkeeping(): { members: number; running: number; reported: number; cached: number } {
    return {
      members: this.#members.size,
      running: this.#running.size,
      reported: this.#reported.size,
      cached: this.#registry.cached,
    };
  }

  // ───────────────────────────── lifecycle ─────────────────────────────

  override connectedCallback(): void {
    super.connectedCallback();
    connectedSessions.add(this);
    // A session defined after its members: ask them to announce themselves again, so the nearest
    // session (maybe this one, maybe a nested one) takes each. Members connect after their session
    // when both arrive together, so with none connected yet there is no one to ask.
    if (anyMemberConnected()) {
      for (const member of this.#below(
        (el) => el instanceof PedelecToolElement || el instanceof PedelecGuidanceElement,
      ))
        (member as Element & Registrable).reregister();
    }
    this.#queueRebuild();
    // Properties set before the upgrade (`bridge`, `tools`, a tool's `argsSchema`…) are put back by
    // Lit in each element's first update: an autostart waits for those, once.
    const autostart = () => {
      if (this.autostart && this.isConnected && !this.#live() && !this.#starting) this.start().catch(() => {});
    };
    if (this.hasUpdated) autostart();
    else void this.updateComplete.then(autostart);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    connectedSessions.delete(this);
    // Frameworks move elements by removing and re-inserting them in one task: wait a microtask and
    // tear down only if the element is still out of the document.
    queueMicrotask(() => {
      if (!this.isConnected) this.#teardown();
    });
  }

  override attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    super.attributeChangedCallback(name, old, value);
    if (name === 'bridge' && this.#scriptBridge === undefined) this.requestUpdate('bridge', old ?? undefined);
  }

  /** The shadow root shows the children as they are: one slot, built once (no template library needed). */
  protected override createRenderRoot(): HTMLElement | DocumentFragment {
    const root = super.createRenderRoot();
    root.append(document.createElement('slot'));
    return root;
  }

  override requestUpdate(name?: PropertyKey, oldValue?: unknown, options?: PropertyDeclaration): void {
    super.requestUpdate(name, oldValue, options);
    // What the build reads: queued now, not in this element's update a microtask later, so a
    // start() or `manifest` read in this task sees it. (Connecting queues a build anyway.)
    if (this.isConnected && (name === 'tools' || name === 'extensionId' || CONFIG_KEYS.includes(name as never)))
      this.#queueRebuild();
  }

  // ───────────────────────────── members ─────────────────────────────

  /** @internal */
  adopt(member: Element): void {
    this.#members.add(member);
    this.#queueRebuild();
  }

  /** @internal */
  release(member: Element): void {
    if (!this.#members.delete(member)) return;
    // A removed tool's running calls are aborted, so their handlers can stop and close their UI —
    // after a microtask, and not if the tool came back (a framework moving it, or its session).
    queueMicrotask(() => {
      if (this.#members.has(member)) return;
      const { name } = member as PedelecToolElement;
      for (const [ctx, call] of this.#running) {
        if (call.element !== member) continue;
        call.abort(pedelecError('TOOL_UNAVAILABLE', `Tool ${name ?? ''} was removed from the page`, { tool: name }));
        // Not kept for a handler that ignores its signal: that would hold the removed element.
        this.#running.delete(ctx);
      }
    });
    this.#queueRebuild();
  }

  /** @internal */
  memberChanged(): void {
    this.#queueRebuild();
  }

  /** The elements below this one that pass `test`, in shadow-including tree order (open roots only). */
  #below(test: (el: Element) => boolean): Element[] {
    const found: Element[] = [];
    const visit = (root: Element | ShadowRoot) => {
      for (const el of root.querySelectorAll('*')) {
        if (test(el)) found.push(el);
        if (el.shadowRoot) visit(el.shadowRoot);
      }
    };
    visit(this);
    return found;
  }

  /**
   * Runs the queued build now, after taking the members' undelivered mutations (an arg's attribute
   * or the guidance text changed in this task): start(), invoke() and `manifest` use what the page
   * just wrote. Property changes queue the build as they happen (requestUpdate).
   */
  #upToDate(): void {
    this.#members.forEach(flushChanges);
    if (this.#rebuildQueued) this.#rebuild();
  }

  #queueRebuild(): void {
    if (this.#rebuildQueued) return;
    this.#rebuildQueued = true;
    queueMicrotask(() => {
      if (this.#rebuildQueued) this.#rebuild();
    });
  }

  /** One build per batch: order the members, normalize (cached), judge validity, report. */
  #rebuild(): void {
    this.#rebuildQueued = false;
    const members = this.#orderedMembers();
    const toolElements = members.filter((member) => member instanceof PedelecToolElement);
    this.#built = this.#registry.build(toolElements, Array.isArray(this.tools) ? this.tools : []);

    // The problems of this build, by element (or JS tool name); one event per problem, not per build.
    const reported = this.#reported;
    this.#reported = new Map(
      this.#built.invalid.map((problem) => [problem.element ?? `js:${problem.name}`, problem.error.message]),
    );
    for (const element of toolElements) element.setInvalid(this.#reported.get(element) ?? null);
    for (const problem of this.#built.invalid) {
      if (reported.get(problem.element ?? `js:${problem.name}`) !== problem.error.message)
        this.#error(problem.error, problem.element);
    }

    // Warnings of this build; one the previous build gave already is not repeated, and one whose tool
    // went is forgotten (a session whose tools come and go keeps no key per name it ever saw).
    const warned = this.#warned;
    this.#warned = new Set();
    for (const built of this.#built.tools) for (const warning of built.tool.warnings) this.#warn(warning, warned);
    // A member this copy of the kit cannot read: another copy defined its tag (a page loading the
    // kit twice, one copy per tag). Said, not dropped silently.
    for (const member of members) {
      if (!(member instanceof PedelecToolElement || member instanceof PedelecGuidanceElement)) {
        this.#warn(
          pedelecError('FOREIGN_ELEMENT', `<${member.localName}> is from another copy of pedelec-elements: ignored`),
          warned,
        );
      }
    }

    const guidance = this.#resolveGuidance(members.filter((member) => member instanceof PedelecGuidanceElement));
    const tools = this.#built.tools.map((t) => t.tool.manifest);
    this.#currentManifest = tools.length > 0 || guidance !== '' ? { guidance, tools } : undefined;
    // Before start, local invoke() uses what is declared now; after, the set that was sent to Core.
    if (!this.#_session && !this.#starting) {
      this.#toolbox.setTools(this.#built.tools.map((t) => t.tool));
      this.#toolbox.validateArgs = !this.novalidate;
    }
    this.#reportStale();
  }

  /** One `pedelec-tools-changed` per new difference from what the session was created with (none without a session). */
  #reportStale(): void {
    const change = this.#staleness.check(this.#currentManifest, this.#config());
    if (change) this.#emit(new PedelecToolsChangedEvent(change));
  }

  /** Registered members in shadow-including tree order; any the walk cannot see (closed roots) last. */
  #orderedMembers(): Element[] {
    const members = this.#members;
    if (members.size === 0) return [];
    const ordered = this.#below((el) => members.has(el));
    if (ordered.length < members.size) {
      const seen = new Set(ordered);
      for (const el of this.#members) if (!seen.has(el)) ordered.push(el);
    }
    return ordered;
  }

  #resolveGuidance(children: PedelecGuidanceElement[]): string {
    const attribute = this.guidance;
    if (attribute != null && children.length > 0) {
      // The attribute wins; the conflict is reported once, until it is resolved.
      const error = pedelecError(
        'INVALID_INPUT',
        'guidance is given both as the guidance attribute and as <pedelec-guidance>',
        { reason: 'guidance given twice' },
      );
      if (!this.#guidanceError) this.#error(error, children[0]!);
      this.#guidanceError = error;
    } else this.#guidanceError = null;
    return (
      attribute ??
      children
        .map((g) => g.text)
        .filter(Boolean)
        .join('\n\n')
    );
  }

  #warn(warning: PedelecError, before: Set<string>): void {
    const key = `${warning.code}:${warning.message}`;
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    if (before.has(key)) return;
    if (this.debug) console.warn(`[pedelec] ${warning.message}`);
    this.#emit(new PedelecWarningEvent({ warning }));
  }

  // ───────────────────────────── staleness ─────────────────────────────

  #config(): SessionConfig {
    const bridge = this.#bridgeConfig();
    return {
      provider: this.provider ?? '',
      model: this.model ?? '',
      guidance: this.#currentManifest?.guidance ?? '',
      // The bridge as it is used: parsed (a blank attribute is the extension, whose id then counts).
      bridge: 'code' in bridge ? (this.bridge ?? '') : bridgeKey(bridge),
      novalidate: String(this.novalidate),
    };
  }

  // ───────────────────────────── tool calls ─────────────────────────────

  #unavailable(tool: string): PedelecError | null {
    // Only tools that were sent to Core, or are declared here but disabled, are unavailable; others go
    // to named/generic handlers.
    // While starting, what is being sent counts as sent (the toolbox already holds it).
    const sent = this.#staleness.sent(tool) || (!!this.#starting && this.#toolbox.tools.has(tool));
    if (!(sent || this.#built.disabled.has(tool)) || this.#built.byName.has(tool)) return null;
    return pedelecError('TOOL_UNAVAILABLE', `Tool ${tool} is no longer available on this page`, { tool });
  }

  #dispatchToolCall(call: ToolCall): { respond: unknown } | { deny: PedelecError } | undefined {
    const element = this.#built.byName.get(call.tool)?.element;
    if (!element) return undefined;
    const event = new PedelecToolCallEvent({ tool: call.tool, args: call.args, context: call.ctx }, (error) =>
      this.#error(error, element),
    );
    element.dispatchEvent(event);
    return event.close();
  }

  #inlineHandler(tool: string): ToolSpecificHandler | undefined {
    const built = this.#built.byName.get(tool);
    if (built?.element) return built.element.handler;
    // The current definition's handler only: a tool whose handler the page took away has none (the
    // toolbox may still hold an earlier definition's, cached by its data).
    return built?.definition?.handler;
  }

  #toolStarted(call: ToolCall): void {
    const element = this.#built.byName.get(call.tool)?.element ?? null;
    if (call.abort) this.#running.set(call.ctx, { element, abort: call.abort });
    this.#emit(new PedelecToolStartEvent({ tool: call.tool, args: call.args, context: call.ctx, local: call.local }));
  }

  #toolFinished(call: ToolCall, outcome: ToolOutcome, durationMs: number): void {
    this.#running.delete(call.ctx);
    this.#emit(
      new PedelecToolResultEvent({
        tool: call.tool,
        args: call.args,
        result: outcome.result,
        ok: outcome.ok,
        durationMs,
        context: call.ctx,
        local: call.local,
      }),
    );
  }

  /**
   * Runs a tool locally through exactly the path an agent call takes — availability, validation,
   * handler resolution, result check — without sending anything. Works before `start()`. Never
   * rejects: `error` is exactly what the agent would have received.
   */
  invoke(name: string, args: unknown, options: { signal?: AbortSignal } = {}): Promise<InvokeResult> {
    this.#upToDate();
    const id = `local_${++this.#localCount}`;
    const session = this.#_session;
    const timeoutMs = this.#toolbox.tools.get(name)?.manifest.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    const startedAt = Date.now();
    const base: PedelecEventContext = {
      sessionId: session?.sessionId ?? '',
      provider: session?.provider ?? this.provider ?? '',
      model: session?.model ?? this.model ?? undefined,
      sessionCreatedAt: session?.sessionCreatedAt ?? startedAt,
      eventEmittedAt: startedAt,
      eventReceivedAt: startedAt,
      turnId: id,
      turnStartedAt: startedAt,
      source: 'sdk',
    };
    const { ctx, abort, settle } = toolCallContext(base, { toolRequestId: id, tool: name }, startedAt + timeoutMs);
    (ctx as { turnKind?: string }).turnKind = 'local';
    const signal = options.signal;
    const onAbort = () => abort(normalizeError(signal?.reason, 'ABORTED', 'The call was aborted'));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (outcome: ToolOutcome): InvokeResult => {
      settle();
      signal?.removeEventListener('abort', onAbort);
      return outcome.ok ? { ok: true, result: outcome.result } : { ok: false, error: outcome.error };
    };
    const outcome = this.#toolbox.run({ tool: name, args, ctx, local: true, abort });
    if (!(outcome instanceof Promise)) return Promise.resolve(finish(outcome));
    // A handler still running at the deadline: the agent would get Core's TOOL_TIMEOUT then, so this
    // call does too (the handler's signal aborts with it). Its own timer: an abort (the caller's
    // signal, the tool or the element going) clears the context's deadline timer.
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout>;
      const done = (settled: ToolOutcome) => {
        clearTimeout(timer);
        resolve(finish(settled));
      };
      const arm = () => {
        const left = startedAt + timeoutMs - Date.now();
        if (left > 0) return void (timer = setTimeout(arm, Math.min(left, 2 ** 31 - 1)));
        const error = toolTimeout(name, id);
        abort(error);
        this.#running.delete(ctx); // its handler may never answer
        done({ ok: false, result: { error }, error, reportToPage: false });
      };
      arm();
      outcome.then(done);
    });
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

  // ───────────────────────────── session ─────────────────────────────

  /** Creates (or, with `persist` / `session-id`, resumes) the agent session. While starting, returns the same promise. */
  start(): Promise<PedelecSession> {
    // Removed from the page: nothing would ever end a session made now, nor give its client back.
    if (!this.isConnected && this.#teardowns > 0) return Promise.reject(sessionEnded(this.#_session?.sessionId));
    if (this.#live()) {
      // After an end() that failed, the session still runs: start() makes it usable again.
      this.#endedByPage = false;
      return Promise.resolve(this.#_session!);
    }
    if (this.#starting) {
      // start() after end() while starting (a React StrictMode effect, its cleanup, the effect again):
      // the latest call wins, and the session being created is kept.
      if (this.#endWhenStarted === this.#starting) {
        this.#endWhenStarted = null;
        this.#endedByPage = false;
      }
      return this.#starting;
    }
    const starting = this.#doStart();
    this.#starting = starting;
    const clear = () => {
      if (this.#starting === starting) this.#starting = null;
    };
    starting.then(clear, clear);
    return starting;
  }

  /** Sends the user's text (starting the session first if needed); resolves when the turn finished. */
  sendText(text: string): Promise<void> {
    return this.#started().then((session) => session.sendText(text));
  }

  /** Warms the provider up (starting the session first if needed). */
  prepare(): Promise<void> {
    return this.#started().then((session) => session.prepare());
  }

  /** The session for a turn: started if needed, but not after the page ended it. */
  #started(): Promise<PedelecSession> {
    return this.#endedByPage ? Promise.reject(sessionEnded(this.#_session?.sessionId)) : this.start();
  }

  /** Ends the agent session; `sendText()` then rejects `SESSION_ENDED` until `start()` or `restart()`. */
  end(): Promise<void> {
    const session = this.#_session;
    const starting = this.#starting;
    this.#ends++;
    this.#forgetRecord();
    // While starting: the session being created is ended as soon as it exists.
    if (!session && starting) {
      this.#endedByPage = true;
      this.#endWhenStarted = starting;
      return starting.then(
        () => {
          if (this.#endWhenStarted === starting) {
            this.#endWhenStarted = null;
            return this.end();
          }
        },
        () => {},
      );
    }
    this.#endedByPage = true;
    // No session (never started, or its start failed): still ended, so sendText() does not start one.
    return session ? session.end() : Promise.resolve();
  }

  /**
   * Starts over: rejects a running turn (`SESSION_ENDED`), aborts running handlers, ends the old
   * session (a failure there is reported, not fatal), replaces a disconnected client — the explicit
   * reconnect — and creates a fresh session with the current tools. Clears `toolsStale`.
   */
  restart(): Promise<PedelecSession> {
    // A second call while one runs (a double click) joins it rather than ending what it created.
    return (this.#restarting ??= this.#doRestart().finally(() => (this.#restarting = null)));
  }

  async #doRestart(): Promise<PedelecSession> {
    const ends = this.#ends;
    if (this.#starting) await this.#starting.catch(() => {});
    const old = this.#_session;
    this.#forgetRecord();
    if (old) {
      // A failure is reported by the session itself (pedelec-error), and is not fatal here.
      await old.end().catch(() => {});
      old.detach(sessionEnded(old.sessionId));
    }
    // Removed from the page meanwhile (teardown released the client), or ended by the page: the
    // latest call wins, nothing is started.
    if (!this.isConnected || this.#ends !== ends) throw sessionEnded(old?.sessionId);
    this.#dropSession();
    if (this.#_client?.unavailableReason) {
      // The explicit reconnect: start() acquires a new client for the bridge as configured now.
      releaseClient(this, this.#_client);
      this.#_client = null;
    }
    // A fresh session, without history: not the one `session-id` names again.
    this.#fresh = true;
    return this.start();
  }

  /** The bridge's availability, for telling the user what to do (never rejects). */
  checkAvailability(): Promise<PedelecAvailability> {
    const client = this.#ensureClient();
    if ('code' in client) {
      return Promise.resolve({
        available: false,
        extension: { available: false },
        approval: { approved: false, origin: globalThis.location?.origin ?? null },
        desktop: { available: false, launchAttempted: false },
        error: client,
      });
    }
    // A client whose bridge went away stays down until restart(), the explicit reconnect. With no
    // session on it, ask a new connection whether the bridge is back (a dev Core restarted, say).
    const config = this.#bridgeConfig();
    if (client.unavailableReason && !this.#live() && !('code' in config))
      return probeAvailability(config, this.bridgeTimeoutMs);
    return client.checkAvailability().finally(() => this.#releaseIfGone());
  }

  /** A removed element that took a client for a check or a cleanup gives it back (teardown ran already). */
  #releaseIfGone(): void {
    const client = this.#_client;
    if (!client || this.isConnected || this.#_session || this.#starting) return;
    releaseClient(this, client);
    this.#_client = null;
  }

  #bridgeConfig(): BridgeConfig | PedelecError {
    return parseBridge(this.bridge, this.#scriptBridge !== undefined, this.extensionId ?? undefined);
  }

  #ensureClient(): Pedelec | PedelecError {
    // While a session runs on it the client stays: a changed bridge makes that session stale and
    // restart() applies it — switching here (a chat's availability check, say) would cut it off.
    if (this.#_client && this.#_session && this.#_session.getStatus() !== 'ended') return this.#_client;
    const config = this.#bridgeConfig();
    if ('code' in config) return config;
    const key = `${bridgeKey(config)}|${this.bridgeTimeoutMs ?? ''}`;
    if (this.#_client && this.#clientKey === key) return this.#_client;
    if (this.#_client) releaseClient(this, this.#_client);
    this.#_client = acquireClient(this, config, this.bridgeTimeoutMs);
    this.#clientKey = key;
    return this.#_client;
  }

  /** Where `persist` keeps its record; null without `persist` or with an unusable bridge. */
  #storageKey(): string | null {
    if (!this.persist) return null;
    const config = this.#bridgeConfig();
    if ('code' in config) return null;
    // The bridge as given (spec: `pedelec-elements:v1:<bridge or 'ext:'+extensionId>:<id or path>`).
    return persistKey(
      config.kind === 'websocket' ? this.bridge!.trim() : bridgeKey(config),
      this.id || (globalThis.location?.pathname ?? ''),
    );
  }

  /**
   * Deletes the record of the running session (under the key it was written with) and the current
   * key's. A recorded session this page never resumed (end() or restart() before any start) is ended:
   * it was made to outlive its page, and nothing else would end it.
   */
  #forgetRecord(): void {
    for (const key of new Set([this.#recordKey, this.#storageKey()])) {
      if (!key) continue;
      const record = readRecord(key);
      if (record && record.sessionId !== this.#_session?.sessionId) this.#endRecorded(record.sessionId);
      deleteRecord(key);
    }
    this.#recordKey = null;
  }

  /** Ends a recorded session this element does not hold (best effort: it may be gone already). */
  #endRecorded(sessionId: string): void {
    const client = this.#ensureClient();
    if (!('code' in client)) {
      client
        .resumeSession(sessionId)
        .then((old) => old.end())
        .catch(() => {})
        .then(() => this.#releaseIfGone());
    }
  }

  async #doStart(): Promise<PedelecSession> {
    this.#endedByPage = false;
    const fresh = this.#fresh;
    this.#fresh = false;
    // An ended session is not kept while a new one starts (nor after a failed start).
    if (this.#_session) this.#dropSession();
    this.#upToDate();
    const fail = (error: PedelecError): never => {
      this.#setStatus('error');
      this.#error(error);
      throw error;
    };
    const client = this.#ensureClient();
    if ('code' in client) return fail(client);
    if (this.#guidanceError) return fail(this.#guidanceError);
    const generation = this.#teardowns;
    const removed = () => this.#teardowns !== generation;
    const key = this.#storageKey();
    if (key && [...connectedSessions].some((other) => other !== this && other.#storageKey() === key)) {
      return fail(
        pedelecError('INVALID_INPUT', `two persisted sessions share the storage key ${key}; give them distinct ids`, {
          key,
        }),
      );
    }
    this.#setStatus('starting');
    // What is sent, taken once: changes made while starting are compared with it once started.
    const built = this.#built;
    const manifest = this.#currentManifest;
    const config = this.#config();
    const toolbox = this.#toolbox;
    toolbox.validateArgs = !this.novalidate;
    toolbox.setTools(built.tools.map((t) => t.tool));
    const manifestHash = hashText(canonicalJson(manifest ?? null));

    let requestTimeoutMs: number | undefined;
    try {
      const approval = await client.getApprovalStatus();
      if (approval.installed && !approval.approved) {
        this.setAttribute('approval', 'pending');
        requestTimeoutMs = APPROVAL_WAIT_MS;
      }
    } catch {
      // Not fatal here: the create request below reports what is wrong.
    }
    if (removed()) {
      this.removeAttribute('approval');
      throw sessionEnded();
    }
    const wiring = { toolbox, requestTimeoutMs };
    const skills = manifest
      ? { guidance: manifest.guidance, tools: built.tools.map((t) => ({ ...t.tool.manifest })) }
      : undefined;

    let session: PedelecSession | null = null;
    let resumed = false;
    try {
      const record = key ? readRecord(key) : null;
      // Only a record of the same manifest is resumed, with its provider and model.
      const current = record?.manifestHash === manifestHash ? record : null;
      const resumeId = current ? current.sessionId : fresh ? null : this.getAttribute('session-id');
      if (resumeId) {
        try {
          session = await client.resumeSession(
            resumeId,
            {
              provider: current?.provider ?? config.provider,
              model: current?.model ?? (config.model || undefined),
              skills,
            },
            wiring,
          );
          resumed = true;
        } catch {
          // Gone, or not ours any more: start fresh below.
        }
      }
      // A record that was not resumed (tools changed, or resume refused): end its session, which was
      // created to outlive the page and would otherwise run on in Core. Not when the resume failed
      // because the element was removed (its client closed under it): teardown keeps persisted sessions.
      if (record && !(resumed && resumeId === record.sessionId) && !removed()) {
        this.#endRecorded(record.sessionId);
        deleteRecord(key!);
      }
      // No provider: the user's default, and a model only makes sense with a provider.
      session ??= await client.createSession(
        // What was taken when the start began (a change during the approval wait is a later change).
        {
          provider: config.provider || undefined,
          model: (config.provider && config.model) || undefined,
          skills,
          autoEndOnDisconnect: !this.persist,
        } as CreateSessionInput,
        wiring,
      );
    } catch (error) {
      this.removeAttribute('approval');
      // Removed meanwhile (its client closed under it): the element is inactive, not in error.
      if (removed()) throw sessionEnded();
      return fail(normalizeError(error, 'CREATE_SESSION_FAILED', 'Could not create the Pedelec session'));
    }
    this.removeAttribute('approval');
    if (key)
      writeRecord(key, {
        sessionId: session.sessionId,
        provider: session.provider,
        model: session.model,
        manifestHash,
      });
    this.#recordKey = key;
    if (removed()) {
      // Removed while Core created the session: treat it as teardown would have (end it, or with
      // `persist` keep it recorded for the next page), and attach nothing to a gone element.
      const reason = sessionEnded(session.sessionId);
      if (this.persist) session.detach(reason);
      else session.end().catch(() => session.detach(reason));
      throw reason;
    }
    this.#attach(session, manifest, config);
    this.#emit(
      new PedelecReadyEvent({
        sessionId: session.sessionId,
        provider: session.provider,
        model: session.model,
        resumed,
      }),
    );
    return session;
  }

  /** Turns the core session's callbacks into DOM events; `manifest` and `config` are what it was created with. */
  #attach(session: PedelecSession, manifest: SerializableSkillsManifest | undefined, config: SessionConfig): void {
    this.#dropSession();
    this.#_session = session;
    this.#staleness.take(manifest, config);
    // Errors stay subscribed after the element lets the session go (restart): an ended session only
    // reports results that could not be delivered any more, and those are said, not lost.
    session.onError((error, context) => this.#emit(new PedelecErrorEvent({ error, context })));
    // So does its end (it fires once): a status listener may start the next session at `ended`, which
    // lets this one go before the session reports its end.
    session.onEnded((context) => {
      // Its running calls were aborted and forgotten by the session: their handlers may never answer.
      for (const ctx of this.#running.keys())
        if (ctx.sessionId === session.sessionId && ctx.turnKind !== 'local') this.#running.delete(ctx);
      this.#emit(new PedelecEndedEvent({ context }));
    });
    this.#unsubscribe = [
      session.onStatus((status, context) => this.#setStatus(status, context)),
      session.onChat((text, context) => this.#emit(new PedelecChatDeltaEvent({ text, context }))),
      session.onChatMessage((text, context) => this.#emit(new PedelecChatMessageEvent({ text, context }))),
      session.onUsage((usage, context) => this.#emit(new PedelecUsageEvent({ usage, context }))),
      session.onArtifact((artifact, context) => this.#emit(new PedelecArtifactEvent({ artifact, context }))),
      session.onTurn((turn) => this.#emit(new PedelecTurnEvent(turn))),
    ];
    this.#setStatus(session.getStatus());
    // Changed while it was being created: stale from the start.
    this.#reportStale();
  }

  /** Whether the element has a session that goes on: not ended, and not being ended by a teardown. */
  #live(): boolean {
    const session = this.#_session;
    return !!session && session !== this.#leaving && session.getStatus() !== 'ended';
  }

  #dropSession(): void {
    this.#unsubscribe.forEach((off) => off());
    this.#unsubscribe = [];
    this.#_session = null;
    this.#staleness.clear();
  }

  #teardown(): void {
    this.#teardowns++;
    // A start still in flight belongs to the element as it was: it ends what it creates (see
    // #doStart). The element, if it comes back, starts afresh instead of waiting for that one.
    this.#starting = null;
    const reason = sessionEnded(this.#_session?.sessionId);
    for (const call of [...this.#running.values()]) call.abort(reason);
    this.#running.clear();
    const session = this.#_session;
    const client = this.#_client;
    // Still shown (its ended event reaches the page) until its end settles — unless the element,
    // put back meanwhile, started another: then that one is the element's, and stays.
    this.#leaving = session;
    const finish = () => {
      if (this.#leaving === session) this.#leaving = null;
      if (this.#_session === session) {
        this.#dropSession();
        this.#setStatus('inactive');
      }
      if (client && !this.isConnected) {
        releaseClient(this, client);
        if (this.#_client === client) this.#_client = null;
      }
    };
    if (session && !this.persist) {
      // A failure is reported by the session itself (pedelec-error): still subscribed until finish.
      session.end().then(finish, () => {
        session.detach(reason);
        finish();
      });
    } else {
      session?.detach(reason);
      finish();
    }
  }

  /** Mirrors the status as a custom state, `:state(running)`. */
  #showState(previous: PedelecElementStatus | null, next: PedelecElementStatus): void {
    const states = this.#internals?.states;
    if (!states) return;
    try {
      if (previous) states.delete(previous);
      states.add(next);
    } catch {
      // Older engines only accept `--name` custom states.
      try {
        if (previous) states.delete(`--${previous}`);
        states.add(`--${next}`);
      } catch {
        /* custom states unsupported: the attribute still reflects the status */
      }
    }
  }

  #setStatus(next: PedelecElementStatus, context?: PedelecEventContext): void {
    const previousStatus = this.#_status;
    if (next === previousStatus) return;
    this.#_status = next;
    this.setAttribute('status', next);
    this.#showState(previousStatus, next);
    this.#emitStatus(
      new PedelecStatusEvent(context ? { status: next, previousStatus, context } : { status: next, previousStatus }),
    );
  }
}
