// A development Core in a process of its own, for tests that attack it (helpers.ts
// `startCoreChild`, which runs this source through tsx): started with the options given as JSON in
// argv[2], it prints one line with its address, then its memory and event-loop delay every 100 ms, as
// JSON lines on stdout. The parent stops it (SIGTERM).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startDevCore, type DevCoreOptions } from '../src/index.js';

const options = JSON.parse(process.argv[2] ?? '{}') as DevCoreOptions;
const core = await startDevCore({
  port: 0,
  ...options,
  onBug: (error) => console.error(`pedelec-dev bug: ${(error as Error)?.stack ?? error}`),
});
// How long the server's thread was busy at a stretch (its event loop's longest delay), per report.
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
const report = () => {
  const { heapUsed, rss } = process.memoryUsage();
  console.log(JSON.stringify({ heapUsed, rss, loopDelayMs: loopDelay.max / 1e6, at: Date.now() }));
  loopDelay.reset();
};
console.log(
  JSON.stringify({
    url: core.url,
    bridgeUrl: core.bridgeUrl,
    toolsUrl: core.toolsUrl,
    mcpLinkKey: core.mcpLinkKey,
    port: core.port,
  }),
);
const timer = setInterval(report, 100);
process.on('SIGTERM', () => {
  clearInterval(timer);
  void core.close().then(() => process.exit(0));
});
