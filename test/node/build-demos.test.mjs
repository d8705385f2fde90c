// `npm start` bundles the framework demos (scripts/build-demos.mjs) before serving them: the bundles
// must build from the current sources and the built kit. (The browser tests in test/interop/ run the
// same app modules unbundled; this covers the bundling the README's demo URLs depend on.)
// Then what `npm start` serves — the demo pages and the inspector — must load with a clean console in
// both browsers: no failed request (a missing favicon is a 404 in the console), no Content-Security-
// Policy violation (Firefox applies the page's CSP to the favicon too), no error, no warning. A browser
// that is not installed is skipped, unless REQUIRE_BROWSERS (as .ci/run sets) names it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { skipBrowser } from '../../scripts/browsers.mjs';
import { launchBrowser, recordProblems } from '../support/browser.mjs';
import { CLI, root, startDevCommand } from '../support/dev-command.mjs';

test('scripts/build-demos.mjs bundles the Vue, Angular and React demos', () => {
  assert.ok(existsSync(`${root}dist/define.js`), 'dist/ is missing: npm test builds it first');
  const run = spawnSync(process.execPath, ['scripts/build-demos.mjs'], { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 0, `build-demos failed:\n${run.stdout}\n${run.stderr}`);
  for (const name of ['vue', 'angular', 'react']) {
    const file = `${root}demo/${name}/build/main.js`;
    assert.ok(existsSync(file) && statSync(file).size > 10_000, `${file} was not written`);
  }
});

/** Every demo page: the main one, the CDN one, the three framework apps (Vue's also with its compiled template). */
const PAGES = ['/', '/cdn.html', '/workspace.html', '/angular/', '/react/', '/vue/'];
const VARIANTS = ['/vue/?compiled'];

/**
 * Starts pedelec-dev serving demo/ on a free loopback port, as `npm start` does, stopped in the test's
 * teardown; resolves with its base URL, the inspector URL and the page URLs it printed.
 */
async function startDevCore(t) {
  const { output, url } = await startDevCommand(process.execPath, [CLI, '--port', '0', '--serve', 'demo'], { t });
  // The page lines: from "Pages:" up to "Bridge:", one URL each.
  const listed = output.slice(output.search(/Pages?:/), output.indexOf('Bridge:')).match(/http:\/\/\S+/g);
  return { base: url, inspector: /Inspector:\s+(\S+)/.exec(output)[1], listed };
}

/** Everything a page reports that a user would see as a problem. */
async function problemsOf(browser, url) {
  const page = await browser.newPage();
  const problems = recordProblems(page, { requests: true });
  await page.goto(url, { waitUntil: 'networkidle0' });
  // The favicon and the pages' sessions settle after load.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  if (url.includes('#token=')) {
    // The inspector connected with its token, and stored it nowhere a page of its origin could read.
    const seen = await page.evaluate(() => ({
      stored: sessionStorage.length + localStorage.length,
      socket: document.getElementById('socket-state')?.value,
    }));
    if (seen.stored) problems.push(`the inspector stored ${seen.stored} item(s) in the origin's storage`);
    if (seen.socket !== 'connected') problems.push(`the inspector is not connected: ${seen.socket}`);
  }
  await page.close();
  return problems;
}

for (const name of ['chromium', 'firefox']) {
  test(
    `the demo pages and the inspector load with a clean console in ${name}`,
    { skip: skipBrowser(name), timeout: 120_000 },
    async (t) => {
      const { base, inspector } = await startDevCore(t);
      const browser = await launchBrowser(name, { t });
      // The detector works: a page that fails a request is reported (a test of "no problem" must be able to see one).
      const missing = await problemsOf(browser, `${base}/no-such-page.html`);
      assert.ok(
        missing.some((problem) => problem.includes('404')),
        JSON.stringify(missing),
      );
      for (const url of [...[...PAGES, ...VARIANTS].map((path) => base + path), inspector]) {
        assert.deepEqual(await problemsOf(browser, url), [], url.replace(/#token=.*/, '#token=…'));
      }
    },
  );
}

test('npm start prints every demo page, and the main demo links to every other one', async (t) => {
  const { base, listed } = await startDevCore(t);
  assert.deepEqual(
    listed,
    PAGES.map((path) => base + path),
  );
  const main = await (await fetch(`${base}/`)).text();
  const links = [...main.matchAll(/<a href="([^"]+)"/g)].map(([, href]) => new URL(href, `${base}/`).pathname);
  assert.deepEqual(links.sort(), PAGES.filter((path) => path !== '/').sort());
});

test(
  'the demo pages at 390 px: nothing scrolls sideways; the tool log keeps to its card, marks every entry and shows an error in red',
  { skip: skipBrowser('chromium'), timeout: 120_000 },
  async (t) => {
    const { base } = await startDevCore(t);
    const browser = await launchBrowser('chromium', { t });
    const open = async (path) => {
      const page = await browser.newPage();
      await page.setViewport({ width: 390, height: 800 });
      await page.goto(base + path, { waitUntil: 'networkidle0' });
      await page.waitForFunction(() => customElements.get('pedelec-session'));
      return page;
    };
    const sideways = (page) => page.evaluate(() => document.documentElement.scrollWidth - innerWidth);

    // The main demo, after calls with long results (one of them refused by the page's handler).
    const main = await open('/');
    const log = await main.evaluate(async () => {
      const session = document.querySelector('pedelec-session');
      await session.invoke('get_current_page', {});
      await session.invoke('add_todo', { text: 'an-item-with-a-very-long-name-that-has-no-spaces-'.repeat(4) });
      await session.invoke('complete_todo', { id: 99 });
      const card = document.getElementById('activity').closest('section');
      return {
        overflow: card.scrollWidth - card.clientWidth,
        markers: [...document.querySelectorAll('#activity li')].map((li) => [
          li.className,
          getComputedStyle(li, '::marker').content,
        ]),
      };
    });
    assert.equal(log.overflow, 0, 'the tool log keeps to its card');
    assert.deepEqual(log.markers, [
      ['failed', '"✗ "'],
      ['ok', '"✓ "'],
      ['ok', '"✓ "'],
    ]);
    assert.equal(await sideways(main), 0, '/ scrolls sideways');
    // A session that fails: "Session: error", in red.
    const status = await main.evaluate(async () => {
      const session = document.querySelector('pedelec-session');
      session.bridge = 'ws://127.0.0.1:9/bridge'; // nothing listens there
      await session.sendText('hello').catch(() => {});
      const output = document.getElementById('status');
      return { text: output.value, color: getComputedStyle(output).color };
    });
    assert.deepEqual(status, { text: 'error', color: 'rgb(192, 57, 43)' });

    // The workspace demo, as it loads.
    const workspace = await open('/workspace.html');
    assert.equal(await sideways(workspace), 0, '/workspace.html scrolls sideways');
    await workspace.close();

    // The counter demos, after a long reply.
    for (const path of PAGES.filter((p) => p !== '/' && p !== '/workspace.html')) {
      const page = await open(path);
      await page.waitForSelector('input[aria-label="Message"]');
      await page.type('input[aria-label="Message"]', '/tools');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.querySelector('.reply')?.textContent.includes('update_counter'));
      assert.equal(await sideways(page), 0, `${path} scrolls sideways`);
      await page.close();
    }
  },
);
