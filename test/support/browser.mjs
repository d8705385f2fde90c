// For the Node tests that drive a real browser (test/node/, packages/pedelec-dev/test/): one way to launch
// the system's Chromium or Firefox off the network, one record of what a page reports as a problem, one
// bounded poll, and the chat typed into as a user types. Which browsers, where they are and their
// offline flags: scripts/browsers.mjs.
import puppeteer from 'puppeteer-core';
import { chromiumArgs, executableFor, firefoxPrefs } from '../../scripts/browsers.mjs';

/**
 * Launches `name` (`chromium` or `firefox`) headless. With `t`, the browser is closed in that test's
 * teardown; without, the caller closes it. `args` add Chromium flags, `prefs` Firefox preferences;
 * `hosts` names more loopback addresses Chromium may look up (its resolver rules refuse every name but
 * `localhost` and `127.0.0.1`). A browser that is not installed fails here, saying so: a test runs only
 * when `skipBrowser` (scripts/browsers.mjs) did not skip it, that is, when the browser is required.
 */
export async function launchBrowser(name, { t, args = [], prefs = {}, hosts = [] } = {}) {
  const executablePath = executableFor(name);
  if (!executablePath) throw new Error(`${name} is required (REQUIRE_BROWSERS) but not installed`);
  const browser =
    name === 'chromium'
      ? await puppeteer.launch({
          executablePath,
          headless: true,
          args: [
            ...chromiumArgs.map((arg) =>
              arg.startsWith('--host-resolver-rules=') ? [arg, ...hosts.map((h) => `EXCLUDE ${h}`)].join(' , ') : arg,
            ),
            ...args,
          ],
        })
      : await puppeteer.launch({
          browser: 'firefox',
          executablePath,
          headless: true,
          extraPrefsFirefox: { ...firefoxPrefs, ...prefs },
        });
  t?.after(() => browser.close());
  return browser;
}

/**
 * Records, from now on, what `page` reports that a user would see as a problem: uncaught errors and
 * console errors and warnings; with `requests`, also failed requests and responses of 400 and above.
 * The returned array fills as they happen; a clean page leaves it empty.
 */
export function recordProblems(page, { requests = false } = {}) {
  const problems = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    const type = message.type();
    if (type === 'error' || type === 'warn' || type === 'warning') problems.push(`${type}: ${message.text()}`);
  });
  if (requests) {
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()} ${response.url()}`);
    });
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
  }
  return problems;
}

/** Resolves with the first value `poll` returns that is not undefined; rejects naming `what` after `ms`. */
export async function eventually(poll, what, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await poll();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Types `text` into the first `<pedelec-chat>`'s message field (in its shadow root) and presses Enter,
 * as a user does; resolves once the chat took the message (the field is empty again). The chat keeps
 * what it cannot send yet (no session, or a turn still running), so a message it did not take fails
 * here rather than later.
 */
export async function sayInChat(page, text, { timeout = 15_000 } = {}) {
  await page.waitForFunction(
    () =>
      customElements.get('pedelec-chat') &&
      document.querySelector('pedelec-chat')?.shadowRoot?.querySelector('[part~="send"][aria-disabled="false"]'),
    { timeout },
  );
  await page.type('pedelec-chat >>> textarea', text);
  await page.keyboard.press('Enter');
  await page
    .waitForFunction(() => document.querySelector('pedelec-chat').shadowRoot.querySelector('textarea').value === '', {
      timeout,
    })
    .catch(() => {
      throw new Error(`the chat did not take the message ${JSON.stringify(text)}`);
    });
}
