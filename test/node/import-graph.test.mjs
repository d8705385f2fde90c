// The sources' import graph (scripts/import-graph.mjs): no cycle of value imports in either package,
// and the foreign agents reach their session through their host only — nothing under
// src/elements/foreign-agents/ imports from src/elements/session/, not even a type.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { importsOf, valueCycles } from '../../scripts/import-graph.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const edges = importsOf(root, ['src', 'packages/pedelec-dev/src']);

test('the import graph is read: static, type-only and dynamic imports', () => {
  const from = (file) => edges.filter((edge) => edge.from === file);
  assert.ok(edges.length > 500, `${edges.length} imports`);
  const host = from('src/elements/session/foreign-agents-host.ts');
  assert.ok(host.some((e) => e.to === 'src/elements/foreign-agents/foreign-agents.ts' && !e.typeOnly));
  assert.ok(host.some((e) => e.to === 'src/elements/session/session-parts.ts' && e.typeOnly));
  const lazy = from('src/elements/session/session-parts.ts');
  assert.ok(
    lazy.some((e) => e.to === 'src/elements/session/foreign-agents-host.ts' && !e.typeOnly),
    'import() counts',
  );
});

test('no cycle of value imports (type-only imports may go both ways)', () => {
  assert.deepEqual(valueCycles(edges), []);
});

test('the cycle check finds a cycle through a dynamic import, and lets a type-only one be', () => {
  const edge = (from, to, typeOnly = false) => ({ from, to, typeOnly });
  assert.deepEqual(valueCycles([edge('a', 'b'), edge('b', 'c'), edge('c', 'a')]), [['a', 'b', 'c']]);
  assert.deepEqual(valueCycles([edge('a', 'b'), edge('b', 'a', true)]), []);
  assert.deepEqual(valueCycles([edge('a', 'a')]), [['a']]);
});

test("the foreign agents import nothing of the session's folder", () => {
  const reaching = edges.filter(
    (e) => e.from.startsWith('src/elements/foreign-agents/') && e.to.startsWith('src/elements/session/'),
  );
  assert.deepEqual(reaching, []);
});
