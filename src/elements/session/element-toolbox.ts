/**
 * The toolbox of a `<pedelec-session>`: the core {@link Toolbox} with the element's steps in the
 * resolution order (elements.md "Handler resolution") — a declared tool that is gone or disabled, or
 * was not sent to Core, answers `TOOL_UNAVAILABLE`; the `pedelec-tool-call` event on the tool's
 * element; the element's `handler` property — and the calls still running, so that removing a tool or
 * the session element aborts them. Every call, whoever made it, is announced before it is answered and
 * reported with its outcome and duration.
 */
import { type PedelecError, type ToolCallContext } from '../../core/index.js';
import { pedelecError } from '../../core/errors.js';
import { Toolbox, type ToolCall, type ToolOutcome } from '../../core/toolbox.js';
import { lazyModule } from '../../core/lazy-module.js';
import { speakUp } from '../speak-up.js';
import { PedelecToolApprovalDecidedEvent } from '../../events/tool-approval-decided.event.js';
import { monotonic } from '../../core/bridge-port.js';
import { PedelecErrorEvent } from '../../events/error.event.js';
import { PedelecToolCallEvent } from '../../events/tool-call.event.js';
import { PedelecToolResultEvent } from '../../events/tool-result.event.js';
import { PedelecToolStartEvent } from '../../events/tool-start.event.js';
import { binding } from '../tool/form-link.js';
import type { PedelecToolElement } from '../tool/pedelec-tool.element.js';
import type { ToolBuild } from './tool-registry.js';

export interface ElementToolboxHost {
  /** The declarations as built now. */
  built(): ToolBuild;
  /** Whether `tool` is in the manifest sent to Core (or being sent, while starting). */
  sent(tool: string): boolean;
  /** Dispatches one of the session's events: `pedelec-tool-start`, `pedelec-tool-result`, `pedelec-error`. */
  emit(event: Event): void;
  /** The session element (where a JS tool's approval is asked, and which a chat offers its card to). */
  readonly element: HTMLElement;
}

/** Who asks a person about a consequential call: loaded with the approval step, at the first such call. */
const approvalAsker = lazyModule(() => import('./approval-asker.js'));

/** Late answers remembered at once: a submit is reported within moments, or never. */
const MAX_LATE_REMEMBERED = 64;

type Running = { element: PedelecToolElement | null; abort(reason: PedelecError): void };

export class ElementToolbox extends Toolbox {
  /** Calls whose handler has not answered yet (those that can be aborted). */
  readonly #running = new Map<ToolCallContext, Running>();
  /** The Pedelec agent's calls answered after their deadline, until their failed submit is reported. */
  readonly #late = new Set<string>();
  /** Calls made in the page so far: their ids are `<via>_<n>`, numbered in one sequence (per element). */
  #made = 0;

  constructor(private readonly host: ElementToolboxHost) {
    super(true);
    this.hooks = {
      unavailable: (tool, call) => this.#unavailable(tool, call),
      dispatch: (call) => this.#dispatch(call),
      inline: (tool) => this.#inline(tool),
      ask: async (request) => (await approvalAsker()).ask(host, request),
      decided: (decision) => host.emit(new PedelecToolApprovalDecidedEvent(decision)),
    };
  }

  /** The next id of a call made in the page: `local_1`, `webmcp_2`… */
  nextId(via: 'local' | 'webmcp' | 'mcp'): string {
    return `${via}_${++this.#made}`;
  }

  /** How many calls are running (for leak tests). */
  get runningCount(): number {
    return this.#running.size;
  }

  /** Every call goes through here: announced, run on the core path, reported. A synchronous answer stays synchronous. */
  override run(call: ToolCall): ToolOutcome | Promise<ToolOutcome> {
    const startedAt = monotonic();
    const element = this.host.built().byName.get(call.tool)?.element ?? null;
    if (call.abort) this.#running.set(call.ctx, { element, abort: call.abort });
    const { tool, args, ctx: context, via } = call;
    this.host.emit(new PedelecToolStartEvent({ tool, args, context, via }));
    const finish = (outcome: ToolOutcome): ToolOutcome => {
      this.#running.delete(call.ctx);
      this.#speakUp(call, outcome, element);
      const { result, ok } = outcome;
      const durationMs = monotonic() - startedAt;
      this.host.emit(new PedelecToolResultEvent({ tool, args, result, ok, durationMs, context, via }));
      return outcome;
    };
    const outcome = super.run(call);
    return outcome instanceof Promise ? outcome.then(finish) : finish(outcome);
  }

  /**
   * Whether the submit that failed for `toolRequestId` carried a late answer (forgotten once asked):
   * that is the developer's news, said on the console already, not the person chatting's.
   */
  lateAnswer(toolRequestId: unknown): boolean {
    return this.#late.delete(toolRequestId as string);
  }

  /** What the developer must hear of a call's answer: an exception's stack, an answer after the deadline. */
  #speakUp(call: ToolCall, outcome: ToolOutcome, element: PedelecToolElement | null): void {
    // The agent gets the message; the developer needs the stack of an exception, once. A `{ code,
    // message }` thrown on purpose is an answer, not a bug: not logged.
    if (!outcome.ok && outcome.thrown instanceof Error)
      speakUp('threw', call.tool, outcome.error.message, outcome.thrown);
    // A tool of the page that nobody answered: the agent learns what happened, which includes a
    // listener answering after dispatch (it threw TOOL_RESPOND_LATE at the page).
    if (!outcome.ok && outcome.error.code === 'TOOL_HANDLER_NOT_FOUND' && element)
      outcome.error.message = `No handler answered ${call.tool} during dispatch`;
    // Core stopped waiting at the deadline and told the agent TOOL_TIMEOUT: this answer goes nowhere.
    const late = Date.now() - call.ctx.deadline;
    if (call.via !== 'pedelec' || late <= 0) return;
    this.#late.add(call.ctx.toolRequestId);
    if (this.#late.size > MAX_LATE_REMEMBERED) this.#late.delete(this.#late.values().next().value!);
    speakUp('late', call.tool, late, element ?? this.host.element);
  }

  /** Aborts the running calls that `which` picks, and forgets them (a handler may never answer). */
  abort(reason: PedelecError, which: (call: Running, ctx: ToolCallContext) => boolean = () => true): void {
    for (const [ctx, call] of [...this.#running]) {
      if (!which(call, ctx)) continue;
      this.#running.delete(ctx);
      call.abort(reason);
    }
  }

  /** A removed tool's running calls abort, so their handlers can stop and close their UI. */
  abortCallsOf(element: PedelecToolElement): void {
    const { name } = element;
    const reason = pedelecError('TOOL_UNAVAILABLE', `Tool ${name ?? ''} was removed from the page`, { tool: name });
    this.abort(reason, (call) => call.element === element);
  }

  /** The agent's calls of a session that ended: aborted and forgotten by that session already. */
  forgetCallsOf(sessionId: string): void {
    for (const ctx of [...this.#running.keys()]) {
      if (ctx.sessionId === sessionId && ctx.via === 'pedelec') this.#running.delete(ctx);
    }
  }

  #unavailable(tool: string, call: ToolCall): PedelecError | null {
    const built = this.host.built();
    if (call.tools) {
      // A foreign agent's call (WebMCP, MCP) names a tool it was offered: gone from that set, it is unavailable.
      if (call.tools.has(tool)) return null;
    } else {
      // A tool answers only while declared as it was sent to Core (before start: as it would be sent),
      // so its args are validated against that schema. A name this page sent or declares otherwise —
      // gone, disabled, invalid, duplicated, added after start — is unavailable before any handler runs.
      // Names it never declared go to named and generic handlers.
      const offered = built.byName.has(tool);
      const known =
        offered || this.host.sent(tool) || built.disabled.has(tool) || built.invalid.some((p) => p.name === tool);
      if (!known || (offered && this.tools.has(tool))) return null;
    }
    return pedelecError('TOOL_UNAVAILABLE', `Tool ${tool} is not available on this page`, { tool });
  }

  #dispatch(call: ToolCall): { respond: unknown } | { deny: PedelecError } | undefined {
    const element = this.host.built().byName.get(call.tool)?.element;
    if (!element) return undefined;
    const event = new PedelecToolCallEvent({ tool: call.tool, args: call.args, context: call.ctx }, (error) => {
      speakUp('respondedLate', error.message, element);
      this.host.emit(new PedelecErrorEvent({ error }, element));
    });
    element.dispatchEvent(event);
    return event.close();
  }

  #inline(tool: string) {
    const built = this.host.built().byName.get(tool);
    // A `<pedelec-tool form>` without a handler of its own: the form answers.
    if (built?.element) return built.element.handler ?? binding?.handlerOf(built.element);
    // The current definition's handler only: a tool whose handler the page took away has none (the
    // toolbox may still hold an earlier definition's, cached by its data).
    return built?.definition?.handler;
  }
}
