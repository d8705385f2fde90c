/**
 * One start of a `<pedelec-session>`: what to send (the plan), the client, the approval wait, then
 * resume (the `persist` record with the same manifest, or `resume-id`) or create, and the record of
 * what it got. A record that was not resumed is ended and deleted. A failure is reported (status
 * `error`, `pedelec-error`) unless the element left the page meanwhile.
 */
import {
  normalizeError,
  type CreateSessionInput,
  type Pedelec,
  type PedelecError,
  type PedelecSession,
} from '../../core/index.js';
import { sessionEnded } from '../../core/errors.js';
import { PedelecErrorEvent } from '../../events/error.event.js';
import type { BridgeConfig } from '../bridge-url.js';
import type { LifecycleHost } from './lifecycle.js';
import { deleteRecord, readRecord, type SessionRecords } from './persist.js';
import type { StartPlan } from './session-config.js';
import type { SessionWiring } from '../../core/session-input.js';

/** The origin is awaiting approval: give the user time to decide in the extension's popup. */
const APPROVAL_WAIT_MS = 65_000;

/** What one start needs from its lifecycle. */
export type StartAttempt = {
  host: LifecycleHost;
  /** The client for the plan's bridge (or why there is none). */
  clientFor(bridge: BridgeConfig): Pedelec | PedelecError;
  /** Create, whatever `resume-id` says (restart()). */
  fresh: boolean;
  /** Aborted when the element leaves the page meanwhile. */
  signal: AbortSignal;
  records: SessionRecords;
  /** Ends a recorded session the element does not hold. */
  endRecorded: (sessionId: string) => void;
};

type CreateOrResume = StartAttempt & { client: Pedelec; plan: StartPlan };

/**
 * Runs one start: resolves with the session (created or resumed) and the plan it was made with.
 * Rejects with the error, reported — or, when the element left the page meanwhile, `SESSION_ENDED`
 * unreported (the element is inactive then, not in error).
 */
export async function startAttempt(
  attempt: StartAttempt,
): Promise<{ session: PedelecSession; resumed: boolean; plan: StartPlan }> {
  const { host } = attempt;
  const fail = (error: PedelecError): never => {
    host.status('error');
    host.emit(new PedelecErrorEvent({ error }));
    throw error;
  };
  // What a lazy part of the kit is still bringing (a form's schema, the page's WebMCP tools) is sent too.
  for (let waiting; (waiting = host.arriving()).length;) await Promise.all(waiting);
  if (attempt.signal.aborted) throw sessionEnded();
  const plan = host.plan();
  if ('code' in plan) return fail(plan);
  const client = attempt.clientFor(plan.bridge);
  if ('code' in client) return fail(client);
  host.status('starting');
  try {
    return { ...(await createOrResume({ ...attempt, client, plan })), plan };
  } catch (thrown) {
    const { error, removed, ended } = thrown as StartFailure;
    if (removed || !error) throw ended;
    return fail(error);
  }
}

/** Why a start could not go on: the element left the page (`removed`), or the bridge refused (`error`). */
class StartFailure {
  constructor(
    readonly error: PedelecError | null,
    readonly removed: boolean,
    /** What the start rejects with once removed (naming the session it created, if it did). */
    readonly ended = sessionEnded(),
  ) {}
}

/**
 * Resumes or creates the session, and records it (`persist`). Rejects with a {@link StartFailure}:
 * `removed` when the element left the page meanwhile, else the error to report. A session created
 * after the element left is ended — or, with `persist`, kept recorded for the next page.
 */
async function createOrResume(step: CreateOrResume): Promise<{ session: PedelecSession; resumed: boolean }> {
  const { plan, signal } = step;
  // What is sent, taken once: changes made while starting are compared with it once started.
  plan.toolbox.validateArgs = plan.validateArgs;
  plan.toolbox.setTools(plan.tools);
  const created = await reachBridge(step);
  const { session } = created;
  const { sessionId, provider, model, effortLevel } = session;
  step.records.hold(plan.persistKey, { sessionId, provider, model, effortLevel, manifestHash: plan.manifestHash });
  if (signal.aborted) {
    const ended = sessionEnded(sessionId);
    if (plan.persistKey) session.detach(ended);
    else session.end().catch(() => session.detach(ended));
    throw new StartFailure(null, true, ended);
  }
  return created;
}

/** The approval wait, then resume or create. */
async function reachBridge(step: CreateOrResume): Promise<{ session: PedelecSession; resumed: boolean }> {
  const { client, plan, signal } = step;
  let requestTimeoutMs: number | undefined;
  try {
    const approval = await client.getApprovalStatus();
    if (approval.installed && !approval.approved) {
      step.host.approvalPending(true);
      requestTimeoutMs = APPROVAL_WAIT_MS;
    }
  } catch {
    // Not fatal here: the create request below reports what is wrong.
  }
  try {
    if (signal.aborted) throw new StartFailure(null, true);
    return await resumeElseCreate(step, {
      toolbox: plan.toolbox,
      requestTimeoutMs,
      workspace: plan.workspace ?? undefined,
    });
  } catch (thrown) {
    if (thrown instanceof StartFailure) throw thrown;
    const error = normalizeError(thrown, 'CREATE_SESSION_FAILED', 'Could not create the Pedelec session');
    throw new StartFailure(error, signal.aborted);
  } finally {
    step.host.approvalPending(false);
  }
}

/**
 * What `createSession` gets from a start's plan: no provider is the user's default; a model makes the
 * explicit model mode (with `effort`), no model the profile mode (with `effort-level`). Empty values
 * are not given; a contradiction (both effort settings) is left for the core to refuse.
 */
function createInput(plan: StartPlan, autoEndOnDisconnect: boolean): CreateSessionInput {
  const { provider, model, effortLevel, effort, skills } = plan;
  return {
    provider: provider || undefined,
    ...(model && { model }),
    ...(effortLevel && { effortLevel }),
    ...(effort && { effort }),
    skills,
    autoEndOnDisconnect,
  } as CreateSessionInput;
}

async function resumeElseCreate(
  { client, plan, fresh, signal, endRecorded }: CreateOrResume,
  wiring: SessionWiring,
): Promise<{ session: PedelecSession; resumed: boolean }> {
  const { persistKey, provider, model, skills } = plan;
  const record = persistKey ? readRecord(persistKey) : null;
  // Only a record of the same manifest is resumed, with its provider and model.
  const current = record?.manifestHash === plan.manifestHash ? record : null;
  const resumeId = current ? current.sessionId : fresh ? null : plan.resumeId;
  let session: PedelecSession | null = null;
  if (resumeId) {
    try {
      const options = {
        provider: current?.provider ?? provider,
        model: current?.model ?? (model || undefined),
        skills,
      };
      session = await client.resumeWiredSession(resumeId, options, wiring);
    } catch {
      // Gone, or not ours any more: create below.
    }
  }
  // Not when the resume failed because the element was removed (its client closed under it):
  // teardown keeps persisted sessions.
  if (record && !(session && resumeId === record.sessionId) && !signal.aborted) {
    endRecorded(record.sessionId);
    deleteRecord(persistKey!);
  }
  if (session) return { session, resumed: true };
  const created = await client.createWiredSession(createInput(plan, !persistKey), wiring);
  return { session: created, resumed: false };
}
