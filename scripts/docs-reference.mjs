// `npm run docs`: the files generated from the Custom Elements Manifest, which is made from the JSDoc of
// src/elements and src/events — the reference pages (docs/reference/) and the framework typings
// (src/framework-types.ts, read by `pedelec-elements/react` and `/vue`). It writes custom-elements.json
// too, so one command brings all three up to date. test/node/docs-reference.test.mjs makes the same
// files in memory and fails when a committed one differs. `--check` only reports the stale files.
//
// Everything a page says comes from the manifest; to change it, change the JSDoc and run this again.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as prettier from 'prettier';
import { analyzeManifest, manifestText, root } from './manifest.mjs';

export const COMMAND = 'npm run docs';
const NOTICE = `Generated from custom-elements.json by \`${COMMAND}\`: change the JSDoc in src/, then run it again.`;

// ───────────────────────────── reading the manifest ─────────────────────────────

const isPublic = (member) => !member.static && member.privacy !== 'private' && member.privacy !== 'protected';
/** An attribute the element writes (its JSDoc says "Reflected (output)…"): shown, never bound. */
const isOutput = (attribute) => /^Reflected\b/.test(attribute.description ?? '');
const oneLine = (text) => (text ?? '').replace(/\s*\n\s*/g, ' ').trim();

/** The custom elements, by tag, each with what a page can use of it. */
export function readElements(manifest) {
  const found = [];
  for (const module of manifest.modules) {
    for (const declaration of module.declarations ?? []) {
      if (!declaration.customElement || !declaration.tagName) continue;
      const members = declaration.members ?? [];
      const fields = members.filter((m) => m.kind === 'field' && isPublic(m) && !m.name.startsWith('#'));
      // An attribute's property: the field it reflects, or a writable field of the same name.
      const attributes = (declaration.attributes ?? []).map((attribute) => {
        const field = fields.find((f) => f.name === (attribute.fieldName ?? attribute.name));
        const linked = field && (attribute.fieldName || !field.readonly) ? field : null;
        return { ...attribute, output: isOutput(attribute), field: linked };
      });
      // A property with its own description (`bridge` from script) is listed again with it.
      const told = (field) =>
        attributes.some((a) => a.field === field && (!field.description || a.description === field.description));
      found.push({
        tag: declaration.tagName,
        className: declaration.name,
        summary: oneLine(declaration.summary),
        description: declaration.description ?? '',
        attributes,
        properties: fields.filter((f) => !told(f)),
        methods: methodsOf(members),
        events: declaration.events ?? [],
        slots: declaration.slots ?? [],
        cssProperties: declaration.cssProperties ?? [],
        cssParts: declaration.cssParts ?? [],
        cssStates: declaration.cssStates ?? [],
      });
    }
  }
  return found.sort((a, b) => a.tag.localeCompare(b.tag));
}

/**
 * Public methods, statics first, each name once with its signatures. A name listed more than once is
 * overloaded: the last entry is the implementation's signature, which callers never see.
 */
function methodsOf(members) {
  const byName = new Map();
  for (const member of members) {
    if (member.kind !== 'method' || member.privacy === 'private' || member.privacy === 'protected') continue;
    if (member.name.startsWith('#')) continue;
    const key = `${member.static ? 'static ' : ''}${member.name}`;
    if (!byName.has(key)) byName.set(key, []);
    byName.get(key).push(member);
  }
  return [...byName.values()]
    .map((entries) => {
      const signatures = entries.length > 1 ? entries.slice(0, -1) : entries;
      return {
        name: entries[0].name,
        static: Boolean(entries[0].static),
        signatures,
        description: entries.find((e) => e.description)?.description ?? '',
      };
    })
    .sort((a, b) => Number(b.static) - Number(a.static));
}

/** The kit's event classes (those derived from `PedelecEvent`), with the elements that fire each. */
export function readEvents(manifest, elements = readElements(manifest)) {
  const classes = manifest.modules.flatMap((m) => m.declarations ?? []).filter((d) => d.kind === 'class');
  const superOf = new Map(classes.map((c) => [c.name, c.superclass?.name]));
  const isEvent = (name) => {
    for (let seen = 0; name && seen < classes.length; seen++, name = superOf.get(name)) {
      if (name === 'PedelecEvent') return true;
    }
    return false;
  };
  const events = [];
  const intro = classes.find((c) => c.name === 'PedelecEvent')?.description ?? '';
  for (const declaration of classes) {
    const members = declaration.members ?? [];
    const eventName = members.find((m) => m.name === 'eventName' && m.static)?.default;
    if (!eventName || !isEvent(declaration.name)) continue;
    const name = eventName.replace(/^['"]|['"]$/g, '');
    const detail = members.find((m) => m.name === 'detail');
    events.push({
      name,
      className: declaration.name,
      description: declaration.description ?? '',
      detail: { type: detail?.type?.text ?? 'unknown', description: detail?.description ?? '' },
      members: members.filter(
        (m) => isPublic(m) && !m.name.startsWith('#') && m.name !== 'detail' && m.name !== 'eventName',
      ),
      firedOn: elements.flatMap((element) =>
        element.events.filter((e) => e.name === name).map((e) => ({ tag: element.tag, description: e.description })),
      ),
    });
  }
  return { intro, events: events.sort((a, b) => a.name.localeCompare(b.name)) };
}

// ───────────────────────────── Markdown ─────────────────────────────

/** A table cell: one line, with `|` escaped (also inside code spans, as GitHub's tables need). */
const cell = (text) => oneLine(text).replace(/\|/g, '\\|') || '—';
const code = (text) => (text ? `\`${text}\`` : '');
const table = (head, rows) =>
  [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');
/** A heading's anchor as GitHub makes it: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
const anchor = (heading) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function signature(method) {
  return method.signatures.map((s) => {
    const params = (s.parameters ?? [])
      .map((p) => `${p.name}${p.optional || p.default !== undefined ? '?' : ''}${p.type ? `: ${p.type.text}` : ''}`)
      .join(', ');
    return `${method.static ? 'static ' : ''}${method.name}(${params})${s.return?.type ? `: ${s.return.type.text}` : ''}`;
  });
}

function elementPage(element, eventsByName) {
  const out = [
    `<!-- ${NOTICE} -->`,
    '',
    `# \`<${element.tag}>\``,
    '',
    element.summary,
    '',
    element.description.trim(),
    '',
  ];
  const usage = [`Class \`${element.className}\`, exported by \`pedelec-elements\`.`];
  if (existsSync(join(root, 'src/define', `${element.tag}.ts`))) {
    usage.push(
      `Register it with \`import 'pedelec-elements/define/${element.tag}.js'\` (or all elements with \`import 'pedelec-elements/define.js'\`), or \`${element.className}.define(tag?, registry?)\`.`,
    );
  }
  out.push(usage.join(' '), '');

  if (element.attributes.length) {
    out.push('## Attributes', '');
    out.push(
      table(
        ['Attribute', 'Property', 'Type', 'Default', 'Description'],
        element.attributes.map((a) => [
          code(a.name) + (a.output ? ' (output)' : ''),
          code(a.field?.name),
          code(a.type?.text),
          code(a.default),
          a.description,
        ]),
      ),
      '',
    );
  }
  if (element.properties.length) {
    out.push('## Properties', '', 'Properties without an attribute of their own.', '');
    out.push(
      table(
        ['Property', 'Type', 'Default', 'Description'],
        element.properties.map((p) => [
          code(p.name) + (p.readonly && !/^Read-only/.test(p.description ?? '') ? ' (read-only)' : ''),
          code(p.type?.text),
          code(p.default),
          p.description,
        ]),
      ),
      '',
    );
  }
  if (element.methods.length) {
    out.push('## Methods', '');
    out.push(
      table(
        ['Method', 'Description'],
        element.methods.map((m) => [signature(m).map(code).join('<br>'), m.description]),
      ),
      '',
    );
  }
  if (element.events.length) {
    out.push('## Events', '', 'Details of each event: [events](events.md).', '');
    out.push(
      table(
        ['Event', 'Class', 'Detail', 'Description'],
        element.events.map((e) => {
          const event = eventsByName.get(e.name);
          return [
            `[${code(e.name)}](events.md#${anchor(e.name)})`,
            code(e.type?.text),
            code(event?.detail.type),
            e.description,
          ];
        }),
      ),
      '',
    );
  }
  if (element.slots.length) {
    out.push('## Slots', '');
    out.push(
      table(
        ['Slot', 'Description'],
        element.slots.map((s) => [s.name ? code(s.name) : '(default)', s.description]),
      ),
      '',
    );
  }
  if (element.cssProperties.length) {
    out.push('## CSS custom properties', '');
    out.push(
      table(
        ['Property', 'Default', 'Description'],
        element.cssProperties.map((p) => [code(p.name), code(p.default), p.description]),
      ),
      '',
    );
  }
  if (element.cssParts.length) {
    out.push('## CSS parts', '', `Style them with \`${element.tag}::part(<name>)\`.`, '');
    out.push(
      table(
        ['Part', 'Description'],
        element.cssParts.map((p) => [code(p.name), p.description]),
      ),
      '',
    );
  }
  if (element.cssStates.length) {
    out.push('## Custom states', '', `Match them with \`${element.tag}:state(<name>)\`.`, '');
    out.push(
      table(
        ['State', 'Description'],
        element.cssStates.map((s) => [code(s.name), s.description]),
      ),
      '',
    );
  }
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

function eventsPage({ intro, events }) {
  const out = [`<!-- ${NOTICE} -->`, '', '# Events', '', intro.trim(), ''];
  out.push(
    table(
      ['Event', 'Class', 'On'],
      events.map((e) => [
        `[${code(e.name)}](#${anchor(e.name)})`,
        code(e.className),
        e.firedOn.map((f) => `[${code(`<${f.tag}>`)}](${f.tag}.md)`).join(', '),
      ]),
    ),
    '',
  );
  for (const event of events) {
    out.push(`## ${event.name}`, '', event.description.trim(), '');
    out.push(`- Class: \`${event.className}\``);
    out.push(`- \`detail\`: \`${event.detail.type}\` — ${oneLine(event.detail.description) || 'see the type.'}`);
    for (const member of event.members) {
      const text =
        member.kind === 'method'
          ? signature({ ...member, signatures: [member] })[0]
          : `${member.name}: ${member.type?.text ?? 'unknown'}`;
      out.push(`- \`${text}\` — ${oneLine(member.description)}`);
    }
    out.push('');
    if (event.firedOn.length) {
      out.push(
        table(
          ['On', 'When'],
          event.firedOn.map((f) => [`[${code(`<${f.tag}>`)}](${f.tag}.md)`, f.description]),
        ),
        '',
      );
    }
  }
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

function indexPage(elements) {
  const out = [`<!-- ${NOTICE} -->`, '', '# Reference', ''];
  out.push('Every element, its attributes, properties, methods, events, slots and styling hooks.', '');
  out.push(
    table(
      ['Element', 'What it is'],
      elements.map((e) => [`[${code(`<${e.tag}>`)}](${e.tag}.md)`, e.summary]),
    ),
    '',
  );
  out.push('- [Events](events.md): every event, its class and its `detail`.');
  out.push('- [Error codes](../errors.md): every code the kit and `pedelec-dev` report, and what to do.');
  out.push('- `custom-elements.json` (in the package) is the same reference, for tools.');
  return `${out.join('\n')}\n`;
}

/** The reference pages, by path from the repository's root. */
export function referencePages(manifest) {
  const elements = readElements(manifest);
  const events = readEvents(manifest, elements);
  const byName = new Map(events.events.map((e) => [e.name, e]));
  const pages = new Map([['docs/reference/index.md', indexPage(elements)]]);
  for (const element of elements) pages.set(`docs/reference/${element.tag}.md`, elementPage(element, byName));
  pages.set('docs/reference/events.md', eventsPage(events));
  return pages;
}

// ───────────────────────────── framework typings ─────────────────────────────

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

// ───────────────────────────── writing ─────────────────────────────

/** Every generated file, by path from the repository's root: custom-elements.json included. */
export async function generatedFiles(manifest) {
  const files = new Map([['custom-elements.json', manifestText(manifest)]]);
  for (const [path, text] of referencePages(manifest)) files.set(path, text);
  files.set('src/framework-types.ts', await frameworkTypes(manifest));
  return files;
}

/** The generated files whose committed text differs from what the sources give now. */
export async function staleFiles(files) {
  return [...files].filter(([path, text]) => {
    const file = join(root, path);
    return !existsSync(file) || readFileSync(file, 'utf8') !== text;
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const files = await generatedFiles(await analyzeManifest());
  const stale = await staleFiles(files);
  if (process.argv.includes('--check')) {
    for (const [path] of stale) console.error(`docs: ${path} is out of date; run \`${COMMAND}\``);
    process.exit(stale.length ? 1 : 0);
  }
  for (const [path, text] of stale) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
    console.log(`docs: wrote ${path}`);
  }
  if (!stale.length) console.log('docs: every generated file is up to date');
}
