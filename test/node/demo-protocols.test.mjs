// The demo against `pedelec-dev` in each protocol it speaks — today's Pedelec (fragments and whole
// messages), today's with a provider that does not stream (whole messages only), and 0.1 (fragments
// only) — in headless Chromium and Firefox, as a user drives it: a message typed in the chat makes the
// agent call a declared tool, the page changes, the turn completes and the whole reply shows.
// Then `persist` + reload: a page reloaded while Core waits for a tool call answers that call from the
// new page (today's protocol: the resumed session's snapshot carries the call, in the development
// Core's spelling or in Core's own; 0.1 has no snapshot).
// A browser that is not installed is skipped, unless REQUIRE_BROWSERS (as .ci/run sets) names it.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipBrowser } from '../../scripts/browsers.mjs';
import { launchBrowser, recordProblems, sayInChat } from '../support/browser.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

const VARIANTS = [
  { name: "today's protocol", options: {} },
  // Snapshots in Core's own spelling (`waitingToolResult`, `requestId`/`toolName`), as today's Desktop sends them.
  { name: "today's protocol, Core-spelled snapshots", options: { coreStatuses: true } },
  { name: "today's protocol, a provider that sends no fragments", options: { fragments: false } },
  { name: 'protocol 0.1', options: { protocol: '0.1' } },
];

/** Starts pedelec-dev (the built one, in process) serving `serveDir`. */
async function startCore(serveDir, options) {
  assert.ok(
    existsSync(`${root}packages/pedelec-dev/dist/server.js`),
    'packages/pedelec-dev/dist/ is missing: npm test builds it first',
  );
  const { startDevCore } = await import(`${root}packages/pedelec-dev/dist/server.js`);
  return startDevCore({ port: 0, serveDir, onBug: (error) => console.error('pedelec-dev bug:', error), ...options });
}

/**
 * One browser per browser name for the whole file, launched on first use: a launch costs more than a
 * test (Firefox's 3–4 s), and this file's fourteen tests must fit the runner's per-file time under load.
 * Each test gets its own browser context (its own sessionStorage), closed with it.
 */
const browsers = new Map();
const browserFor = (name) => {
  if (!browsers.has(name)) browsers.set(name, launchBrowser(name));
  return browsers.get(name);
};
after(async () => {
  for (const launched of browsers.values()) await (await launched).close();
});

/** A page, in a context of its own, whose errors and warnings fail the test. */
async function openPage(context, url) {
  const page = await context.newPage();
  const problems = recordProblems(page);
  await page.goto(url, { waitUntil: 'load' });
  return { page, problems };
}

/**
 * Waits (15 s) for `condition` on the reloaded page; on timeout, fails with what the page saw — its
 * log (resumed or not, errors), the session's status and the chat — so a rare failure says why.
 */
async function waitOrExplain(page, condition) {
  await page.waitForFunction(condition, { timeout: 15_000 }).catch(async (error) => {
    const seen = await page.evaluate(() => ({
      log: document.getElementById('log').textContent,
      status: document.querySelector('pedelec-session').status,
      chat: document.querySelector('pedelec-chat').shadowRoot.textContent.replace(/\s+/g, ' '),
    }));
    throw new Error(`${error.message}: ${condition} — the page saw ${JSON.stringify(seen)}`);
  });
}

const chatText = () => document.querySelector('pedelec-chat').shadowRoot.textContent;

for (const browserName of ['chromium', 'firefox']) {
  const skip = skipBrowser(browserName);

  for (const { name, options } of VARIANTS) {
    test(
      `the demo in ${browserName}, ${name}: a tool call from the chat changes the page; the whole reply shows`,
      { skip, timeout: 60_000 },
      async () => {
        const core = await startCore(`${root}demo`, options);
        const context = await (await browserFor(browserName)).createBrowserContext();
        try {
          const { page, problems } = await openPage(context, `${core.url}/`);
          await sayInChat(page, '/call update_counter {"delta": 2}');
          await page.waitForFunction(() => document.getElementById('counter').value === '2', { timeout: 15_000 });
          // The turn completed (status idle), and the reply — which reports the handler's result — is whole.
          await page.waitForFunction(() => document.getElementById('status').value === 'idle', { timeout: 15_000 });
          const reply = await page.waitForFunction(
            (expected) => document.querySelector('pedelec-chat').shadowRoot.textContent.includes(expected),
            { timeout: 15_000 },
            'update_counter returned {"value":2}',
          );
          assert.ok(reply);
          const text = await page.evaluate(chatText);
          assert.ok(text.includes('Calling update_counter with {"delta":2}…'), text);
          // Exactly once: fragments and the whole message did not both land.
          assert.equal(text.split('update_counter returned').length - 1, 1, text);
          assert.deepEqual(problems, []);
        } finally {
          await context.close();
          await core.close();
        }
      },
    );
  }

  for (const { name, options } of VARIANTS.filter((v) => v.options.protocol !== '0.1')) {
    test(
      `persist + reload in ${browserName}, ${name}: the reloaded page answers the tool call Core was waiting for`,
      { skip, timeout: 60_000 },
      async () => {
        const dir = mkdtempSync(join(tmpdir(), 'pedelec-persist-'));
        writeFileSync(join(dir, 'index.html'), PERSIST_PAGE);
        writeFileSync(join(dir, 'page.js'), PERSIST_SCRIPT);
        const core = await startCore(dir, options);
        const context = await (await browserFor(browserName)).createBrowserContext();
        try {
          const { page, problems } = await openPage(context, `${core.url}/`);
          await sayInChat(page, '/call slow_lookup {"key":"answer"}');
          // The first page received the call and leaves it unanswered…
          await page.waitForFunction(() => document.getElementById('log').textContent.includes('asked answer'), {
            timeout: 15_000,
          });
          // …and reloads before answering.
          await page.reload({ waitUntil: 'load' });
          await waitOrExplain(page, () => document.getElementById('log').textContent.includes('answered answer'));
          // The turn went on from the new page: its reply reports the result this page gave.
          await waitOrExplain(page, () =>
            document.querySelector('pedelec-chat').shadowRoot.textContent.includes('slow_lookup returned {"value":42}'),
          );
          await waitOrExplain(page, () => document.querySelector('pedelec-session').status === 'idle');
          // Resumed, not replaced by a fresh session.
          assert.match(await page.evaluate(() => document.getElementById('log').textContent), /ready, resumed: true/);
          assert.equal(
            await page.evaluate(() => document.querySelector('pedelec-session').sessionId.startsWith('session_')),
            true,
          );
          assert.deepEqual(problems, []);
        } finally {
          await context.close();
          await core.close();
          rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  }
}

// A page with a persisted session and one tool. On its first load the handler never answers (the
// user reloads first); after the reload it answers at once.
const PERSIST_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>persist + reload</title>
    <link rel="icon" href="data:," />
    <script type="module" src="/_pedelec/cdn/pedelec-elements.js"></script>
    <script type="module" src="./page.js"></script>
  </head>
  <body>
    <pedelec-session id="persisted" provider="scripted" persist>
      <pedelec-tool name="slow_lookup" description="Look a value up by key (slow)." timeout-ms="30000">
        <pedelec-arg name="key" type="string" required></pedelec-arg>
      </pedelec-tool>
      <pedelec-chat></pedelec-chat>
    </pedelec-session>
    <pre id="log"></pre>
  </body>
</html>
`;

const PERSIST_SCRIPT = `
const session = document.querySelector('pedelec-session');
session.bridge = 'ws://' + location.host + '/bridge';
const log = (line) => (document.getElementById('log').textContent += line + '\\n');
session.addEventListener('pedelec-ready', (e) => log('ready, resumed: ' + e.detail.resumed));
session.addEventListener('pedelec-error', (e) => log('error ' + e.detail.error?.code + ': ' + e.detail.error?.message));
const reloaded = sessionStorage.getItem('reloaded') === 'yes';
sessionStorage.setItem('reloaded', 'yes');
document.querySelector('pedelec-tool').handler = ({ key }) => {
  log('asked ' + key);
  if (!reloaded) return new Promise(() => {});
  log('answered ' + key);
  return { value: 42 };
};
// The reloaded page resumes its persisted session at once (nothing typed yet).
if (reloaded) session.start();
`;
