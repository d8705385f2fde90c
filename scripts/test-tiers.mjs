// Which test files run in which tier (docs/development.md, "Tests in tiers"). The Node runner
// (scripts/test-node.mjs), the browser runner's configs and the tier checks (test/node/tiers.test.mjs)
// all read these lists, so a test file's folder alone decides where it runs:
//
// - unit: Node, no build — the core (test/core/), the element logic that needs no DOM
//   (test/elements/**/*.node.test.ts) and pedelec-dev's own tests (packages/pedelec-dev/test/*.test.ts).
// - quick: unit, then the element and end-to-end tests (test/elements/, test/e2e/) in Chromium, on the
//   sources. The inner loop.
// - full (`npm test`): every file but the perf ones — also what needs the build (test/node/,
//   test/cdn/), the frameworks (test/interop/), the reliability suite, pedelec-dev's command as a child
//   process (packages/pedelec-dev/test/process/) and its browser tests — in
//   Chromium and Firefox. No test here compares elapsed time with a number.
// - perf: wall-clock bounds, leak and growth cycles, exhaustive runs (test/perf/,
//   packages/pedelec-dev/test/perf/), in Node and in both browsers.
import { readdirSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));

/** The files under `folder` (its subfolders too, unless `shallow`) whose path there matches `pattern`. */
function filesIn(folder, pattern, { shallow = false } = {}) {
  return readdirSync(`${root}${folder}`, { recursive: !shallow })
    .map((name) => name.split(sep).join('/'))
    .filter((name) => pattern.test(name))
    .sort()
    .map((name) => `${folder}/${name}`);
}

const NODE_TS = /\.node\.test\.ts$/;
const BROWSER_TS = /(?<!\.node)\.test\.tsx?$/;
/** Browser test folders: everything under test/ but the Node-only ones. */
const BROWSER_FOLDERS = ['cdn', 'e2e', 'elements', 'interop', 'reliability'];

const unitNode = () => [
  ...filesIn('test/core', /\.test\.ts$/),
  ...filesIn('test/elements', NODE_TS),
  ...filesIn('packages/pedelec-dev/test', /\.test\.ts$/, { shallow: true }),
];
const quickBrowser = () => [...filesIn('test/e2e', BROWSER_TS), ...filesIn('test/elements', BROWSER_TS)];

/** Per tier, the Node test files and the browser test files, as paths from the repository's root. */
export const tiers = {
  unit: () => ({ node: unitNode(), browser: [] }),
  quick: () => ({ node: unitNode(), browser: quickBrowser() }),
  full: () => ({
    node: [
      ...unitNode(),
      ...filesIn('test/node', /\.test\.mjs$/),
      ...filesIn('packages/pedelec-dev/test/process', /\.test\.ts$/),
      ...filesIn('packages/pedelec-dev/test/browser', /\.test\.ts$/),
    ],
    browser: BROWSER_FOLDERS.flatMap((folder) => filesIn(`test/${folder}`, BROWSER_TS)),
  }),
  perf: () => ({
    node: [...filesIn('test/perf', NODE_TS), ...filesIn('packages/pedelec-dev/test/perf', /\.test\.ts$/)],
    browser: filesIn('test/perf', BROWSER_TS),
  }),
};

/** The tier named by `--tier <name>` in `args` (default `full`), and the other arguments. */
export function tierFromArgs(args) {
  const at = args.indexOf('--tier');
  const name = at < 0 ? 'full' : args[at + 1];
  if (!Object.hasOwn(tiers, name)) {
    throw new Error(`unknown test tier "${name}" (known: ${Object.keys(tiers).join(', ')})`);
  }
  return { name, files: tiers[name](), rest: at < 0 ? args : args.filter((_, i) => i !== at && i !== at + 1) };
}

/** The tsconfig whose `paths` send `pedelec-elements/*` to src/, for tsx in tests and the servers they start. */
export const testTsconfig = `${root}test/tsconfig.json`;
