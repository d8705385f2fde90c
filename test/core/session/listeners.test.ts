/**
 * PedelecSession listeners (docs/design/sdk-api.md "Listeners"): onChat, onStatus, onError, onEnded and onTool
 * unsubscribe; onStatus only on real changes, onEnded at most once; listeners added or removed during
 * an emit; and a listener that throws stops nothing (a LISTENER_ERROR warning).
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import type { PedelecError } from '../../../src/core/errors.js';
import type { PedelecSessionStatus } from '../../../src/core/types.js';
import {
  fake,
  type Tracked,
  track,
  expectPedelecError,
  open,
  openAnother,
  record,
  openSession,
  sessionHooks,
} from './harness.js';
import { settled, track as trackState } from '../../support/promises.js';

sessionHooks();

describe('PedelecSession listeners', () => {
  it('onChat, onStatus, onError and onEnded return working unsubscribe functions', async () => {
    const { session } = await open();
    const kept: string[] = [];
    const dropped: string[] = [];
    session.onChat((t) => kept.push(`chat:${t}`));
    session.onStatus((s) => kept.push(`status:${s}`));
    session.onError((e) => kept.push(`error:${e.code}`));
    session.onEnded(() => kept.push('ended'));
    const offs = [
      session.onChat((t) => dropped.push(`chat:${t}`)),
      session.onStatus((s) => dropped.push(`status:${s}`)),
      session.onError((e) => dropped.push(`error:${e.code}`)),
      session.onEnded(() => dropped.push('ended')),
    ];
    offs.forEach((off) => expect(off).to.be.a('function'));
    offs.forEach((off) => off());
    offs.forEach((off) => off()); // a second call is harmless

    track(session.sendText('x'));
    fake.event('s1', 'chat_message', { text: 'a' });
    fake.event('s1', 'error', { error: { code: 'E', message: 'e' } });
    fake.event('s1', 'ended');
    expect(dropped).to.deep.equal([]);
    // An error event is reported, then the status says it (as the public SDK 0.4.6 orders them).
    expect(kept).to.deep.equal(['status:running', 'chat:a', 'error:E', 'status:error', 'status:ended', 'ended']);
  });

  it('onTool returns a working unsubscribe function', async () => {
    const { session } = await open();
    const calls: string[] = [];
    const off = session.onTool((tool) => {
      calls.push(tool);
      return 'handled';
    });
    off();
    track(session.sendText('x'));
    fake.event('s1', 'tool_call', { toolRequestId: 'tr1', tool: 'lookup', args: {} });
    await fake.request('submit_tool_result');
    expect(calls).to.deep.equal([]);
    const submitted = fake.last('submit_tool_result');
    expect(submitted.result.error.code).to.equal('TOOL_HANDLER_NOT_FOUND');
  });

  it('onStatus is called only on real changes, with status and previousStatus', async () => {
    const { session } = await open();
    const rec = record(session);
    track(session.sendText('x'));
    fake.respond({}, fake.last('send_text'));
    fake.event('s1', 'status_changed', { status: 'running' }); // no change
    fake.event('s1', 'tool_call', { toolRequestId: 'a', tool: 't', args: {} });
    fake.event('s1', 'tool_call', { toolRequestId: 'b', tool: 't', args: {} }); // no change
    fake.event('s1', 'status_changed', { status: 'waiting_tool_result' }); // no change
    fake.event('s1', 'status_changed', { status: 'running' });
    fake.event('s1', 'done');
    fake.event('s1', 'status_changed', { status: 'idle' }); // no change
    fake.event('s1', 'done'); // no change
    expect(rec.status.map((s) => [s.status, s.ctx.status, s.ctx.previousStatus])).to.deep.equal([
      ['running', 'running', 'idle'],
      ['waiting_tool_result', 'waiting_tool_result', 'running'],
      ['running', 'running', 'waiting_tool_result'],
      ['idle', 'idle', 'running'],
    ]);
  });

  it('onEnded is called at most once: ended twice, end() then ended, status_changed ended then ended', async () => {
    const a = await open({}, 'a1');
    const recA = record(a.session);
    fake.event('a1', 'ended');
    fake.event('a1', 'ended');
    expect(recA.ended).to.have.length(1);
    expect(recA.ended[0]).to.include({ type: 'ended', source: 'core' });

    const b = await openAnother(a.client, 'b1');
    const recB = record(b);
    const ending = b.end();
    fake.respond({}, fake.last('end_session'));
    await ending;
    fake.event('b1', 'ended');
    await b.end();
    expect(recB.ended).to.have.length(1);

    const c = await openAnother(a.client, 'c1');
    const recC = record(c);
    fake.event('c1', 'status_changed', { status: 'ended' });
    fake.event('c1', 'ended');
    expect(recC.ended).to.have.length(1);
    expect(c.getStatus()).to.equal('ended');
    expect(recC.status.map((s) => s.status)).to.deep.equal(['ended']);
  });
});

describe('listeners changed during an emit', () => {
  // Tracked with test/support/promises.ts (`state`), on a session opened alone.
  const track = trackState;
  const open = openSession;

  it('a status change made by a status listener reaches the other listeners after the current one, not before', async () => {
    const session = await open();
    fake.event('s1', 'error', { error: { code: 'E', message: 'e' } }); // status error, no turn
    session.onStatus((status) => {
      if (status === 'idle') track(session.sendText('queued')); // "when idle, send the next message"
    });
    const seen: [PedelecSessionStatus, PedelecSessionStatus][] = [];
    session.onStatus((status, ctx) => seen.push([status, ctx.previousStatus]));
    fake.event('s1', 'status_changed', { status: 'idle' });
    expect(session.getStatus()).to.equal('running');
    expect(seen).to.deep.equal([
      ['idle', 'error'],
      ['running', 'idle'],
    ]);
  });

  it('a listener unsubscribed by an earlier listener of the same emit is not called', async () => {
    const session = await open();
    const calls: string[] = [];
    let offB = () => {};
    session.onStatus(() => {
      calls.push('A');
      offB();
    });
    offB = session.onStatus(() => calls.push('B'));
    track(session.sendText('x'));
    expect(calls).to.deep.equal(['A']);
  });
});

describe('PedelecSession: a listener that throws', () => {
  it('does not stop other listeners or the session, and becomes a LISTENER_ERROR warning', async () => {
    const warnings: PedelecError[] = [];
    const { session } = await open({ onWarning: (w) => warnings.push(w) });
    const consoleCalls: string[] = [];
    const saved = {
      log: console.log,
      warn: console.warn,
      error: console.error,
      info: console.info,
      debug: console.debug,
    };
    for (const level of Object.keys(saved) as (keyof typeof saved)[])
      console[level] = () => void consoleCalls.push(level);
    const other: string[] = [];
    session.onChat(() => {
      throw new Error('chat listener broke');
    });
    session.onChat((t) => other.push(t));
    const sent = track(session.sendText('x'));
    fake.respond({}, fake.last('send_text'));
    fake.event('s1', 'chat_message', { text: 'a' });
    fake.event('s1', 'chat_message', { text: 'b' });
    expect(other).to.deep.equal(['a', 'b']);
    expect(warnings).to.have.length(2);
    expectPedelecError(warnings[0], 'LISTENER_ERROR');
    expect(warnings[0].message).to.equal('chat listener broke');
    fake.event('s1', 'done');
    await settled(sent.promise);
    Object.assign(console, saved);
    expect(sent.resolved).to.equal(true);
    expect(consoleCalls, 'the SDK writes nothing to the console without debug').to.deep.equal([]);
  });

  it('a throwing onStatus listener does not make sendText throw or stop it posting', async () => {
    const warnings: PedelecError[] = [];
    const { session } = await open({ onWarning: (w) => warnings.push(w) });
    const statuses: string[] = [];
    session.onStatus(() => {
      throw new Error('status listener broke');
    });
    session.onStatus((s) => statuses.push(s));
    let sent: Tracked<void> | undefined;
    expect(() => {
      sent = track(session.sendText('x'));
    }).to.not.throw();
    expect(fake.last()).to.include({ type: 'send_text', text: 'x' });
    expect(statuses).to.deep.equal(['running']);
    fake.respond({}, fake.last('send_text'));
    fake.event('s1', 'done');
    await settled(sent!.promise);
    expect(sent!.resolved).to.equal(true);
    expect(statuses).to.deep.equal(['running', 'idle']);
    expect(warnings.map((w) => w.code)).to.deep.equal(['LISTENER_ERROR', 'LISTENER_ERROR']);
  });

  it('throwing onError / onEnded listeners do not break error handling or end()', async () => {
    const warnings: PedelecError[] = [];
    const { session } = await open({ onWarning: (w) => warnings.push(w) });
    session.onError(() => {
      throw new Error('error listener broke');
    });
    session.onEnded(() => {
      throw new Error('ended listener broke');
    });
    const ended: string[] = [];
    session.onEnded((ctx) => ended.push(ctx.type!));
    const sent = track(session.sendText('x'));
    fake.event('s1', 'error', { error: { code: 'E', message: 'e' } });
    await settled(sent.promise);
    expect(sent.rejected).to.equal(true);
    expect(sent.error.code).to.equal('E');
    const ending = track(session.end());
    fake.respond({}, fake.last('end_session'));
    await settled(ending.promise);
    expect(ending.resolved).to.equal(true);
    expect(ended).to.deep.equal(['sdk_ended']);
    expect(session.getStatus()).to.equal('ended');
    expect(warnings.map((w) => w.code)).to.deep.equal(['LISTENER_ERROR', 'LISTENER_ERROR']);
  });
});
