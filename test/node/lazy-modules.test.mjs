// Code that only some pages use is loaded one way (docs/design/elements.md, "Element classes"): every
// dynamic import in src/ is the loader of a `lazyModule` (src/core/lazy-module.ts) — one import shared
// by every caller, a failure tried again by the next — so no chunk has a retry policy of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { filesUnder, repoRoot as root } from '../support/repo-files.mjs';

const sources = filesUnder('src', '.ts');

/** The dynamic imports of `code` (not `typeof import(…)` types), each with the text before it. */
function dynamicImports(code) {
  return [...code.matchAll(/(?<!typeof )\bimport\(/g)].map((match) =>
    code.slice(Math.max(0, match.index - 40), match.index),
  );
}

test('src/ has dynamic imports to check (the scan reads the sources)', () => {
  assert.ok(sources.flatMap((file) => dynamicImports(readFileSync(file, 'utf8'))).length >= 8);
});

test('every dynamic import in src/ is the loader of a lazyModule', () => {
  const stray = [];
  for (const file of sources) {
    for (const before of dynamicImports(readFileSync(file, 'utf8'))) {
      if (!/lazyModule\(\s*\(\) =>\s*$/.test(before)) stray.push(`${relative(root, file)}: …${before.trim()}import(`);
    }
  }
  assert.deepEqual(stray, []);
});
