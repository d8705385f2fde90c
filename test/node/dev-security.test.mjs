// pedelec-dev's safety rules. After each refusal the same server must still serve the next client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { BridgeClient, PAGE_ORIGIN, closeOf, createSession, rawHttp, startCore, tryUpgrade } from './dev-helpers.mjs';

/** The server still answers a fresh page: the check that follows every refusal. */
async function stillServes(t, core) {
  const page = await BridgeClient.open(t, core);
  const result = await page.ok('get_approval_status');
  assert.equal(result.installed, true);
  await page.close();
}

test('the bridge refuses WebSocket upgrades from origins not on the allow-list', async (t) => {
  const core = await startCore(t, { allowOrigins: ['https://app.example:8443'] });
  for (const origin of ['https://evil.example', 'http://localhost.evil.example:5173', 'null', 'http://127.0.0.2:80', 'https://localhost:5173']) {
    const attempt = await tryUpgrade(core.bridgeUrl, { origin });
    assert.equal(attempt.opened, false, origin);
    assert.equal(attempt.status, 403, origin);
    await stillServes(t, core);
  }
  for (const origin of ['http://localhost:5173', 'http://127.0.0.1:8080', 'http://localhost', core.url, 'https://app.example:8443']) {
    const attempt = await tryUpgrade(core.bridgeUrl, { origin });
    assert.equal(attempt.opened, true, origin);
    attempt.socket.terminate();
  }
});

test('HTTP requests and upgrades with a non-loopback Host are refused (DNS rebinding)', async (t) => {
  const core = await startCore(t);
  for (const host of ['evil.example', `evil.example:${core.port}`, `192.168.1.10:${core.port}`, `localhost.evil.example:${core.port}`]) {
    const response = await rawHttp(core, '/inspector', { headers: { Host: host } });
    assert.equal(response.status, 403, host);
  }
  const noHost = await rawHttp(core, '/inspector', { headers: { Host: null } });
  assert.ok([400, 403].includes(noHost.status), `no Host: ${noHost.status}`);
  const upgrade = await tryUpgrade(core.bridgeUrl, { origin: PAGE_ORIGIN, headers: { Host: `rebound.example:${core.port}` } });
  assert.equal(upgrade.opened, false);
  assert.equal(upgrade.status, 403);
  for (const host of [`localhost:${core.port}`, `127.0.0.1:${core.port}`, `[::1]:${core.port}`]) {
    assert.equal((await rawHttp(core, '/', { headers: { Host: host } })).status, 200, host);
  }
  await stillServes(t, core);
});

test('a non-loopback host is refused unless allowRemote', async () => {
  const { startDevCore } = await import('../../dist/dev/index.js');
  await assert.rejects(startDevCore({ port: 0, host: '0.0.0.0' }), (error) => error.code === 'REMOTE_HOST_REFUSED' && /--allow-remote/.test(error.message));
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
    '/cdn/../package.json',
    '/dist/%2e%2e/package.json',
    '/inspector/../../package.json',
    '/%00',
    '/%zz',
  ];
  for (const path of escapes) {
    const response = await rawHttp(core, path);
    assert.notEqual(response.status, 200, path);
    assert.ok(!/SECRET|"name": "pedelec-elements"/.test(response.body), `${path} leaked: ${response.body.slice(0, 80)}`);
  }
  await stillServes(t, core);
});

test('the built kit is served at /cdn/ and /dist/ for demo pages', async (t) => {
  const core = await startCore(t);
  const cdn = await rawHttp(core, '/cdn/pedelec-elements.js');
  assert.equal(cdn.status, 200);
  assert.match(cdn.headers['content-type'], /javascript/);
  assert.equal((await rawHttp(core, '/dist/index.js')).status, 200);
  assert.equal((await rawHttp(core, '/cdn/nope.js')).status, 404);
  const landing = await rawHttp(core, '/');
  assert.match(landing.body, /pedelec-dev .* is running/);
});

test('the inspector socket needs the server origin and the token; anything else is closed with 1008', async (t) => {
  const core = await startCore(t, { inspectorToken: 'a'.repeat(32) });
  const socketUrl = `ws://127.0.0.1:${core.port}/inspector/socket`;
  const refused = [
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
  const hello = await new Promise((resolve, reject) => {
    socket.once('message', (data) => resolve(JSON.parse(data.toString())));
    socket.once('close', (code) => reject(new Error(`closed ${code}`)));
  });
  assert.equal(hello.type, 'hello');
  assert.ok(core.inspectorUrl.endsWith(`/inspector#token=${'a'.repeat(32)}`));
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
  assert.ok(['THREAD_NOT_FOUND', 'THREAD_ACCESS_DENIED'].includes((await other.request('resume_session', { sessionId })).error.code));
});

test('malformed frames get an error response and the connection keeps working', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const from = page.mark();
  for (const frame of ['{not json', '[]', '42', 'null', JSON.stringify({ type: 'get_settings' }), JSON.stringify({ channelId: 'c', requestId: '', type: 'get_settings' })]) {
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
