// The README's quick start, followed as written: its page (the one code block marked
// `<!-- quick-start: index.html -->`) saved into an empty folder, served by `npx pedelec-dev --serve`
// run from the repository's root as the README's command line runs it, and opened in headless Chromium.
// In the page, a user types `/tools` and `/call …` into the chat: both tools are listed, the counter
// changes, the chat shows the tool row and the agent's reply, and the console stays clean. Chromium
// only; skipped when it is not installed, unless REQUIRE_BROWSERS names it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_PORT } from 'pedelec-dev';
import { skipBrowser } from '../../scripts/browsers.mjs';
import { eventually, launchBrowser, recordProblems, sayInChat } from '../support/browser.mjs';
import { CLI, root, startDevCommand } from '../support/dev-command.mjs';

const README = readFileSync(join(root, 'README.md'), 'utf8');
const MARKER = /^<!-- quick-start: (\S+) -->$/gm;
/** The bridge URL the page names: pedelec-dev's default port, which the README's command line keeps. */
const BRIDGE = `ws://127.0.0.1:${DEFAULT_PORT}/bridge`;
/** The README's command lines, as a reader copies them (each in a sh block, a comment may follow). */
const COMMANDS = ['npm ci && npm run build', 'npx pedelec-dev --serve ../my-page'];

/** The quick start's file name and page: the one html block right after the one marker. */
function quickStart() {
  const markers = [...README.matchAll(MARKER)];
  assert.equal(markers.length, 1, `README.md has ${markers.length} "<!-- quick-start: … -->" markers, not one`);
  const after = README.slice(markers[0].index + markers[0][0].length);
  const block = /^\n```html\n([\s\S]*?)\n```\n/.exec(after);
  assert.ok(block, 'the quick-start marker is followed, on the next line, by an ```html block');
  // The one thing the test changes in the page (a free port for this run) must be there to change.
  assert.ok(block[1].includes(`bridge="${BRIDGE}"`), `the quick start's session names ${BRIDGE}`);
  return { name: markers[0][1], html: `${block[1]}\n` };
}

/** The text of every line in the README's sh blocks, without a trailing comment. */
function shellLines() {
  return [...README.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((block) =>
    block[1].split('\n').map((line) => line.replace(/\s+#.*$/, '').trim()),
  );
}

test('the README has one quick-start page and the command lines that serve it', () => {
  const { name, html } = quickStart();
  assert.equal(name, 'index.html');
  assert.ok(html.includes('src="/_pedelec/cdn/pedelec-elements.js"'), 'the page loads the kit from pedelec-dev');
  const lines = shellLines();
  for (const command of COMMANDS) assert.ok(lines.includes(command), `README.md has the line \`${command}\``);
});

test(
  "the README's quick start, followed: two tools listed, called from the chat, the reply shown",
  { skip: skipBrowser('chromium'), timeout: 60_000 },
  async (t) => {
    assert.ok(existsSync(CLI), 'packages/pedelec-dev/dist/ is missing: npm test builds it first');
    const { name, html } = quickStart();
    const site = mkdtempSync(join(tmpdir(), 'readme-quick-start-'));
    t.after(() => rmSync(site, { recursive: true, force: true }));

    // As the README's line runs it (`npx pedelec-dev --serve ../my-page`, in the repository), on a free
    // port rather than the default one: --no and --offline keep npx from ever asking the registry.
    const server = await startDevCommand('npx', ['--no', '--offline', 'pedelec-dev', '--port', '0', '--serve', site], {
      t,
    });
    // The page as the README has it, with one change: the port in its bridge URL is the one this
    // server got instead of the default one the README's command line leaves it on.
    writeFileSync(join(site, name), html.replace(BRIDGE, `ws://127.0.0.1:${server.port}/bridge`));

    const browser = await launchBrowser('chromium', { t });
    const page = await browser.newPage();
    const problems = recordProblems(page, { requests: true });
    await page.goto(`${server.url}/`, { waitUntil: 'load' });
    await page.waitForFunction(
      () => ['pedelec-session', 'pedelec-tool', 'pedelec-arg', 'pedelec-chat'].every((tag) => customElements.get(tag)),
      { timeout: 15_000 },
    );
    /** The text of the chat's rows of one kind (`user`, `agent`, `tool`), in order. */
    const rows = (part) =>
      page.$$eval(`pedelec-chat >>> [part~="${part}"]`, (nodes) => nodes.map((node) => node.textContent.trim()));
    /** Resolves once a finished agent row (its turn over) matches `pattern`; rejects after 15 s. */
    const reply = (pattern) =>
      eventually(async () => {
        const done = await page.$$eval('pedelec-chat >>> [part~="agent"][aria-busy="false"]', (nodes) =>
          nodes.map((node) => node.textContent.trim()),
        );
        return done.find((text) => pattern.test(text));
      }, `a reply matching ${pattern}`);

    await sayInChat(page, '/tools');
    const listed = await reply(/This page gives me 2 tools:/);
    assert.deepEqual([...listed.matchAll(/^- (\w+): /gm)].map((m) => m[1]).sort(), ['add_to_counter', 'get_counter']);

    await sayInChat(page, '/call add_to_counter {"delta": 2}');
    await reply(/add_to_counter returned \{"value":2\}$/);
    assert.equal(await page.$eval('#counter', (output) => output.value), '2');
    assert.deepEqual(
      (await rows('tool')).map((row) => row.replace(/ in \d+ ms$/, '')),
      ['add_to_counter: done'],
    );

    await sayInChat(page, '/call get_counter {}');
    await reply(/get_counter returned \{"value":2\}$/);
    assert.deepEqual(
      (await rows('tool')).map((row) => row.replace(/ in \d+ ms$/, '')),
      ['add_to_counter: done', 'get_counter: done'],
    );
    assert.deepEqual(await rows('user'), [
      'You: /tools',
      'You: /call add_to_counter {"delta": 2}',
      'You: /call get_counter {}',
    ]);
    assert.deepEqual(problems, []);
  },
);
