// `roundtrip`: whole tool calls over a real socket. The page declares one tool in a <pedelec-session>
// bridged to `pedelec-dev` on loopback; one user message makes the scripted agent call the tool N times
// in a row, each call waiting for the previous result (the Core's one-call-at-a-time rule). The
// handler stamps each call's arrival: the gap between two arrivals is one full round trip — result
// out of the page, through the Core and the agent, next call back into the page's handler.
import '../../dist/define.js';
import { quantile } from '../lib/stats.mjs';
import { collectGarbage, expose, nextTask } from './timing.js';

function declareSession(bridgeUrl) {
  const session = document.createElement('pedelec-session');
  session.setAttribute('bridge', bridgeUrl);
  session.setAttribute('provider', 'scripted');
  session.setAttribute('guidance', 'Round-trip benchmark.');
  const tool = document.createElement('pedelec-tool');
  tool.setAttribute('name', 'echo');
  tool.setAttribute('description', 'Returns the number it is given.');
  const arg = document.createElement('pedelec-arg');
  arg.setAttribute('name', 'i');
  arg.setAttribute('type', 'integer');
  arg.setAttribute('required', '');
  tool.append(arg);
  session.append(tool);
  return { session, tool };
}

expose('roundtrip', async ({ bridgeUrl, calls, warmupCalls, runs = 5 }) => {
  const { session, tool } = declareSession(bridgeUrl);
  let stamps = new Float64Array(0);
  let seen = 0;
  let wrongArgs = 0;
  tool.handler = (args) => {
    if (args.i !== seen) wrongArgs++;
    if (seen < stamps.length) stamps[seen] = performance.now();
    seen++;
    return { i: args.i };
  };
  document.body.append(session);
  await session.start();

  const turn = async (text, n) => {
    stamps = new Float64Array(n);
    seen = 0;
    wrongArgs = 0;
    collectGarbage();
    await nextTask();
    const t0 = performance.now();
    await session.sendText(text);
    const turnMs = performance.now() - t0;
    if (seen !== n || wrongArgs !== 0)
      throw new Error(`roundtrip: ${seen} of ${n} calls reached the handler (${wrongArgs} out of order)`);
    const gaps = new Float64Array(n - 1);
    for (let i = 1; i < n; i++) gaps[i - 1] = stamps[i] - stamps[i - 1];
    return {
      p50Ms: quantile(gaps, 0.5),
      p99Ms: quantile(gaps, 0.99),
      callsPerSecond: ((n - 1) * 1000) / (stamps[n - 1] - stamps[0]),
      turnMs,
    };
  };

  try {
    await turn('warmup', warmupCalls);
    const samples = [];
    for (let run = 0; run < runs; run++) samples.push(await turn('roundtrip', calls));
    return {
      calls,
      p50Ms: samples.map((s) => s.p50Ms),
      p99Ms: samples.map((s) => s.p99Ms),
      callsPerSecond: samples.map((s) => s.callsPerSecond),
      turnMs: samples.map((s) => s.turnMs),
    };
  } finally {
    await session.end().catch(() => {});
    session.remove();
  }
});
