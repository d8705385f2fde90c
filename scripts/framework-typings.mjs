// The framework typings (src/framework-types.ts, read by `pedelec-elements/react` and `/vue`), made from
// the Custom Elements Manifest: for each element, the properties and attributes a framework may bind.
// Written by `npm run docs` (scripts/docs-reference.mjs) with the reference pages.
import { join } from 'node:path';
import * as prettier from 'prettier';
import { NOTICE, oneLine, readElements, root } from './manifest.mjs';

/** Type names the typings may use without importing them. */
const GLOBAL_TYPES = new Set([
  'Array',
  'Promise',
  'Record',
  'Readonly',
  'ReadonlyArray',
  'Node',
  'Element',
  'HTMLElement',
]);
const without = (text, drop) =>
  text
    .split('|')
    .map((t) => t.trim())
    .filter((t) => !drop.includes(t))
    .join(' | ');
/** What markup may give an attribute: never null; a number also as the text the markup holds. */
function attributeType(attribute) {
  const text = without(attribute.type?.text ?? 'string', ['null', 'undefined']) || 'string';
  return text === 'number' ? 'number | string' : text;
}
const doc = (text) => {
  const line = oneLine(text).replace(/\*\//g, '*\\/');
  return line ? `  /** ${line} */\n` : '';
};
const key = (name) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name}'`);
/** `PedelecSessionElement` → `PedelecSession`. */
const baseName = (element) => element.className.replace(/Element$/, '');

/**
 * What a template may bind on an element: each attribute it reads (by its own name), the property of
 * an attribute whose name differs (`timeout-ms` and `timeoutMs`), and the writable properties that
 * have no attribute. Outputs and read-only properties are left out.
 */
export function bindable(element) {
  const props = new Map();
  for (const attribute of element.attributes) {
    if (attribute.output) continue;
    const field = attribute.field && !attribute.field.readonly ? attribute.field : null;
    if (field?.name === attribute.name) {
      // One name for both: frameworks set the property; the attribute's type is the narrower one.
      props.set(attribute.name, { type: attribute.type?.text ?? 'string', description: attribute.description });
      continue;
    }
    props.set(attribute.name, { type: attributeType(attribute), description: attribute.description });
    if (field) props.set(field.name, { type: field.type?.text ?? 'unknown', description: attribute.description });
  }
  for (const property of element.properties) {
    if (property.readonly || props.has(property.name)) continue;
    props.set(property.name, { type: property.type?.text ?? 'unknown', description: property.description });
  }
  return props;
}

export async function frameworkTypes(manifest) {
  const elements = readElements(manifest);
  const imports = new Set();
  const use = (type) => {
    for (const [name] of type.matchAll(/\b[A-Z]\w*/g)) if (!GLOBAL_TYPES.has(name)) imports.add(name);
    return type;
  };
  const blocks = [];
  for (const element of elements) {
    const base = baseName(element);
    const props = bindable(element);
    const summary = `\`<${element.tag}>\`: ${element.summary}`;
    if (props.size === 0) {
      blocks.push(`/** ${summary} Nothing to bind. */\nexport type ${base}Props = Record<never, never>;`);
    } else {
      const lines = [...props].map(([name, p]) => `${doc(p.description)}  ${key(name)}?: ${use(p.type)};`);
      blocks.push(`/** ${summary} */\nexport interface ${base}Props {\n${lines.join('\n')}\n}`);
    }
    if (element.events.length === 0) {
      blocks.push(
        `/** \`<${element.tag}>\` fires no events of its own. */\nexport type ${base}Events = Record<never, never>;`,
      );
    } else {
      const lines = element.events.map((e) => `${doc(e.description)}  '${e.name}': ${use(e.type?.text ?? 'Event')};`);
      blocks.push(
        `/** The events of \`<${element.tag}>\`. */\nexport interface ${base}Events {\n${lines.join('\n')}\n}`,
      );
    }
    use(element.className);
  }
  const map = elements.map((e) => {
    const base = baseName(e);
    return `  '${e.tag}': { element: ${e.className}; props: ${base}Props; events: ${base}Events };`;
  });
  const text = [
    `// ${NOTICE}`,
    '/**',
    ' * What a template may bind on each element — attributes, properties and events — for every',
    " * framework's typings (`pedelec-elements/react`, `pedelec-elements/vue`). Types only.",
    ' *',
    ' * Attributes keep their own names (`timeout-ms`); where the element has a writable property of',
    ' * another name for one (`timeoutMs`), both are listed. Attributes the element writes (`status`) and',
    ' * read-only properties (`sessionId`, `definition`…) are not bindable and are left out.',
    ' */',
    `import type { ${[...imports].sort().join(', ')} } from './index.js';`,
    '',
    ...blocks.flatMap((b) => [b, '']),
    '/** Every element by tag: its class, bindable props and events. */',
    'export interface PedelecElementTypes {',
    ...map,
    '}',
    '',
  ].join('\n');
  const options = await prettier.resolveConfig(join(root, 'src/framework-types.ts'));
  return prettier.format(text, { ...options, filepath: join(root, 'src/framework-types.ts') });
}
