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
import { frameworkTypes } from './framework-typings.mjs';
import {
  analyzeManifest,
  COMMAND,
  manifestText,
  NOTICE,
  oneLine,
  readElements,
  readEvents,
  root,
} from './manifest.mjs';

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
