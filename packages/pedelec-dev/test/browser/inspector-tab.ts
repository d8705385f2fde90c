// What the browser tests of the inspector page share: one Chromium per test file, the page opened as the
// developer opens it (the URL with the token, printed at start), what it reports as a problem, what it
// sends on its socket, and waits on the page's state that say what the page showed when they time out.
import { after, type TestContext } from 'node:test';
import type { Browser, EvaluateFunc, Page } from 'puppeteer-core';
import { launchBrowser, recordProblems } from '../../../../test/support/browser.mjs';
import type { DevCore } from '../../src/index.js';
import type { Message } from '../helpers.js';

/** Bounds every wait on the page: well under a test's time, so a failure names what it waited for. */
const WAIT_MS = 10_000;

/**
 * The test file's Chromium: launched by the first test that asks for it (a skipped file launches none)
 * and closed once the file's tests are done. Each test opens a tab of its own in it.
 */
export function sharedChromium(): () => Promise<Browser> {
  let launched: Promise<Browser> | undefined;
  after(() => launched?.then((browser) => browser.close()).catch(() => {}));
  return () => (launched ??= launchBrowser('chromium'));
}

export type InspectorTab = {
  page: Page;
  /** Uncaught errors and console errors or warnings, as they happen (see recordProblems). */
  problems: string[];
  /** Every message the page sent on its socket to the Core, in order. */
  sent: Message[];
};

/**
 * Opens the inspector in a new tab, closed in `t`'s teardown. `url` defaults to the one with the token;
 * unless `connected` is false, resolves once the socket is open and the Core's `hello` is shown.
 */
export async function openInspector(
  t: TestContext,
  browser: Browser,
  core: Pick<DevCore, 'inspectorUrl'>,
  { url = core.inspectorUrl, connected = true }: { url?: string; connected?: boolean } = {},
): Promise<InspectorTab> {
  const page = await browser.newPage();
  t.after(() => page.close());
  page.setDefaultTimeout(WAIT_MS);
  const problems: string[] = recordProblems(page);
  // Read off the browser's network layer, so the page under test runs unmodified.
  const sent: Message[] = [];
  const cdp = await page.createCDPSession();
  await cdp.send('Network.enable');
  cdp.on('Network.webSocketFrameSent', ({ response }) => sent.push(JSON.parse(response.payloadData) as Message));
  await page.goto(url);
  if (connected) await waitForHello(page);
  return { page, problems, sent };
}

/** Resolves once the page's socket is open and the header shows the Core's `hello`. */
export function waitForHello(page: Page): Promise<void> {
  return waitInPage(
    page,
    'the socket to open and the hello to be shown',
    () =>
      (document.getElementById('socket-state') as HTMLOutputElement).value === 'connected' &&
      document.getElementById('server-info')!.textContent!.startsWith('pedelec-dev '),
  );
}

/**
 * Waits until `predicate`, run in the page with `args`, returns something truthy. On timeout it fails
 * naming `what` and quoting the page's text, which says what it showed instead.
 */
export async function waitInPage<Args extends unknown[]>(
  page: Page,
  what: string,
  predicate: EvaluateFunc<Args>,
  ...args: Args
): Promise<void> {
  try {
    await page.waitForFunction(predicate, { timeout: WAIT_MS }, ...args);
  } catch (error) {
    const shown = await page.evaluate(() => document.body.innerText).catch(() => '(the page is gone)');
    throw new Error(`timed out waiting for ${what}; the page shows:\n${shown.slice(0, 4000)}`, { cause: error });
  }
}

/** The text content of each element `selector` matches, in document order. */
export function textsOf(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(selector, (nodes) => nodes.map((node) => node.textContent ?? ''));
}

/** The text content of the element `selector` matches (which must exist). */
export function textOf(page: Page, selector: string): Promise<string> {
  return page.$eval(selector, (node) => node.textContent ?? '');
}

/** Whether the element `selector` matches carries the `hidden` attribute, which the page sets to hide one. */
export function isHidden(page: Page, selector: string): Promise<boolean> {
  return page.$eval(selector, (node) => node.hasAttribute('hidden'));
}

/** Clicks the listed session whose id is `sessionId`, as the operator picks one. */
export async function pickSession(page: Page, sessionId: string): Promise<void> {
  const listed = await page.$$eval('#sessions li button strong', (ids) => ids.map((id) => id.textContent));
  const index = listed.indexOf(shortId(sessionId));
  if (index < 0) throw new Error(`no listed session ${sessionId}: ${JSON.stringify(listed)}`);
  await page.click(`#sessions li:nth-child(${index + 1}) button`);
}

/** The first 8 characters of a session id without its `session_` prefix, as the page shows ids. */
export const shortId = (sessionId: string): string => sessionId.replace(/^session_/, '').slice(0, 8);
