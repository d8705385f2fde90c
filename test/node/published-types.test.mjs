// What the published declarations (dist/**/*.d.ts, built by `npm run build`) show a user: the public
// API and nothing of the wiring between the kit's own parts. The exports are read with the TypeScript
// compiler, as an editor would read them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { filesUnder, repoRoot } from '../support/repo-files.mjs';

const dist = join(repoRoot, 'dist');
const declarationFiles = filesUnder('dist', '.d.ts');

/** The names a module's declarations export, as the compiler sees them. */
function exportsOf(file) {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(file));
  return new Set(checker.getExportsOfModule(symbol).map((s) => s.getName()));
}

test('the build wrote declarations to check', () => {
  assert.ok(declarationFiles.length > 50, `found ${declarationFiles.length} .d.ts files; run npm run build`);
});

test('no published declaration names the internal wiring or keeps an @internal member', () => {
  const found = [];
  for (const file of declarationFiles) {
    const text = readFileSync(file, 'utf8');
    for (const word of ['SessionWiring', 'ToolboxHooks', '@internal']) {
      if (text.includes(word)) found.push(`${file.slice(dist.length + 1)}: ${word}`);
    }
  }
  assert.deepEqual(found, []);
});

test('Toolbox has no hooks in its published type', () => {
  const text = readFileSync(join(dist, 'core/toolbox.d.ts'), 'utf8');
  const at = text.indexOf('export declare class Toolbox');
  assert.ok(at >= 0, 'Toolbox is declared');
  const toolbox = text.slice(at);
  assert.doesNotMatch(toolbox.slice(0, toolbox.indexOf('\n}')), /\bhooks\b/);
});

for (const entry of ['core/index.d.ts', 'index.d.ts']) {
  test(`${entry}: the SDK's exports and ours, without the kit's plumbing`, () => {
    const names = exportsOf(join(dist, entry));
    for (const name of [
      'Pedelec',
      'PedelecSession',
      'defineTool',
      'PEDELEC_EXTENSION_ID',
      'PEDELEC_PROTOCOL_VERSION',
      'isPedelecError',
      'normalizeError',
      'PedelecError',
      'PedelecErrorCode',
      'ToolDefinition',
      'ToolCallContext',
      'CreateSessionInput',
    ]) {
      assert.ok(names.has(name), `${entry} exports ${name}`);
    }
    for (const name of [
      'Toolbox',
      'normalizeSkills',
      'ToolboxHooks',
      'PORT_NAME',
      'toBridgeJson',
      'TOOL_NAME_PATTERN',
      'pedelecError',
      'isAssetPath',
      'SessionWiring',
    ]) {
      assert.ok(!names.has(name), `${entry} does not export ${name}`);
    }
  });
}

test('the SDK members the page may call stay public', () => {
  const session = readFileSync(join(dist, 'core/session.d.ts'), 'utf8');
  assert.match(session, /\n {4}handleEvent\(/);
  const client = readFileSync(join(dist, 'core/client.d.ts'), 'utf8');
  assert.match(client, /\n {4}createSession\(input\?: CreateSessionInput\)/);
  assert.doesNotMatch(client, /createWiredSession|resumeWiredSession/);
  // The client's connection, which it extends: its public members are the client's.
  const connection = readFileSync(join(dist, 'core/port-connection.d.ts'), 'utf8');
  assert.match(connection, /\n {4}disconnect\(\): void;/);
  assert.doesNotMatch(connection, /pendingCount|legacyExtension/);
});

test('the published declarations type-check on their own (skipLibCheck off)', () => {
  const program = ts.createProgram(declarationFiles, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: ['node'],
    strict: true,
    noEmit: true,
    skipLibCheck: false,
  });
  const problems = ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? '(options)'}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
  assert.deepEqual(problems, []);
});
