// `npm run test:node`: every Node test in one node:test run — test/node/*.test.mjs (the build, the
// docs, the kit against the dev Core), the core SDK's own tests (test/core/**/*.test.ts), the element
// parts that need no DOM (test/elements/**/*.node.test.ts: the session lifecycle, the chat's advice),
// all on src/ through the tsx loader, and the workspace package pedelec-dev's own tests
// (packages/pedelec-dev/test/*.test.mjs, on its build). Arguments naming test files run those files
// only; other arguments go to node (e.g. --test-name-pattern=snapshot). A green run prints a dot per
// test and a line of totals; a failure is printed in full (scripts/test-node-reporter.mjs).
// `--test-reporter=spec` (or tap) prints every test.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The files under `folder` (and its subfolders when `recursive`) whose path there matches `pattern`. */
const inFolder = (folder, pattern, { recursive = false } = {}) =>
  readdirSync(`${root}${folder}`, { recursive })
    .map((name) => name.split(sep).join('/'))
    .filter((name) => pattern.test(name))
    .sort()
    .map((name) => `${folder}/${name}`);
const args = process.argv.slice(2);
const named = args.filter((arg) => !arg.startsWith('-') && /\.test\.(mjs|ts)$/.test(arg) && existsSync(arg));
const options = args.filter((arg) => !named.includes(arg));
const files =
  named.length > 0
    ? named.map((file) => resolve(file))
    : [
        ...inFolder('test/core', /\.test\.ts$/, { recursive: true }),
        ...inFolder('test/elements', /\.node\.test\.ts$/, { recursive: true }),
        ...inFolder('test/node', /\.test\.mjs$/),
        ...inFolder('packages/pedelec-dev/test', /\.test\.mjs$/),
      ];
const reporter = options.some((arg) => arg.startsWith('--test-reporter'))
  ? []
  : [`--test-reporter=${fileURLToPath(new URL('test-node-reporter.mjs', import.meta.url))}`];
const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...reporter, ...options, ...files], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
