/**
 * The contexts a session's listeners get (sdk-api.md), and the one a tool handler gets
 * (docs/design/tools-api.md): the event context's fields, `deadline`, `via`, and `signal`, which aborts at the deadline, when the session ends, when the bridge disconnects, or
 * when whoever runs the call aborts it. The same for every way a tool is called.
 */
import { pedelecError, type PedelecError } from './errors.js';
import { MAX_TIMER_MS } from './bridge-port.js';
import type { EffortLevel, PedelecEventContext, ToolCallContext, ToolCallVia, TurnKind } from './types.js';

/**
 * A tool call context as the kit makes it: `signal` and `deadline`, optional in the public
 * type (for contexts built by hand), are always there.
 */
export type RunningCallContext = ToolCallContext & { readonly signal: AbortSignal; deadline: number };

/** What every context says of the session. */
type SessionFacts = {
  sessionId: string;
  provider: string;
  effortLevel?: EffortLevel | undefined;
  model: string | undefined;
  sessionCreatedAt: number;
};

/**
 * Who caused an event: `core` for a message from the bridge (with when it arrived), `sdk` for what the
 * SDK did itself — and, as in the public SDK, for an event the page hands to `handleEvent` without
 * saying otherwise.
 */
export type EventMeta = { source: 'core' | 'sdk'; eventReceivedAt?: number };

/**
 * The meta of an event's own context (chat, tool call, usage, artifact): Core's, whoever handed the
 * event over, and received now when nobody said when.
 */
export const fromCore = (meta: EventMeta): { source: 'core'; eventReceivedAt: number } => ({
  source: 'core',
  eventReceivedAt: meta.eventReceivedAt ?? Date.now(),
});

/**
 * An event context: `sdk`-sourced (no meta: the SDK did it) gives the type its `sdk_` form. Within a
 * turn, it names the turn.
 */
export function eventContext(
  session: SessionFacts,
  turn: { turnId: string; turnStartedAt: number; turnKind: TurnKind } | undefined,
  type: string | undefined,
  { source, eventReceivedAt }: EventMeta = { source: 'sdk' },
): PedelecEventContext {
  const ctx: PedelecEventContext = {
    sessionId: session.sessionId,
    provider: session.provider,
    ...(session.effortLevel !== undefined && { effortLevel: session.effortLevel }),
    model: session.model,
    sessionCreatedAt: session.sessionCreatedAt,
    eventEmittedAt: Date.now(),
    source,
  };
  if (eventReceivedAt !== undefined) ctx.eventReceivedAt = eventReceivedAt;
  if (turn) {
    ctx.turnId = turn.turnId;
    ctx.turnStartedAt = turn.turnStartedAt;
    ctx.turnKind = turn.turnKind;
  }
  if (type) ctx.type = (source === 'sdk' ? `sdk_${type}` : type) as PedelecEventContext['type'];
  return ctx;
}

/** What a call still running at its deadline gets: Core stops waiting for it then. */
export const toolTimeout = (tool: string, toolRequestId: string): PedelecError =>
  pedelecError('TOOL_TIMEOUT', `Tool ${tool} passed its deadline`, { tool, toolRequestId });

/**
 * The context handed to a tool handler. Its `AbortController` and deadline timer are created only
 * if the handler reads `ctx.signal` (most never do), and the timer is cleared when the call settles.
 */
export function toolCallContext(
  base: PedelecEventContext,
  { toolRequestId, tool, via }: { toolRequestId: string; tool: string; via: ToolCallVia },
  deadline: number,
): { ctx: RunningCallContext; abort: (reason: PedelecError) => void; settle: () => PedelecError | undefined } {
  let controller: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let abortedWith: PedelecError | undefined;
  let settled = false;
  const signal = () => {
    if (!controller) {
      const signalled = (controller = new AbortController());
      // Made here, not per call: most handlers never read the signal.
      // Timers overflow past 2^31-1 ms (~24.8 days) and fire at once: a later deadline re-arms.
      const arm = () => {
        const remaining = deadline - Date.now();
        if (remaining <= 0) signalled.abort(toolTimeout(tool, toolRequestId));
        else if (!settled) timer = setTimeout(arm, Math.min(remaining, MAX_TIMER_MS));
      };
      if (abortedWith) controller.abort(abortedWith);
      else arm();
    }
    return controller.signal;
  };
  return {
    ctx: new CallContext(base, toolRequestId, tool, deadline, via, signal),
    abort(reason) {
      if (abortedWith) return;
      abortedWith = reason;
      clearTimeout(timer);
      controller?.abort(reason);
    },
    /** The call is answered: no deadline timer any more. Returns why it was aborted, if it was. */
    settle() {
      settled = true;
      clearTimeout(timer);
      return abortedWith;
    },
  };
}

/** Where a {@link CallContext} keeps its signal's maker: a symbol, so that a Proxy of it still works. */
const MAKE_SIGNAL = Symbol('signal');

/**
 * A tool call context: the event context's fields, own and in one order, and `signal` as a getter
 * on the prototype — not an object literal with `get signal()`, which engines build slowly (see
 * docs/performance.md). So `ctx.signal` is not an own key: spreading the context does not copy it,
 * and serializing the context does not create the AbortController as a side effect. (Not a #private
 * field: the getter must work on a Proxy of the context, as frameworks make, and on objects
 * inheriting from it.)
 */
// Declaration merging: an instance has every field of a ToolCallContext; the class adds `signal`.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- the class assigns every field it declares
interface CallContext extends Omit<RunningCallContext, 'signal'> {}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
class CallContext {
  readonly [MAKE_SIGNAL]: () => AbortSignal;

  constructor(
    base: PedelecEventContext,
    toolRequestId: string,
    tool: string,
    deadline: number,
    via: ToolCallVia,
    signal: () => AbortSignal,
  ) {
    this.sessionId = base.sessionId;
    this.provider = base.provider;
    if (base.effortLevel !== undefined) this.effortLevel = base.effortLevel;
    this.model = base.model;
    this.sessionCreatedAt = base.sessionCreatedAt;
    this.eventEmittedAt = base.eventEmittedAt;
    this.eventReceivedAt = base.eventReceivedAt!;
    this.source = base.source;
    this.turnId = base.turnId!;
    this.turnStartedAt = base.turnStartedAt!;
    this.turnKind = base.turnKind;
    this.type = 'tool_call';
    this.toolRequestId = toolRequestId;
    this.tool = tool;
    this.deadline = deadline;
    this.via = via;
    this[MAKE_SIGNAL] = signal;
  }

  /** Aborts at the deadline, when the session ends, when the bridge disconnects, or (elements) when the tool goes. */
  get signal(): AbortSignal {
    return this[MAKE_SIGNAL]();
  }
}
