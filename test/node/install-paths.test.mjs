// Loading the kit from another origin, as the install paths that need no npm do it, in headless Chromium:
// - from `pedelec-dev`'s own `/_pedelec/cdn/` (a page served elsewhere, a Vite dev server, say): the kit
//   paths send `Access-Control-Allow-Origin: *`, so the main file and the chunks it imports from beside
//   itself load as module scripts;
// - from a copy of the built `cdn/` folder on a plain static server of the page author's own: with that
//   header the page works, chat and Markdown chunks included; without it the browser refuses the module
//   script and no element is ever defined — which is why the docs say to send it.
// Every server binds loopback; the page and the kit are on different origins (127.0.0.1 and localhost).
// `npm pack` and the installed tarballs: test/node/pack.test.mjs. Chromium only; skipped when it is not
// installed, unless REQUIRE_BROWSERS names it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { startDevCore } from 'pedelec-dev';
import { skipBrowser } from '../../scripts/browsers.mjs';
import { eventually, launchBrowser, recordProblems, sayInChat } from '../support/browser.mjs';
import { root } from '../support/dev-command.mjs';

const CDN_DIR = join(root, 'cdn');
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.map': 'application/json' };
/** The elements the CDN file defines as it runs; `<pedelec-chat>` is defined once its chunk has loaded. */
const ELEMENTS = ['pedelec-session', 'pedelec-tool', 'pedelec-arg'];

/**
 * A plain static server for `dir` on 127.0.0.1, stopped in the test's teardown: GET of a file directly
 * in `dir`, by its name; `headers` go with every file it serves. Resolves its base `url`, with `host`
 * as the name the page uses for it, and `served`, the names of the files it has sent so far.
 */
async function staticServer(t, dir, { headers = {}, host = '127.0.0.1' } = {}) {
  const names = new Set(readdirSync(dir));
  const served = [];
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url, 'http://x').pathname.slice(1)) || 'index.html';
    if (req.method !== 'GET' || !names.has(name)) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      return res.end('Not found');
    }
    res.writeHead(200, { 'Content-Type': TYPES[extname(name)] ?? 'application/octet-stream', ...headers });
    res.end(readFileSync(join(dir, name)));
    served.push(name);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections(); // the browser's keep-alive connections, which close() would wait for
    return closed;
  });
  return { url: `http://${host}:${server.address().port}`, served };
}

/** A folder of the test's own with `files` in it, removed in the teardown. */
function folder(t, files = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'install-paths-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** A page with one tool and a chat, loading the kit from `kit` and talking to `bridge`. */
const page = ({ kit, bridge, markdown = false }) => `<!doctype html>
<meta charset="utf-8" />
<title>Kit from another origin</title>
<link rel="icon" href="data:," />
<script type="module" src="${kit}/pedelec-elements.js"></script>
<pedelec-session bridge="${bridge}">
  <pedelec-tool name="get_time" description="Read the page's clock."></pedelec-tool>
  <pedelec-chat${markdown ? ' markdown' : ''}></pedelec-chat>
</pedelec-session>
<script type="module">
  document.querySelector('pedelec-tool').handler = () => ({ now: Date.now() });
</script>
`;

/** Opens `url` in a fresh Chromium; resolves the tab, its recorded problems and every response's URL and CORS header. */
async function open(t, url) {
  const browser = await launchBrowser('chromium', { t });
  const tab = await browser.newPage();
  const problems = recordProblems(tab, { requests: true });
  const responses = [];
  tab.on('response', (response) =>
    responses.push({
      url: response.url(),
      status: response.status(),
      cors: response.headers()['access-control-allow-origin'],
    }),
  );
  await tab.goto(url, { waitUntil: 'load' });
  return { tab, problems, responses };
}

/** Which of ELEMENTS are defined; the page's module scripts run before `load`, so after it this is final. */
const defined = (tab) => tab.evaluate((tags) => tags.filter((tag) => customElements.get(tag) !== undefined), ELEMENTS);

/** The chunk of `kind` (`pedelec-chat`, `markdown`) in cdn/: its file name carries a hash. */
function chunk(kind) {
  const name = readdirSync(CDN_DIR).find((file) => new RegExp(`^pedelec-elements-${kind}-[\\w-]+\\.js$`).test(file));
  assert.ok(name, `cdn/ has the ${kind} chunk`);
  return name;
}

/**
 * Sends `/tools` in the chat; resolves the reply's text once its turn has ended and, with `markdown`,
 * once it shows as Markdown (the tool list as a `<ul>`: the renderer's chunk loaded and ran).
 */
async function toolsReply(tab, { markdown = false } = {}) {
  await sayInChat(tab, '/tools');
  return eventually(
    () =>
      tab.evaluate((markdown) => {
        const reply = document.querySelector('pedelec-chat').shadowRoot.querySelector('[part~="agent"]');
        if (!reply || reply.getAttribute('aria-busy') !== 'false' || !reply.textContent.includes('get_time')) return;
        if (markdown && !reply.querySelector('ul li')) return;
        return reply.textContent;
      }, markdown),
    markdown ? 'the reply to /tools, as Markdown' : 'the reply to /tools',
  );
}

/** pedelec-dev in process on a free port, stopped in the test's teardown. */
async function devCore(t, options = {}) {
  const core = await startDevCore({ port: 0, ...options });
  t.after(() => core.close());
  return core;
}

/** Asserts that each of `files` was fetched once from `kit`, answered 200 with `Access-Control-Allow-Origin: *`. */
function assertLoadedFrom(kit, responses, files) {
  const answers = (file) =>
    responses.filter((response) => response.url === `${kit}/${file}`).map(({ status, cors }) => [status, cors]);
  assert.deepEqual(
    Object.fromEntries(files.map((file) => [file, answers(file)])),
    Object.fromEntries(files.map((file) => [file, [[200, '*']]])),
  );
}

test.before(() => assert.ok(existsSync(join(CDN_DIR, 'pedelec-elements.js')), 'cdn/ is missing: npm test builds it'));

test(
  "a page on another origin loads the kit from pedelec-dev's /_pedelec/cdn/ (CORS), chat chunk included",
  { skip: skipBrowser('chromium'), timeout: 60_000 },
  async (t) => {
    const core = await devCore(t);
    // The kit from pedelec-dev as http://localhost:<port>; the page from http://127.0.0.1:<other port>.
    const kit = `http://localhost:${core.port}/_pedelec/cdn`;
    const site = await staticServer(t, folder(t, { 'index.html': page({ kit, bridge: core.bridgeUrl }) }));
    const { tab, problems, responses } = await open(t, `${site.url}/`);

    assert.deepEqual(await defined(tab), ELEMENTS);
    assert.match(await toolsReply(tab), /This page gives me 1 tool:/);
    assertLoadedFrom(kit, responses, ['pedelec-elements.js', chunk('pedelec-chat')]);
    assert.deepEqual(problems, []);
  },
);

test(
  'the cdn/ folder self-hosted on another origin: with Access-Control-Allow-Origin the page works, chunks and all',
  { skip: skipBrowser('chromium'), timeout: 60_000 },
  async (t) => {
    // Every file of the built cdn/ folder, copied as a page author would upload it.
    const copy = folder(t);
    cpSync(CDN_DIR, copy, { recursive: true });
    const { url: kit } = await staticServer(t, copy, {
      headers: { 'Access-Control-Allow-Origin': '*' },
      host: 'localhost',
    });
    // The page from pedelec-dev (http://127.0.0.1:<port>), written once the bridge's port is known.
    const site = folder(t);
    const core = await devCore(t, { serveDir: site });
    writeFileSync(join(site, 'index.html'), page({ kit, bridge: core.bridgeUrl, markdown: true }));
    const { tab, problems, responses } = await open(t, `${core.url}/`);

    assert.deepEqual(await defined(tab), ELEMENTS);
    await toolsReply(tab, { markdown: true });
    assertLoadedFrom(kit, responses, ['pedelec-elements.js', chunk('pedelec-chat'), chunk('markdown')]);
    assert.deepEqual(problems, []);
  },
);

test(
  'the cdn/ folder self-hosted on another origin without Access-Control-Allow-Origin: the kit never loads',
  { skip: skipBrowser('chromium'), timeout: 60_000 },
  async (t) => {
    const { url: kit, served } = await staticServer(t, CDN_DIR, { host: 'localhost' });
    const core = await devCore(t);
    const site = await staticServer(t, folder(t, { 'index.html': page({ kit, bridge: core.bridgeUrl }) }));
    const { tab, problems } = await open(t, `${site.url}/`);

    assert.deepEqual(await defined(tab), [], 'no element is defined');
    // The server sent the file; the browser refused to hand it to the page.
    assert.deepEqual(served, ['pedelec-elements.js']);
    assert.ok(
      problems.some((problem) => /CORS policy/.test(problem) && problem.includes(`${kit}/pedelec-elements.js`)),
      problems.join('\n'),
    );
  },
);
