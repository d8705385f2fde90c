/**
 * Two tool-call behaviours that no test pinned (each mutation survived the suite): a result holding
 * the same object twice is JSON, not a cycle (reliability.md "Result faults": only cycles are
 * TOOL_RESULT_INVALID); and a transport-wide `error` that is not a disconnect aborts no running
 * handler (tools-api.md lists the abort triggers: deadline, session end, disconnect, tool removal).
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import { expect } from '../support/expect.js';
import { Pedelec, type PedelecError, type PedelecSession } from '../../src/core/index.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../support/fake-chrome.js';
import { nextTask } from '../support/waits.js';

let fake: FakePort;
let client: Pedelec;
beforeEach(() => {
  fake = installFakeChrome();
});
afterEach(() => {
  client?.disconnect();
  uninstallFakeChrome();
});

async function open(): Promise<PedelecSession<string>> {
  client = new Pedelec();
  const pending = client.createSession({ provider: 'codex', model: 'm' });
  fake.respond({ sessionId: 's1' }, fake.last('create_session'));
  const session = await pending;
  session.sendText('hi').catch(() => {});
  fake.respond({}, fake.last('send_text'));
  return session;
}

const submitted = (id: string) => fake.posted.filter((m) => m.type === 'submit_tool_result' && m.toolRequestId === id);

describe('tool calls: shared objects and transport errors', () => {
  // Mutation that survived: json.ts convert() without `seen.pop()` (every repeated object is a "cycle").
  it('a result holding the same object twice (no cycle) is JSON and is posted as is', async () => {
    const session = await open();
    const errors: PedelecError[] = [];
    session.onError((e) => errors.push(e));
    const shared = { id: 7 };
    session.onTool('dag', () => ({ a: shared, b: shared, list: [shared, [shared]] }));
    fake.event('s1', 'tool_call', { seq: 1, toolRequestId: 'r1', tool: 'dag', args: {} });
    await fake.request('submit_tool_result', (m) => m.toolRequestId === 'r1');
    expect(submitted('r1').map((m) => m.result)).to.deep.equal([
      { a: { id: 7 }, b: { id: 7 }, list: [{ id: 7 }, [{ id: 7 }]] },
    ]);
    expect(errors).to.deep.equal([]);
  });

  // Mutation that survived: session.ts handleTransportError() aborting calls whatever `disconnected` says.
  it('a transport-wide error (not a disconnect) does not abort a running handler; its result is still submitted', async () => {
    const session = await open();
    let signal!: AbortSignal;
    let finish!: (v: unknown) => void;
    session.onTool('slow', (_args, ctx) => {
      signal = ctx.signal;
      return new Promise((resolve) => (finish = resolve));
    });
    fake.event('s1', 'tool_call', { seq: 1, toolRequestId: 'r1', tool: 'slow', args: {} });
    await nextTask();
    fake.emit({ type: 'error', error: { code: 'NATIVE_HOST_UNAVAILABLE', message: 'hiccup' } });
    await nextTask();
    expect(session.getStatus()).to.equal('error');
    expect(signal.aborted, 'ctx.signal aborts only at the deadline, session end, disconnect or tool removal').to.equal(
      false,
    );
    finish({ ok: 1 });
    await fake.request('submit_tool_result', (m) => m.toolRequestId === 'r1');
    expect(submitted('r1').map((m) => m.result)).to.deep.equal([{ ok: 1 }]);
  });
});
