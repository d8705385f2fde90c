// The Markdown files the sources' and tests' comments cite ("bridge-protocol.md §2", "see docs/mcp.md"),
// read from the comments only (not strings, which in tests are often made-up file names), with whether
// each is a file of the repository. A bare name is looked up where the project keeps its documents:
// beside the citing file, at the root, in docs/, docs/design/ and test/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;
const SKIPPED = new Set(['node_modules', 'dist', 'cdn', 'build', '.wtr-profiles']);
const LOOKED_IN = ['', 'docs', 'docs/design', 'test'];

function* sourceFiles(folder) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name) || entry.name.startsWith('.')) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (SOURCE.test(entry.name)) yield path;
  }
}

/** The text of every comment in `code`, found with TypeScript's scanner (so strings and templates are skipped). */
export function commentsOf(code, file = 'x.ts') {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, file.endsWith('x') ? 1 : 0, code);
  const comments = [];
  // Open braces inside each template substitution being scanned: its closing `}` goes back to the template.
  const templates = [];
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    if (token === ts.SyntaxKind.SingleLineCommentTrivia || token === ts.SyntaxKind.MultiLineCommentTrivia)
      comments.push(scanner.getTokenText());
    else if (token === ts.SyntaxKind.TemplateHead) templates.push(0);
    else if (token === ts.SyntaxKind.OpenBraceToken && templates.length) templates[templates.length - 1]++;
    else if (token === ts.SyntaxKind.CloseBraceToken && templates.length) {
      if (templates[templates.length - 1] > 0) templates[templates.length - 1]--;
      else if (scanner.reScanTemplateToken(false) === ts.SyntaxKind.TemplateTail) templates.pop();
    }
  }
  return comments;
}

/** `{ file, cited, found }` for each `.md` file a comment under `folders` (from `root`) names. */
export function citedDocs(root, folders) {
  const citations = [];
  for (const folder of folders) {
    for (const file of sourceFiles(join(root, folder))) {
      for (const comment of commentsOf(readFileSync(file, 'utf8'), file)) {
        for (const [cited] of comment.matchAll(/(?<![\w/.:-])(?:\.{0,2}\/)?(?:[\w-]+\/)*[\w.-]+\.md\b/g)) {
          const places = cited.includes('/')
            ? [join(dirname(file), cited), join(root, cited)]
            : [dirname(file), ...LOOKED_IN.map((place) => join(root, place))].map((place) => join(place, cited));
          citations.push({ file: relative(root, file), cited, found: places.some((path) => existsSync(path)) });
        }
      }
    }
  }
  return citations;
}
