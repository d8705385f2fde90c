// The demo as the browser's own agent sees it (spec every-agent.md §5): headless Chromium with WebMCP
// on, driven through puppeteer-core's `page.webmcp` — a real WebMCP client, over the DevTools
// protocol — lists the demo's tools, calls one (the page changes), gets TOOL_ARGS_INVALID for an
// invalid call, and sees a removed tool go. The demo is served by `pedelec-dev` as `npm start` serves
// it. Chromium only (puppeteer's WebMCP support is Chromium's); skipped when it is not installed,
// unless REQUIRE_BROWSERS (as .ci/run sets) names it. `npm start`'s hint is checked here too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipBrowser, webmcpChromiumArgs } from '../../scripts/browsers.mjs';
import { eventually, launchBrowser, recordProblems } from '../support/browser.mjs';
import { CONSEQUENTIAL_DEMO_TOOLS, DEMO_TOOLS as SESSION_TOOLS } from '../support/demo.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The demo's tools as the browser's agent sees them (demo/index.html): the session's but the
 * consequential one (its `webmcp` has no `consequential` token), `set_counter` (a `<pedelec-tool form>`)
 * among them, and `send_feedback`, a `<form toolname>` the browser registers.
 */
const DEMO_TOOLS = [
  ...SESSION_TOOLS.filter((name) => !CONSEQUENTIAL_DEMO_TOOLS.includes(name)),
  'send_feedback',
].sort();

test(
  "the demo's tools through puppeteer's page.webmcp: list, call, an invalid call, a removed tool",
  { skip: skipBrowser('chromium'), timeout: 120_000 },
  async () => {
    assert.ok(
      existsSync(`${root}packages/pedelec-dev/dist/server.js`),
      'packages/pedelec-dev/dist/ is missing: npm test builds it first',
    );
    const { startDevCore } = await import(`${root}packages/pedelec-dev/dist/server.js`);
    const core = await startDevCore({ port: 0, serveDir: `${root}demo` });
    const browser = await launchBrowser('chromium', { args: webmcpChromiumArgs });
    try {
      const page = await browser.newPage();
      const problems = recordProblems(page);
      await page.goto(`${core.url}/`, { waitUntil: 'load' });

      // List: every tool the demo declares, as the page declared it.
      const names = () =>
        page.webmcp
          .tools()
          .map((tool) => tool.name)
          .sort();
      await eventually(() => (names().length === DEMO_TOOLS.length ? true : undefined), 'the demo tools');
      assert.deepEqual(names(), DEMO_TOOLS);
      const tool = (name) => page.webmcp.tools().find((t) => t.name === name);
      assert.match(tool('update_counter').description, /counter/);
      assert.deepEqual(tool('update_counter').inputSchema, {
        type: 'object',
        properties: {
          delta: {
            type: 'integer',
            description: 'How much to add (negative to subtract).',
            minimum: -100,
            maximum: 100,
          },
        },
        required: ['delta'],
      });
      assert.equal(tool('get_counter').annotations?.readOnly, true);

      // Call: the page changes, and the agent gets the handler's result.
      const called = await tool('update_counter').execute({ delta: 3 });
      assert.equal(called.status, 'Completed', JSON.stringify(called));
      assert.deepEqual(called.output, {
        content: [{ type: 'text', text: '{"value":3}' }],
        structuredContent: { value: 3 },
      });
      assert.equal(await page.$eval('#counter', (output) => output.value), '3');
      const added = await tool('add_todo').execute({ text: 'Try WebMCP' });
      assert.equal(added.output.structuredContent.text, 'Try WebMCP');
      // The page's log says who called.
      assert.match(await page.$eval('#activity', (log) => log.textContent), /update_counter \[webmcp\] → done/);

      // The `form=` tool: a call fills the counter's form and submits it; the page's submit listener answers.
      const set = await tool('set_counter').execute({ value: 7 });
      assert.deepEqual(set.output.structuredContent, { value: 7 });
      assert.equal(await page.$eval('#counter', (output) => output.value), '7');
      assert.equal(await page.$eval('#counter-form input', (input) => input.value), '7');

      // `webmcp="expose import forward"`: the feedback form the browser registered is offered to the Pedelec
      // agent (not registered again), its select as an enum; a call goes through the browser.
      const manifest = await page.evaluate(() => document.querySelector('pedelec-session').manifest);
      const feedback = manifest.tools.find((t) => t.name === 'send_feedback');
      assert.deepEqual(feedback.argsSchema.properties.rating.enum, ['good', 'fine', 'poor']);
      const sent = await page.evaluate(() =>
        document.querySelector('pedelec-session').invoke('send_feedback', { note: 'Nice demo', rating: 'good' }),
      );
      assert.deepEqual(sent, { ok: true, result: { received: true, note: 'Nice demo', rating: 'good' } });
      assert.match(await page.$eval('#feedback-sent', (p) => p.textContent), /Nice demo/);
      assert.ok(
        !(await page.evaluate(() => document.querySelector('pedelec-session').webmcpTools)).includes('send_feedback'),
      );

      // An invalid call: the browser validates nothing; the kit answers as it would the Pedelec agent.
      const invalid = await tool('update_counter').execute({ delta: 'three' });
      assert.equal(invalid.status, 'Completed', JSON.stringify(invalid));
      assert.equal(invalid.output.isError, true);
      assert.match(invalid.output.content[0].text, /^TOOL_ARGS_INVALID:/);
      assert.equal(await page.$eval('#counter', (output) => output.value), '7');

      // A removed tool is gone for the agent.
      const removed = new Promise((resolve) => page.webmcp.once('toolsremoved', resolve));
      await page.evaluate(() => document.querySelector('pedelec-tool[name="get_current_page"]').remove());
      const { tools } = await removed;
      assert.deepEqual(
        tools.map((t) => t.name),
        ['get_current_page'],
      );
      assert.deepEqual(
        names(),
        DEMO_TOOLS.filter((name) => name !== 'get_current_page'),
      );
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
      await core.close();
    }
  },
);

// The pages load the kit from pedelec-dev's own copy, as the guide says to serve them.
const KIT = '/_pedelec/cdn/pedelec-elements.js';

/** docs/webmcp.md's runnable example pages, in order (each a `<!-- runnable: … -->` html block). */
function runnableExamples() {
  const guide = readFileSync(`${root}docs/webmcp.md`, 'utf8');
  return [...guide.matchAll(/<!-- runnable: [^>]*-->\s*```html\n([\s\S]*?)\n```/g)].map((m) => m[1]);
}

/**
 * Serves one example page as the guide does, with pedelec-dev (which serves the kit's cdn/ folder) —
 * opens it in Chromium with WebMCP on, runs `check(page)`, and cleans up.
 */
async function withExample(html, check) {
  assert.ok(html.includes(`src="${KIT}"`), 'the example loads the kit from pedelec-dev');
  const site = mkdtempSync(join(tmpdir(), 'webmcp-example-'));
  writeFileSync(join(site, 'index.html'), html);
  const { startDevCore } = await import(`${root}packages/pedelec-dev/dist/server.js`);
  const core = await startDevCore({ port: 0, serveDir: site });
  const browser = await launchBrowser('chromium', { args: webmcpChromiumArgs });
  try {
    const page = await browser.newPage();
    const problems = recordProblems(page);
    await check(page, core);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await core.close();
    rmSync(site, { recursive: true, force: true });
  }
}

test('docs/webmcp.md has its three runnable examples', () => {
  assert.equal(runnableExamples().length, 3);
});

test(
  "docs/webmcp.md's first example: its tools registered and called through page.webmcp",
  { skip: skipBrowser('chromium'), timeout: 120_000 },
  () =>
    withExample(runnableExamples()[0], async (page, core) => {
      const registered = new Promise((resolve) =>
        page.webmcp.on('toolsadded', ({ tools }) => tools.some((tool) => tool.name === 'update_counter') && resolve()),
      );
      await page.goto(`${core.url}/`);
      await registered;
      await eventually(() => (page.webmcp.tools().length === 2 ? true : undefined), 'both tools');
      const tool = (name) => page.webmcp.tools().find((t) => t.name === name);
      assert.equal(tool('get_counter').annotations?.readOnly, true);
      const updated = await tool('update_counter').execute({ delta: 2 });
      assert.deepEqual(updated.output, {
        content: [{ type: 'text', text: '{"value":2}' }],
        structuredContent: { value: 2 },
      });
      assert.deepEqual((await tool('get_counter').execute({})).output.structuredContent, { value: 2 });
      const invalid = await tool('update_counter').execute({ delta: 'two' });
      assert.equal(invalid.status, 'Completed');
      assert.equal(invalid.output.isError, true);
      assert.match(invalid.output.content[0].text, /^TOOL_ARGS_INVALID: delta: /);
    }),
);

test(
  "docs/webmcp.md's form example: the form's schema, a call that waits for the user to press Book",
  { skip: skipBrowser('chromium'), timeout: 120_000 },
  () =>
    withExample(runnableExamples()[1], async (page, core) => {
      await page.goto(`${core.url}/`);
      const tool = await eventually(
        () => page.webmcp.tools().find((t) => t.name === 'book_table' && t.inputSchema?.properties?.date),
        "book_table with its form's schema",
      );
      assert.deepEqual(tool.inputSchema, {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'Name' },
          guests: { type: 'integer', minimum: 1, maximum: 12, description: 'Guests' },
          date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'Date' },
        },
        required: ['name', 'guests', 'date'],
      });
      const call = tool.execute({ name: 'Ann', guests: 2, date: '2030-05-01' });
      // Filled; the tool awaits the user, who presses Book.
      await page.waitForFunction(() => document.querySelector('pedelec-tool').matches(':state(awaiting-submit)'));
      assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Book');
      await page.click('button');
      const { output } = await call;
      assert.deepEqual(output.structuredContent, { booked: true, name: 'Ann', guests: '2', date: '2030-05-01' });
      assert.equal(await page.$eval('#booked', (p) => p.textContent), 'Booked for Ann.');
    }),
);

test(
  "docs/webmcp.md's import example: the page's form and script tool offered to the session and called",
  { skip: skipBrowser('chromium'), timeout: 120_000 },
  () =>
    withExample(runnableExamples()[2], async (page, core) => {
      await page.goto(`${core.url}/`);
      const names = async () =>
        page.evaluate(() =>
          (document.querySelector('pedelec-session').manifest?.tools ?? []).map((t) => t.name).sort(),
        );
      await eventually(async () => ((await names()).length === 2 ? true : undefined), 'both imported tools');
      assert.deepEqual(await names(), ['local_time', 'subscribe']);
      const subscribe = await page.evaluate(() =>
        document.querySelector('pedelec-session').manifest.tools.find((t) => t.name === 'subscribe'),
      );
      assert.deepEqual(subscribe.argsSchema.properties.topic.enum, ['news', 'offers']);
      assert.equal(subscribe.timeoutMs, undefined); // toolautosubmit: nobody to wait for
      const subscribed = await page.evaluate(() =>
        document.querySelector('pedelec-session').invoke('subscribe', { email: 'ann@example.org', topic: 'news' }),
      );
      assert.deepEqual(subscribed, { ok: true, result: { subscribed: 'ann@example.org', topic: 'news' } });
      const time = await page.evaluate(() => document.querySelector('pedelec-session').invoke('local_time', {}));
      assert.match(time.result.time, /^\d\d:\d\d$/);
      const refused = await page.evaluate(() =>
        document.querySelector('pedelec-session').invoke('subscribe', { email: 'not an address' }),
      );
      assert.equal(refused.error.code, 'TOOL_HANDLER_ERROR');
      assert.match(refused.error.message, /email/);
    }),
);

test('npm start prints how to open Chromium with WebMCP on, and starts nothing new', () => {
  const start = JSON.parse(readFileSync(`${root}package.json`, 'utf8')).scripts.start;
  assert.match(
    start,
    /node scripts\/webmcp-hint\.mjs && exec node packages\/pedelec-dev\/dist\/cli\.js --serve demo --mcp$/,
  );
  const run = spawnSync(process.execPath, ['scripts/webmcp-hint.mjs'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 10_000,
  });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /chromium --enable-features=WebMCP http:\/\/127\.0\.0\.1:7717\//);
});
