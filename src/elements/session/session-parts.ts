/**
 * How a `<pedelec-session>`'s parts are wired: its declarations (a reactive controller), its toolbox
 * and its lifecycle, each told about the others and about the element's inputs. The element keeps its
 * properties, its callbacks, its public methods and the one place that dispatches its events; this is
 * everything in between.
 */
import { lazyModule } from '../../core/lazy-module.js';
import type { ReactiveElement } from '@lit/reactive-element';
import type { PedelecError, PedelecEventContext, ToolDefinition } from '../../core/index.js';
import { callLocally, type LocalCallResult, type LocalCallSession } from '../../core/local-call.js';
import type { NormalizedTool } from '../../core/tools.js';
import type { ToolCall } from '../../core/toolbox.js';
import { PedelecWarningEvent } from '../../events/warning.event.js';
import { ownMembers } from '../registration.js';
import { PedelecToolElement } from '../tool/pedelec-tool.element.js';
import { SessionDeclarations } from './declarations.js';
import { ElementToolbox } from './element-toolbox.js';
import { SessionLifecycle } from './lifecycle.js';
import {
  BUILD_INPUTS,
  bridgeOf,
  configOf,
  localSession,
  persistKeyOf,
  planOf,
  type SessionInputs,
} from './session-config.js';
import type { PedelecElementStatus } from './status.js';
import { arrivingFor, track } from '../arriving.js';
import { lazyPart, type LazyPart } from '../lazy-part.js';
import type { ForeignAgents } from '../foreign-agents/foreign-agents.js';

/** The session element, as its parts see it. */
export interface SessionElementPort extends SessionInputs, ReactiveElement {
  readonly tools: ToolDefinition[];
  readonly toolApprovalTimeoutMs: number | null | undefined;
  readonly guidance: string | null;
  readonly debug: boolean;
  readonly exposedTo: readonly string[] | undefined;
  readonly allowFramed: boolean | undefined;
  readonly mcpKey: string | undefined;
  readonly mcp: string | undefined;
}

/** What only the element itself can do. */
export type SessionElementHooks = {
  emit: (event: Event) => void;
  status: (status: PedelecElementStatus, context?: PedelecEventContext) => void;
  /** Whether the `bridge` or `mcp` property was set from script (then any host is allowed). */
  scripted: (name: 'bridge' | 'mcp') => boolean;
};

/** The result of `invoke()`: exactly what the agent would have received. Never a rejection. */
export type InvokeResult = LocalCallResult;

export type SessionParts = {
  /** The element itself, as its parts see it. */
  element: SessionElementPort;
  declarations: SessionDeclarations;
  toolbox: ElementToolbox;
  lifecycle: SessionLifecycle;
  /** The foreign agents (WebMCP, the MCP page link): a lazy chunk, loaded once `webmcp` or `mcp` is set. */
  foreign: LazyPart<ForeignAgents>;
  /**
   * A call made in the page (`invoke()`, a foreign agent) on exactly the path an agent's call takes;
   * `tools`: the set it is answered from, when not the one sent to Core (read once the declarations
   * are up to date); `session`: what its context says of the session, when not what `invoke()` says
   * (the session, else the element's inputs).
   */
  call(
    via: 'local' | 'webmcp' | 'mcp',
    tool: string,
    args: unknown,
    signal?: AbortSignal,
    tools?: () => ReadonlyMap<string, NormalizedTool>,
    session?: LocalCallSession,
    approvedBy?: ToolCall['approvedBy'],
  ): Promise<LocalCallResult>;
  /** A `pedelec-warning` (and the console's, with `debug`). */
  warn: (warning: PedelecError) => void;
  /** Whether the `bridge` or `mcp` property was set from script (then any host is allowed). */
  scripted(name: 'bridge' | 'mcp'): boolean;
  /** Where `persist` keeps the element's record now (null without `persist`). */
  persistKey(): string | null;
  /** The element left the page: torn down a microtask later, unless it is back by then. */
  left(): void;
  /** For leak tests: the sizes of the element's bookkeeping. */
  bookkeeping(): { members: number; running: number; reported: number; cached: number };
};

/** The session elements in the page now (shadow roots included): for the `persist` key check. */
const inThePage = new Set<SessionParts>();

/** The element entered the page, or left it (for the `persist` key check, the session, foreign agents). */
export function inPage(parts: SessionParts, present: boolean): void {
  if (present) {
    inThePage.add(parts);
    parts.lifecycle.reconnected();
  } else {
    inThePage.delete(parts);
    parts.left();
  }
}

/**
 * Element properties changed (its update; a synchronous read runs a pending one first): a build
 * when what it reads changed.
 */
export function inputChanged(parts: SessionParts, names: Iterable<PropertyKey>, connected: boolean): void {
  if (connected && [...names].some((name) => BUILD_INPUTS.has(name))) parts.declarations.queue();
  // `webmcp`, `mcp`, `exposedTo`, a build input…: looked at once, a microtask later.
  parts.foreign.sync();
}

export function wireSession(element: SessionElementPort, hooks: SessionElementHooks): SessionParts {
  const bridge = () => bridgeOf(element, hooks.scripted('bridge'));
  const declared = () => ({
    manifest: declarations.manifest,
    config: configOf(element, bridge(), declarations.manifest),
  });
  const persistKey = () => persistKeyOf(element, bridge());
  const keyTaken = (key: string) => [...inThePage].some((other) => other !== parts && other.persistKey() === key);

  const warn = (warning: PedelecError) => {
    if (element.debug) console.warn(`[pedelec] ${warning.message}`);
    hooks.emit(new PedelecWarningEvent({ warning }));
  };
  const declarations: SessionDeclarations = new SessionDeclarations({
    element,
    tools: () => element.tools,
    approvalTimeoutMs: () => element.toolApprovalTimeoutMs ?? undefined,
    guidance: () => element.guidance,
    emit: hooks.emit,
    warn,
    // Before start, local calls use what is declared now; after, a change may make the session stale.
    rebuilt: () => {
      if (!lifecycle.session && lifecycle.phase.name !== 'starting') {
        toolbox.setTools(declarations.built.tools.map((t) => t.tool));
        toolbox.validateArgs = !element.noValidate;
      }
      lifecycle.held.checkStale();
      foreign.sync();
    },
    memberGone: (member) => member instanceof PedelecToolElement && toolbox.abortCallsOf(member),
  });
  // One toolbox for the element's life: agent calls and local calls share it, across restarts.
  const toolbox: ElementToolbox = new ElementToolbox({
    built: () => declarations.built,
    // While starting, what is being sent counts as sent (the toolbox already holds it).
    sent: (tool) =>
      lifecycle.held.staleness.sent(tool) || (lifecycle.phase.name === 'starting' && toolbox.tools.has(tool)),
    emit: hooks.emit,
    element,
  });
  const lifecycle: SessionLifecycle = new SessionLifecycle(
    {
      isConnected: () => element.isConnected,
      bridgeTimeoutMs: () => element.bridgeTimeoutMs,
      bridge,
      persistKey,
      plan: () => planOf(element, bridge(), declarations, toolbox, keyTaken),
      declared,
      status: hooks.status,
      approvalPending: (pending) =>
        pending ? element.setAttribute('approval', 'pending') : element.removeAttribute('approval'),
      emit: hooks.emit,
      arriving: () => arrivingFor(element),
    },
    toolbox,
  );
  const call: SessionParts['call'] = (via, tool, args, signal, tools, session, approvedBy) => {
    declarations.upToDate();
    session ??= localSession(element, lifecycle.session);
    const id = toolbox.nextId(via);
    return callLocally(toolbox, { tool, args, tools: tools?.(), signal, via, id, session, approvedBy });
  };
  // The foreign agents' entry: a lazy chunk, which loads each agent's part as its attribute asks.
  const foreign = lazyPart(
    (promise) => track(element, promise),
    () => element.isConnected,
    () => parts,
    () => element.hasAttribute('webmcp') || !!element.mcp,
    lazyModule(() => import('./foreign-agents-host.js')),
  );
  const left = () => {
    // Frameworks move elements by removing and re-inserting them in one task: wait a microtask and
    // tear down only if the element is still out of the document.
    queueMicrotask(() => {
      if (!element.isConnected) lifecycle.teardown(element.persist);
    });
    // The foreign agents' parts also wait a microtask, and look then.
    foreign.sync();
  };
  const bookkeeping = () => {
    const { memberCount: members, reportedProblems: reported, cachedDefinitions: cached } = declarations;
    return { members, running: toolbox.runningCount, reported, cached };
  };
  // Members announce themselves with a composed event; the nearest session answers and stops it.
  ownMembers(element, declarations);
  const parts: SessionParts = {
    element,
    declarations,
    toolbox,
    lifecycle,
    foreign,
    call,
    warn,
    scripted: hooks.scripted,
    persistKey,
    left,
    bookkeeping,
  };
  return parts;
}
