// Every deliberate difference from the public Pedelec SDK is documented for users: the compatibility
// page has a row for each (what the core does, and why), and the README's compatibility claim links
// the page. The list below is the set of differences the kit keeps on purpose; a new one gets its row
// here and on the page in the same change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const PAGE = 'docs/sdk-compatibility.md';

/** The first cell of each row, as the page names the difference. */
const DIFFERENCES = [
  // Where a call can behave differently
  'Args validation',
  'Lossy results',
  'Failed result delivery',
  'Unknown providers',
  'Repeated tool calls',
  'Overlapping tool calls',
  '`onEnded` on every end',
  'Events after `ended`',
  "A snapshot that does not know the page's turn",
  "A create that names an ended session's id",
  'Listener exceptions',
  '0.1.x extensions',
  'Deno modules',
  'Workspace runs and picks wait',
  // Kept as they are
  'Messages and details',
  '`createSession(null)`',
  '`getApprovalStatus()`',
  'A coded `lastError` after a disconnect',
  '`sendText(non-string)`, `onTool(non-function)`',
  'Unsubscribe functions',
  'A listener added during an emit',
  'A download ticket without `modifiedAt`',
  'Snapshots and the seq cursor',
  'The `PedelecSession` constructor',
  '`session.model` and `ctx.model`',
  '`provider` and `model` on a session',
  '`resumeSession(sessionId, options?)`',
  'Extra core exports',
  // Additions
  '`validateArgs`',
  '`onWarning`',
  '`transport`',
  '`extensionId`',
  '`approvalTimeoutMs`',
  '`debug`',
  '`disconnect()`, `unavailableReason`, `legacyExtension`',
  '`onUsage`, `onTurn`',
  '`ctx.signal` and `ctx.deadline`',
  '`ctx.via`',
  '`title`, `readOnly`, `untrustedContent`, `private` on JS-defined tools',
  '`PedelecSession.detach()`',
  '`PEDELEC_EXTENSION_ID`, `isPedelecError`, `normalizeError`',
];

/** The page's table rows (header and divider rows left out), each as its trimmed cells. */
function tableRows(markdown) {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| ---') && !line.startsWith('| Difference |'))
    .map((line) =>
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
}

test('the compatibility page has a row, with what the core does and why, for every deliberate difference', () => {
  const rows = new Map(tableRows(readFileSync(`${root}${PAGE}`, 'utf8')).map((cells) => [cells[0], cells]));
  const missing = DIFFERENCES.filter((name) => !rows.has(name));
  assert.deepEqual(missing, [], `${PAGE} has no row for these differences`);
  for (const name of DIFFERENCES) {
    const [, what, why] = rows.get(name);
    assert.ok(what && why, `the row "${name}" says what the core does and why`);
  }
  const unlisted = [...rows.keys()].filter((name) => !DIFFERENCES.includes(name));
  assert.deepEqual(unlisted, [], 'every row of the page is a difference this test knows');
});

test('a missing row is found', () => {
  const rows = tableRows('| Difference | What | Why |\n| --- | --- | --- |\n| `debug` | Logs. | Seen. |\n');
  assert.deepEqual(rows, [['`debug`', 'Logs.', 'Seen.']]);
  assert.equal(
    rows.some(([name]) => name === '`onWarning`'),
    false,
  );
});

test("the README's compatibility claim links the page", () => {
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const claim = readme.indexOf('source-compatible with the public Pedelec browser SDK');
  assert.ok(claim >= 0, 'the README states the compatibility');
  assert.match(readme.slice(claim, claim + 400), /\]\(docs\/sdk-compatibility\.md\)/);
});
