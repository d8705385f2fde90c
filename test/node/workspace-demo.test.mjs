// The workspace demo (demo/workspace.html), end to end in both browsers against a real pedelec-dev and
// a real Deno, as `npm start` serves it: the page puts a file in its session's workspace through the
// kit's element, the agent reads it and writes its answer there, the page reads the answer; then the
// page runs a Deno script with a module of its own. A browser that is not installed is skipped (unless
// REQUIRE_BROWSERS names it), and so is a machine without Deno (unless REQUIRE_DENO=1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { skipBrowser } from '../../scripts/browsers.mjs';
import { launchBrowser, recordProblems } from '../support/browser.mjs';
import { CLI, root, startDevCommand } from '../support/dev-command.mjs';
import { findDeno } from '../../packages/pedelec-dev/dist/workspaces/deno-runtime.js';

const noDeno =
  !findDeno() && process.env.REQUIRE_DENO !== '1'
    ? 'no Deno here: the optional "deno" package did not install and none is on PATH'
    : false;

for (const name of ['chromium', 'firefox']) {
  test(
    `the workspace demo: upload, the agent's answer, a page run with a Deno module — in ${name}`,
    { skip: skipBrowser(name) || noDeno, timeout: 120_000 },
    async (t) => {
      const { url } = await startDevCommand(process.execPath, [CLI, '--port', '0', '--serve', 'demo'], {
        t,
        cwd: root,
      });
      const browser = await launchBrowser(name, { t });
      const page = await browser.newPage();
      const problems = recordProblems(page, { requests: true });
      await page.goto(`${url}/workspace.html`, { waitUntil: 'networkidle0' });
      await page.waitForFunction(() => document.getElementById('status').value === 'idle', { timeout: 15_000 });

      await page.click('#upload-form button');
      await page.waitForFunction(() => document.getElementById('uploaded').value !== '', { timeout: 15_000 });
      assert.equal(await page.$eval('#uploaded', (o) => o.value), 'Uploaded: notes.txt');

      await page.click('#ask');
      await page.waitForFunction(() => !document.getElementById('answer').textContent.endsWith('…'), {
        timeout: 30_000,
      });
      assert.equal(
        await page.$eval('#answer', (pre) => pre.textContent),
        '1. buy milk\n2. call the bakery\n3. water the plants',
      );
      // The agent said what it did, in the chat.
      const chat = await page.$eval('pedelec-chat', (el) => el.shadowRoot.textContent);
      assert.match(chat, /Exit code 0\.\s*stdout:\s*answered 3 lines/);

      await page.click('#count');
      await page.waitForFunction(() => !document.getElementById('run-output').textContent.endsWith('…'), {
        timeout: 30_000,
      });
      assert.match(
        await page.$eval('#run-output', (pre) => pre.textContent),
        /^8 words in notes\.txt \(Deno \d+\.\d+\.\d+\)\n$/,
      );
      assert.deepEqual(problems, []);
    },
  );
}
