// `npm run bench`: every benchmark of docs/design/benchmarks.md — bundle, dispatch, validate, declare,
// roundtrip, stream, startup — in headless Chromium, with the peers (Ajv and @cfworker/json-schema, the chat's
// bare stand-ins) measured in the same run.
// Prints one table and writes bench/results/latest.json.
//
//   node bench/run.mjs [--skip-build] [--only dispatch,validate] [--runs 5] [--profile declare]
//
// --skip-build   use dist/ and cdn/ as they are (by default `npm run build` runs first)
// --only         a comma-separated subset of the benchmarks
// --runs         runs per figure (default 7, at least 5; median, min and max are reported)
// --profile ID   also record a CPU profile of one browser benchmark (bench/results/ID.cpuprofile,
//                open it in Chrome DevTools) and print its hottest functions; the profiler slows
//                that benchmark, so do not quote its figures from a profiled run
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { launchChromium, runPage } from './lib/browser.mjs';
import { bundlePages } from './lib/bundle.mjs';
import { startDevCoreProcess, writeEchoScript } from './lib/devcore.mjs';
import {
  evaluateTargets,
  fmt,
  formatTable,
  formatTargets,
  summarizeBundle,
  summarizeDeclare,
  summarizeDispatch,
  summarizeRoundtrip,
  summarizeMcp,
  summarizeStartup,
  summarizeStream,
  summarizeValidate,
  tableRows,
} from './lib/report.mjs';
import { serveStatic } from './lib/server.mjs';
import { runMcp } from './lib/mcp.mjs';
import { runStartup } from './lib/startup.mjs';
import { runStream } from './lib/stream.mjs';
import { measureSizes, ROOT } from './size.mjs';

const ALL = ['bundle', 'dispatch', 'validate', 'declare', 'roundtrip', 'stream', 'startup', 'mcp'];
const BROWSER_BENCHES = ['dispatch', 'validate', 'declare', 'roundtrip', 'stream', 'startup', 'mcp'];
const ROUNDTRIP_CALLS = 2000;
const ROUNDTRIP_WARMUP_CALLS = 200;
const STREAM = { bytes: 50_000, deltaChars: 200 };
/** Cold loads per page (spec: the median of 7), more with --runs. */
const STARTUP_LOADS = 7;
/** Calls per run of `mcp` (benchmarks.md: 1 000). */
const MCP_CALLS = 1000;

const { values: flags } = parseArgs({
  options: {
    'skip-build': { type: 'boolean', default: false },
    only: { type: 'string' },
    runs: { type: 'string', default: '7' },
    profile: { type: 'string' },
  },
});
const selected = flags.only ? flags.only.split(',').map((s) => s.trim()) : ALL;
for (const id of selected)
  if (!ALL.includes(id)) throw new Error(`unknown benchmark "${id}" (known: ${ALL.join(', ')})`);
const PROFILED = ['dispatch', 'validate', 'declare', 'roundtrip'];
if (flags.profile && !PROFILED.includes(flags.profile))
  throw new Error(`--profile takes one of ${PROFILED.join(', ')}`);
const runs = Number(flags.runs);
if (!Number.isInteger(runs) || runs < 5) throw new Error('--runs must be an integer ≥ 5');

const resultsDir = join(ROOT, 'bench', 'results');
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const log = (message) => console.log(`bench: ${message} [${elapsed()}]`);

function buildFirst() {
  if (flags['skip-build']) return log('build skipped (--skip-build): using dist/ and cdn/ as they are');
  log('npm run build');
  const result = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('the build failed; nothing to measure');
}

async function main() {
  await mkdir(resultsDir, { recursive: true });
  buildFirst();
  const summary = {};
  const raw = {};

  if (selected.includes('bundle')) {
    log('bundle');
    summary.bundle = summarizeBundle(await measureSizes());
  }

  const pages = selected.filter((id) => BROWSER_BENCHES.includes(id));
  // The load average says how busy the (shared, 2-core) machine was: read the figures with it.
  let environment = {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    loadAverageAtStart: loadavg()[0],
  };
  if (pages.length > 0) {
    const tmp = await mkdtemp(join(tmpdir(), 'pedelec-bench-'));
    let server = null;
    let chromium = null;
    let roundtripCore = null;
    try {
      // `startup` loads the demo and a page of its own, as CDN users do: nothing to bundle.
      const bundled = pages.filter((id) => id !== 'startup' && id !== 'mcp');
      log(`bundling the bench pages (${bundled.join(', ')})`);
      await bundlePages(ROOT, tmp, bundled);
      server = await serveStatic(tmp);
      chromium = await launchChromium();
      environment = { ...environment, browser: chromium.version };
      const profileFor = (id) => (flags.profile === id ? { profilePath: join(resultsDir, `${id}.cpuprofile`) } : {});
      const options = {
        dispatch: { calls: 20_000, runs },
        validate: { runs, sampleMs: 40 },
        declare: { sizes: [100, 1000, 2000], runs },
      };
      for (const id of pages) {
        log(id);
        if (id === 'roundtrip') {
          const script = await writeEchoScript(tmp, { warmup: ROUNDTRIP_WARMUP_CALLS, roundtrip: ROUNDTRIP_CALLS });
          roundtripCore = await startDevCoreProcess(ROOT, ['--script', script]);
          options.roundtrip = {
            bridgeUrl: roundtripCore.bridgeUrl,
            calls: ROUNDTRIP_CALLS,
            warmupCalls: ROUNDTRIP_WARMUP_CALLS,
            runs,
          };
        }
        if (id === 'startup') {
          // Served by its own pedelec-dev; each load in a fresh browser context.
          raw.startup = await runStartup(chromium.browser, ROOT, { loads: Math.max(runs, STARTUP_LOADS) });
          continue;
        }
        if (id === 'mcp') {
          // The demo served by its own pedelec-dev --mcp; 1 000 calls per run through the SDK client.
          raw.mcp = await runMcp(chromium.browser, ROOT, { calls: MCP_CALLS, runs });
          continue;
        }
        if (id === 'stream') {
          // Traced from the Node side, run by run: a page of its own driver.
          raw.stream = await runStream(chromium.browser, `${server.url}/stream.html`, { ...STREAM, runs });
          continue;
        }
        raw[id] = await runPage(chromium.browser, `${server.url}/${id}.html`, options[id], profileFor(id));
        if (!raw[id].clock.crossOriginIsolated)
          console.warn(`bench: ${id}: the page is not cross-origin isolated; timer resolution is coarse`);
        if (id === 'roundtrip') {
          await roundtripCore.stop();
          if (/internal error/i.test(roundtripCore.output()))
            throw new Error(`pedelec-dev reported internal errors:\n${roundtripCore.output()}`);
          roundtripCore = null;
        }
      }
    } finally {
      await roundtripCore?.stop();
      await chromium?.browser.close();
      await server?.close();
      await rm(tmp, { recursive: true, force: true });
    }
    if (raw.dispatch) summary.dispatch = summarizeDispatch(raw.dispatch);
    if (raw.validate) summary.validate = summarizeValidate(raw.validate);
    if (raw.declare) summary.declare = summarizeDeclare(raw.declare);
    if (raw.roundtrip) summary.roundtrip = summarizeRoundtrip(raw.roundtrip);
    if (raw.stream) summary.stream = summarizeStream(raw.stream);
    if (raw.startup) summary.startup = summarizeStartup(raw.startup);
    if (raw.mcp) summary.mcp = summarizeMcp(raw.mcp);
  }

  environment.loadAverageAtEnd = loadavg()[0];
  const targets = evaluateTargets(summary);
  const wallSeconds = (Date.now() - started) / 1000;
  const load = `load average ${environment.loadAverageAtStart.toFixed(1)} → ${environment.loadAverageAtEnd.toFixed(1)}`;
  console.log(
    `\npedelec-elements benchmarks — ${environment.browser ?? 'Node only'}, Node ${environment.node}, ${environment.cpus} CPUs (${load}); ${runs} runs per figure\n`,
  );
  console.log(formatTable(tableRows(summary)));
  if (targets.length > 0) console.log(`\nTargets (reported, not asserted):\n${formatTargets(targets)}`);
  for (const [id, result] of Object.entries(raw)) {
    if (!result.profile) continue;
    const { path, top } = result.profile;
    console.log(`\nCPU profile of ${id}: ${path} (${fmt(top.totalMs)} ms recorded). Hottest functions, self time:`);
    const line = (f) => `  ${fmt(f.selfMs).padStart(8)} ms self  ${fmt(f.totalMs).padStart(8)} ms total  ${f.fn}`;
    for (const f of top.functions.slice(0, 15)) console.log(line(f));
    console.log('Largest total (inclusive) time:');
    for (const f of top.inclusive.slice(0, 15)) console.log(line(f));
  }

  const out = {
    date: new Date().toISOString(),
    wallSeconds,
    runs,
    environment,
    summary,
    targets,
    raw: Object.fromEntries(
      Object.entries(raw).map(([id, r]) => [
        id,
        {
          ...r,
          profile: r.profile
            ? { path: r.profile.path, self: r.profile.top.functions, inclusive: r.profile.top.inclusive }
            : undefined,
        },
      ]),
    ),
  };
  await writeFile(join(resultsDir, 'latest.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.log(`\nbench: wrote bench/results/latest.json — ${wallSeconds.toFixed(1)} s in all`);
}

main().catch((error) => {
  console.error(`bench: FAILED — ${error?.stack ?? error}`);
  process.exitCode = 1;
});
