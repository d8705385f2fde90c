// CSP-safety: nothing we ship may evaluate strings as code. The validator is built from closures,
// never with eval or new Function, so the kit runs under `script-src 'self'` without 'unsafe-eval'.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
// Tokens, not substrings: `eval(` preceded by a non-identifier character, and `new Function(`.
const EVAL = /(^|[^\w$.])eval\s*\(/;
const NEW_FUNCTION = /\bnew\s+Function\s*\(/;

function jsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return jsFiles(path);
    return entry.name.endsWith('.js') ? [path] : [];
  });
}

test('the detector finds what it must and ignores look-alikes', () => {
  assert.ok(EVAL.test('x = eval("1")') && EVAL.test('eval (s)') && NEW_FUNCTION.test('new Function("a", b)'));
  assert.ok(
    !EVAL.test('setInterval(f)') &&
      !EVAL.test('obj.eval(x)') &&
      !EVAL.test('retrieval (x)') &&
      !NEW_FUNCTION.test('new FunctionCall()'),
  );
});

for (const folder of ['dist/core', 'dist', 'cdn']) {
  test(`no eval( or new Function( in ${folder}/`, () => {
    const dir = join(root, folder);
    assert.ok(existsSync(dir), `${folder}/ is missing: npm test builds it first`);
    const files = jsFiles(dir);
    assert.ok(files.length > 0, `${folder}/ has no .js files`);
    const offenders = files.filter((file) => {
      const text = readFileSync(file, 'utf8');
      return EVAL.test(text) || NEW_FUNCTION.test(text);
    });
    assert.deepEqual(offenders, []);
  });
}
