/**
 * How failures reach a PedelecSession (docs/design/sdk-api.md "Error shape", bridge-protocol.md §3): the
 * fallback codes of requests that fail with something other than a Pedelec error, transport-wide
 * errors, and a disconnect mid-turn.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import { PedelecSession, PedelecWorkspace } from '../../../src/core/index.js';
import { Toolbox } from '../../../src/core/toolbox.js';
import type { SessionBridge } from '../../../src/core/session-input.js';
import {
  fake,
  PROVIDER,
  MODEL,
  track,
  expectPedelecError,
  open,
  record,
  startTurn,
  TURN_KEYS,
  expectKeys,
  sessionHooks,
} from './harness.js';
import { rejection as rejectionOf, settled } from '../../support/promises.js';

sessionHooks();

/**
 * Through `Pedelec`, every failed request is already a `{code,message}` error (the client turns
 * anything else into SDK_TRANSPORT_ERROR), so the fallback codes are only reachable with a bridge
 * whose request rejects with something else. PedelecSession documents construction for tests.
 */
describe('PedelecSession: fallback codes of failed requests', () => {
  function stubSession() {
    const calls: { type: string; payload: unknown; reject(e: unknown): void; resolve(v: unknown): void }[] = [];
    const bridge: SessionBridge = {
      register: () => {},
      request: <T>(type: string, payload?: Record<string, unknown>) =>
        new Promise<T>((resolve, reject) =>
          calls.push({ type, payload, resolve: resolve as (v: unknown) => void, reject }),
        ),
      release: () => {},
      warn: () => {},
    };
    const session = new PedelecSession(bridge, {
      sessionId: 'x1',
      provider: PROVIDER,
      model: MODEL,
      effortLevel: undefined,
      toolbox: new Toolbox(true),
      workspace: new PedelecWorkspace(
        {
          request: () => Promise.reject(new Error('unused')),
          createSession: () => Promise.reject(new Error('unused')),
        },
        'w1',
        null,
      ),
      autoEndOnDisconnect: true,
    });
    return { session, calls, rec: record(session) };
  }

  it('send_text failing with an Error → SEND_TEXT_FAILED with its message, emitted and rejected', async () => {
    const { session, calls, rec } = stubSession();
    const sent = session.sendText('x');
    expect(calls.map((c) => c.type)).to.deep.equal(['send_text']);
    calls[0].reject(new Error('socket closed'));
    const error = await rejectionOf(sent);
    expect(error).to.deep.equal({ code: 'SEND_TEXT_FAILED', message: 'socket closed' });
    expectPedelecError(error, 'SEND_TEXT_FAILED');
    expect(rec.errors.map((e) => e.error)).to.deep.equal([error]);
    expect(rec.errors[0].ctx.turnKind).to.equal('user');
  });

  it('send_text failing with a non-error value → SEND_TEXT_FAILED with the value as details', async () => {
    const { session, calls } = stubSession();
    const sent = session.sendText('x');
    calls[0].reject(42);
    const error = await rejectionOf(sent);
    expectPedelecError(error, 'SEND_TEXT_FAILED', 42);
  });

  it('prepare_session failing with a string → PREPARE_FAILED with that message', async () => {
    const { session, calls, rec } = stubSession();
    const prepared = session.prepare();
    calls[0].reject('warm-up failed');
    const error = await rejectionOf(prepared);
    expect(error).to.deep.equal({ code: 'PREPARE_FAILED', message: 'warm-up failed' });
    expect(rec.errors.map((e) => e.error.code)).to.deep.equal(['PREPARE_FAILED']);
    expect(rec.errors[0].ctx.turnKind).to.equal('prepare');
  });

  it('end_session failing with nothing → END_SESSION_FAILED', async () => {
    const { session, calls, rec } = stubSession();
    const ending = session.end();
    calls[0].reject(undefined);
    const error = await rejectionOf(ending);
    expectPedelecError(error, 'END_SESSION_FAILED');
    expect(rec.errors.map((e) => e.error.code)).to.deep.equal(['END_SESSION_FAILED']);
    expect(rec.errors[0].ctx).to.include({ type: 'sdk_error', source: 'sdk' });
    expect(session.getStatus()).to.equal('idle');
  });
});

describe('PedelecSession: transport-wide errors (bridge-protocol §3)', () => {
  it('an error without sessionId fails the turn: status error (sdk), sdk_error without eventReceivedAt; usable after', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    fake.emit({ type: 'error', error: { code: 'NATIVE_HOST_UNAVAILABLE', message: 'native host gone' } });
    expect(session.getStatus()).to.equal('error');
    const statusCtx = rec.status.at(-1)!.ctx;
    expect(statusCtx).to.include({ type: 'sdk_status_changed', source: 'sdk', status: 'error' });
    expect(statusCtx).to.not.have.property('eventReceivedAt');
    expect(rec.errors).to.have.length(1);
    expect(rec.errors[0].error).to.deep.equal({
      code: 'NATIVE_HOST_UNAVAILABLE',
      message: 'native host gone',
      details: undefined,
    });
    expectKeys(rec.errors[0].ctx, TURN_KEYS);
    expect(rec.errors[0].ctx).to.include({ type: 'sdk_error', source: 'sdk', turnId: turn.turnId });
    await settled(turn.sent.promise);
    expect(turn.sent.rejected).to.equal(true);
    expect(turn.sent.error.code).to.equal('NATIVE_HOST_UNAVAILABLE');

    const next = track(session.sendText('again'));
    expect(fake.last()).to.include({ type: 'send_text', text: 'again' });
    fake.respond({}, fake.last('send_text'));
    fake.event('s1', 'done');
    await settled(next.promise);
    expect(next.resolved).to.equal(true);
  });

  it('a malformed transport-wide error becomes SDK_TRANSPORT_ERROR', async () => {
    const { session } = await open();
    const rec = record(session);
    fake.emit({ type: 'error', error: 'garbled' });
    expect(rec.errors).to.have.length(1);
    expectPedelecError(rec.errors[0].error, 'SDK_TRANSPORT_ERROR');
  });

  it('a disconnect gives the session an sdk_error and rejects its turn with EXTENSION_DISCONNECTED', async () => {
    const { session } = await open();
    const rec = record(session);
    const turn = startTurn(session, rec);
    fake.disconnect();
    await settled(turn.sent.promise);
    expect(session.getStatus()).to.equal('error');
    expect(rec.errors.map((e) => e.error.code)).to.include('EXTENSION_DISCONNECTED');
    expect(rec.errors[0].ctx).to.include({ type: 'sdk_error', source: 'sdk' });
    expect(rec.errors[0].ctx).to.not.have.property('eventReceivedAt');
    expectPedelecError(turn.sent.error, 'EXTENSION_DISCONNECTED');
  });
});
