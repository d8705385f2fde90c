// No source file is over 400 lines (docs/design/conventions.md, "Documentation in code"): a file that
// grows past it holds two things, and the second wants a module of its own. Tests are not held to it:
// a test file is a list of behaviours, read one at a time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { filesUnder, repoRoot as root } from '../support/repo-files.mjs';

const MAX_LINES = 400;
const FOLDERS = ['src', 'packages/pedelec-dev/src', 'scripts', 'bench'];
const SOURCE = /\.(ts|tsx|mjs|js)$/;

const sources = FOLDERS.flatMap((folder) => filesUnder(folder, '').filter((file) => SOURCE.test(file)));
/** Lines as an editor counts them: a last line without its newline counts too. */
const linesOf = (file) => readFileSync(file, 'utf8').replace(/\n$/, '').split('\n').length;

test('the sources are found (the check reads real files)', () => {
  assert.ok(sources.length > 100, `found ${sources.length}`);
  assert.ok(sources.some((file) => file.endsWith('src/core/session.ts')));
});

test(`no source file is over ${MAX_LINES} lines`, () => {
  const over = sources
    .map((file) => ({ file: relative(root, file), lines: linesOf(file) }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ file, lines }) => `${file}: ${lines} lines`);
  assert.deepEqual(over, []);
});
