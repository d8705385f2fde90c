// What a newcomer reads — README.md and every Markdown page under docs/ (the architecture page too;
// not CHANGELOG.md, whose subject is history) — speaks of the product as it is:
// - no internal history: no issue numbers or tracker words, no dates or "the day's" in prose, no TODO;
// - the README fits in 8 KiB (8 192 bytes);
// - every relative link reaches a file, and a heading of it when the link names one (`#…`);
// - the published install paths (`npm install pedelec-elements`, the jsDelivr URL) are offered only in a
//   section that says they work "after release": the packages are not published yet.
// Each check lists every offence as `file:line: what — the line`, so one run shows all there is to fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const README_LIMIT_BYTES = 8192;

/** README.md, then every *.md under docs/, as paths from the repository's root. */
function userDocs() {
  const under = (dir) =>
    readdirSync(join(root, dir), { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))
      .flatMap((entry) => {
        const path = `${dir}/${entry.name}`;
        if (entry.isDirectory()) return under(path);
        return entry.name.endsWith('.md') ? [path] : [];
      });
  return ['README.md', ...under('docs')];
}

/**
 * A document's lines, each with its 1-based number and whether it sits in a fenced code block (the
 * fence lines included): code is quoted, not prose, so some checks pass over it.
 */
function linesOf(text) {
  let fence = null;
  return text.split('\n').map((line, index) => {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    let code = fence !== null;
    if (opener && fence === null) {
      fence = opener[1];
      code = true;
    } else if (opener && fence !== null && opener[1][0] === fence[0] && opener[1].length >= fence.length) {
      fence = null;
    }
    return { number: index + 1, line, code };
  });
}

/** The line without its inline code spans (`…`). */
const withoutCode = (line) => line.replace(/(`+)[^`]*?\1/g, '');

/**
 * Words of the tracker and the work log, not of the product. Each is `[what, pattern, where, keep?]`:
 * `where` is `all` (code included) or `prose` (outside code blocks and inline code); `keep(match, line)`,
 * where given, is false for a match that is something else after all.
 */
const HISTORY = [
  ['issue number', /\bissues?[ -]#?\d+\b/i, 'all'],
  // `#12` as a reference: not a heading (`# …`), an entity (`&#12;`), a fragment (`page#1`) or a
  // CSS colour (`#000`, `#123456` after `:`, `(` or `,`).
  ['issue reference', /(?<![\w&#/])#\d{1,4}(?![\w-])/, 'all', (match, line) => !isColour(match, line)],
  ['work-log round', /\b(round|stop)[ -](\d+|one|two|three|four|five|six)\b/i, 'all'],
  // …but a "second round trip" is a network's, not the log's.
  ['work-log round', /\b(first|second|third|fourth|fifth|\d+(st|nd|rd|th)) round\b(?![ -]trip)/i, 'all'],
  ['session note', /\bsession[ -]notes?\b/i, 'all'],
  ['date', /\b(19|20)\d\d-[01]\d-[0-3]\d\b/, 'prose'],
  ['work-log phrase', /\bthe day['’]s\b/i, 'prose'],
  ['TODO', /\b(TODO|FIXME)\b/, 'all'],
];

/** Whether `#digits` at `match.index` in `line` is a CSS colour: 3, 4, 6 or 8 digits after `:`, `(` or `,`. */
function isColour(match, line) {
  const digits = match[0].length - 1;
  return [3, 4, 6, 8].includes(digits) && /[:(,]\s*$/.test(line.slice(0, match.index));
}

/** Every offence against HISTORY in `text`, as `file:line: what — line`. */
function historyIn(file, text) {
  return linesOf(text).flatMap(({ number, line, code }) =>
    HISTORY.flatMap(([what, pattern, where, keep = () => true]) => {
      if (where === 'prose' && code) return [];
      const scanned = where === 'prose' ? withoutCode(line) : line;
      const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
      return [...scanned.matchAll(global)]
        .filter((match) => keep(match, scanned))
        .map((match) => `${file}:${number}: ${what} "${match[0]}" — ${line.trim()}`);
    }),
  );
}

/** A heading's anchor as GitHub makes it: lowercase, punctuation dropped (but `-` and `_`), spaces → `-`. */
function slugOf(heading) {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image: its text
    .replace(/`/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors of a Markdown file: its headings' slugs (a repeated one numbered `-1`, `-2`…) and explicit ids. */
function anchorsOf(text) {
  const anchors = new Set();
  const seen = new Map();
  for (const { line, code } of linesOf(text)) {
    if (code) continue;
    const heading = /^ {0,3}#{1,6}\s+(.*?)(\s+#+\s*)?$/.exec(line);
    if (heading) {
      const slug = slugOf(heading[1]);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const id of withoutCode(line).matchAll(/<a\s[^>]*\b(?:id|name)="([^"]+)"/g)) anchors.add(id[1]);
  }
  return anchors;
}

/** The link targets on a line of prose: Markdown links and images, reference definitions, HTML href/src. */
function targetsOn(line) {
  const prose = withoutCode(line);
  const targets = [];
  for (const m of prose.matchAll(/\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+["'(][^)]*)?\)/g)) targets.push(m[1]);
  const definition = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(prose);
  if (definition) targets.push(definition[1]);
  for (const m of prose.matchAll(/<(?:a|img)\s[^>]*\b(?:href|src)="([^"]+)"/g)) targets.push(m[1]);
  return targets.map((target) => target.replace(/^<(.*)>$/, '$1'));
}

/** Every relative link in `file` that reaches no file, or no heading of a Markdown file. */
function brokenLinksIn(file, text) {
  const broken = [];
  for (const { number, line, code } of linesOf(text)) {
    if (code) continue;
    for (const target of targetsOn(line)) {
      if (/^[a-z][a-z\d+.-]*:|^\/\//i.test(target)) continue; // a URL with a scheme: not a file here
      const hash = target.indexOf('#');
      const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash)).replace(/\?.*$/, '');
      const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
      const full =
        path === '' ? join(root, file) : path.startsWith('/') ? join(root, path) : resolve(root, dirname(file), path);
      const where = `${file}:${number}: ${target}`;
      if (relative(root, full).startsWith('..')) {
        broken.push(`${where} — outside the repository`);
        continue;
      }
      if (!existsSync(full)) {
        broken.push(`${where} — no such file`);
        continue;
      }
      if (anchor === null || anchor === '' || statSync(full).isDirectory() || extname(full) !== '.md') continue;
      if (!anchorsOf(readFileSync(full, 'utf8')).has(anchor))
        broken.push(`${where} — ${relative(root, full)} has no heading #${anchor}`);
    }
  }
  return broken;
}

/** Registry installs and CDN URLs of the packages, which work only once they are published. */
const PUBLISHED = [
  /\bnpm\s+(?:install|i|add)\b[^\n]*?(?<![\w./-])pedelec-(?:elements|dev)(?:@[\w.^~-]*)?(?![\w./-])/,
  /\bcdn\.jsdelivr\.net\/npm\/pedelec-(?:elements|dev)\b/,
  /\bunpkg\.com\/pedelec-(?:elements|dev)\b/,
];
const AFTER_RELEASE = /\bafter release\b/i;

/**
 * Every line of `text` that names a published install path outside a section saying "after release".
 * A line's section is the text from the heading above it (that heading's line included; the start of
 * the file when there is none) up to the next heading of any level.
 */
function unreleasedIn(file, text) {
  const lines = linesOf(text);
  const isHeading = ({ line, code }) => !code && /^ {0,3}#{1,6}\s/.test(line);
  const offences = [];
  lines.forEach(({ number, line }, index) => {
    if (!PUBLISHED.some((pattern) => pattern.test(line))) return;
    let start = index;
    while (start > 0 && !isHeading(lines[start])) start--;
    let end = index + 1;
    while (end < lines.length && !isHeading(lines[end])) end++;
    const section = lines.slice(start, end).map((l) => l.line);
    if (!AFTER_RELEASE.test(section.join('\n')))
      offences.push(`${file}:${number}: not in an "after release" section (${section[0].trim()}) — ${line.trim()}`);
  });
  return offences;
}

const docs = userDocs();
const read = (file) => readFileSync(join(root, file), 'utf8');

test('the checks find what they look for, and pass over what they should', () => {
  const history = (line) => historyIn('x.md', line).map((offence) => offence.split(': ')[1].split(' "')[0]);
  assert.deepEqual(history('Fixed in issue 8, see issue-12 and Issue #3.'), [
    'issue number',
    'issue number',
    'issue number',
    'issue reference',
  ]);
  assert.deepEqual(history('As #12 asked.'), ['issue reference']);
  assert.deepEqual(history('Measured in round 2; stop 3 added more.'), ['work-log round', 'work-log round']);
  assert.deepEqual(history('The second round of fixes.'), ['work-log round']);
  assert.deepEqual(history('From the session notes.'), ['session note']);
  assert.deepEqual(history('Measured 2026-11-30: the day’s best.'), ['date', 'work-log phrase']);
  assert.deepEqual(history('TODO: write this'), ['TODO']);
  for (const clean of [
    '# Heading',
    '`--pedelec-chat-background`: `light-dark(#fff, #1b1c1f)`, `color: #333;`, `rgb(#000000)`',
    'See [the guide](guide.md#step-2) and &#8212; and the `add_todo` tool.',
    'Released as `0.4.6`; a round trip, then a second round trip; stop the server.',
    '`{"at": "2026-11-30T10:00:00Z"}` is an example value.',
  ]) {
    assert.deepEqual(historyIn('x.md', clean), [], clean);
  }
  assert.deepEqual(historyIn('x.md', '```json\n{"at": "2026-11-30"}\n```'), []);

  assert.equal(slugOf('Quick start (plain HTML, no build step)'), 'quick-start-plain-html-no-build-step');
  assert.equal(slugOf('`<pedelec-chat>` and its `markdown` mode'), 'pedelec-chat-and-its-markdown-mode');
  assert.equal(slugOf('CSP & Trusted Types'), 'csp--trusted-types');
  assert.equal(slugOf('The [dev Core](x.md): pedelec_pages'), 'the-dev-core-pedelec_pages');
  assert.deepEqual(
    [...anchorsOf('# A\n## A\n```\n# not a heading\n```\n### B b\n<a id="here"></a>')],
    ['a', 'a-1', 'b-b', 'here'],
  );

  // Links: checked from a page under docs/ against the files on disk; code and URLs with a scheme are passed over.
  const links = [
    '[a](nope.md) [b](../CHANGELOG.md#unreleased) [c](../CHANGELOG.md#no-such-heading)',
    '[d](https://example.com/a.md) ![e](../package.json "title") [f](../../outside.md) `[g](in-code.md)`',
    '[h]: <../docs> and <a href="missing.html">i</a>',
    '```md',
    '[j](in-a-code-block.md)',
    '```',
  ];
  assert.deepEqual(brokenLinksIn('docs/x.md', links.join('\n')), [
    'docs/x.md:1: nope.md — no such file',
    'docs/x.md:1: ../CHANGELOG.md#no-such-heading — CHANGELOG.md has no heading #no-such-heading',
    'docs/x.md:2: ../../outside.md — outside the repository',
    'docs/x.md:3: missing.html — no such file',
  ]);

  for (const line of [
    'npm install pedelec-elements',
    'Then `npm i --save pedelec-elements@0.1.0` and go.',
    'npm install lit pedelec-dev',
    '<script type="module" src="https://cdn.jsdelivr.net/npm/pedelec-elements@0.1.0/cdn/pedelec-elements.js">',
  ]) {
    assert.equal(unreleasedIn('x.md', `# Install\n\n${line}\n`).length, 1, line);
    assert.deepEqual(unreleasedIn('x.md', `# Install\n\nAfter release:\n\n${line}\n\n## Next\n`), [], line);
  }
  // The section ends at the next heading: a note below it does not count.
  assert.equal(
    unreleasedIn('x.md', '# Install\n\nnpm install pedelec-elements\n\n## Later\n\nAfter release.').length,
    1,
  );
  for (const line of ['npm install ./pedelec-elements-0.1.0.tgz', 'npm install ../pedelec-dev/', 'npm ci']) {
    assert.deepEqual(unreleasedIn('x.md', `# Install\n\n${line}\n`), [], line);
  }
});

test('the user docs are README.md and the pages under docs/, the getting-started page among them', () => {
  assert.ok(docs.includes('docs/architecture.md'), docs.join(', '));
  assert.ok(docs.includes('docs/getting-started.md'), 'docs/getting-started.md: the page a newcomer starts from');
  assert.ok(!docs.includes('CHANGELOG.md'));
});

test('no internal history in the user docs: issue numbers, tracker words, dates, TODO', () => {
  assert.deepEqual(
    docs.flatMap((file) => historyIn(file, read(file))),
    [],
  );
});

test(`README.md is at most ${README_LIMIT_BYTES} bytes`, () => {
  const bytes = Buffer.byteLength(read('README.md'));
  assert.ok(bytes <= README_LIMIT_BYTES, `README.md is ${bytes} bytes, ${bytes - README_LIMIT_BYTES} over`);
});

test('every relative link in the user docs reaches a file, and its heading when it names one', () => {
  assert.deepEqual(
    docs.flatMap((file) => brokenLinksIn(file, read(file))),
    [],
  );
});

test('npm install and the CDN URL of the packages stand only in sections that say "after release"', () => {
  const files = ['README.md', 'docs/getting-started.md'].filter((file) => existsSync(join(root, file)));
  assert.deepEqual(
    files.flatMap((file) => unreleasedIn(file, read(file))),
    [],
  );
});
