// pedelec-dev's safety rules. After each refusal the same server must still serve the next client.
// (How long a half-sent message is waited for, the message log's memory and a page that stops reading
// are measured in perf/security.test.ts.)
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket, type RawData } from 'ws';
import { DevCoreError, startDevCore, type DevCore } from '../src/index.js';
import { FrameTracker } from '../src/http/partial-frames.js';
import { checkOrigin, DEFAULT_ORIGINS, OriginAllowList, type OriginDecision } from '../src/http/security.js';
import {
  BridgeClient,
  PAGE_ORIGIN,
  clientFrame,
  closeOf,
  createSession,
  delay,
  netSocketOf,
  rawHttp,
  startCore,
  tryUpgrade,
  type Message,
} from './helpers.js';

/**
 * The kit's build (its cdn/ and dist/), which pedelec-dev serves under /_pedelec/: the tests of that
 * serving need it, and skip, saying why, where the kit is not built (the unit tier runs without a build).
 */
const KIT_BUILT = ['../../../cdn/pedelec-elements.js', '../../../dist/index.js'].every((file) =>
  existsSync(new URL(file, import.meta.url)),
);
const NEEDS_KIT_BUILD = KIT_BUILT ? false : 'the kit is not built (npm run build): this serves its cdn/ and dist/';

/** The server still answers a fresh page: the check that follows every refusal. */
async function stillServes(t: TestContext, core: DevCore) {
  const page = await BridgeClient.open(t, core);
  const result = await page.ok('get_approval_status');
  assert.equal(result.installed, true);
  await page.close();
}

/**
 * A page of a refused origin: the upgrade completes only for the socket to close at once with 4003 and
 * a reason naming what to do (a browser cannot read an HTTP refusal, and would say "not running"). What
 * the page sends is never answered, and nothing is sent to it. Resolves the close reason.
 */
async function originRefused(url: string, origin: string) {
  const socket = new WebSocket(url, { origin });
  const received: string[] = [];
  socket.on('message', (data: RawData) => received.push(data.toString()));
  socket.on('open', () => {
    // Both may race the close: never answered either way. The big one is over the refused socket's cap.
    const request = { channelId: 'c1', requestId: 'r1', type: 'get_approval_status' };
    socket.send(JSON.stringify(request), () => {});
    socket.send(JSON.stringify({ ...request, requestId: 'r2', padding: 'x'.repeat(64 * 1024) }), () => {});
  });
  socket.on('error', () => {});
  const closed = await closeOf(socket);
  assert.equal(closed.code, 4003, origin);
  assert.deepEqual(received, [], `${origin}: nothing is sent to a refused page`);
  return closed.reason;
}

test('the bridge refuses WebSocket upgrades from origins not on the allow-list, saying which flag to pass', async (t) => {
  const core = await startCore(t, { allowOrigins: ['https://app.example:8443'] });
  for (const origin of [
    'https://evil.example',
    'http://localhost.evil.example:5173',
    'http://127.0.0.2:80',
    'https://localhost:5173',
  ]) {
    const reason = await originRefused(core.bridgeUrl, origin);
    assert.equal(reason, `origin not allowed: start pedelec-dev with --allow-origin ${origin}`);
    await stillServes(t, core);
  }
  // A page opened from a file cannot be allowed: it has to be served.
  assert.match(await originRefused(core.bridgeUrl, 'null'), /^origin null cannot be allowed: serve the page over http/);
  // An origin too long for a close reason (123 bytes) is left out of it.
  const long = `http://${'a'.repeat(100)}.example`;
  assert.equal(
    await originRefused(core.bridgeUrl, long),
    "origin not allowed: start pedelec-dev with --allow-origin and this page's origin",
  );
  await stillServes(t, core);
  for (const origin of [
    'http://localhost:5173',
    'http://127.0.0.1:8080',
    'http://localhost',
    core.url,
    'https://app.example:8443',
  ]) {
    const attempt = await tryUpgrade(core.bridgeUrl, { origin });
    assert.equal(attempt.opened, true, origin);
    attempt.socket!.terminate();
  }
});

test('finding 4: /bridge refuses an upgrade without Origin unless --allow-no-origin', async (t) => {
  // Browsers always send Origin; only a local program omits it, and it is no page anyone approved.
  const core = await startCore(t);
  const refused = await tryUpgrade(core.bridgeUrl);
  assert.equal(refused.opened, false);
  assert.equal(refused.status, 403);
  await stillServes(t, core);

  const lenient = await startCore(t, { allowNoOrigin: true });
  const accepted = await tryUpgrade(lenient.bridgeUrl);
  assert.equal(accepted.opened, true);
  accepted.socket!.terminate();
  // The flag admits no foreign origin.
  await originRefused(lenient.bridgeUrl, 'https://evil.example');
});

/** Why `decision` refused ('' when it allowed). */
const reasonOf = (decision: OriginDecision) => (decision.allowed ? '' : decision.reason);

test('the Origin rules, in one place: /bridge and /tools need an allowed Origin; /mcp also takes none', async () => {
  const origins = new OriginAllowList([...DEFAULT_ORIGINS]);
  const strict = { origins, allowNoOrigin: false };
  const lenient = { origins, allowNoOrigin: true };
  const none = {};
  const page = { origin: 'http://localhost:5173' };
  const foreign = { origin: 'https://evil.example' };
  const empty = { origin: '' };
  for (const path of ['/bridge', '/tools'] as const) {
    assert.deepEqual(checkOrigin(path, page, strict), { allowed: true, origin: 'http://localhost:5173' }, path);
    assert.equal(checkOrigin(path, none, strict).allowed, false, path);
    assert.match(reasonOf(checkOrigin(path, none, strict)), /--allow-no-origin/);
    assert.deepEqual(checkOrigin(path, none, lenient), { allowed: true, origin: null }, path);
    for (const rules of [strict, lenient]) {
      assert.equal(checkOrigin(path, foreign, rules).allowed, false, path);
      assert.equal(checkOrigin(path, empty, rules).allowed, false, path);
      assert.equal(checkOrigin(path, { origin: 'null' }, rules).allowed, false, path);
    }
  }
  for (const rules of [strict, lenient]) {
    assert.deepEqual(checkOrigin('/mcp', none, rules), { allowed: true, origin: null });
    assert.deepEqual(checkOrigin('/mcp', page, rules), { allowed: true, origin: 'http://localhost:5173' });
    assert.equal(checkOrigin('/mcp', foreign, rules).allowed, false);
    assert.match(reasonOf(checkOrigin('/mcp', foreign, rules)), /Origin not allowed: https:\/\/evil\.example/);
  }
});

test('/tools without --mcp: upgrades pass the same Origin rules, then close with 4400 naming the flag', async (t) => {
  const core = await startCore(t);
  const toolsUrl = core.bridgeUrl.replace(/\/bridge$/, '/tools');
  assert.equal((await tryUpgrade(toolsUrl)).status, 403, 'no Origin');
  await originRefused(toolsUrl, 'https://evil.example');
  const attempt = await tryUpgrade(toolsUrl, { origin: PAGE_ORIGIN });
  assert.equal(attempt.opened, true);
  const closed = await closeOf(attempt.socket!);
  assert.equal(closed.code, 4400);
  assert.match(closed.reason, /--mcp/);
});

test('finding 4: a half-sent message closes its connection after the partial-frame timeout (1008)', async (t) => {
  const core = await startCore(t, { partialFrameTimeoutMs: 500 });
  const request = JSON.stringify({ channelId: 'c', requestId: 'r', type: 'get_approval_status' });
  for (const [what, bytes] of [
    ['a frame with part of its payload', clientFrame(request, { declared: 1000 }).subarray(0, 20)],
    ['half a frame header', clientFrame(request, { declared: 1000 }).subarray(0, 3)],
    ['a fragmented message without its last frame', clientFrame(request, { fin: false })],
  ] as const) {
    const page = await BridgeClient.open(t, core);
    netSocketOf(page.socket).write(bytes); // under ws, to send what no well-behaved client would
    const closed = await closeOf(page.socket);
    assert.equal(closed.code, 1008, what);
    assert.match(closed.reason, /not completed within 500 ms/, what);
  }
  await stillServes(t, core);

  // Whole messages never are, however they are cut into chunks and however long the stream goes on:
  // here every chunk ends in the middle of a message (the end of one and the start of the next).
  const page = await BridgeClient.open(t, core);
  const frames = Array.from({ length: 13 }, (_, i) =>
    clientFrame(JSON.stringify({ channelId: 'c', requestId: `r${i}`, type: 'get_approval_status' })),
  );
  netSocketOf(page.socket).write(frames[0]!.subarray(0, 30));
  for (let i = 0; i < 12; i++) {
    await delay(100);
    netSocketOf(page.socket).write(Buffer.concat([frames[i]!.subarray(30), frames[i + 1]!.subarray(0, 30)]));
    await page.until((m) => m.requestId === `r${i}`);
  }
  netSocketOf(page.socket).write(frames[12]!.subarray(30));
  await page.until((m) => m.requestId === 'r12');
  assert.equal(page.socket.readyState, WebSocket.OPEN, 'open after 1.2 s of messages sent in halves');
});

test('the frame tracker knows where messages end, byte by byte', async () => {
  const tracker = new FrameTracker();
  const stream = Buffer.concat([
    clientFrame('x'.repeat(300)), // 16-bit length
    clientFrame('ab', { fin: false }),
    clientFrame('', { opcode: 9 }), // a ping between fragments
    clientFrame('cd', { opcode: 0 }),
    clientFrame(''),
  ]);
  const ends: number[] = [];
  for (let i = 0; i < stream.length; i++) {
    tracker.feed(stream.subarray(i, i + 1));
    if (!tracker.inMessage) ends.push(i + 1);
  }
  const first = clientFrame('x'.repeat(300)).length;
  const fragments = clientFrame('ab').length + clientFrame('', { opcode: 9 }).length + clientFrame('cd').length;
  assert.deepEqual(ends, [first, first + fragments, stream.length]);
  assert.equal(tracker.messagesEnded, 3);
});

test('HTTP requests and upgrades with a non-loopback Host are refused (DNS rebinding)', async (t) => {
  const core = await startCore(t);
  for (const host of [
    'evil.example',
    `evil.example:${core.port}`,
    `192.168.1.10:${core.port}`,
    `localhost.evil.example:${core.port}`,
  ]) {
    const response = await rawHttp(core, '/_pedelec/inspector', { headers: { Host: host } });
    assert.equal(response.status, 403, host);
  }
  const noHost = await rawHttp(core, '/_pedelec/inspector', { headers: { Host: null } });
  assert.ok([400, 403].includes(noHost.status), `no Host: ${noHost.status}`);
  const upgrade = await tryUpgrade(core.bridgeUrl, {
    origin: PAGE_ORIGIN,
    headers: { Host: `rebound.example:${core.port}` },
  });
  assert.equal(upgrade.opened, false);
  assert.equal(upgrade.status, 403);
  for (const host of [`localhost:${core.port}`, `127.0.0.1:${core.port}`, `[::1]:${core.port}`]) {
    assert.equal((await rawHttp(core, '/', { headers: { Host: host } })).status, 200, host);
  }
  await stillServes(t, core);
});

test('a non-loopback host is refused unless allowRemote', async () => {
  await assert.rejects(
    startDevCore({ port: 0, host: '0.0.0.0' }),
    (error) =>
      error instanceof DevCoreError && error.code === 'REMOTE_HOST_REFUSED' && /--allow-remote/.test(error.message),
  );
});

test('static serving cannot leave its folder: .., %2e%2e, encoded slashes, symlinks, dotfiles', async (t) => {
  const base = await mkdtemp(join(tmpdir(), 'pedelec-dev-static-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  const site = join(base, 'site');
  await mkdir(join(site, 'sub'), { recursive: true });
  await mkdir(join(site, '.git'));
  await writeFile(join(site, 'index.html'), '<h1>demo</h1>');
  await writeFile(join(site, 'sub', 'index.html'), '<h1>sub</h1>');
  await writeFile(join(site, '.env'), 'SECRET=dotfile');
  await writeFile(join(site, '.git', 'config'), 'SECRET=git');
  await writeFile(join(base, 'outside.txt'), 'SECRET=outside');
  await symlink(join(base, 'outside.txt'), join(site, 'link.txt'));
  await symlink(base, join(site, 'linkdir'));
  await symlink(join(site, 'index.html'), join(site, 'inner-link.html'));
  const core = await startCore(t, { serveDir: site });

  assert.equal((await rawHttp(core, '/')).body, '<h1>demo</h1>');
  assert.equal((await rawHttp(core, '/sub/')).body, '<h1>sub</h1>');
  const redirect = await rawHttp(core, '/sub');
  assert.equal(redirect.status, 301);
  assert.equal(redirect.headers.location, '/sub/');
  assert.equal((await rawHttp(core, '/inner-link.html')).status, 200, 'a symlink that stays inside is fine');
  assert.equal((await rawHttp(core, '/index.html')).headers['x-content-type-options'], 'nosniff');

  const escapes = [
    '/../outside.txt',
    '/sub/../../outside.txt',
    '/%2e%2e/outside.txt',
    '/%2E%2E/outside.txt',
    '/sub/%2e%2e/%2e%2e/outside.txt',
    '/..%2foutside.txt',
    '/%2e%2e%2foutside.txt',
    '/sub%2f..%2f..%2foutside.txt',
    '/..%5coutside.txt',
    '//outside.txt',
    '/link.txt',
    '/linkdir/outside.txt',
    '/.env',
    '/%2eenv',
    '/.git/config',
    '/sub/../.env',
    '/_pedelec/cdn/../../package.json',
    '/_pedelec/dist/%2e%2e/package.json',
    '/_pedelec/dist/%2e%2e/%2e%2e/package.json',
    '/_pedelec/inspector/../../../package.json',
    '/_pedelec/inspector/%2e%2e/%2e%2e/%2e%2e/package.json',
    '/%00',
    '/%zz',
  ];
  for (const path of escapes) {
    const response = await rawHttp(core, path);
    assert.notEqual(response.status, 200, path);
    assert.ok(
      !/SECRET|"name": "pedelec-elements"/.test(response.body),
      `${path} leaked: ${response.body.slice(0, 80)}`,
    );
  }
  await stillServes(t, core);
});

test('the kit is served under /_pedelec/ (cdn/, dist/), and only there', { skip: NEEDS_KIT_BUILD }, async (t) => {
  const core = await startCore(t);
  const cdn = await rawHttp(core, '/_pedelec/cdn/pedelec-elements.js');
  assert.equal(cdn.status, 200);
  assert.match(cdn.headers['content-type'] ?? '', /javascript/);
  assert.equal((await rawHttp(core, '/_pedelec/dist/index.js')).status, 200);
  assert.equal((await rawHttp(core, '/_pedelec/cdn/nope.js')).status, 404);
  for (const path of [
    '/cdn/pedelec-elements.js',
    '/dist/index.js',
    '/inspector',
    '/_pedelec',
    '/_pedelec/',
    '/_pedelec/x',
  ]) {
    assert.equal((await rawHttp(core, path)).status, 404, path);
  }
  const landing = await rawHttp(core, '/');
  assert.match(landing.body, /pedelec-dev .* is running/);
  assert.match(landing.body, /Kit: http:\/\/127\.0\.0\.1:\d+\/_pedelec\/cdn\/pedelec-elements\.js/);
});

test(
  'the kit, and only the kit, may be read by any origin (Access-Control-Allow-Origin: *)',
  { skip: NEEDS_KIT_BUILD },
  async (t) => {
    const site = await mkdtemp(join(tmpdir(), 'pedelec-dev-site-'));
    t.after(() => rm(site, { recursive: true, force: true }));
    await writeFile(join(site, 'index.html'), '<h1>my page</h1>');
    const core = await startCore(t, { serveDir: site, mcp: true });
    // As a page on another origin asks (one the bridge does not even allow): a module script is a CORS
    // request, with its Origin.
    const headers = { Origin: 'http://app.test:3000' };
    const kit = [
      '/_pedelec/cdn/pedelec-elements.js',
      '/_pedelec/cdn/pedelec-elements.js.map',
      '/_pedelec/dist/index.js',
    ];
    for (const path of kit) {
      const response = await rawHttp(core, path, { headers });
      assert.equal(response.status, 200, path);
      assert.equal(response.headers['access-control-allow-origin'], '*', path);
    }
    // A missing kit file says so (404) to the page, rather than hiding behind a CORS error.
    const missing = await rawHttp(core, '/_pedelec/cdn/nope.js', { headers });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers['access-control-allow-origin'], '*');

    for (const path of [
      '/',
      '/index.html',
      '/_pedelec/inspector',
      '/_pedelec/inspector/inspector.js',
      '/_pedelec/assets/download/nope',
      '/_pedelec/x',
      '/bridge',
      '/tools',
      '/mcp',
    ]) {
      const response = await rawHttp(core, path, { headers });
      assert.equal(response.headers['access-control-allow-origin'], undefined, `${path} (${response.status})`);
    }
    // The assets answer an allowed origin by name, never with *.
    const asset = await rawHttp(core, '/_pedelec/assets/download/nope', { headers: { Origin: PAGE_ORIGIN } });
    assert.equal(asset.headers['access-control-allow-origin'], PAGE_ORIGIN);
  },
);

test("/favicon.ico: the served folder's own icon, else pedelec-dev's (no 404 in the page's console)", async (t) => {
  const icon = (await rawHttp(await startCore(t), '/_pedelec/inspector/favicon.svg')).body;
  const bare = await mkdtemp(join(tmpdir(), 'pedelec-dev-site-'));
  const own = await mkdtemp(join(tmpdir(), 'pedelec-dev-site-'));
  t.after(() => Promise.all([bare, own].map((dir) => rm(dir, { recursive: true, force: true }))));
  await writeFile(join(own, 'favicon.ico'), 'MY ICON');
  for (const options of [{}, { serveDir: bare }]) {
    const response = await rawHttp(await startCore(t, options), '/favicon.ico');
    assert.equal(response.status, 200, JSON.stringify(options));
    assert.match(response.headers['content-type'] ?? '', /^image\/svg\+xml/);
    assert.equal(response.body, icon);
  }
  const mine = await rawHttp(await startCore(t, { serveDir: own }), '/favicon.ico');
  assert.equal(mine.body, 'MY ICON');
});

test("finding 3: --serve DIR serves every path but the endpoints and /_pedelec/, Vite's assets/ included", async (t) => {
  const site = await mkdtemp(join(tmpdir(), 'pedelec-dev-site-'));
  t.after(() => rm(site, { recursive: true, force: true }));
  // What `vite build` writes (index.html + assets/), plus folders named like the Core's old routes.
  const files: Record<string, string> = {
    'index.html': '<script type="module" src="/assets/index-abc123.js"></script>',
    'assets/index-abc123.js': 'console.log("app")',
    'assets/upload/x.txt': 'not an asset upload',
    'cdn/lib.js': 'export const lib = 1;',
    'dist/app.js': 'export const app = 1;',
    'inspector/index.html': '<h1>my inspector page</h1>',
    'inspector.html': '<h1>my other page</h1>',
    '_pedelec/cdn/pedelec-elements.js': 'SHADOWED',
    'bridge/index.html': '<h1>a folder named bridge</h1>',
  };
  for (const [name, body] of Object.entries(files)) {
    await mkdir(join(site, name, '..'), { recursive: true });
    await writeFile(join(site, name), body);
  }
  const core = await startCore(t, { serveDir: site });
  for (const name of Object.keys(files).filter((name) => !name.startsWith('_pedelec/'))) {
    const response = await rawHttp(core, `/${name}`);
    assert.equal(response.status, 200, name);
    assert.equal(response.body, files[name], name);
  }
  assert.equal((await rawHttp(core, '/')).body, files['index.html']);
  assert.equal((await rawHttp(core, '/inspector/')).body, files['inspector/index.html']);
  // The Core's own: the endpoints, and /_pedelec/ (the kit, not the folder of that name).
  assert.equal((await rawHttp(core, '/bridge')).status, 426);
  assert.equal((await rawHttp(core, '/tools')).status, 426);
  assert.equal((await rawHttp(core, '/mcp')).status, 404);
  const kit = await rawHttp(core, '/_pedelec/cdn/pedelec-elements.js');
  assert.equal(kit.status, 200);
  assert.notEqual(kit.body, 'SHADOWED');
  assert.equal((await rawHttp(core, '/_pedelec/inspector')).status, 200);
});

test('the inspector socket needs the server origin and the token; anything else is closed with 1008', async (t) => {
  const core = await startCore(t, { inspectorToken: 'a'.repeat(32) });
  const socketUrl = `ws://127.0.0.1:${core.port}/_pedelec/inspector/socket`;
  const refused: [string, string | undefined][] = [
    [`${socketUrl}`, core.url],
    [`${socketUrl}?token=${'b'.repeat(32)}`, core.url],
    [`${socketUrl}?token=${'a'.repeat(31)}`, core.url],
    [`${socketUrl}?token=${'a'.repeat(32)}`, PAGE_ORIGIN],
    [`${socketUrl}?token=${'a'.repeat(32)}`, undefined],
  ];
  for (const [url, origin] of refused) {
    const socket = new WebSocket(url, origin === undefined ? {} : { origin });
    socket.on('error', () => {});
    const closed = await closeOf(socket);
    assert.equal(closed.code, 1008, `${url} from ${origin}`);
    await stillServes(t, core);
  }
  const socket = new WebSocket(`${socketUrl}?token=${'a'.repeat(32)}`, { origin: core.url });
  t.after(() => socket.terminate());
  const hello = await new Promise<Message>((resolve, reject) => {
    socket.once('message', (data: RawData) => resolve(JSON.parse(data.toString()) as Message));
    socket.once('close', (code) => reject(new Error(`closed ${code}`)));
  });
  assert.equal(hello.type, 'hello');
  assert.ok(core.inspectorUrl.endsWith(`/_pedelec/inspector#token=${'a'.repeat(32)}`));
});

test('the link key goes to pages the server serves (a POST with its own Origin), and to nothing else; MCP off, there is none', async (t) => {
  const core = await startCore(t, { mcp: true, mcpToken: 'a'.repeat(32) });
  const asked = (method: string, origin: string | null) =>
    rawHttp(core, '/_pedelec/link-key', { method, headers: { Origin: origin } });
  const given = await asked('POST', core.url);
  assert.equal(given.status, 200);
  assert.equal(given.headers['cache-control'], 'no-store');
  assert.deepEqual(JSON.parse(given.body), { key: core.mcpLinkKey });
  const refusals: [string, string | null, number][] = [
    ['POST', PAGE_ORIGIN, 403], // an allowed origin, but not a page this server served
    ['POST', `http://127.0.0.1:${core.port + 1}`, 403],
    ['POST', null, 403], // not a page: a local process reads the token file instead
    ['GET', core.url, 405],
  ];
  for (const [method, origin, status] of refusals) {
    const refused = await asked(method, origin);
    assert.equal(refused.status, status, `${method} from ${origin}`);
    assert.doesNotMatch(refused.body, new RegExp(core.mcpLinkKey!), `${method} from ${origin}`);
  }
  // MCP off: no key, said as an answer (a failed request would show in the served page's console).
  const off = await startCore(t);
  const none = await rawHttp(off, '/_pedelec/link-key', { method: 'POST', headers: { Origin: off.url } });
  assert.equal(none.status, 200);
  assert.deepEqual(JSON.parse(none.body), { key: null });
});

test('an oversized frame closes that connection with 1009; the server survives', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);
  page.sendRaw('x'.repeat(16 * 1024 * 1024 + 1));
  const closed = await page.closed;
  assert.equal(closed.code, 1009);
  await stillServes(t, core);
  // The session of the closed connection was auto-ended, not left behind.
  const other = await BridgeClient.open(t, core);
  assert.ok(
    ['THREAD_NOT_FOUND', 'THREAD_ACCESS_DENIED'].includes(
      (await other.request('resume_session', { sessionId })).error.code,
    ),
  );
});

test('malformed frames get an error response and the connection keeps working', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const from = page.mark();
  for (const frame of [
    '{not json',
    '[]',
    '42',
    'null',
    JSON.stringify({ type: 'get_settings' }),
    JSON.stringify({ channelId: 'c', requestId: '', type: 'get_settings' }),
  ]) {
    page.sendRaw(frame);
  }
  page.socket.send(Buffer.from([1, 2, 3]), { binary: true });
  // Seven frames, seven answers (the last one arriving means all have).
  await page.until(() => page.since(from).length >= 7, { from });
  const refusals = page.since(from);
  assert.equal(refusals.length, 7);
  for (const refusal of refusals) {
    assert.equal(refusal.type, 'response');
    assert.equal(refusal.ok, false);
    assert.equal(typeof refusal.error.code, 'string');
    assert.equal(typeof refusal.error.message, 'string');
  }
  assert.equal(refusals[0].error.code, 'MALFORMED_MESSAGE');
  assert.equal(refusals[0].requestId, null);
  // Same socket, next request: served.
  assert.equal((await page.request('get_settings')).ok, true);
  await stillServes(t, core);
});

/** A JSON value `depth` levels deep: `{"a":{"a":…}}`, built as text (as a page would send it). */
const deepJson = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

test('a value too deep to serialize, echoed back in an error, never crashes the server', async (t) => {
  const bugs: unknown[] = [];
  const core = await startCore(t, { onBug: (error) => bugs.push(error) });
  const page = await BridgeClient.open(t, core);
  // The tool "name" is refused, and the refusal's details carry it back: 6 000 levels overflow
  // JSON.stringify's stack (parsing them does not).
  const requestId = 'deep_1';
  const frame = `{"channelId":"${page.channelId}","type":"create_session","requestId":"${requestId}","input":{"provider":"scripted","skills":{"guidance":"","tools":[{"name":${deepJson(6000)},"description":"d","argsSchema":{"type":"object"}}]}}}`;
  page.sendRaw(frame);
  const response = await page.until((m) => m.requestId === requestId);
  assert.equal(response.ok, false);
  assert.equal(response.error.code, 'INTERNAL_ERROR');
  assert.match(response.error.message, /could not serialize this response frame/);
  assert.deepEqual(bugs, []);
  // Same socket, next request: served.
  assert.equal((await page.request('get_settings')).ok, true);
  await stillServes(t, core);
});

/** A raw upgrade request to /bridge from a client that, once answered, never ends its side nor answers a close. */
async function stubbornUpgrade(core: DevCore, originHeader: string) {
  // allowHalfOpen: when the server ends its side, this client does not end its own.
  const socket = net.connect({ port: core.port, host: '127.0.0.1', allowHalfOpen: true });
  const answer = new Promise<string>((resolve) => socket.once('data', (data) => resolve(data.toString('latin1'))));
  const closed = new Promise((resolve) => socket.once('close', resolve));
  // The server's side ended (this client keeps its own open).
  const ended = new Promise((resolve) => socket.once('end', resolve));
  socket.on('error', () => {});
  socket.write(
    `GET /bridge HTTP/1.1\r\nHost: 127.0.0.1:${core.port}\r\n${originHeader}Upgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  return { socket, answer, closed, ended };
}

const within = (promise: Promise<unknown>, ms: number, what: string) =>
  Promise.race([
    promise.then(() => 'done'),
    new Promise((resolve) => setTimeout(resolve, ms, `${what} after ${ms} ms`)),
  ]);

test('a refused upgrade does not hold close(): its socket is closed, even if the client keeps it open', async (t) => {
  for (const originHeader of ['', 'Origin: https://evil.example\r\n']) {
    const core = await startDevCore({ port: 0 });
    const { socket, answer, closed } = await stubbornUpgrade(core, originHeader);
    // Also when an assertion below fails (close() twice is fine).
    t.after(() => {
      socket.destroy();
      return core.close();
    });
    // No Origin: an HTTP refusal. A refused Origin: the upgrade, then at once a close frame (4003).
    assert.match(await answer, originHeader ? /^HTTP\/1\.1 101 [\s\S]*\r\n\r\n\x88/ : /^HTTP\/1\.1 403/);
    // The client never ends its side. The server closes the socket itself, and close() finishes.
    const outcome = await within(core.close(), 3000, 'still pending');
    socket.destroy();
    await closed;
    assert.equal(outcome, 'done', originHeader);
  }
});

test('a refused origin whose client never answers the close frame is cut off within a second or so', async (t) => {
  const core = await startCore(t);
  const { socket, answer, ended } = await stubbornUpgrade(core, 'Origin: https://evil.example\r\n');
  t.after(() => socket.destroy());
  assert.match(await answer, /^HTTP\/1\.1 101 /);
  assert.equal(await within(ended, 3000, 'still open'), 'done');
  await stillServes(t, core);
});

// dev-core.md Safety: static serving cannot leave its folder (symlinks); the file checked is the file served.
test('static: the file that was checked is the file that is served (names with @ + ; , = & $ : #)', async (t) => {
  const base = await mkdtemp(join(tmpdir(), 'pedelec-r14-static-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  const site = join(base, 'site');
  await mkdir(site);
  await writeFile(join(base, 'secret.txt'), 'SECRET outside the served folder');
  await writeFile(join(site, 'logo@2x.txt'), 'inside');
  // A second entry whose *literal* name is the percent-encoded form of the first, pointing outside.
  await symlink(join(base, 'secret.txt'), join(site, 'logo%402x.txt'));
  const core = await startCore(t, { serveDir: site });

  const response = await rawHttp(core, '/logo@2x.txt', { headers: { Host: `127.0.0.1:${core.port}` } });
  assert.doesNotMatch(response.body, /SECRET/, 'a symlink out of the folder was served');
  assert.equal(response.status, 200);
  assert.equal(response.body, 'inside');
});

test('the pages --serve DIR serves carry Origin-Agent-Cluster: ?1 (WebMCP needs it where agent clusters are keyed by site)', async (t) => {
  const site = await mkdtemp(join(tmpdir(), 'pedelec-dev-site-'));
  t.after(() => rm(site, { recursive: true, force: true }));
  await writeFile(join(site, 'index.html'), '<h1>page</h1>');
  const core = await startCore(t, { serveDir: site });
  for (const path of ['/', '/index.html']) {
    const response = await rawHttp(core, path);
    assert.equal(response.status, 200, path);
    assert.equal(response.headers['origin-agent-cluster'], '?1', path);
  }
});
