// The test tiers (scripts/test-tiers.mjs, docs/development.md): every test file of the repository runs
// in `npm test` or in `npm run test:perf`, never in both; `test:quick` is a part of `npm test` and
// `test:unit` a part of `test:quick`; and outside the perf tier no test measures elapsed time — the lint
// refuses it (eslint.config.mjs), checked here on a sample as the project's configuration applies it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { sep } from 'node:path';
import { ESLint } from 'eslint';
import { root, tiers } from '../../scripts/test-tiers.mjs';

const all = (tier) => {
  const { node, browser } = tiers[tier]();
  return [...node, ...browser];
};
/** Every test file in the repository's two test folders. */
const testFiles = ['test', 'packages/pedelec-dev/test'].flatMap((folder) =>
  readdirSync(`${root}${folder}`, { recursive: true })
    .map((name) => `${folder}/${name.split(sep).join('/')}`)
    .filter((path) => /\.test\.(ts|tsx|mjs)$/.test(path) && !path.includes('/node_modules/')),
);

test('every test file runs in npm test or in test:perf, and in only one of them', () => {
  const [full, perf] = [new Set(all('full')), new Set(all('perf'))];
  const nowhere = testFiles.filter((file) => !full.has(file) && !perf.has(file));
  const twice = testFiles.filter((file) => full.has(file) && perf.has(file));
  assert.deepEqual({ nowhere, twice }, { nowhere: [], twice: [] });
  assert.ok(perf.size >= 8, `the perf tier has its files (${[...perf].join(', ')})`);
});

test('test:unit ⊂ test:quick ⊂ npm test, each file in Node or in the browsers, not both', () => {
  const full = new Set(all('full'));
  for (const [inner, outer] of [
    ['unit', 'quick'],
    ['quick', 'full'],
  ]) {
    const within = new Set(all(outer));
    assert.deepEqual(
      all(inner).filter((file) => !within.has(file)),
      [],
      `${inner} runs only files ${outer} runs`,
    );
  }
  for (const name of Object.keys(tiers)) {
    const { node, browser } = tiers[name]();
    assert.deepEqual(
      node.filter((file) => browser.includes(file)),
      [],
      `${name}: no file in both runners`,
    );
  }
  assert.equal(tiers.unit().browser.length, 0, 'the unit tier runs in Node only');
  assert.ok(full.size > all('quick').length, 'npm test runs more than test:quick');
});

test('outside the perf tier the lint refuses a test that measures elapsed time; inside it, accepts it', async () => {
  const eslint = new ESLint({ cwd: root });
  const rulesFor = async (path, code) =>
    (await eslint.lintText(code, { filePath: `${root}${path}` }))[0].messages.map((m) => m.ruleId);
  const samples = [
    'const started = Date.now();\nexport const took = Date.now() - started;\n',
    'const t0 = performance.now();\nexport const ms = performance.now() - t0;\n',
    'export const used = process.cpuUsage();\n',
    'export const at = process.hrtime.bigint();\n',
  ];
  for (const code of samples) {
    for (const path of ['test/core/x.test.ts', 'test/elements/x.test.ts', 'packages/pedelec-dev/test/x.test.ts']) {
      assert.deepEqual(await rulesFor(path, code), ['no-restricted-syntax'], `${path}: ${code}`);
    }
    for (const path of ['test/perf/x.test.ts', 'packages/pedelec-dev/test/perf/x.test.ts']) {
      assert.deepEqual(await rulesFor(path, code), [], `${path}: ${code}`);
    }
  }
  // A timestamp inside a window is not elapsed time.
  const window = 'const before = Date.now();\nexport const inside = (t: number) => t >= before && t <= Date.now();\n';
  assert.deepEqual(await rulesFor('test/core/x.test.ts', window), []);
});
