/**
 * `<pedelec-session webmcp="import">` (spec every-agent.md §3): the page's other WebMCP tools —
 * `<form toolname>` forms the browser registered, other scripts' tools — offered to the Pedelec agent
 * beside the declared ones. Part of the WebMCP chunk (webmcp.ts).
 *
 * - Which: what `getTools()` lists for this window (not same-origin frames'), minus what a
 *   `<pedelec-session>` of the page registered (webmcp-exposure.ts) and the forms a
 *   `<pedelec-tool form>` binds; read again on each `toolchange`. A declared tool of the same name
 *   wins, with a `WEBMCP_NAME_TAKEN` warning.
 * - Their schemas are normalized into the args subset (imported-schema.ts).
 * - A call is an imported tool's handler, so it takes the path every call takes (validation, the
 *   deadline, cancellation, the result check): `executeTool`, whose string result is parsed as JSON
 *   when it is JSON, and whose errors reach the agent as `TOOL_HANDLER_ERROR` with the browser's words.
 * - A form tool — a `form[toolname]` in the document or an open shadow root says so; `getTools()` does
 *   not — without `toolautosubmit` waits for the user to press submit: it gets 5 minutes, and is
 *   answered `FORM_AWAITING_USER` 1 s before they are up.
 * - A browser without `getTools`, `executeTool` or the `toolchange` event (Firefox's older API) imports
 *   nothing, with one `WEBMCP_UNAVAILABLE` warning.
 */
import { normalizeError, pedelecError, type PedelecError } from '../../../core/errors.js';
import type { ToolCallContext, ToolDefinition } from '../../../core/index.js';
import { canonicalJson } from '../../../core/json.js';
import { PedelecToolElement } from '../../tool/pedelec-tool.element.js';
import { importedDefinitions } from '../host.js';
import { importedArgsSchema } from './imported-schema.js';
import { boundForm, exposes, imports } from './webmcp-tokens.js';

/** How long a form the user has to submit is given (its `timeoutMs` in the manifest). */
export const FORM_TIMEOUT_MS = 300_000;
/** How long before its deadline such a form call is answered `FORM_AWAITING_USER`. */
const ANSWER_MARGIN_MS = 1000;
/** How long the first start waits for the page's tools to be read (a polyfill may never answer). */
const READ_WAIT_MS = 1000;

/** A tool as `getTools()` lists it. */
export type ListedTool = {
  name: string;
  description?: string;
  title?: string;
  inputSchema?: unknown;
  window?: unknown;
};

/** What import needs of the model context: Chromium's `document.modelContext`, or a polyfill's. */
type ImportingContext = EventTarget & {
  getTools(): Promise<ListedTool[]>;
  executeTool(tool: ListedTool, input: unknown, options?: { signal?: AbortSignal }): Promise<unknown>;
};

/** Whether the model context has what import needs. */
const importing = (context: unknown): context is ImportingContext => {
  const c = context as Partial<ImportingContext> | undefined;
  return (
    typeof c?.getTools === 'function' && typeof c.executeTool === 'function' && typeof c.addEventListener === 'function'
  );
};

/** What the import needs from its session element. */
export interface ImportHost {
  /** Whether the session element is in the page. */
  connected(): boolean;
  /** Its `webmcp` attribute. */
  webmcp(): string | null;
  /** The window whose tools it imports: the element's. */
  window(): Window | null;
  /** The page's model context now, if there is one. */
  context(): unknown;
  /** Whether a session of the page registered that name. */
  registeredByKit(name: string): boolean;
  /** The tools it offers changed: build them again. */
  rebuild(): void;
  /** A `pedelec-warning`. */
  warn(warning: PedelecError): void;
}

/** `<form toolname>` forms by name, and the forms a `<pedelec-tool form>` binds: in the document and open shadow roots. */
function formsOf(document: Document): { named: Map<string, HTMLFormElement>; bound: Set<HTMLFormElement> } {
  const named = new Map<string, HTMLFormElement>();
  const bound = new Set<HTMLFormElement>();
  const visit = (root: Document | ShadowRoot) => {
    for (const element of root.querySelectorAll('*')) {
      const toolname = element.localName === 'form' ? element.getAttribute('toolname') : null;
      if (toolname && !named.has(toolname)) named.set(toolname, element as HTMLFormElement);
      const form = element instanceof PedelecToolElement && boundForm(element);
      if (form) bound.add(form);
      if (element.shadowRoot) visit(element.shadowRoot);
    }
  };
  visit(document);
  return { named, bound };
}

export class WebmcpImport {
  /** The context listened to for `toolchange`. */
  #context: ImportingContext | undefined;
  /** What `getTools()` listed for this window last (names Pedelec can take). */
  #listed: ListedTool[] = [];
  /** `#listed` as canonical JSON (`''`: not JSON): a read that lists the same tools changes nothing. */
  #key = '[]';
  /** Reads started: an answer to an older one is not taken. */
  #reads = 0;
  /** The newest read and its promise (see {@link #read}). */
  #newest: { read: number; settled: Promise<unknown> } | undefined;
  /** Names a declared tool shadows now (each warned about once while it lasts). */
  #shadowed = new Set<string>();
  /** The warnings given while `import` is asked for, so that each is given once. */
  readonly #warned = new Set<string>();

  constructor(private readonly host: ImportHost) {}

  // Fire and forget: the read takes its answer itself, and nothing here waits for it.
  readonly #onChange = () => void this.#read();

  /**
   * Listens, reads, or lets go, as the session and its `webmcp` say now. Returns the read it started
   * (settled once its answer is taken, or after a second), if it started one.
   */
  sync(): Promise<unknown> | undefined {
    const wanted = this.host.connected() && imports(this.host.webmcp());
    const context = wanted ? this.host.context() : undefined;
    const usable = importing(context) ? context : undefined;
    let read: Promise<unknown> | undefined;
    if (usable !== this.#context) {
      this.#context?.removeEventListener('toolchange', this.#onChange);
      this.#context = usable;
      this.#reads++; // an older context's answer is not taken
      usable?.addEventListener('toolchange', this.#onChange);
      if (usable) read = this.#read();
      else this.#take([]);
    }
    if (!wanted) {
      this.#warned.clear();
      return read;
    }
    // No model context at all while `expose` is asked for too: the exposure says so already.
    if (!usable && (context || !exposes(this.host.webmcp()))) {
      const reason = context
        ? "the browser's model context has no getTools(), executeTool() or toolchange event"
        : 'the browser has no document.modelContext or navigator.modelContext';
      this.#warn(pedelecError('WEBMCP_UNAVAILABLE', `WebMCP import is not available: ${reason}`, { reason }));
    }
    return read;
  }

  #warn(warning: PedelecError): void {
    const key = `${warning.code}:${warning.message}`;
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    this.host.warn(warning);
  }

  /**
   * Reads the page's tools; settles once the answer is taken, or after a second (a polyfill may never
   * answer). An answer a newer read replaced (a `toolchange` came meanwhile) is not taken: the read
   * settles with the newer one instead, so a start that waits for it sends what that one lists.
   */
  #read(): Promise<unknown> {
    const context = this.#context!;
    const read = ++this.#reads;
    const listed = Promise.resolve()
      .then(() => context.getTools())
      .then(
        (tools) => {
          if (read === this.#reads) return this.#take(tools);
          // Replaced by a newer read (a change of context starts none): what that one takes counts.
          const newest = this.#newest;
          return newest && newest.read !== read ? newest.settled : undefined;
        },
        (error: unknown) => {
          const reason = String((error as Error)?.message ?? error);
          const message = `WebMCP import could not list the page's tools: ${reason}`;
          this.#warn(pedelecError('WEBMCP_UNAVAILABLE', message, { reason }));
        },
      );
    const settled = Promise.race([listed, new Promise((resolve) => setTimeout(resolve, READ_WAIT_MS))]);
    this.#newest = { read, settled };
    return settled;
  }

  /** Keeps this window's tools that Pedelec can take; a change is built again. */
  #take(tools: ListedTool[]): void {
    const window = this.host.window();
    const listed: ListedTool[] = [];
    for (const tool of Array.isArray(tools) ? tools : []) {
      if (tool?.window !== window || typeof tool.name !== 'string') continue;
      // WebMCP's names are Pedelec's, except that these start with a letter.
      if (/^[a-zA-Z]/.test(tool.name)) listed.push(tool);
      else {
        const message = `WebMCP import: the page's tool ${tool.name} is not offered (a Pedelec tool name starts with a letter)`;
        this.#warn(pedelecError('WEBMCP_UNAVAILABLE', message, { tool: tool.name, reason: 'name' }));
      }
    }
    let key = '';
    try {
      key = canonicalJson(listed.map(({ window: _window, ...tool }) => tool));
    } catch {
      // Not JSON (a polyfill's own objects): always taken as a change.
    }
    if (key && key === this.#key) return;
    this.#key = key;
    this.#listed = listed;
    this.host.rebuild();
  }

  /**
   * The session's JS tools plus the imported ones no declared tool shadows (declarations.ts calls it
   * in each build). A name registered by a session of the page, or a form a `<pedelec-tool form>`
   * binds, is not imported.
   */
  extend(elements: readonly PedelecToolElement[], definitions: ToolDefinition[]): ToolDefinition[] {
    const document = this.host.window()?.document;
    if (this.#listed.length === 0 || !document) return definitions;
    const declared = new Set<unknown>(elements.map((element) => element.name));
    for (const definition of definitions) {
      try {
        declared.add(definition.name);
      } catch {
        // A definition whose name cannot be read: the build reports it.
      }
    }
    const { named, bound } = formsOf(document);
    const shadowed = new Set<string>();
    const imported: ToolDefinition[] = [];
    for (const tool of this.#listed) {
      const form = named.get(tool.name);
      if (this.host.registeredByKit(tool.name) || (form && bound.has(form))) continue;
      if (declared.has(tool.name)) shadowed.add(tool.name);
      else imported.push(this.#definition(tool, form));
    }
    for (const name of shadowed) {
      if (this.#shadowed.has(name)) continue;
      const message = `WebMCP import: the page's tool ${name} is not offered: a tool this session declares has that name`;
      this.#warn(pedelecError('WEBMCP_NAME_TAKEN', message, { tool: name }));
    }
    this.#shadowed = shadowed;
    return imported.length > 0 ? [...definitions, ...imported] : definitions;
  }

  /** An imported tool as a definition: its normalized schema, and `executeTool` as its handler. */
  #definition(tool: ListedTool, form: HTMLFormElement | undefined): ToolDefinition {
    const { name } = tool;
    const awaitsUser = !!form && !form.hasAttribute('toolautosubmit');
    const description = [tool.description, tool.title, name].find((text) => typeof text === 'string' && text.trim());
    const definition: ToolDefinition = {
      name,
      description: description as string,
      argsSchema: importedArgsSchema(tool.inputSchema) as ToolDefinition['argsSchema'],
      handler: (args, ctx) => this.#call(tool, args, ctx, awaitsUser, form),
    };
    if (awaitsUser) definition.timeoutMs = FORM_TIMEOUT_MS;
    if (typeof tool.title === 'string' && tool.title) definition.title = tool.title;
    importedDefinitions.add(definition);
    return definition;
  }

  /**
   * One call through the browser, as its own agent would make it (the browser fills, checks and
   * submits a form). A form waiting for the user is answered `FORM_AWAITING_USER` 1 s before the
   * deadline, and the browser's call is let go (the form stays filled).
   */
  async #call(
    tool: ListedTool,
    args: unknown,
    ctx: ToolCallContext,
    awaitsUser: boolean,
    form: HTMLFormElement | undefined,
  ): Promise<unknown> {
    const context = this.#context;
    if (!context)
      throw pedelecError('TOOL_UNAVAILABLE', `Tool ${tool.name} is not available on this page`, { tool: tool.name });
    const controller = new AbortController();
    const abort = () => controller.abort(ctx.signal?.reason);
    ctx.signal?.addEventListener('abort', abort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    // A form submitted with its default left alone navigates (to another frame, or the page is gone):
    // the browser's call then answers nothing, which is no result.
    let navigated = false;
    const onSubmit = (event: Event) => void setTimeout(() => (navigated ||= !event.defaultPrevented));
    form?.addEventListener('submit', onSubmit);
    try {
      // The browser's refusal (its form's validation, say) is the call's answer, not the page's bug.
      const executing = context.executeTool(tool, args, { signal: controller.signal }).catch((thrown: unknown) => {
        throw normalizeError(thrown, 'TOOL_HANDLER_ERROR', `${tool.name} failed`);
      });
      const awaiting = new Promise<never>((_resolve, reject) => {
        if (!awaitsUser) return;
        const left = (ctx.deadline ?? Date.now() + FORM_TIMEOUT_MS) - ANSWER_MARGIN_MS - Date.now();
        timer = setTimeout(
          () => {
            reject(pedelecError('FORM_AWAITING_USER', 'filled; waiting for the user to submit', { tool: tool.name }));
            controller.abort();
          },
          Math.max(left, 0),
        );
      });
      const result = await Promise.race([executing, awaiting]);
      if (form) await new Promise((resolve) => setTimeout(resolve)); // the submit's own check, first
      if (navigated)
        throw pedelecError(
          'FORM_NOT_ANSWERED',
          `${tool.name}: the form was submitted without preventDefault(), so the browser navigated away`,
          {
            tool: tool.name,
          },
        );
      if (typeof result !== 'string') return result;
      try {
        return JSON.parse(result) as unknown;
      } catch {
        return result;
      }
    } finally {
      clearTimeout(timer);
      form?.removeEventListener('submit', onSubmit);
      ctx.signal?.removeEventListener('abort', abort);
    }
  }
}
