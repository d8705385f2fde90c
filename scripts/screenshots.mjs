// `npm run screenshots`: the README's two pictures, taken from the real thing (then
// screenshot-chat.mjs takes docs/chat.md's). Builds nothing: run `npm run build` first. Starts the development Core in process on a free loopback port serving demo/
// (the kit itself comes from the package's cdn/ folder, as with `npm start`), drives the system's
// headless Chromium with puppeteer-core (no download, no network), and writes
//   docs/images/demo.png       the demo after `/call update_counter {"delta": 2}`
//   docs/images/inspector.png  the inspector showing that session and its bridge messages
// Everything it starts, it stops — also when a step fails.
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { chromiumArgs, executableFor, browsers } from './browsers.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = `${root}docs/images`;
const VIEWPORT = { width: 1200, height: 800, deviceScaleFactor: 1 };
// The inspector lays its message log out below the session: a taller picture shows both.
const INSPECTOR_VIEWPORT = { ...VIEWPORT, height: 1250 };
const WAIT_MS = 15_000;
const MESSAGE = '/call update_counter {"delta": 2}';

const serverModule = new URL('../packages/pedelec-dev/dist/server.js', import.meta.url);
if (!existsSync(fileURLToPath(serverModule)) || !existsSync(`${root}cdn/pedelec-elements.js`)) {
  console.error('screenshots: dist/ or cdn/ is missing — run `npm run build` first.');
  process.exit(1);
}
const executablePath = executableFor('chromium');
if (!executablePath) {
  console.error(`screenshots: Chromium not found: ${browsers.chromium.install}.`);
  process.exit(1);
}
const { startDevCore } = await import(serverModule.href);

mkdirSync(outDir, { recursive: true });
const core = await startDevCore({ port: 0, host: '127.0.0.1', serveDir: `${root}demo` });
let browser = null;
try {
  browser = await puppeteer.launch({ executablePath, headless: true, args: chromiumArgs, defaultViewport: VIEWPORT });

  // ── The demo: type the message, send it, wait for the page to change ──
  const demo = await browser.newPage();
  demo.on('pageerror', (error) => console.error('screenshots: demo page error:', error.message));
  await demo.goto(`${core.url}/index.html`, { waitUntil: 'load' });
  await demo.evaluate(() => customElements.whenDefined('pedelec-chat'));
  const field = await demo.waitForSelector('pedelec-chat >>> textarea');
  await field.type(MESSAGE);
  await field.press('Enter');
  await demo.waitForFunction(() => document.getElementById('counter').value === '2', { timeout: WAIT_MS });
  await demo.waitForFunction(
    () =>
      [...document.querySelectorAll('#activity li.ok')].some((li) =>
        li.textContent.startsWith('update_counter → done'),
      ),
    { timeout: WAIT_MS },
  );
  await demo.waitForFunction(
    () =>
      document.getElementById('status').value === 'idle' &&
      [...document.querySelector('pedelec-chat').shadowRoot.querySelectorAll('[part~=agent]')].some((m) =>
        m.textContent.includes('returned'),
      ),
    { timeout: WAIT_MS },
  );
  await demo.evaluate(() => {
    document.activeElement?.blur();
    window.scrollTo(0, 0);
  });
  // The whole page: the counter and to-do list at the top, the chat and the activity log below.
  await demo.screenshot({ path: `${outDir}/demo.png`, type: 'png', fullPage: true });
  console.log(`screenshots: ${outDir}/demo.png`);

  // ── The inspector, while the demo's session is still open in the other tab ──
  const inspector = await browser.newPage();
  await inspector.setViewport(INSPECTOR_VIEWPORT);
  inspector.on('pageerror', (error) => console.error('screenshots: inspector page error:', error.message));
  await inspector.goto(core.inspectorUrl, { waitUntil: 'load' });
  await inspector.waitForFunction(() => document.querySelectorAll('#sessions li').length > 0, { timeout: WAIT_MS });
  await inspector.waitForFunction(
    () => [...document.querySelectorAll('#log tr')].some((row) => row.textContent.includes('tool_call')),
    { timeout: WAIT_MS },
  );
  await inspector.waitForFunction(() => !document.getElementById('detail-body').hidden, { timeout: WAIT_MS });
  await inspector.screenshot({ path: `${outDir}/inspector.png`, type: 'png' });
  console.log(`screenshots: ${outDir}/inspector.png`);
} finally {
  await browser?.close();
  await core.close();
}
