// `npm test` lints and checks formatting (`npm run lint`): the project's own ESLint and Prettier
// configuration must catch what they are there for. Each check lints a small text as if it were a
// file of the project, so the configuration that applies is the real one for that path. The sources
// are linted with their types: a text checked as one of them takes the path of a real source file,
// which its TypeScript project knows (the text replaces the file's content for that lint only).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import * as prettier from 'prettier';

const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: root });

/** The rule ids ESLint reports for `code` as the file `path`. */
async function rulesFor(path, code) {
  const [result] = await eslint.lintText(code, { filePath: `${root}${path}` });
  return result.messages.map((m) => m.ruleId);
}

test('a test focused with .only fails the lint (it would skip the rest of the suite)', async () => {
  assert.deepEqual(await rulesFor('test/core/x.test.ts', "it.only('one', () => {});\n"), [
    'no-only-tests/no-only-tests',
  ]);
});

test('an unused variable in src/ fails the lint', async () => {
  assert.deepEqual(await rulesFor('src/core/errors.ts', 'export function f(): void {\n  const unused = 1;\n}\n'), [
    '@typescript-eslint/no-unused-vars',
  ]);
});

test('a promise left floating in src/ fails the lint (the sources are linted with their types)', async () => {
  const code = 'export async function later(): Promise<void> {}\nexport function now(): void {\n  later();\n}\n';
  assert.deepEqual(await rulesFor('src/core/errors.ts', code), ['@typescript-eslint/no-floating-promises']);
});

test('the elements are linted with the Lit, custom-element and accessibility rules', async () => {
  const element = [
    "import { html, LitElement } from 'lit';",
    'export class XImage extends LitElement {',
    '  constructor() {',
    '    super();',
    "    this.setAttribute('role', 'img');",
    '  }',
    '  render() {',
    '    return html`<img src="a.png" />`;',
    '  }',
    '}',
    '',
  ].join('\n');
  const rules = await rulesFor('src/elements/chat/pedelec-chat.element.ts', element);
  assert.ok(rules.includes('lit-a11y/alt-text'), rules.join(', '));
  assert.ok(rules.includes('wc/no-constructor-attributes'), rules.join(', '));
});

test('Prettier checks the format with the project configuration (printWidth 120)', async () => {
  const options = await prettier.resolveConfig(`${root}src/core/x.ts`);
  assert.equal(options?.printWidth, 120);
  const ugly = 'export const a = {b:1,   c:2}\n';
  assert.equal(await prettier.check(ugly, { ...options, filepath: `${root}src/core/x.ts` }), false);
  assert.equal(
    await prettier.check(await prettier.format(ugly, { ...options, filepath: `${root}src/core/x.ts` }), {
      ...options,
      filepath: `${root}src/core/x.ts`,
    }),
    true,
  );
});

test('npm test runs the lint before the type check and the tests', () => {
  const { scripts } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
  assert.match(scripts.test, /npm run lint && npm run typecheck/);
  assert.equal(scripts.lint, 'eslint . && prettier --check .');
});
