/**
 * The latency an agent sees, through the real path: pedelec-dev's scripted agent calls a page's tool
 * 1 000 times in one turn over a loopback WebSocket; between two runs of the handler lies one whole
 * round trip (the page's result to the Core, the Core's next tool_call back). Logged, for the record.
 */
import { expect } from '@open-wc/testing';
import '../../src/define.js';
import type { PedelecChatDeltaEvent, PedelecSessionElement, PedelecToolElement } from '../../src/index.js';
import { mount, record } from '../elements/helpers.js';
import { bridgeOf, devCores, type DevCores } from '../support/dev-cores.js';

const text = (deltas: PedelecChatDeltaEvent[]) => deltas.map((e) => e.detail.text).join('');

describe('pedelec-dev end to end (real WebSocket), timed', () => {
  let devCore: DevCores;
  before(async () => {
    devCore = await devCores();
  });
  const started: PedelecSessionElement[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.end().catch(() => {})));
  });

  it(`measures the loopback round-trip time of a tool call (median of 1 000, logged)`, async function () {
    this.timeout(120_000);
    const host = await mount(`
      <pedelec-session bridge="${bridgeOf(devCore.rules, 'bench')}" provider="scripted">
        <pedelec-tool name="ping" description="Answers at once."></pedelec-tool>
      </pedelec-session>`);
    const session = host.querySelector<PedelecSessionElement>('pedelec-session')!;
    started.push(session);
    const stamps: number[] = [];
    session.querySelector<PedelecToolElement>('pedelec-tool[name="ping"]')!.handler = () => {
      stamps.push(performance.now());
      return { n: stamps.length };
    };
    const deltas = record<PedelecChatDeltaEvent>(session, 'pedelec-chat-delta');
    await session.start();

    // One turn, devCore.benchCalls calls in a row (the `bench` rule). Between two handler runs lies
    // one whole round trip: the page's result goes to the Core, the Core's next tool_call comes back.
    await session.sendText('bench');
    expect(stamps).to.have.length(devCore.benchCalls);
    expect(text(deltas)).to.equal(`bench done, last ${devCore.benchCalls}`);
    const gaps = stamps.slice(1).map((t, i) => t - stamps[i]);
    expect(gaps).to.have.length(1000);
    const sorted = [...gaps].sort((x, y) => x - y);
    const median = (sorted[499] + sorted[500]) / 2;
    const mean = (stamps[stamps.length - 1] - stamps[0]) / gaps.length;
    console.log(
      `pedelec-dev loopback tool-call round trip (${navigator.userAgent.includes('Firefox') ? 'Firefox' : 'Chromium'}): ` +
        `median ${median.toFixed(3)} ms, mean ${mean.toFixed(3)} ms, p90 ${sorted[899].toFixed(3)} ms over ${gaps.length} calls`,
    );
    // Firefox's clock ticks in whole milliseconds here, so a sub-millisecond median can read 0; the
    // 1 000 round trips together always take measurable time.
    expect(median).to.be.at.least(0);
    expect(mean).to.be.greaterThan(0);
    expect(session.status).to.equal('idle');
  });
});
