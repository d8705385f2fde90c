// `npm run screenshots` (after screenshots.mjs): docs/chat.md's pictures of <pedelec-chat>
// mid-conversation, taken from the real thing. Builds nothing: run `npm run build` first. Starts the development Core in
// process on a free loopback port serving demo/ (the kit comes from the package's cdn/ folder, the
// Markdown renderer from the chunk beside it), with a scripted rule that streams Markdown and calls two
// of the demo's tools, drives the system's headless Chromium with puppeteer-core (no download, no
// network), and writes
//   docs/images/chat-light.png   the demo's chat panel, prefers-color-scheme: light
//   docs/images/chat-dark.png    the same conversation, prefers-color-scheme: dark
// Everything it starts, it stops — also when a step fails.
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { browsers, chromiumArgs, executableFor } from './browsers.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = `${root}docs/images`;
const WAIT_MS = 15_000;
const serverModule = new URL('../packages/pedelec-dev/dist/server.js', import.meta.url);
const scriptModule = new URL('../packages/pedelec-dev/dist/agents/script.js', import.meta.url);

/** A rule for the scripted agent: a short streamed answer in Markdown around two tool calls. */
const RULES = {
  rules: [
    {
      match: { regex: '^add (.+) to my list' },
      steps: [
        { say: 'Sure — adding it and reading the counter.' },
        { call: 'add_todo', args: { text: '{{match.1}}' } },
        { call: 'get_counter', args: {} },
        {
          say: 'Done:\n\n- **{{results.0.text}}** is item #{{results.0.id}} on your list\n- the counter is at **{{results.1.value}}**\n\nAnything else?',
        },
      ],
    },
  ],
};

if (!existsSync(fileURLToPath(serverModule)) || !existsSync(`${root}cdn/pedelec-elements.js`)) {
  console.error('screenshot-chat: dist/ or cdn/ is missing — run `npm run build` first.');
  process.exit(1);
}
const executablePath = executableFor('chromium');
if (!executablePath) {
  console.error(`screenshot-chat: Chromium not found: ${browsers.chromium.install}.`);
  process.exit(1);
}
const { startDevCore } = await import(serverModule.href);
const { parseScript } = await import(scriptModule.href);

mkdirSync(outDir, { recursive: true });
const core = await startDevCore({
  port: 0,
  host: '127.0.0.1',
  serveDir: `${root}demo`,
  script: parseScript(RULES, 'screenshot rules'),
});
let browser = null;
try {
  browser = await puppeteer.launch({
    executablePath,
    headless: true,
    args: chromiumArgs,
    defaultViewport: { width: 900, height: 1000, deviceScaleFactor: 2 },
  });
  const page = await browser.newPage();
  page.on('pageerror', (error) => console.error('screenshot-chat: page error:', error.message));
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
  await page.goto(`${core.url}/index.html`, { waitUntil: 'load' });
  await page.evaluate(() => customElements.whenDefined('pedelec-chat'));
  const field = await page.waitForSelector('pedelec-chat >>> textarea');

  /** Types into the chat, sends with Enter, and waits until the turn ended with `expected` in the reply. */
  const ask = async (text, expected) => {
    await field.type(text);
    await field.press('Enter');
    await page.waitForFunction(
      (want) => {
        const chat = document.querySelector('pedelec-chat');
        const agent = [...chat.shadowRoot.querySelectorAll('[part~=agent]')];
        return agent.some((m) => m.textContent.includes(want) && m.getAttribute('aria-busy') === 'false');
      },
      { timeout: WAIT_MS },
      expected,
    );
  };
  await ask('/call update_counter {"delta": 2}', 'returned');
  await ask('Add oat milk to my list', 'Anything else?');
  // A file the agent made: a download link where it arrived.
  await ask('/artifact shopping.md oat milk, bread', 'Published shopping.md');
  // Mid-conversation: the next question is being typed.
  await field.type('Great, now mark it done');

  const panel = await page.$('.talk');
  for (const scheme of ['light', 'dark']) {
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const path = `${outDir}/chat-${scheme}.png`;
    await panel.screenshot({ path, type: 'png' });
    console.log(`screenshot-chat: ${path}`);
  }
} finally {
  await browser?.close();
  await core.close();
}
