/**
 * How a `<pedelec-session>`'s parts are wired: its declarations (a reactive controller), its toolbox
 * and its lifecycle, each told about the others and about the element's inputs. The element keeps its
 * properties, its callbacks, its public methods and the one place that dispatches its events; this is
 * everything in between.
 */
import type { ReactiveControllerHost } from '@lit/reactive-element';
import type { PedelecError, PedelecEventContext, ToolDefinition } from '../../core/index.js';
import { PedelecWarningEvent } from '../../events/warning.event.js';
import { PedelecToolElement } from '../tool/pedelec-tool.element.js';
import { SessionDeclarations } from './declarations.js';
import { ElementToolbox } from './element-toolbox.js';
import { SessionLifecycle } from './lifecycle.js';
import { bridgeOf, configOf, persistKeyOf, planOf, type SessionInputs } from './session-config.js';
import type { PedelecElementStatus } from './status.js';

/** The session element, as its parts see it. */
export interface SessionElementPort extends SessionInputs, ReactiveControllerHost, Element {
  readonly tools: ToolDefinition[];
  readonly guidance: string | null;
  readonly debug: boolean;
}

/** What only the element itself can do. */
export type SessionElementHooks = {
  emit(event: Event): void;
  status(status: PedelecElementStatus, context?: PedelecEventContext): void;
  /** Whether the `bridge` property was set from script (then any host is allowed). */
  bridgeScripted(): boolean;
};

export type SessionParts = {
  declarations: SessionDeclarations;
  toolbox: ElementToolbox;
  lifecycle: SessionLifecycle;
  /** Where `persist` keeps the element's record now (null without `persist`). */
  persistKey(): string | null;
};

/** The session elements in the page now (shadow roots included): for the `persist` key check. */
const inThePage = new Set<SessionParts>();

/** Tells the `persist` key check that a session element is in the page now, or not. */
export function inPage(parts: SessionParts, present: boolean): void {
  if (present) inThePage.add(parts);
  else inThePage.delete(parts);
}

export function wireSession(element: SessionElementPort, hooks: SessionElementHooks): SessionParts {
  const bridge = () => bridgeOf(element, hooks.bridgeScripted());
  const declared = () => ({
    manifest: declarations.manifest,
    config: configOf(element, bridge(), declarations.manifest),
  });
  const persistKey = () => persistKeyOf(element, bridge());
  const keyTaken = (key: string) => [...inThePage].some((other) => other !== parts && other.persistKey() === key);

  const declarations: SessionDeclarations = new SessionDeclarations({
    element,
    tools: () => element.tools,
    guidance: () => element.guidance,
    emit: hooks.emit,
    warn: (warning: PedelecError) => {
      if (element.debug) console.warn(`[pedelec] ${warning.message}`);
      hooks.emit(new PedelecWarningEvent({ warning }));
    },
    // Before start, local calls use what is declared now; after, a change may make the session stale.
    rebuilt: () => {
      if (!lifecycle.session && lifecycle.phase.name !== 'starting') {
        toolbox.setTools(declarations.built.tools.map((t) => t.tool));
        toolbox.validateArgs = !element.noValidate;
      }
      lifecycle.held.checkStale();
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
    },
    toolbox,
  );
  const parts: SessionParts = { declarations, toolbox, lifecycle, persistKey };
  return parts;
}
