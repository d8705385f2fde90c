// docs/errors.md lists every error and warning code the kit and pedelec-dev raise, each with who raises
// it, when, and what to do — and no code that nothing raises any more. The codes are read from the
// sources: every code is written out as a string literal where it is raised (error-codes.test.mjs
// holds the sources to that), so each `'UPPER_SNAKE_CASE'` literal is one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const PAGE = 'docs/errors.md';

/**
 * Where codes are raised, as folders of the repository: the kit (src/, but not the development Core
 * inside it) and pedelec-dev, in src/dev or as its own package. A root that does not exist is skipped;
 * each group must have at least one.
 */
const SOURCE_ROOTS = {
  kit: { roots: ['src'], skip: ['src/dev'] },
  'pedelec-dev': { roots: ['src/dev', 'packages/pedelec-dev/src'], skip: [] },
};

/** The type that lists the codes for TypeScript users: its own lines are a list, not a use. */
const CODE_UNION = /export type PedelecErrorCode =[^;]*;/;
const CODE_LITERAL = /['"]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)['"]/g;

/** Every code written in a group's sources, with the first file that holds it. */
function codesOf({ roots, skip }) {
  const found = new Map();
  const present = roots.filter((folder) => existsSync(join(root, folder)));
  assert.ok(present.length > 0, `none of ${roots.join(', ')} exists`);
  for (const folder of present) {
    for (const name of readdirSync(join(root, folder), { recursive: true })) {
      const file = join(root, folder, name);
      const path = relative(root, file).split('\\').join('/');
      if (!/\.(ts|js|mjs)$/.test(path) || path.endsWith('.d.ts')) continue;
      if (skip.some((s) => path.startsWith(`${s}/`)) || path.includes('/node_modules/')) continue;
      const text = readFileSync(file, 'utf8').replace(CODE_UNION, '');
      for (const [, code] of text.matchAll(CODE_LITERAL)) if (!found.has(code)) found.set(code, path);
    }
  }
  return found;
}

const raised = new Map(); // code → { group, file }
for (const [group, where] of Object.entries(SOURCE_ROOTS)) {
  for (const [code, file] of codesOf(where)) if (!raised.has(code)) raised.set(code, { group, file });
}

const page = readFileSync(join(root, PAGE), 'utf8');
/** The codes the page gives a row of its own (the first cell of a table row). */
const rows = [...page.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|([^|]*)\|/gm)].map((m) => ({ code: m[1], by: m[2].trim() }));

test('the sources raise codes of both the kit and pedelec-dev', () => {
  const groups = new Set([...raised.values()].map((r) => r.group));
  assert.deepEqual([...groups].sort(), ['kit', 'pedelec-dev']);
  assert.ok(raised.size > 50, `${raised.size} codes`);
});

test(`every code the sources raise has its row in ${PAGE}`, () => {
  const listed = new Set(rows.map((r) => r.code));
  const missing = [...raised].filter(([code]) => !listed.has(code)).map(([code, r]) => `${code} (${r.file})`);
  assert.deepEqual(missing, [], `add a row for each to ${PAGE}: who raises it, when, and what to do`);
});

test(`${PAGE} lists no code that nothing raises`, () => {
  const stale = rows.map((r) => r.code).filter((code) => !raised.has(code));
  assert.deepEqual(stale, [], `no source raises these any more: take them out of ${PAGE}`);
});

test(`${PAGE} lists each code once, saying who raises it`, () => {
  const codes = rows.map((r) => r.code);
  assert.deepEqual(
    codes.filter((code, i) => codes.indexOf(code) !== i),
    [],
  );
  const kinds = /^(core|elements|Pedelec|pedelec-dev)(, (core|elements|Pedelec|pedelec-dev))*$/;
  assert.deepEqual(
    rows.filter((r) => !kinds.test(r.by)).map((r) => `${r.code}: "${r.by}"`),
    [],
  );
});

test('a code only pedelec-dev raises is said to be pedelec-dev’s', () => {
  const wrong = rows
    .filter((r) => raised.get(r.code)?.group === 'pedelec-dev' && !r.by.includes('pedelec-dev'))
    .map((r) => `${r.code}: "${r.by}"`);
  assert.deepEqual(wrong, []);
});
