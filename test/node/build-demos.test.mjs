// `npm start` bundles the framework demos (scripts/build-demos.mjs) before serving them: the bundles
// must build from the current sources and the built kit. (The browser tests in test/interop/ run the
// same app modules unbundled; this covers the bundling the README's demo URLs depend on.)
// Then what `npm start` serves — the demo pages and the inspector — must load with a clean console in
// both browsers: no failed request (a missing favicon is a 404 in the console), no Content-Security-
// Policy violation (Firefox applies the page's CSP to the favicon too), no error, no warning. A browser
// that is not installed is skipped, unless REQUIRE_BROWSERS (as .ci/run sets) names it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { chromiumArgs, executableFor, firefoxPrefs, skipBrowser } from '../../scripts/browsers.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

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
const PAGES = ['/', '/cdn.html', '/angular/', '/react/', '/vue/'];
const VARIANTS = ['/vue/?compiled'];

/**
 * Starts pedelec-dev serving demo/ on a free loopback port, as `npm start` does; resolves with its base
 * URL, the inspector URL and the page URLs it printed.
 */
function startDevCore() {
  const child = spawn(process.execPath, ['dist/dev/cli.js', '--port', '0', '--serve', 'demo'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`pedelec-dev did not start:\n${output}`)), 15_000);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const page = /Pages?:\s+(http:\/\/127\.0\.0\.1:\d+)\//.exec(output);
      const inspector = /Inspector:\s+(\S+)/.exec(output);
      if (page && inspector) {
        clearTimeout(timer);
        // The page lines: from "Pages:" up to "Bridge:", one URL each.
        const listed = output.slice(page.index, output.indexOf('Bridge:')).match(/http:\/\/\S+/g);
        resolve({ base: page[1], inspector: inspector[1], listed });
      }
    });
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => reject(new Error(`pedelec-dev exited (${code}):\n${output}`)));
  });
  return { child, ready };
}

/** Everything a page reports that a user would see as a problem. */
async function problemsOf(browser, url) {
  const page = await browser.newPage();
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warn' || message.type() === 'warning')
      problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()} ${response.url()}`);
  });
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
  await page.goto(url, { waitUntil: 'networkidle0' });
  // The favicon and the pages' sessions settle after load.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  if (url.includes('#token=')) {
    // The inspector connected with its token, and took the token out of the address bar.
    const seen = await page.evaluate(() => ({
      url: location.href,
      socket: document.getElementById('socket-state')?.value,
    }));
    if (seen.url.includes('token'))
      problems.push(`the token stayed in the address bar: ${seen.url.replace(/token=.*/, 'token=…')}`);
    if (seen.socket !== 'connected') problems.push(`the inspector is not connected: ${seen.socket}`);
  }
  await page.close();
  return problems;
}

for (const name of ['chromium', 'firefox']) {
  const executablePath = executableFor(name);
  const skip = skipBrowser(name);
  test(
    `the demo pages and the inspector load with a clean console in ${name}`,
    { skip, timeout: 120_000 },
    async () => {
      assert.ok(executablePath, `${name} is required (REQUIRE_BROWSERS) but not installed`);
      const { child, ready } = startDevCore();
      let browser;
      try {
        const { base, inspector } = await ready;
        browser =
          name === 'chromium'
            ? await puppeteer.launch({ executablePath, headless: true, args: chromiumArgs })
            : await puppeteer.launch({
                browser: 'firefox',
                executablePath,
                headless: true,
                extraPrefsFirefox: firefoxPrefs,
              });
        // The detector works: a page that fails a request is reported (a test of "no problem" must be able to see one).
        const missing = await problemsOf(browser, `${base}/no-such-page.html`);
        assert.ok(
          missing.some((problem) => problem.includes('404')),
          JSON.stringify(missing),
        );
        for (const url of [...[...PAGES, ...VARIANTS].map((path) => base + path), inspector]) {
          assert.deepEqual(await problemsOf(browser, url), [], url.replace(/#token=.*/, '#token=…'));
        }
      } finally {
        await browser?.close();
        child.kill();
      }
    },
  );
}

test('npm start prints every demo page, and the main demo links to every other one', async () => {
  const { child, ready } = startDevCore();
  try {
    const { base, listed } = await ready;
    assert.deepEqual(
      listed,
      PAGES.map((path) => base + path),
    );
    const main = await (await fetch(`${base}/`)).text();
    const links = [...main.matchAll(/<a href="([^"]+)"/g)].map(([, href]) => new URL(href, `${base}/`).pathname);
    assert.deepEqual(links.sort(), PAGES.filter((path) => path !== '/').sort());
  } finally {
    child.kill();
  }
});
