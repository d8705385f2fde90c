/**
 * `<pedelec-session webmcp>`'s expose (spec every-agent.md §2): every tool the session offers the
 * Pedelec agent, except the `private` ones, registered with the page's model context for the
 * browser's own agent — and kept registered as the tools change. Part of the WebMCP chunk
 * (webmcp.ts): only a session with `webmcp` downloads it.
 *
 * Two browsers, two surfaces, both feature-detected at each sync:
 * - Chromium's `document.modelContext`: `registerTool(tool, { signal, exposedTo })` returns a promise
 *   that rejects a taken name (`InvalidStateError`); aborting the signal unregisters.
 * - Firefox's older `navigator.modelContext`: `registerTool` is synchronous and ignores the signal;
 *   `unregisterTool(name)` unregisters; a taken name is silently replaced (no `WEBMCP_NAME_TAKEN`).
 *
 * Each registration has its own `AbortController` and the key of what it registered; a change of
 * what it would register now is an unregistration and a new registration. Calls run the element's
 * one path (session-parts.ts) and resolve an MCP `CallToolResult`, never a rejection. Tools imported
 * from the page (webmcp-import.ts), and `<pedelec-tool form>` tools whose form has `toolname` (the
 * browser registers those forms itself), are not registered again.
 */
import { normalizeError, pedelecError, type PedelecError } from '../../../core/errors.js';
import { callToolResult, type CallToolResult } from '../../../core/call-tool-result.js';
import { canonicalJson } from '../../../core/json.js';
import { foreignFields, foreignTool, importedDefinitions, type AgentSide, type DeclaredTool } from '../host.js';
import { browserSchema } from './browser-schema.js';
import { boundForm, exposes, hasToken, modelContext } from './webmcp-tokens.js';

/** Chromium refuses longer names ("Invalid tool name"): they are skipped in every browser. */
const MAX_NAME_LENGTH = 128;

/** A tool as the model context takes it. */
type WebmcpTool = {
  name: string;
  description: string;
  inputSchema: object;
  title?: string;
  annotations?: { readOnlyHint?: true; untrustedContentHint?: true; consequentialHint?: true };
  execute(input: unknown, client?: { signal?: AbortSignal }): Promise<CallToolResult>;
};

/** The model context, as far as the exposure uses it (Chromium's or Firefox's, see above). */
type ModelContext = {
  registerTool(tool: WebmcpTool, options: { signal: AbortSignal; exposedTo?: readonly string[] }): unknown;
  unregisterTool?(name: string): void;
};

/** What the exposure needs from its session element besides what every foreign agent's part does. */
export interface ExposureHost extends AgentSide {
  /** Its `webmcp` attribute. */
  webmcp(): string | null;
  /** Origins the tools are shown to (the `exposedTo` property). */
  exposedTo(): readonly string[] | undefined;
}

type Registration = {
  name: string;
  /** What was registered (and with which `exposedTo`), as canonical JSON. */
  key: string;
  context: ModelContext;
  controller: AbortController;
  /** `failed`: refused by the browser; tried again when the tool changes or `webmcp` is set again. */
  state: 'pending' | 'registered' | 'failed';
};

/** The registrations of every session of the page, refused ones excepted. */
const registered = new Set<Registration>();

/** Whether a session of the page registered `name` (or is registering it): no tool to import. */
export const registeredByKit = (name: string): boolean => [...registered].some((r) => r.name === name);

/**
 * Whether foreign agents are offered a tool: not `private`, not imported from the page's WebMCP tools,
 * and not a `<pedelec-tool form>` whose form has `toolname` (the browser registered that form itself).
 */
const offered = (built: DeclaredTool): boolean =>
  !foreignFields(built).private &&
  !(built.definition && importedDefinitions.has(built.definition)) &&
  !(built.element && boundForm(built.element)?.hasAttribute('toolname'));

/**
 * The tools offered to the browser's agent; a consequential one only with the `consequential` token:
 * its approval is then the browser's confirmation, which the page opts into knowingly.
 */
export const exposedTools = (tools: readonly DeclaredTool[], webmcp: string | null): DeclaredTool[] =>
  tools.filter((built) => offered(built) && (!built.tool.approval || hasToken(webmcp, 'consequential')));

/**
 * What is registered for one tool (without `execute`): the foreign agents' fields, the schema as
 * validating browsers accept it (`removed`: what that took out), the hints as annotations.
 */
function describe(built: DeclaredTool): { tool: Omit<WebmcpTool, 'execute'>; removed: string[] } {
  const { readOnly, untrustedContent, consequential, inputSchema, ...described } = foreignTool(built);
  const { schema, removed } = browserSchema(inputSchema);
  const tool = { ...described, inputSchema: schema };
  if (!readOnly && !untrustedContent && !consequential) return { tool, removed };
  const annotations = {
    ...(readOnly && { readOnlyHint: readOnly }),
    ...(untrustedContent && { untrustedContentHint: untrustedContent }),
    ...(consequential && { consequentialHint: consequential }),
  };
  return { tool: { ...tool, annotations }, removed };
}

export class WebmcpExposure {
  /** By tool name: a name is registered at most once per page anyway. */
  readonly #registrations = new Map<string, Registration>();
  /** The warnings given while `webmcp` is on, so that each is given once. */
  readonly #warned = new Set<string>();

  constructor(private readonly host: ExposureHost) {}

  /** The names the browser has accepted (the `webmcpTools` property). */
  get names(): string[] {
    return [...this.#registrations].filter(([, r]) => r.state === 'registered').map(([name]) => name);
  }

  /**
   * Registers, re-registers and unregisters until what is registered is what the session offers
   * (called once for a batch of changes: foreign-agents.ts).
   */
  sync(): void {
    const wanted = this.host.connected() && exposes(this.host.webmcp());
    const context = wanted ? (modelContext() as ModelContext | undefined) : undefined;
    if (!context) {
      for (const [name, registration] of this.#registrations) this.#drop(name, registration);
      if (!wanted) return this.#warned.clear();
      const reason = 'the browser has no document.modelContext or navigator.modelContext';
      const turnOn = 'turn it on: Chromium --enable-features=WebMCP, Firefox dom.modelcontext.enabled in about:config';
      return this.#warn(
        pedelecError('WEBMCP_UNAVAILABLE', `WebMCP is not available: ${reason}; ${turnOn}`, { reason }),
      );
    }
    const exposedTo = this.host.exposedTo();
    const offered = new Map<string, { key: string; tool: Omit<WebmcpTool, 'execute'> }>();
    for (const built of this.host.offered()) {
      const name = built.tool.name;
      if (name.length > MAX_NAME_LENGTH) {
        const message = `WebMCP: the tool ${name} is not registered (browsers refuse names over ${MAX_NAME_LENGTH} characters)`;
        this.#warn(pedelecError('WEBMCP_UNAVAILABLE', message, { tool: name, reason: 'name too long' }));
        continue;
      }
      const { tool, removed } = describe(built);
      if (removed.length) {
        const message = `WebMCP: the tool ${name} is registered without what browsers refuse in a schema (${removed.join(', ')}); the kit still checks calls against its whole schema`;
        this.#warn(pedelecError('WEBMCP_SCHEMA_REDUCED', message, { tool: name, paths: removed }));
      }
      offered.set(name, { key: canonicalJson([tool, exposedTo ?? null]), tool });
    }
    for (const [name, registration] of this.#registrations) {
      const now = offered.get(name);
      if (now?.key !== registration.key || registration.context !== context) this.#drop(name, registration);
    }
    for (const [name, { key, tool }] of offered) {
      if (!this.#registrations.has(name))
        this.#register(context, key, { ...tool, execute: this.#execute(name) }, exposedTo);
    }
  }

  #register(context: ModelContext, key: string, tool: WebmcpTool, exposedTo: readonly string[] | undefined): void {
    const { name } = tool;
    const registration: Registration = { name, key, context, controller: new AbortController(), state: 'pending' };
    this.#registrations.set(name, registration);
    registered.add(registration);
    const accepted = () => {
      if (this.#registrations.get(name) === registration) registration.state = 'registered';
    };
    const refused = (error: unknown) => this.#refused(name, registration, error);
    try {
      // `exposedTo` as given: the browser checks it (a refusal is a warning like any other).
      const options = { signal: registration.controller.signal, ...(exposedTo != null && { exposedTo }) };
      const pending = context.registerTool(tool, options) as PromiseLike<unknown> | undefined;
      // Chromium answers with a promise; Firefox registers at once.
      if (typeof pending?.then === 'function') pending.then(accepted, refused);
      else accepted();
    } catch (error) {
      refused(error);
    }
  }

  /** The browser refused a registration: said once, unless it is one the session has let go since. */
  #refused(name: string, registration: Registration, error: unknown): void {
    if (this.#registrations.get(name) !== registration || registration.controller.signal.aborted) return;
    registration.state = 'failed';
    registered.delete(registration);
    const { name: kind, message } = normalizeDomError(error);
    if (kind === 'InvalidStateError') {
      const text = `WebMCP: the tool name ${name} is taken on this page (a form or another script registered it first)`;
      this.#warn(pedelecError('WEBMCP_NAME_TAKEN', text, { tool: name }));
    } else {
      const reason = `${kind}: ${message}`;
      this.#warn(pedelecError('WEBMCP_UNAVAILABLE', `WebMCP is not available: ${reason}`, { tool: name, reason }));
    }
  }

  /** Unregisters: the signal for Chromium, `unregisterTool` for Firefox — not a name the browser gave someone else. */
  #drop(name: string, registration: Registration): void {
    this.#registrations.delete(name);
    registered.delete(registration);
    registration.controller.abort();
    if (registration.state === 'failed') return;
    try {
      registration.context.unregisterTool?.(name);
    } catch {
      // Already gone: nothing to undo.
    }
  }

  /**
   * A tool's `execute`: the session's current tools, the element's path; resolves, never rejects. No
   * input is an empty arguments object, as WebMCP has it.
   */
  #execute(name: string): WebmcpTool['execute'] {
    return async (input, client) => {
      try {
        // A consequential tool is registered only where the page leaves it to the browser's confirmation.
        const args = input === undefined ? {} : input;
        return callToolResult(await this.host.call(name, args, client?.signal, 'browser-hint'));
      } catch (thrown) {
        return callToolResult({ ok: false, error: normalizeError(thrown, 'TOOL_HANDLER_ERROR', 'The call failed') });
      }
    };
  }

  #warn(warning: PedelecError): void {
    const key = `${warning.code}:${warning.message}`;
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    this.host.warn(warning);
  }
}

/** A browser error's name and message (a `DOMException`, or whatever a polyfill throws). */
function normalizeDomError(error: unknown): { name: string; message: string } {
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  return {
    name: typeof name === 'string' ? name : 'Error',
    message: typeof message === 'string' ? message : String(error),
  };
}
