// The package's shape, so it stays a place contributors can find their way in: its sources by feature
// (few files at the top of src/), and no function or class grown past what one reading takes in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const MAX_TOP_FILES = 8;
const MAX_FUNCTION_LINES = 80;
const MAX_CLASS_LINES = 250;

const sources = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((name) => /\.(ts|js)$/.test(name));

/** Each function and class of `name` longer than its limit, as `file: what (lines)`. */
function oversized(name: string): string[] {
  const file = ts.createSourceFile(name, readFileSync(`${SRC}${name}`, 'utf8'), ts.ScriptTarget.Latest, true);
  const lines = (node: ts.Node) =>
    file.getLineAndCharacterOfPosition(node.getEnd()).line -
    file.getLineAndCharacterOfPosition(node.getStart(file)).line +
    1;
  const label = (node: ts.Node) =>
    (node as { name?: ts.Node }).name?.getText(file) ??
    `anonymous at line ${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`;
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body && lines(node) > MAX_FUNCTION_LINES)
      found.push(`${name}: function ${label(node)} (${lines(node)} lines)`);
    if ((ts.isClassDeclaration(node) || ts.isClassExpression(node)) && lines(node) > MAX_CLASS_LINES)
      found.push(`${name}: class ${label(node)} (${lines(node)} lines)`);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

test(`src/ has at most ${MAX_TOP_FILES} files at its top; the rest is in feature folders`, () => {
  const top = readdirSync(SRC, { withFileTypes: true }).filter((entry) => entry.isFile());
  assert.ok(top.length <= MAX_TOP_FILES, `top of src/: ${top.map((entry) => entry.name).join(', ')}`);
});

test(`no function over ${MAX_FUNCTION_LINES} lines, no class over ${MAX_CLASS_LINES}`, () => {
  assert.ok(sources.length > 40, 'the sources were found');
  assert.deepEqual(sources.flatMap(oversized), []);
});
