/**
 * The harness of the SDK 0.4.6 rule tests (test/core/sdk-0.4/*.test.ts): the client helpers of
 * test/core/client/harness.ts, and a fake that answers as today's extension and Desktop Core do —
 * create and resume replies carrying `workspace` (a managed one, `path: null`), resume replies
 * carrying `autoEndOnDisconnect`, a `session_snapshot` naming its `threadId` after each subscribe,
 * events numbered by `seq` and carrying the turn's `operationId`, turns ended by
 * `operation_completed`. Each test plays a page written for SDK 0.4.6 against it.
 */
import type { CreateSessionInput, Pedelec, PedelecSession } from '../../../src/core/index.js';
import { fake } from '../client/harness.js';
import { track, type Tracked } from '../../support/promises.js';

export { client, clientHooks, fake, legacyClient, types } from '../client/harness.js';

/** A workspace Desktop manages for a session, as today's Core describes it. */
export const managedWorkspace = (sessionId: string) => ({ workspaceId: `ws-${sessionId}`, path: null });

/** Today's Core's answer to `create_session`; `extra` adds (or overrides) fields. */
export const createReply = (sessionId: string, extra: Record<string, unknown> = {}) => ({
  sessionId,
  workspace: managedWorkspace(sessionId),
  ...extra,
});

/** Today's Core's answer to `resume_session`. */
export const resumeReply = (sessionId: string, extra: Record<string, unknown> = {}) => ({
  sessionId,
  workspace: managedWorkspace(sessionId),
  autoEndOnDisconnect: true,
  ...extra,
});

/** What today's Core sends for one session: its events numbered, its snapshots naming the thread. */
export class Core {
  seq = 0;

  constructor(readonly sessionId: string) {}

  /** A session event with the next `seq`. */
  event(type: string, fields: Record<string, unknown> = {}): void {
    fake.event(this.sessionId, type, { seq: ++this.seq, ...fields });
  }

  /** A `session_snapshot` (status idle unless said otherwise) naming this thread and the latest seq. */
  snapshot(snapshot: Record<string, unknown> = {}): void {
    fake.event(this.sessionId, 'session_snapshot', {
      seq: this.seq,
      snapshot: { threadId: this.sessionId, status: 'idle', latestSeq: this.seq, ...snapshot },
    });
  }

  /** The end of an operation: `operation_completed` (successful unless `extra` says otherwise). */
  completed(
    operationId: string,
    operationKind: 'user' | 'prepare' = 'user',
    extra: Record<string, unknown> = {},
  ): void {
    this.event('operation_completed', { operationId, operationKind, success: true, ...extra });
  }
}

/**
 * `createSession(input)` answered as today's Core answers it: the reply (with the model flag when a
 * model was given), then the idle snapshot. Returns the session, its Core and the request.
 */
export async function created(
  c: Pedelec,
  input: CreateSessionInput = { provider: 'codex' },
  sessionId = 's1',
  reply: Record<string, unknown> = createReply(sessionId, 'model' in input ? { explicitModelConfigApplied: true } : {}),
): Promise<{ session: PedelecSession; core: Core; request: Record<string, any> }> {
  const pending = c.createSession(input);
  const request = await fake.answer('create_session', reply);
  const session = await pending;
  const core = new Core(sessionId);
  core.snapshot();
  return { session, core, request };
}

/**
 * `resumeSession(sessionId)` answered as today's Core answers it: the session's snapshot first
 * (`snapshot` adds to it), then the reply.
 */
export async function resumed(
  c: Pedelec,
  sessionId = 's1',
  snapshot: Record<string, unknown> = {},
  reply: Record<string, unknown> = resumeReply(sessionId),
): Promise<{ session: PedelecSession; core: Core }> {
  const pending = c.resumeSession(sessionId);
  const core = new Core(sessionId);
  core.snapshot(snapshot);
  await fake.answer('resume_session', reply);
  return { session: await pending, core };
}

/** A user turn: `sendText` posted and its request answered; the turn runs until Core completes it. */
export function userTurn(
  session: PedelecSession,
  text = 'hello',
): { turn: Tracked<void>; operationId: string; request: Record<string, any> } {
  const turn = track(session.sendText(text));
  const request = fake.last('send_text');
  fake.answered.add(request);
  fake.respond({}, request);
  return { turn, operationId: request.operationId, request };
}

/** The requests of `type` posted so far. */
export const posted = (type: string): Record<string, any>[] => fake.posted.filter((m) => m.type === type);

/** A provider artifact as today's Core describes one. */
export const artifact = (extra: Record<string, unknown> = {}) => ({
  id: 'art_1',
  provider: 'codex',
  path: '/artifacts/art_1-chart.png',
  name: 'chart.png',
  mimeType: 'image/png',
  sizeBytes: 2048,
  kind: 'image',
  source: 'image_generation',
  ...extra,
});
