// Turns raw benchmark results into summaries (median/min/max over runs, peer ratios), the targets
// met or missed, and one printed table.
import { geomean, median, summarize } from './stats.mjs';
import { SIZE_BUDGET } from '../size.mjs';

// ───────────────────────────── summaries ─────────────────────────────

export function summarizeBundle(sizes) {
  // Each file against bare Lit bundled its way: the CDN file through the CDN build, the core with esbuild.
  const entry = (label, s, lit = sizes.lit) => ({
    label,
    raw: s.raw,
    gzip: s.gzip,
    brotli: s.brotli,
    gzipVsLit: s.gzip / lit.gzip,
    brotliVsLit: s.brotli / lit.brotli,
  });
  return {
    cdn: entry('cdn/pedelec-elements.js (CDN main file)', sizes.cdn, sizes.litCdn),
    litCdn: entry('bare Lit, bundled as the CDN file is (rollup + terser)', sizes.litCdn, sizes.litCdn),
    core: entry('core entry (esbuild --bundle --minify --format=esm)', sizes.core),
    lit: entry('bare Lit (LitElement + html + css), bundled as the core is (esbuild)', sizes.lit),
    chunks: sizes.chunks,
  };
}

export function summarizeDispatch(raw) {
  const variants = raw.variants.map((v) => ({
    mode: v.mode,
    validate: v.validate,
    callsPerSecond: summarize(v.callsPerSecond),
    medianUs: summarize(v.medianUs),
    p99Us: summarize(v.p99Us),
  }));
  const find = (mode, validate) => variants.find((v) => v.mode === mode && v.validate === validate);
  // What validation costs: throughput with it on, relative to off.
  for (const mode of ['burst', 'sequential'])
    find(mode, true).vsNoValidation = find(mode, true).callsPerSecond.median / find(mode, false).callsPerSecond.median;
  return { calls: raw.calls, window: raw.window, variants };
}

export function summarizeValidate(raw) {
  const cases = raw.cases.map((c) => {
    const ops = Object.fromEntries(Object.entries(c.opsPerSecond).map(([id, samples]) => [id, summarize(samples)]));
    return {
      name: c.name,
      valid: c.valid,
      ops,
      oursVsAjv: ops.ours.median / ops.ajv.median,
      oursVsCfworker: ops.ours.median / ops.cfworker.median,
    };
  });
  return {
    validators: raw.validators,
    cases,
    geomean: {
      oursVsAjv: geomean(cases.map((c) => c.oursVsAjv)),
      oursVsCfworker: geomean(cases.map((c) => c.oursVsCfworker)),
    },
  };
}

export function summarizeDeclare(raw) {
  const results = raw.results.map((r) => ({
    n: r.n,
    ms: summarize(r.ms),
    msPerTool: summarize(r.ms.map((ms) => ms / r.n)),
    connectMs: summarize(r.connectMs),
    buildMs: summarize(r.buildMs),
    builds: summarize(r.builds),
  }));
  const at = (n) => results.find((r) => r.n === n)?.ms.median;
  return { results, growth1000to2000: at(2000) / at(1000) };
}

export function summarizeRoundtrip(raw) {
  return {
    calls: raw.calls,
    p50Ms: summarize(raw.p50Ms),
    p99Ms: summarize(raw.p99Ms),
    callsPerSecond: summarize(raw.callsPerSecond),
    turnMs: summarize(raw.turnMs),
  };
}

/** Per run p50 and p99 of the kit's path and of the bare SDK peer; the ratios of their medians. */
export function summarizeMcp(raw) {
  const eras = Object.fromEntries(
    Object.entries(raw.eras).map(([era, { kit: rawKit, bare: rawBare }]) => {
      const kit = Object.fromEntries(Object.entries(rawKit).map(([key, values]) => [key, summarize(values)]));
      const bare = { p50Ms: summarize(rawBare.p50Ms), p99Ms: summarize(rawBare.p99Ms) };
      const p50Ratio = kit.p50Ms.median / bare.p50Ms.median;
      return [era, { kit, bare, p50Ratio, p99Ratio: kit.p99Ms.median / bare.p99Ms.median }];
    }),
  );
  return { calls: raw.calls, eras };
}

/**
 * Per subject and part of the reply (early, end): p50, p95 and max ms per frame, each the median of
 * the runs. Per mode: the kit's p95 at the end against its stand-in's, and against its own early p95.
 */
export function summarizeStream(raw) {
  const subjects = Object.fromEntries(
    Object.entries(raw.results).map(([id, runs]) => {
      const phase = (p) =>
        Object.fromEntries(['p50', 'p95', 'max', 'wallP95'].map((k) => [k, summarize(runs.map((r) => r[p][k]))]));
      return [
        id,
        {
          early: phase('early'),
          end: phase('end'),
          closeMs: summarize(runs.map((r) => r.closeMs)),
          domNodes: summarize(runs.map((r) => r.domNodes)),
        },
      ];
    }),
  );
  const modes = {};
  for (const mode of ['text', 'markdown']) {
    const kit = subjects[`kit ${mode}`];
    const standIn = subjects[`stand-in ${mode}`];
    modes[mode] = {
      vsStandIn: kit.end.p95.median / standIn.end.p95.median,
      growth: kit.end.p95.median / kit.early.p95.median,
      standInGrowth: standIn.end.p95.median / standIn.early.p95.median,
    };
  }
  return { bytes: raw.bytes, deltaChars: raw.deltaChars, subjects, modes };
}

/** Per page: the timings of the loads (median, min, max), and the main thread's time per kind of work (medians). */
export function summarizeStartup(raw) {
  const pages = Object.fromEntries(
    Object.entries(raw.results).map(([id, loads]) => {
      const figure = (f) => summarize(loads.map(f));
      const kinds = [...new Set(loads.flatMap((l) => Object.keys(l.byKind)))];
      return [
        id,
        {
          tools: loads[0].tools,
          kitFiles: loads[0].kit.map((k) => k.file),
          kitLoadedMs: figure((l) => Math.max(...l.kit.map((k) => k.doneMs))),
          definedMs: figure((l) => l.definedMs),
          manifestMs: figure((l) => l.manifestMs),
          busyMs: figure((l) => l.busyMs),
          blockingMs: figure((l) => l.blockingMs),
          byKind: Object.fromEntries(
            kinds.map((k) => [k, median(loads.map((l) => l.byKind[k] ?? 0))]).sort((a, b) => b[1] - a[1]),
          ),
        },
      ];
    }),
  );
  return { loads: raw.loads, pages };
}

// ───────────────────────────── targets ─────────────────────────────

export function evaluateTargets(s) {
  const targets = [];
  const add = (id, target, measured, met) => targets.push({ id, target, measured, met });
  if (s.bundle) {
    for (const key of ['cdn', 'core']) {
      const { gzip } = s.bundle[key];
      add(`size ${key}`, `≤ ${fmt(SIZE_BUDGET[key])} B gzip -9 (budget)`, `${fmt(gzip)} B`, gzip <= SIZE_BUDGET[key]);
    }
  }
  if (s.dispatch) {
    const v = s.dispatch.variants.find((x) => x.mode === 'burst' && x.validate);
    add(
      'dispatch',
      '≥ 150 000 calls/s with validation on',
      `${fmt(v.callsPerSecond.median)} calls/s (burst, median)`,
      v.callsPerSecond.median >= 150_000,
    );
  }
  if (s.validate) {
    const worstAjv = Math.min(...s.validate.cases.map((c) => c.oursVsAjv));
    const worstCf = Math.min(...s.validate.cases.map((c) => c.oursVsCfworker));
    add(
      'validate vs Ajv',
      '≥ 0.5× Ajv-compiled on every document',
      `${ratio(worstAjv)} worst, ${ratio(s.validate.geomean.oursVsAjv)} geomean`,
      worstAjv >= 0.5,
    );
    add(
      'validate vs cfworker',
      '≥ 3× @cfworker/json-schema on every document',
      `${ratio(worstCf)} worst, ${ratio(s.validate.geomean.oursVsCfworker)} geomean`,
      worstCf >= 3,
    );
  }
  if (s.declare) {
    const at1000 = s.declare.results.find((r) => r.n === 1000);
    add('declare 1 000', '1 000 declared tools ready ≤ 50 ms', `${fmt(at1000.ms.median)} ms`, at1000.ms.median <= 50);
    add(
      'declare growth',
      '1 000 → 2 000 growth ≤ 2.2×',
      ratio(s.declare.growth1000to2000),
      s.declare.growth1000to2000 <= 2.2,
    );
  }
  if (s.stream) {
    for (const [mode, m] of Object.entries(s.stream.modes)) {
      const end = s.stream.subjects[`kit ${mode}`].end.p95.median;
      add(
        `stream ${mode} vs stand-in`,
        "p95 per frame over the reply's last 20 % ≤ 1.5× the stand-in's",
        `${ratio(m.vsStandIn)} (${fmt(end)} ms)`,
        m.vsStandIn <= 1.5,
      );
      add(`stream ${mode} growth`, 'p95 at the end ≤ 1.5× p95 early in the reply', ratio(m.growth), m.growth <= 1.5);
    }
  }
  if (s.roundtrip)
    add(
      'roundtrip',
      'loopback round trip p50 ≤ 1 ms',
      `${fmt(s.roundtrip.p50Ms.median)} ms`,
      s.roundtrip.p50Ms.median <= 1,
    );
  return targets;
}

// ───────────────────────────── table ─────────────────────────────

/** Three significant digits below 1 000, thousands grouped above. */
export function fmt(x) {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a >= 1000) return Math.round(x).toLocaleString('en-US').replace(/,/g, ' ');
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  return x.toPrecision(3);
}
export const ratio = (x) => `${x >= 10 ? x.toFixed(1) : x.toFixed(2)}×`;

/** Rows of [benchmark, case, metric, median, min, max, note]. */
export function tableRows(s) {
  const rows = [];
  const stat = (bench, kase, metric, summary, note = '') =>
    rows.push([bench, kase, metric, fmt(summary.median), fmt(summary.min), fmt(summary.max), note]);
  const once = (bench, kase, metric, value, note = '') => rows.push([bench, kase, metric, fmt(value), '', '', note]);

  if (s.bundle) {
    for (const key of ['cdn', 'litCdn', 'core', 'lit']) {
      const b = s.bundle[key];
      const yardstick = key === 'lit' || key === 'litCdn';
      once('bundle', b.label, 'bytes gzip -9', b.gzip, yardstick ? 'yardstick' : `${ratio(b.gzipVsLit)} vs Lit`);
      once('bundle', b.label, 'bytes brotli', b.brotli, yardstick ? '' : `${ratio(b.brotliVsLit)} vs Lit`);
    }
    for (const c of s.bundle.chunks) once('bundle', `${c.file} (lazy chunk)`, 'bytes gzip -9', c.gzip, 'not budgeted');
  }
  if (s.dispatch) {
    for (const v of s.dispatch.variants) {
      const kase = `${v.mode}, validation ${v.validate ? 'on' : 'off'}`;
      stat(
        'dispatch',
        kase,
        'calls/s',
        v.callsPerSecond,
        v.vsNoValidation ? `${ratio(v.vsNoValidation)} of validation off` : '',
      );
      stat('dispatch', kase, 'µs/call median', v.medianUs, `windows of ${s.dispatch.window} calls`);
      stat('dispatch', kase, 'µs/call p99', v.p99Us);
    }
  }
  if (s.validate) {
    for (const c of s.validate.cases) {
      stat(
        'validate',
        c.name,
        'ops/s ours',
        c.ops.ours,
        `${ratio(c.oursVsAjv)} Ajv, ${ratio(c.oursVsCfworker)} cfworker`,
      );
      stat('validate', c.name, 'ops/s Ajv', c.ops.ajv);
      stat('validate', c.name, 'ops/s cfworker', c.ops.cfworker);
    }
    rows.push([
      'validate',
      'geometric mean of the 4 documents',
      'ratio ours/peer',
      '',
      '',
      '',
      `${ratio(s.validate.geomean.oursVsAjv)} Ajv, ${ratio(s.validate.geomean.oursVsCfworker)} cfworker`,
    ]);
  }
  if (s.declare) {
    for (const r of s.declare.results) {
      const note = r.n === 2000 ? `growth 1 000→2 000: ${ratio(s.declare.growth1000to2000)}` : '';
      stat('declare', `N = ${fmt(r.n)} tools × 3 args`, 'ms to manifest', r.ms, note);
      stat('declare', `N = ${fmt(r.n)} tools × 3 args`, 'ms per tool', r.msPerTool, `${fmt(r.builds.median)} build(s)`);
      stat(
        'declare',
        `N = ${fmt(r.n)} tools × 3 args`,
        '  of which connect',
        r.connectMs,
        'upgrade + connectedCallback + registration',
      );
      stat('declare', `N = ${fmt(r.n)} tools × 3 args`, '  of which build', r.buildMs, 'manifest build (first read)');
    }
  }
  if (s.stream) {
    const reply = `${fmt(s.stream.bytes / 1000)} KB in ${s.stream.deltaChars}-char deltas`;
    for (const [id, subject] of Object.entries(s.stream.subjects)) {
      const mode = id.split(' ').pop();
      const kase = `${id}, ${reply}`;
      for (const phase of ['early', 'end']) {
        const note =
          phase === 'end' && id.startsWith('kit')
            ? `${ratio(s.stream.modes[mode].vsStandIn)} stand-in, ${ratio(s.stream.modes[mode].growth)} early`
            : phase === 'end'
              ? `${ratio(s.stream.modes[mode].standInGrowth)} early`
              : '';
        stat('stream', kase, `ms/frame p50 ${phase}`, subject[phase].p50);
        stat('stream', kase, `ms/frame p95 ${phase}`, subject[phase].p95, note);
        stat('stream', kase, `ms/frame max ${phase}`, subject[phase].max);
        stat(
          'stream',
          kase,
          `ms/frame p95 ${phase}, wall clock`,
          subject[phase].wallP95,
          "the machine's load included",
        );
      }
      stat('stream', kase, 'ms to close the reply', subject.closeMs, 'the whole message and the turn’s end, shown');
      stat('stream', kase, 'DOM nodes at the end', subject.domNodes);
    }
  }
  if (s.startup) {
    for (const [id, p] of Object.entries(s.startup.pages)) {
      const kase = `${id} page (${p.tools} tools), cold, ${s.startup.loads} loads`;
      const kinds = Object.entries(p.byKind)
        .filter(([, ms]) => ms >= 1)
        .map(([kind, ms]) => `${kind} ${fmt(ms)}`)
        .join(', ');
      stat('startup', kase, 'ms to the kit loaded', p.kitLoadedMs, p.kitFiles.join(' + '));
      stat('startup', kase, 'ms to elements defined', p.definedMs, "from the navigation's start");
      stat('startup', kase, 'ms to manifest ready', p.manifestMs);
      stat('startup', kase, 'main thread ms, busy', p.busyMs, `until ready: ${kinds}`);
      stat('startup', kase, 'main thread ms, blocking', p.blockingMs, 'each task beyond 50 ms');
    }
  }
  // Results from before both eras were measured hold one (the 2025 era's) at the top level.
  const mcpEras = s.mcp && (s.mcp.eras ?? { legacy: s.mcp });
  for (const [era, m] of Object.entries(mcpEras ?? {})) {
    const clientName = era === 'modern' ? 'SDK 2.x client (2026-07-28)' : 'SDK 1.x client (2025 era)';
    const kase = `${fmt(s.mcp.calls)} calls, ${clientName} → pedelec-dev --mcp → the demo in Chromium`;
    stat('mcp', kase, 'ms p50', m.kit.p50Ms, `${ratio(m.p50Ratio)} the bare SDK server`);
    stat('mcp', kase, 'ms p99', m.kit.p99Ms, `${ratio(m.p99Ratio)} the bare SDK server`);
    // Where a call's time goes (p50s of the same calls; absent in results from before they were kept).
    if (m.kit.toPageMs) {
      stat('mcp', kase, 'ms p50', m.kit.toPageMs, 'of it: client → pedelec-dev → the page takes the call');
      stat('mcp', kase, 'ms p50', m.kit.pageMs, "of it: the page's own work (tool-start to tool-result)");
      stat('mcp', kase, 'ms p50', m.kit.backMs, 'of it: the page → pedelec-dev → the client');
    }
    const peer = `${fmt(s.mcp.calls)} calls, ${clientName} → a bare SDK server of that era (answers in Node)`;
    stat('mcp', peer, 'ms p50', m.bare.p50Ms, 'peer');
    stat('mcp', peer, 'ms p99', m.bare.p99Ms, 'peer');
  }
  if (s.roundtrip) {
    const kase = `${fmt(s.roundtrip.calls)} calls, pedelec-dev on loopback`;
    stat('roundtrip', kase, 'ms p50', s.roundtrip.p50Ms);
    stat('roundtrip', kase, 'ms p99', s.roundtrip.p99Ms);
    stat('roundtrip', kase, 'calls/s', s.roundtrip.callsPerSecond);
  }
  return rows;
}

export function formatTable(rows, header = ['benchmark', 'case', 'metric', 'median', 'min', 'max', 'ratio / note']) {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => String(r[i]).length)));
  const numeric = new Set([3, 4, 5]);
  const line = (r) =>
    r
      .map((cell, i) => (numeric.has(i) ? String(cell).padStart(widths[i]) : String(cell).padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function formatTargets(targets) {
  return targets
    .map((t) => `  ${t.met ? 'MET   ' : 'MISSED'}  ${t.id}: ${t.target} — measured ${t.measured}`)
    .join('\n');
}
