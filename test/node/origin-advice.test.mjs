// A page that pedelec-dev refuses for its origin, seen from the page: the kit's WebSocket transport and
// the chat's availability line, against a real Core. A browser cannot read why an upgrade failed, so
// the Core completes it and closes at once with 4003; the page must then say to pass --allow-origin
// (the Core is running: "start it" would only lead to a second Core and a port in use), and still say
// "start it" when nothing is running.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { startDevCore } from 'pedelec-dev';
import { WebSocket } from 'ws';
import { skipBrowser } from '../../scripts/browsers.mjs';
import { launchBrowser, recordProblems } from '../support/browser.mjs';
import { Pedelec } from '../../dist/core/index.js';
import { websocketTransport } from '../../dist/core/transports/websocket.js';
import { ADVICE, adviceFor } from '../../dist/elements/chat/advice.js';

const PAGE = 'http://app.test:3000';
// The page the client runs in, as the core SDK reads it in a browser.
globalThis.window = { location: { origin: PAGE } };

/** A WebSocket as a browser on PAGE opens it (the transport passes the URL only). */
class PageSocket extends WebSocket {
  constructor(url) {
    super(url, { origin: PAGE });
  }
}

/** pedelec-dev in process on a free loopback port, stopped in the test's teardown. */
async function startCore(t, options = {}) {
  const core = await startDevCore({
    port: 0,
    onBug: (error) => t.diagnostic(`bug: ${error?.stack ?? error}`),
    ...options,
  });
  t.after(() => core.close());
  return core;
}

async function availabilityAt(t, bridgeUrl) {
  const client = new Pedelec({ transport: websocketTransport(bridgeUrl, PageSocket), bridgeTimeoutMs: 3000 });
  t.after(() => client.disconnect());
  return client.checkAvailability();
}

test('a page whose origin pedelec-dev refuses is told to pass --allow-origin, not to start it', async (t) => {
  const core = await startCore(t);
  const availability = await availabilityAt(t, core.bridgeUrl);
  assert.equal(availability.available, false);
  assert.equal(availability.error?.code, 'BRIDGE_ORIGIN_REFUSED');
  assert.match(availability.error.message, /--allow-origin http:\/\/app\.test:3000/);
  assert.equal(
    adviceFor(availability, core.bridgeUrl),
    `The development Core refuses this page's origin: restart pedelec-dev with --allow-origin ${PAGE}, then send your message again.`,
  );

  // Started as told, the Core takes the page.
  const allowing = await startCore(t, { allowOrigins: [PAGE] });
  const admitted = await availabilityAt(t, allowing.bridgeUrl);
  assert.equal(admitted.available, true, JSON.stringify(admitted));
  assert.equal(adviceFor(admitted, allowing.bridgeUrl), '');
});

test('a Core that is not running is still "not reachable: start it"', async (t) => {
  const core = await startCore(t);
  const bridgeUrl = core.bridgeUrl;
  await core.close();
  const availability = await availabilityAt(t, bridgeUrl);
  assert.equal(availability.extension.available, false);
  assert.equal(adviceFor(availability, bridgeUrl), ADVICE.dev);
});

test(
  'in Chromium: a page on another address shows the --allow-origin advice, with a clean console',
  { skip: skipBrowser('chromium'), timeout: 60_000 },
  async (t) => {
    const core = await startCore(t);
    // The page, on an address the Core does not allow (127.0.0.2 is this machine too), with the CDN file.
    const page = `<!doctype html><meta charset="utf-8"><title>foreign</title>
      <script type="module" src="/cdn/pedelec-elements.js"></script>
      <pedelec-session provider="scripted" bridge="${core.bridgeUrl}"><pedelec-chat></pedelec-chat></pedelec-session>`;
    const cdn = new URL('../../cdn/', import.meta.url);
    const site = http.createServer((req, res) => {
      const kit = /^\/cdn\/([\w.-]+\.js)$/.exec(req.url);
      res.writeHead(200, { 'Content-Type': kit ? 'text/javascript' : 'text/html' });
      res.end(kit ? readFileSync(new URL(kit[1], cdn)) : page);
    });
    await new Promise((resolve) => site.listen(0, '127.0.0.2', resolve));
    t.after(() => site.close());
    const origin = `http://127.0.0.2:${site.address().port}`;
    const browser = await launchBrowser('chromium', { t, hosts: ['127.0.0.2'] });
    const tab = await browser.newPage();
    const problems = recordProblems(tab);
    await tab.goto(`${origin}/`);
    const line = await tab.waitForFunction(
      () => document.querySelector('pedelec-chat')?.shadowRoot?.querySelector('[role=status]')?.textContent || null,
      { timeout: 10_000 },
    );
    assert.equal(
      await line.jsonValue(),
      `The development Core refuses this page's origin: restart pedelec-dev with --allow-origin ${origin}, then send your message again.`,
    );
    assert.deepEqual(problems, []);
  },
);
