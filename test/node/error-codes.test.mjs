// `PedelecErrorCode` lists every code the kit and pedelec-dev raise (the kit's src/ and the workspace
// package's packages/pedelec-dev/src/), and each is written out where it is raised: a code built by
// concatenation could be raised without anyone finding it by searching.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../../src/', import.meta.url));
const devSrc = fileURLToPath(new URL('../../packages/pedelec-dev/src/', import.meta.url));
const errorsFile = join(src, 'core/errors.ts');

/** The string literals of the `PedelecErrorCode` union. */
function unionCodes() {
  const text = readFileSync(errorsFile, 'utf8');
  const start = text.indexOf('export type PedelecErrorCode =');
  const end = text.indexOf(';', start);
  assert.ok(start >= 0 && end > start, 'PedelecErrorCode is declared in src/core/errors.ts');
  return [...text.slice(start, end).matchAll(/'([A-Z0-9_]+)'/g)].map((match) => match[1]);
}

/** Every `'UPPER_SNAKE'` literal in both packages' sources outside the union itself, with where it was found. */
function codeLiterals() {
  const found = new Map();
  const files = [src, devSrc].flatMap((folder) =>
    readdirSync(folder, { recursive: true }).map((name) => join(folder, name)),
  );
  assert.ok(
    files.some((file) => file.startsWith(devSrc) && file.endsWith('server.ts')),
    'pedelec-dev sources found',
  );
  for (const file of files) {
    if (!/\.(ts|js)$/.test(file)) continue;
    const name = file.slice(join(src, '..').length);
    let text = readFileSync(file, 'utf8');
    if (file === errorsFile) {
      const start = text.indexOf('export type PedelecErrorCode =');
      text = text.slice(0, start) + text.slice(text.indexOf(';', start));
    }
    for (const [, code] of text.matchAll(/['"]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)['"]/g)) {
      if (!found.has(code)) found.set(code, name);
    }
  }
  return found;
}

test('PedelecErrorCode lists each code once', () => {
  const codes = unionCodes();
  assert.ok(codes.length > 50, `${codes.length} codes`);
  assert.deepEqual(
    codes.filter((code, i) => codes.indexOf(code) !== i),
    [],
  );
});

test('every code of PedelecErrorCode appears as a string literal in the sources', () => {
  const literals = codeLiterals();
  assert.deepEqual(
    unionCodes().filter((code) => !literals.has(code)),
    [],
  );
});

test('every code literal in the sources is a PedelecErrorCode', () => {
  const codes = new Set(unionCodes());
  const strays = [...codeLiterals()].filter(([code]) => !codes.has(code)).map(([code, file]) => `${code} (${file})`);
  assert.deepEqual(strays, []);
});
