// `startup`: what a page pays before the user can talk. `pedelec-dev` serves two pages that load the
// kit as CDN users do (`/_pedelec/cdn/pedelec-elements.js`): the demo (six tools, a chat in markdown
// mode, its own script) and a page with 50 declared tools (three `<pedelec-arg>`s each). Each load is
// cold — a fresh browser context, HTTP cache disabled — and traced. Reported per load, from the
// navigation's start: when every pedelec element the page uses is defined, when the session's
// `manifest` holds every declared tool, and the main thread's work until then — its blocking time
// (the part of each task beyond 50 ms), its busy time, and where that time went (thread time, as in
// frames.mjs; the two moments are the page's clock).
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevCoreProcess } from './devcore.mjs';
import { outermost } from './frames.mjs';

export const STARTUP_PAGES = { demo: '/', '50 tools': '/tools-50.html' };
const TRACE_CATEGORIES = ['toplevel', 'blink.user_timing', 'devtools.timeline', 'v8'];
const READY_MARK = 'pedelec-startup:ready';

function toolsPage(n) {
  const tools = Array.from(
    { length: n },
    (_, i) =>
      `  <pedelec-tool name="tool_${i}" description="Looks up record ${i} and returns its fields.">\n` +
      `    <pedelec-arg name="query" required max-length="200" description="What to look for"></pedelec-arg>\n` +
      `    <pedelec-arg name="limit" type="integer" minimum="1" maximum="100"></pedelec-arg>\n` +
      `    <pedelec-arg name="mode" enum="fast,thorough"></pedelec-arg>\n` +
      `  </pedelec-tool>`,
  );
  return `<!doctype html>
<meta charset="utf-8">
<title>${n} declared tools</title>
<link rel="icon" href="data:,">
<script type="module" src="/_pedelec/cdn/pedelec-elements.js"></script>
<pedelec-session provider="scripted" guidance="A page with ${n} tools.">
${tools.join('\n')}
</pedelec-session>
`;
}

/**
 * Runs in the page before its own scripts (serialized by puppeteer: self-contained). Resolves
 * `globalThis.__pedelecStartup` with the page's timings, in ms from the navigation's start.
 */
function instrument(readyMark) {
  const TAGS = ['pedelec-session', 'pedelec-tool', 'pedelec-arg', 'pedelec-guidance', 'pedelec-chat'];
  const definedAt = {};
  for (const tag of TAGS) customElements.whenDefined(tag).then(() => (definedAt[tag] = performance.now()));
  const until = async (ready) => {
    for (let turn = 0; turn < 1000 && !ready(); turn++) await null; // the manifest builds in a microtask
    for (let turn = 0; turn < 1000 && !ready(); turn++) await new Promise((resolve) => setTimeout(resolve, 1));
    return ready();
  };
  globalThis.__pedelecStartup = new Promise((resolve) => {
    document.addEventListener('DOMContentLoaded', async () => {
      const used = TAGS.filter((tag) => document.querySelector(tag));
      const defined = Promise.all(used.map((tag) => customElements.whenDefined(tag)));
      // The manifest needs the session and its declarations, not the chat.
      await Promise.all(['pedelec-session', 'pedelec-tool', 'pedelec-arg'].map((t) => customElements.whenDefined(t)));
      const session = document.querySelector('pedelec-session');
      const tools = document.querySelectorAll('pedelec-tool').length;
      const manifestMs = (await until(() => session.manifest?.tools.length === tools)) ? performance.now() : NaN;
      await defined;
      const definedMs = Math.max(...used.map((tag) => definedAt[tag]));
      // Where the trace's work stops counting; its time also places the navigation's start in the trace.
      const { startTime: readyMs } = performance.mark(readyMark);
      if (document.readyState !== 'complete') await new Promise((r) => addEventListener('load', r, { once: true }));
      const kit = performance
        .getEntriesByType('resource')
        .filter((e) => e.name.includes('/_pedelec/cdn/'))
        .map((e) => ({ file: e.name.split('/').pop(), doneMs: e.responseEnd, bytes: e.encodedBodySize }));
      resolve({ tools, definedMs, manifestMs, readyMs, kit });
    });
  });
}

/** What each trace event's self time counts as (the first match). */
const KINDS = [
  ['compile', /^(v8\.compile|v8\.parse|v8\.produce|V8\.Compile)/],
  ['garbage collection', /GC/],
  ['script', /^(v8\.|V8\.|EvaluateScript|FunctionCall|TimerFire|EventDispatch|FireAnimationFrame|RunMicrotasks)/],
  ['HTML parse', /^ParseHTML$/],
  ['style', /^(UpdateLayoutTree|ParseAuthorStyleSheet)$/],
  ['layout', /^Layout$/],
  ['paint', /^(Paint|PrePaint|Layerize|PaintImage)$/],
];
/** Everything else: the page's loading — network responses, IPC — and what the trace does not name. */
const kindOf = (name) => KINDS.find(([, re]) => re.test(name))?.[0] ?? 'loading, other';

/**
 * The renderer main thread's work from the navigation's start to the ready mark (made `readyMs`
 * after the start): busy and blocking ms, and self time per kind of work (nested trace events each
 * count only the time not spent in the events they contain).
 */
export function mainThreadWork(events, readyMs) {
  const ready = events.find((e) => e.cat === 'blink.user_timing' && e.name === READY_MARK);
  if (!ready) throw new Error(`startup: no ${READY_MARK} mark in the trace`);
  const { pid, tid } = ready;
  const start = ready.ts - readyMs * 1000;
  const slices = events.filter(
    (e) => e.pid === pid && e.tid === tid && e.ph === 'X' && e.ts >= start && e.ts < ready.ts,
  );
  const tasks = outermost(slices.filter((e) => e.cat.split(',').includes('toplevel')));
  const byKind = {};
  // Self time: sorted by start (longest first on a tie), each slice is inside the open one that ends last.
  slices.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const stack = [];
  // The thread's time, not the clock's (see frames.mjs): what ran, whatever else the machine did.
  const ran = (s) => s.tdur ?? s.dur;
  const self = new Map(slices.map((s) => [s, ran(s)]));
  for (const slice of slices) {
    while (stack.length && stack.at(-1).ts + stack.at(-1).dur <= slice.ts) stack.pop();
    const parent = stack.at(-1);
    if (parent && slice.ts + slice.dur <= parent.ts + parent.dur) self.set(parent, self.get(parent) - ran(slice));
    stack.push(slice);
  }
  for (const [slice, us] of self) byKind[kindOf(slice.name)] = (byKind[kindOf(slice.name)] ?? 0) + us / 1000;
  return {
    busyMs: tasks.reduce((sum, t) => sum + ran(t), 0) / 1000,
    blockingMs: tasks.reduce((sum, t) => sum + Math.max(0, ran(t) / 1000 - 50), 0),
    byKind,
  };
}

async function loadOnce(browser, url) {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    page.on('pageerror', (error) => console.error(`  [page] ${error.message}`));
    await page.setCacheEnabled(false);
    await page.evaluateOnNewDocument(instrument, READY_MARK);
    await page.tracing.start({ categories: TRACE_CATEGORIES });
    let timings;
    try {
      await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
      timings = await page.evaluate(() => globalThis.__pedelecStartup);
    } catch (error) {
      await page.tracing.stop();
      throw error;
    }
    const trace = JSON.parse(Buffer.from(await page.tracing.stop()).toString('utf8'));
    return { ...timings, ...mainThreadWork(trace.traceEvents ?? trace, timings.readyMs) };
  } finally {
    await context.close();
  }
}

/** `loads` cold loads of each page, alternating pages load by load. */
export async function runStartup(browser, root, { loads }) {
  const dir = await mkdtemp(join(tmpdir(), 'pedelec-startup-'));
  let core = null;
  try {
    for (const file of ['index.html', 'demo.css', 'demo.js', 'favicon.svg'])
      await copyFile(join(root, 'demo', file), join(dir, file));
    await writeFile(join(dir, 'tools-50.html'), toolsPage(50));
    core = await startDevCoreProcess(root, ['--serve', dir]);
    const results = Object.fromEntries(Object.keys(STARTUP_PAGES).map((id) => [id, []]));
    for (let i = 0; i < loads; i++)
      for (const [id, path] of Object.entries(STARTUP_PAGES))
        results[id].push(await loadOnce(browser, new URL(path, core.pagesUrl).href));
    return { loads, results };
  } finally {
    await core?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
