// Headless Chromium for the benchmarks: the system browser (scripts/browsers.mjs), driven by
// puppeteer-core, one fresh page per benchmark. Optionally records a CPU profile of a run.
import { writeFile } from 'node:fs/promises';
import puppeteer from 'puppeteer-core';
import { chromiumArgs, executableFor } from '../../scripts/browsers.mjs';

export async function launchChromium() {
  const executablePath = executableFor('chromium');
  if (!executablePath) throw new Error('Chromium not found: apt-get install chromium, or set CHROME_PATH.');
  const browser = await puppeteer.launch({
    executablePath,
    headless: true,
    // --expose-gc: the pages collect garbage between runs, off the clock.
    args: [...chromiumArgs, '--js-flags=--expose-gc'],
    protocolTimeout: 180_000,
    // No Network/Audits tracking: otherwise every WebSocket frame of `roundtrip` is also reported to
    // this process over the DevTools protocol, which costs both sides CPU the product never pays.
    networkEnabled: false,
    issuesEnabled: false,
  });
  return { browser, version: await browser.version() };
}

/**
 * Opens `url`, runs `window.bench.run(options)` and returns its result. Page errors and console
 * errors are printed. With `profilePath`, the run is recorded as a .cpuprofile (Chrome DevTools).
 */
export async function runPage(browser, url, options, { profilePath, timeoutMs = 150_000 } = {}) {
  const page = await browser.newPage();
  page.on('pageerror', (error) => console.error(`  [page] ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warn')
      console.error(`  [page ${message.type()}] ${message.text()}`);
  });
  try {
    await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
    await page.waitForFunction(() => globalThis.bench !== undefined, { timeout: 10_000 });
    let cdp = null;
    if (profilePath) {
      cdp = await page.createCDPSession();
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
      await cdp.send('Profiler.start');
    }
    let timer;
    const result = await Promise.race([
      page.evaluate((o) => globalThis.bench.run(o), options),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${url}: no result within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
    if (cdp) {
      const { profile } = await cdp.send('Profiler.stop');
      await writeFile(profilePath, JSON.stringify(profile));
      result.profile = { path: profilePath, top: topFunctions(profile) };
    }
    return result;
  } finally {
    await page.close();
  }
}

/** Self and total time per function of a CPU profile, largest self time first. */
export function topFunctions(profile, count = 25) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map();
  const { samples, timeDeltas } = profile;
  for (let i = 0; i < samples.length; i++)
    selfUs.set(samples[i], (selfUs.get(samples[i]) ?? 0) + (timeDeltas[i + 1] ?? 0));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const total = profile.endTime - profile.startTime;
  const rows = new Map();
  const key = (f) => `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
  for (const [id, us] of selfUs) {
    const row = rows.get(key(byId.get(id).callFrame)) ?? { fn: key(byId.get(id).callFrame), selfMs: 0, totalMs: 0 };
    row.selfMs += us / 1000;
    rows.set(row.fn, row);
    // Inclusive time: every distinct function on the sample's stack.
    const seen = new Set();
    for (let n = id; n !== undefined; n = parent.get(n)) {
      const k = key(byId.get(n).callFrame);
      if (seen.has(k)) continue;
      seen.add(k);
      const r = rows.get(k) ?? { fn: k, selfMs: 0, totalMs: 0 };
      r.totalMs += us / 1000;
      rows.set(k, r);
    }
  }
  return {
    totalMs: total / 1000,
    functions: [...rows.values()].sort((a, b) => b.selfMs - a.selfMs).slice(0, count),
    inclusive: [...rows.values()].sort((a, b) => b.totalMs - a.totalMs).slice(0, count),
  };
}
