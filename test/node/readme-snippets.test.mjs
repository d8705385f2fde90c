// The docs' code snippets are excerpts of files that tests run (the demo apps the browser tests mount in
// test/interop/, the consumer type checks, the guides' runnable pages): each code block in the README or
// a guide under docs/ marked `<!-- snippet: path -->` must still appear in that file —
// the same non-blank lines, in order, side by side (indentation aside). A snippet that drifted from the
// tested code fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SNIPPET = /<!-- snippet: (\S+) -->\s*\n```[\w-]*\n([\s\S]*?)\n```/g;

const lines = (text) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/** Index of `needle` as a contiguous run inside `haystack`, or -1. */
function indexOfRun(haystack, needle) {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

test('the detector finds a run and refuses a changed line', () => {
  assert.equal(indexOfRun(lines('a\n  b\n\n c\nd'), lines('b\nc')), 1);
  assert.equal(indexOfRun(lines('a\nb\nc'), lines('b\nx')), -1);
});

const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const found = docs.flatMap((doc) =>
  [...readFileSync(join(root, doc), 'utf8').matchAll(SNIPPET)].map((m) => ({ doc, file: m[1], code: m[2] })),
);

test('the guides have snippets to check', () => {
  assert.ok(found.length >= 10, `found ${found.length} marked snippets in ${docs.join(', ')}`);
});

for (const [n, { doc, file, code }] of found.entries()) {
  test(`${doc} snippet ${n + 1} is in ${file}`, () => {
    const source = join(root, file);
    assert.ok(existsSync(source), `${file} does not exist`);
    const at = indexOfRun(lines(readFileSync(source, 'utf8')), lines(code));
    assert.notEqual(at, -1, `this snippet is not (any more) in ${file}:\n${code}`);
  });
}
