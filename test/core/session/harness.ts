/**
 * The harness of the PedelecSession tests (test/core/session/*.test.ts): `new Pedelec()` over the fake
 * Chrome port of test/support/fake-chrome.ts, a session opened with provider and model, a recorder of
 * everything it emits, and the context checks; `sessionHooks()` registers a fresh port before each
 * test and disconnects every client made through `open` after it.
 */
import { afterEach, beforeEach } from 'node:test';
import { expect } from '../../support/expect.js';
import { Pedelec, type PedelecSession } from '../../../src/core/index.js';
import type { PedelecError } from '../../../src/core/errors.js';
import type {
  ChatDeltaEventContext,
  ChatEventContext,
  EndedEventContext,
  ErrorEventContext,
  PedelecOptions,
  PedelecSessionStatus,
  StatusEventContext,
} from '../../../src/core/types.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../../support/fake-chrome.js';

export let fake: FakePort;
export let clients: Pedelec[] = [];

export const PROVIDER = 'codex';
export const MODEL = 'gpt-5';
export const MiB = 1024 * 1024;

/** Settlement of a promise, observable without awaiting it (and never an unhandled rejection). */
export type Tracked<T> = {
  promise: Promise<T>;
  settled: boolean;
  resolved: boolean;
  rejected: boolean;
  value?: T;
  error?: any;
};
export function track<T>(promise: Promise<T>): Tracked<T> {
  const t: Tracked<T> = { promise, settled: false, resolved: false, rejected: false };
  promise.then(
    (value) => Object.assign(t, { settled: true, resolved: true, value }),
    (error) => Object.assign(t, { settled: true, rejected: true, error }),
  );
  return t;
}

/** A PedelecError: a plain object (not an Error) with string code and message. */
export function expectPedelecError(error: any, code: string, details?: unknown): void {
  expect(error, 'error value').to.be.an('object');
  expect(error).not.to.be.instanceOf(Error);
  expect(Object.getPrototypeOf(error)).to.equal(Object.prototype);
  expect(error.code).to.equal(code);
  expect(error.message).to.be.a('string');
  if (details !== undefined) expect(error.details).to.deep.equal(details);
}

export async function open(
  options: PedelecOptions = {},
  sessionId = 's1',
): Promise<{ client: Pedelec; session: PedelecSession }> {
  const client = new Pedelec(options);
  clients.push(client);
  const created = client.createSession({ provider: PROVIDER, model: MODEL });
  fake.respond({ sessionId }, fake.last('create_session'));
  return { client, session: await created };
}

/** Another session on an existing client (same fake port). */
export async function openAnother(client: Pedelec, sessionId: string): Promise<PedelecSession> {
  const created = client.createSession({ provider: PROVIDER, model: MODEL });
  fake.respond({ sessionId }, fake.last('create_session'));
  return created;
}

export type Rec = {
  status: { status: PedelecSessionStatus; ctx: StatusEventContext }[];
  /** Whole messages (`onChat`). */
  chat: { text: string; ctx: ChatEventContext }[];
  /** Fragments (`onChatDelta`). */
  deltas: { text: string; ctx: ChatDeltaEventContext }[];
  errors: { error: PedelecError; ctx: ErrorEventContext }[];
  ended: EndedEventContext[];
  log: string[];
};
export function record(session: PedelecSession): Rec {
  const rec: Rec = { status: [], chat: [], deltas: [], errors: [], ended: [], log: [] };
  session.onStatus((status, ctx) => {
    rec.status.push({ status, ctx });
    rec.log.push(`status:${status}`);
  });
  session.onChat((text, ctx) => {
    rec.chat.push({ text, ctx });
    rec.log.push(`chat:${text}`);
  });
  session.onChatDelta((text, ctx) => {
    rec.deltas.push({ text, ctx });
    rec.log.push(`delta:${text}`);
  });
  session.onError((error, ctx) => {
    rec.errors.push({ error, ctx });
    rec.log.push(`error:${error.code}`);
  });
  session.onEnded((ctx) => {
    rec.ended.push(ctx);
    rec.log.push('ended');
  });
  return rec;
}

export const postedOf = (type: string) => fake.posted.filter((m) => m.type === type);

/** Starts a user turn and returns what identifies it (taken from the `running` status context). */
export function startTurn(session: PedelecSession, rec: Rec, text = 'hello') {
  const before = rec.status.length;
  const sent = track(session.sendText(text));
  const running = rec.status.slice(before).find((s) => s.status === 'running');
  const request = fake.last('send_text');
  return { sent, request, turnId: running?.ctx.turnId, turnStartedAt: running?.ctx.turnStartedAt };
}

/**
 * A tool context without its live `signal` (an AbortSignal): assertion failures serialize the
 * object they are about, and serializing a DOM object can take the test page down.
 */
export function plain(ctx: object): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(ctx))
    copy[key] = key === 'signal' ? '<AbortSignal>' : (ctx as Record<string, unknown>)[key];
  return copy;
}

export const BASE_KEYS = ['sessionId', 'provider', 'model', 'sessionCreatedAt', 'eventEmittedAt', 'source', 'type'];
export const TURN_KEYS = ['turnId', 'turnStartedAt', 'turnKind'];
export function expectKeys(ctx: object, extra: string[]): void {
  expect(Object.keys(ctx).sort()).to.deep.equal([...BASE_KEYS, ...extra].sort());
}
export function expectBase(ctx: any, session: PedelecSession, t0: number, t1 = Date.now()): void {
  expect(ctx.sessionId).to.equal(session.sessionId);
  expect(ctx.provider).to.equal(PROVIDER);
  expect(ctx.model).to.equal(MODEL);
  expect(ctx.sessionCreatedAt).to.equal(session.sessionCreatedAt);
  expect(ctx.eventEmittedAt).to.be.within(t0, t1);
}

/**
 * A session alone (not its client), created on a new client with provider and model and answered with
 * `sessionId`.
 */
export async function openSession(sessionId = 's1'): Promise<PedelecSession> {
  const client = new Pedelec();
  clients.push(client);
  const created = client.createSession({ provider: 'codex', model: 'gpt-5' });
  fake.respond({ sessionId }, fake.last('create_session'));
  return created;
}

/** Registers, at the top of a test file, a fresh fake port before each test and, after it, every client disconnected. */
export function sessionHooks(): void {
  beforeEach(() => {
    fake = installFakeChrome();
    clients = [];
  });

  afterEach(() => {
    // Clears the request timers of whatever a test left unanswered (their promises are tracked).
    clients.forEach((client) => client.disconnect());
    uninstallFakeChrome();
  });
}
