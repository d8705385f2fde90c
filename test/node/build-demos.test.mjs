// `npm start` bundles the framework demos (scripts/build-demos.mjs) before serving them: the bundles
// must build from the current sources and the built kit. (The browser tests in test/interop/ run the
// same app modules unbundled; this covers the bundling the README's demo URLs depend on.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('scripts/build-demos.mjs bundles the Vue, Angular and React demos', () => {
  assert.ok(existsSync(`${root}dist/define.js`), 'dist/ is missing: npm test builds it first');
  const run = spawnSync(process.execPath, ['scripts/build-demos.mjs'], { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 0, `build-demos failed:\n${run.stdout}\n${run.stderr}`);
  for (const name of ['vue', 'angular', 'react']) {
    const file = `${root}demo/${name}/build/main.js`;
    assert.ok(existsSync(file) && statSync(file).size > 10_000, `${file} was not written`);
  }
});
