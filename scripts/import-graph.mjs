// The import graph of the TypeScript sources, read with the TypeScript compiler's parser: which module
// imports which, and whether only for types. `npm test` checks it (test/node/import-graph.test.mjs):
// no cycle of value imports — a dynamic import() counts, since a lazy chunk that imports its loader
// back ties the two together just the same — and no import from a folder into another's internals.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** `{ from, to, typeOnly }` for every relative import of the `.ts` files under `folders` (paths from `root`). */
export function importsOf(root, folders) {
  const edges = [];
  for (const folder of folders) {
    for (const name of readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })) {
      if (!/\.tsx?$/.test(name) || name.endsWith('.d.ts')) continue;
      const file = join(root, folder, name);
      edges.push(...importsOfFile(root, file));
    }
  }
  return edges;
}

function importsOfFile(root, file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const edges = [];
  const add = (specifier, typeOnly) => {
    if (!specifier.startsWith('.')) return;
    let target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
    if (!existsSync(target) && existsSync(`${target}x`)) target += 'x';
    edges.push({ from: relative(root, file), to: relative(root, target), typeOnly });
  };
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement))
      add(statement.moduleSpecifier.text, isTypeOnlyImport(statement.importClause));
    else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier)
      add(statement.moduleSpecifier.text, statement.isTypeOnly);
  }
  const visit = (node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [specifier] = node.arguments;
      if (specifier && ts.isStringLiteral(specifier)) add(specifier.text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

/** `import type …`, or `import { type A, type B }` with every name a type: erased from the output. */
function isTypeOnlyImport(clause) {
  if (!clause) return false; // `import './x.js'`: run for its effects
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return (
    !clause.name &&
    !!named &&
    ts.isNamedImports(named) &&
    named.elements.length > 0 &&
    named.elements.every((e) => e.isTypeOnly)
  );
}

/** The cycles of value imports among `edges`, each as its modules (Tarjan's strongly connected components). */
export function valueCycles(edges) {
  const next = new Map();
  for (const { from, to, typeOnly } of edges) {
    if (!next.has(from)) next.set(from, new Set());
    if (!next.has(to)) next.set(to, new Set());
    if (!typeOnly) next.get(from).add(to);
  }
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  const connect = (node) => {
    index.set(node, index.size);
    low.set(node, index.get(node));
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node)) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node), low.get(to)));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node), index.get(to)));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || next.get(node).has(node)) cycles.push(component.sort());
  };
  for (const node of next.keys()) if (!index.has(node)) connect(node);
  return cycles;
}
