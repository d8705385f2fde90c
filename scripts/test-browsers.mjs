// `npm run test:browsers` (and the browser half of `test:quick`, `test:perf`): the browser tests of a
// tier (scripts/test-tiers.mjs, `--tier quick|full|perf`, default full) in every browser this machine
// has. A missing browser is skipped with a message saying what to install — unless REQUIRE_BROWSERS
// (set by .ci/run) names it: then it fails. Other arguments go to the test runner (e.g. `--files …`).
import { spawnSync } from 'node:child_process';
import { browsers, executableFor, requiredBrowsers, selectedBrowsers } from './browsers.mjs';
import { root, tierFromArgs } from './test-tiers.mjs';

const configs = { chromium: 'web-test-runner.config.mjs', firefox: 'web-test-runner.firefox.config.mjs' };
const { name: tier, rest: extraArgs } = tierFromArgs(process.argv.slice(2));

let failed = false;
for (const name of selectedBrowsers) {
  if (!configs[name]) {
    console.error(`test-browsers: unknown browser "${name}" (known: ${Object.keys(configs).join(', ')})`);
    process.exit(1);
  }
  const exe = executableFor(name);
  if (!exe) {
    const msg = `${name} not found: ${browsers[name].install}.`;
    if (requiredBrowsers.has(name)) {
      console.error(`test-browsers: FAIL — ${msg} REQUIRE_BROWSERS forbids skipping it.`);
      failed = true;
    } else {
      console.warn(`test-browsers: SKIPPED ${name} — ${msg}`);
    }
    continue;
  }
  console.log(`test-browsers: ${name} (${exe}), ${tier} tier`);
  const r = spawnSync(`${root}node_modules/.bin/wtr`, ['--config', configs[name], ...extraArgs], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, TEST_TIER: tier },
  });
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
