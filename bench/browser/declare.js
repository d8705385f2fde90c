// `declare`: markup to manifest. A <pedelec-session> with N <pedelec-tool>s (3 <pedelec-arg>s each)
// is parsed off the clock into an inert <template>; the clock runs from inserting it into the document
// (elements upgrade and connect, tools register) until `manifest` holds all N tools. The two parts
// are reported too: connecting (upgrade, connectedCallback, registration) and building the manifest.
import '../../dist/define.js';
import { buildsOf } from '../../dist/elements/session/pedelec-session.element.js';
import { collectGarbage, expose, nextTask } from './timing.js';

function markup(n) {
  const tools = [];
  for (let i = 0; i < n; i++) {
    tools.push(
      `<pedelec-tool name="tool_${i}" description="Looks up record ${i} and returns its fields.">` +
        `<pedelec-arg name="query" required max-length="200" description="What to look for"></pedelec-arg>` +
        `<pedelec-arg name="limit" type="integer" minimum="1" maximum="100"></pedelec-arg>` +
        `<pedelec-arg name="mode" enum="fast,thorough"></pedelec-arg>` +
        `</pedelec-tool>`,
    );
  }
  return `<pedelec-session guidance="Benchmark page.">${tools.join('')}</pedelec-session>`;
}

const MAX_TURNS = 10_000;

async function runOnce(n, host) {
  const template = document.createElement('template');
  template.innerHTML = markup(n);
  const fragment = template.content;
  collectGarbage();
  await nextTask();

  const t0 = performance.now();
  host.append(fragment);
  const t1 = performance.now(); // upgraded and connected; the build is queued
  const session = host.lastElementChild;
  // Reading `manifest` runs a queued build at once; otherwise wait microtask by microtask (bounded).
  let turns = 0;
  while ((session.manifest?.tools.length ?? 0) !== n && turns < MAX_TURNS) {
    turns++;
    await null;
  }
  const t2 = performance.now();
  const ms = t2 - t0;
  const count = session.manifest?.tools.length ?? 0;
  const builds = buildsOf(session);
  session.remove();
  if (count !== n) throw new Error(`declare: manifest holds ${count} of ${n} tools after ${turns} microtasks`);
  return { ms, connectMs: t1 - t0, buildMs: t2 - t1, builds, turns };
}

expose('declare', async ({ sizes = [100, 1000, 2000], runs = 5 } = {}) => {
  const host = document.createElement('div');
  document.body.append(host);
  for (const n of sizes) await runOnce(n, host); // warm-up: first upgrades, compilation of the hot paths
  const results = sizes.map((n) => ({ n, ms: [], connectMs: [], buildMs: [], builds: [], turns: [] }));
  for (let run = 0; run < runs; run++) {
    for (const r of results) {
      const sample = await runOnce(r.n, host);
      for (const key of ['ms', 'connectMs', 'buildMs', 'builds', 'turns']) r[key].push(sample[key]);
      await nextTask(); // a removed session tears down in a microtask; let it finish off the clock
    }
  }
  host.remove();
  return { results };
});
