// `npm run test:node`: every Node test in one node:test run — test/node/*.test.mjs (the dev Core, the
// build, the docs), the core SDK's own tests (test/core/**/*.test.ts) and the element parts that need
// no DOM (test/elements/**/*.node.test.ts: the session lifecycle, the chat's advice), all on src/
// through the tsx loader. Extra arguments go to node (e.g. --test-name-pattern=snapshot).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The files under `folder` (and its subfolders when `recursive`) whose path there matches `pattern`. */
const inFolder = (folder, pattern, { recursive = false } = {}) =>
  readdirSync(`${root}${folder}`, { recursive })
    .map((name) => name.split(sep).join('/'))
    .filter((name) => pattern.test(name))
    .sort()
    .map((name) => `${folder}/${name}`);
const files = [
  ...inFolder('test/core', /\.test\.ts$/, { recursive: true }),
  ...inFolder('test/elements', /\.node\.test\.ts$/, { recursive: true }),
  ...inFolder('test/node', /\.test\.mjs$/),
];
const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...process.argv.slice(2), ...files], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
