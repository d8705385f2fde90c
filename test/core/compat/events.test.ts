/**
 * Drop-in compatibility with the public Pedelec SDK (sdk-compat.md §1): session events handed to
 * `PedelecSession.handleEvent(event, meta?)` — by the client for what arrives from the bridge, or by
 * the page replaying one. Each rule is one test, on the fake Chrome port.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import type { ToolCallContext } from '../../../src/core/index.js';
import { fake, open, plain, record, sessionHooks } from '../session/harness.js';

sessionHooks();

describe('SDK compatibility: session events', () => {
  it("handleEvent(event) without meta counts it as the SDK's own; chat and tool contexts stay Core's", async () => {
    const { session } = await open();
    const rec = record(session);
    let toolCtx!: ToolCallContext;
    session.onTool((_tool, _args, ctx) => void (toolCtx = ctx));
    session.sendText('hi').catch(() => {});
    const before = Date.now();
    session.handleEvent({ type: 'chat_delta', sessionId: 's1', text: 'Hel' });
    session.handleEvent({ type: 'tool_call', sessionId: 's1', toolRequestId: 'r1', tool: 'look', args: {} });
    session.handleEvent({ type: 'error', sessionId: 's1', error: { code: 'PROVIDER_DOWN', message: 'down' } });
    session.handleEvent({ type: 'ended', sessionId: 's1' });

    // Statuses, errors and endings: the sdk_ form, no eventReceivedAt.
    const sdkMade = [...rec.status.map((s) => s.ctx), ...rec.errors.map((e) => e.ctx), ...rec.ended];
    expect(sdkMade.map((ctx) => [ctx.type, ctx.source])).to.deep.equal([
      ['sdk_status_changed', 'sdk'], // running (sendText)
      ['sdk_status_changed', 'sdk'], // waiting_tool_result
      ['sdk_status_changed', 'sdk'], // error
      ['sdk_status_changed', 'sdk'], // ended
      ['sdk_error', 'sdk'],
      ['sdk_ended', 'sdk'],
    ]);
    sdkMade.forEach((ctx) => expect(ctx).not.to.have.property('eventReceivedAt'));
    // Chat and tool contexts: Core's, received now.
    expect(rec.deltas[0].ctx).to.include({ type: 'chat_delta', source: 'core' });
    expect(rec.deltas[0].ctx.eventReceivedAt).to.be.within(before, Date.now());
    expect(plain(toolCtx)).to.include({ type: 'tool_call', source: 'core', toolRequestId: 'r1', tool: 'look' });
    expect(toolCtx.eventReceivedAt).to.be.within(before, Date.now());
    expect(toolCtx.deadline).to.equal(toolCtx.eventReceivedAt + 60_000);
  });

  it("handleEvent(event, { source: 'core', eventReceivedAt }) gives Core's contexts, received then", async () => {
    const { session } = await open();
    const rec = record(session);
    let toolCtx!: ToolCallContext;
    session.onTool((_tool, _args, ctx) => void (toolCtx = ctx));
    session.sendText('hi').catch(() => {});
    const meta = { source: 'core', eventReceivedAt: 1_700_000_000_000 } as const;
    session.handleEvent({ type: 'chat_delta', sessionId: 's1', text: 'Hel' }, meta);
    session.handleEvent({ type: 'tool_call', sessionId: 's1', toolRequestId: 'r1', tool: 'look', args: {} }, meta);
    session.handleEvent({ type: 'done', sessionId: 's1' }, meta);

    expect(rec.deltas[0].ctx).to.include({ type: 'chat_delta', source: 'core', eventReceivedAt: meta.eventReceivedAt });
    expect(plain(toolCtx)).to.include({ source: 'core', eventReceivedAt: meta.eventReceivedAt });
    expect(toolCtx.deadline).to.equal(meta.eventReceivedAt + 60_000);
    expect(rec.status.slice(1).map((s) => [s.status, s.ctx.type, s.ctx.eventReceivedAt])).to.deep.equal([
      ['waiting_tool_result', 'status_changed', meta.eventReceivedAt],
      ['idle', 'status_changed', meta.eventReceivedAt],
    ]);
  });

  it("the client hands what arrives to handleEvent with { source: 'core', eventReceivedAt }", async () => {
    const { session } = await open();
    const metas: unknown[] = [];
    const handleEvent = session.handleEvent.bind(session);
    session.handleEvent = (event, meta) => {
      metas.push(meta);
      handleEvent(event, meta);
    };
    const rec = record(session);
    const before = Date.now();
    fake.event('s1', 'status_changed', { status: 'running' });
    expect(metas).to.have.length(1);
    expect(metas[0]).to.have.all.keys('source', 'eventReceivedAt');
    expect(metas[0]).to.include({ source: 'core' });
    expect((metas[0] as { eventReceivedAt: number }).eventReceivedAt).to.be.within(before, Date.now());
    expect(rec.status[0].ctx).to.include({ type: 'status_changed', source: 'core' });
  });
});
