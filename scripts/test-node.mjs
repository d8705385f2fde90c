// `npm run test:node` (and `test:unit`, `test:perf`): the Node tests of a tier (scripts/test-tiers.mjs,
// `--tier unit|quick|full|perf`, default full) in one node:test run, TypeScript on the sources through
// tsx — test/tsconfig.json's `paths` send `pedelec-elements/*` to src/, so pedelec-dev's sources run
// without a build. Arguments naming test files run those files only; other arguments go to node (e.g.
// --test-name-pattern=snapshot). A green run prints a dot per test and a line of totals; a failure is
// printed in full (scripts/test-node-reporter.mjs). `--test-reporter=spec` (or tap) prints every test.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { root, testTsconfig, tierFromArgs } from './test-tiers.mjs';

const { name: tierName, files: tier, rest: args } = tierFromArgs(process.argv.slice(2));
const named = args.filter((arg) => !arg.startsWith('-') && /\.test\.(mjs|ts)$/.test(arg) && existsSync(arg));
const options = args.filter((arg) => !named.includes(arg));
const files = named.length > 0 ? named.map((file) => resolve(file)) : tier.node;
const reporter = options.some((arg) => arg.startsWith('--test-reporter'))
  ? []
  : [`--test-reporter=${fileURLToPath(new URL('test-node-reporter.mjs', import.meta.url))}`];
// Two files at a time: node:test's default on a two-core machine is one, and most files wait on
// sockets and child processes more than they compute. A perf file runs alone: each measures time under
// a load of its own, and another file's load would be measured with it.
const filesAtOnce = tierName === 'perf' ? 1 : 2;
const concurrency = options.some((arg) => arg.startsWith('--test-concurrency'))
  ? []
  : [`--test-concurrency=${filesAtOnce}`];
// A test that hangs fails after two minutes instead of holding the run; a perf file after five (100
// process starts, or a load held for its measure, take longer than any other test, and each file is one
// test to the runner).
const limit = tierName === 'perf' ? 300_000 : 120_000;
const timeout = options.some((arg) => arg.startsWith('--test-timeout')) ? [] : [`--test-timeout=${limit}`];
const run = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', ...concurrency, ...timeout, ...reporter, ...options, ...files],
  { cwd: root, stdio: 'inherit', env: { ...process.env, TSX_TSCONFIG_PATH: testTsconfig } },
);
process.exit(run.status ?? 1);
