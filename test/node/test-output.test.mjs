// What `npm run test:node` (scripts/test-node.mjs) prints: on a green run a dot per test and one line of
// totals — not hundreds of lines of TAP to scroll past —, on a red one every failure in full.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../scripts/test-node.mjs', import.meta.url));

async function runFixture(t, source) {
  const dir = await mkdtemp(join(tmpdir(), 'pedelec-test-output-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'fixture.test.mjs');
  await writeFile(file, `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n${source}`);
  // Run as from a shell, not as a child of this test run (which node:test marks in its environment).
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const run = spawnSync(process.execPath, [SCRIPT, file], { encoding: 'utf8', env, timeout: 60_000 });
  return { code: run.status, output: run.stdout + run.stderr };
}

test('a green run prints a dot per test and a line of totals, no TAP', async (t) => {
  const tests = Array.from({ length: 30 }, (_, i) => `test('passes ${i}', () => {});`).join('\n');
  const { code, output } = await runFixture(t, `${tests}\ntest('skipped', { skip: 'not here' }, () => {});`);
  assert.equal(code, 0, output);
  assert.doesNotMatch(output, /TAP version|# Subtest|^ok \d/m);
  const lines = output.trim().split('\n');
  assert.match(lines.pop(), /^test:node: 30 passed, 1 skipped \(\d+\.\d s\)$/);
  // Dots only (the dot reporter starts a new line every 20).
  assert.equal(lines.join(''), '.'.repeat(31), output);
});

test('a red run prints each failure in full: its name, the assertion, expected and actual, the stack', async (t) => {
  const { code, output } = await runFixture(
    t,
    `test('passes', () => {});\ntest('compares the counter', () => assert.deepEqual({ value: 2 }, { value: 3 }));`,
  );
  assert.equal(code, 1, output);
  assert.match(output, /✖ compares the counter/);
  assert.match(output, /AssertionError/);
  assert.match(output, /value: 2/);
  assert.match(output, /value: 3/);
  assert.match(output, /fixture\.test\.mjs:\d+:\d+/);
  assert.match(output, /^test:node: 1 passed, 1 failed/m);
});
