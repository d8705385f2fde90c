// What the sources' and tests' comments cite is in the repository: a comment naming a design note
// (`bridge-protocol.md §2`), a guide (`docs/mcp.md`) or any other Markdown file names one a contributor
// can open. Read from comments only (scripts/cited-docs.mjs), beside the citing file, at the root, in
// docs/, docs/design/ and test/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { citedDocs, commentsOf } from '../../scripts/cited-docs.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FOLDERS = ['src', 'packages/pedelec-dev/src', 'packages/pedelec-dev/test', 'test', 'scripts', 'bench', 'demo'];

test('every Markdown file a comment cites is in the repository', () => {
  const citations = citedDocs(root, FOLDERS);
  assert.ok(citations.length > 100, `${citations.length} citations found`);
  assert.ok(citations.some((c) => c.cited === 'every-agent.md' && c.found));
  assert.deepEqual(
    citations.filter((c) => !c.found).map((c) => `${c.file}: ${c.cited}`),
    [],
  );
});

test('comments are told from strings and templates', () => {
  const code = [
    "const a = 'not/a-comment.md'; // first.md",
    '/** second.md */',
    'const b = `${x} // not-a-comment.md ${y}`; /* third.md */',
  ].join('\n');
  assert.deepEqual(
    commentsOf(code).map((comment) => comment.match(/[\w-]+\.md/)[0]),
    ['first.md', 'second.md', 'third.md'],
  );
});
