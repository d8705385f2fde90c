// The element classes as a Lit maintainer reads them (docs/design/elements.md, "Element classes"):
// every member is public API — what the kit's modules and tests need of an element goes through the
// element module's accessors, not `@internal` members — and no element overrides `requestUpdate`:
// what an element derives from its properties, it derives in `willUpdate`. Each element class is read
// from its source with TypeScript's parser, so a member added by any spelling is seen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';
import { filesUnder, repoRoot as root } from '../support/repo-files.mjs';

/** Every `*.element.ts` under src/elements/. */
const elementFiles = filesUnder('src/elements', '.element.ts');

/** The classes a file declares that extend an element base (Lit's two, or `HTMLElement`), with their members. */
function elementClasses(file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const classes = [];
  source.forEachChild((node) => {
    if (!ts.isClassDeclaration(node)) return;
    const base = node.heritageClauses?.[0]?.types[0]?.expression.getText(source);
    if (['LitElement', 'ReactiveElement', 'HTMLElement'].includes(base))
      classes.push({ name: node.name.text, node, source });
  });
  return classes;
}

const memberName = (member, source) => member.name?.getText(source) ?? '(constructor or static block)';

test('the five elements are found (the check reads real classes)', () => {
  const names = elementFiles.flatMap(elementClasses).map((c) => c.name);
  for (const name of [
    'PedelecSessionElement',
    'PedelecToolElement',
    'PedelecArgElement',
    'PedelecGuidanceElement',
    'PedelecChatElement',
  ]) {
    assert.ok(names.includes(name), `${name} among ${names.join(', ')}`);
  }
});

test('no element class has an @internal member', () => {
  const found = [];
  for (const file of elementFiles) {
    for (const { name, node, source } of elementClasses(file)) {
      for (const member of node.members) {
        if (ts.getJSDocTags(member).some((tag) => tag.tagName.text === 'internal')) {
          found.push(`${relative(root, file)}: ${name}.${memberName(member, source)}`);
        }
      }
    }
  }
  assert.deepEqual(found, []);
});

test('no element class overrides requestUpdate (what it derives, it derives in willUpdate)', () => {
  const found = [];
  for (const file of elementFiles) {
    for (const { name, node, source } of elementClasses(file)) {
      for (const member of node.members) {
        if (memberName(member, source) === 'requestUpdate') found.push(`${relative(root, file)}: ${name}`);
      }
    }
  }
  assert.deepEqual(found, []);
});
