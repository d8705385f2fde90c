// The reference pages (docs/reference/) and the framework typings (src/framework-types.ts) are made
// from custom-elements.json, which the analyzer makes from the JSDoc of src/elements and src/events.
// Each committed file must be exactly what the sources give now (the fix is `npm run docs`), and the
// JSDoc must say what a reference needs: a description for everything, a class and a detail type for
// every event, and every field of each event's `detail`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import ts from 'typescript';
import { generatedFiles, staleFiles } from '../../scripts/docs-reference.mjs';
import { analyzeManifest, COMMAND, readElements, readEvents, root } from '../../scripts/manifest.mjs';

const manifest = await analyzeManifest();
const files = await generatedFiles(manifest);
const stale = new Set((await staleFiles(files)).map(([path]) => path));

test('the generator makes a page per element, the events page, the index and the typings', () => {
  const paths = [...files.keys()];
  for (const tag of ['pedelec-session', 'pedelec-tool', 'pedelec-arg', 'pedelec-guidance', 'pedelec-chat']) {
    assert.ok(paths.includes(`docs/reference/${tag}.md`), tag);
  }
  for (const path of ['docs/reference/events.md', 'docs/reference/index.md', 'src/framework-types.ts']) {
    assert.ok(paths.includes(path), path);
  }
});

test('a file that differs from what the sources give is reported', async () => {
  const changed = new Map([['docs/reference/index.md', `${files.get('docs/reference/index.md')}\nedited by hand\n`]]);
  assert.deepEqual(
    (await staleFiles(changed)).map(([path]) => path),
    ['docs/reference/index.md'],
  );
});

for (const path of files.keys()) {
  test(`${path} is up to date with the sources`, () => {
    assert.ok(!stale.has(path), `${path} is out of date: run \`${COMMAND}\` and commit the result`);
  });
}

test('every attribute, property, method, event, slot, part, custom property and state has a description', () => {
  const missing = [];
  for (const element of readElements(manifest)) {
    if (!element.summary) missing.push(`<${element.tag}> summary`);
    const lists = {
      attribute: element.attributes,
      property: element.properties,
      method: element.methods,
      event: element.events,
      slot: element.slots,
      'CSS part': element.cssParts,
      'CSS property': element.cssProperties,
      'CSS state': element.cssStates,
    };
    for (const [kind, items] of Object.entries(lists)) {
      for (const item of items)
        if (!item.description?.trim()) missing.push(`<${element.tag}> ${kind} ${item.name || '(default)'}`);
    }
  }
  assert.deepEqual(missing, [], 'describe these in the JSDoc');
});

test('every fired event is an event class with a detail type and a description of its detail', () => {
  const { events } = readEvents(manifest);
  const known = new Map(events.map((e) => [e.name, e]));
  const problems = [];
  for (const element of readElements(manifest)) {
    for (const fired of element.events) {
      const event = known.get(fired.name);
      if (!event) problems.push(`<${element.tag}> fires ${fired.name}, which no event class declares`);
      else if (fired.type?.text !== event.className) problems.push(`${fired.name}: @fires says ${fired.type?.text}`);
    }
  }
  for (const event of events) {
    if (!event.firedOn.length) problems.push(`${event.name}: no element's @fires names it`);
    if (!/Detail$/.test(event.detail.type)) problems.push(`${event.name}: detail typed ${event.detail.type}`);
    if (!event.detail.description) problems.push(`${event.name}: its detail has no description`);
  }
  assert.deepEqual(problems, []);
});

test("each event's detail description names every field of its detail type", () => {
  const program = ts.createProgram([join(root, 'src/events/index.ts')], { strict: true, noEmit: true });
  const checker = program.getTypeChecker();
  const fieldsOf = new Map(); // event class → its detail's field names
  for (const file of program.getSourceFiles()) {
    if (!file.fileName.includes('/src/events/')) continue;
    ts.forEachChild(file, (node) => {
      if (!ts.isClassDeclaration(node) || !node.name) return;
      const detail = checker.getTypeAtLocation(node).getProperty('detail');
      if (!detail) return;
      const type = checker.getTypeOfSymbolAtLocation(detail, node);
      fieldsOf.set(
        node.name.text,
        type.getProperties().map((p) => p.name),
      );
    });
  }
  const missing = [];
  for (const event of readEvents(manifest).events) {
    const fields = fieldsOf.get(event.className);
    assert.ok(fields?.length, `${event.className}: its detail type was found`);
    for (const field of fields)
      if (!event.detail.description.includes(`\`${field}`)) missing.push(`${event.name}: ${field}`);
  }
  assert.deepEqual(missing, [], 'name these fields in the JSDoc of the event class’s `detail`');
});
