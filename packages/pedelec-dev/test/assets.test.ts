// Session assets: one-time, short-lived, session-bound tickets; CORS for allowed origins only;
// downloads that can never render as a page of the server's origin. (The cost of a ticket flood is
// measured in perf/assets.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BridgeClient,
  PAGE_ORIGIN,
  chatText,
  createSession,
  delay,
  rawHttp,
  startCore,
  twoPages,
  type Message,
} from './helpers.js';

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function upload(
  page: BridgeClient,
  sessionId: string,
  {
    filename = 'notes.txt',
    body = 'hello assets',
    mimeType = 'text/plain',
    targetPath,
  }: { filename?: string; body?: string; mimeType?: string; targetPath?: string } = {},
) {
  const payload: Message = { sessionId, filename, sizeBytes: Buffer.byteLength(body), mimeType };
  if (targetPath !== undefined) payload.targetPath = targetPath;
  const ticket = await page.ok('create_asset_upload', payload);
  const response = await fetch(ticket.uploadUrl, {
    method: 'PUT',
    headers: { ...bearer(ticket.token), 'Content-Type': mimeType },
    body,
  });
  return { ticket, response };
}

test('upload, list and read back an asset through one-time tickets', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);
  assert.deepEqual(await page.ok('list_assets', { sessionId }), { assets: [] });

  const { ticket, response } = await upload(page, sessionId, { targetPath: '/docs/notes.txt' });
  assert.match(ticket.uploadId, /^[0-9a-f-]{36}$/);
  assert.match(ticket.token, /^[0-9a-f]{32}$/, '128 random bits');
  assert.ok(ticket.uploadUrl.startsWith(`${core.url}/_pedelec/assets/upload/`), 'a loopback URL');
  assert.equal(response.status, 201);
  const stored = await response.json();
  assert.equal(stored.path, '/docs/notes.txt');

  const { assets } = await page.ok('list_assets', { sessionId });
  assert.equal(assets.length, 1);
  assert.equal(assets[0].name, 'notes.txt');
  assert.equal(assets[0].path, '/docs/notes.txt');
  assert.equal(assets[0].sizeBytes, 12);
  assert.ok(Number.isInteger(assets[0].modifiedAt) && assets[0].modifiedAt > 0);

  const download = await page.ok('create_asset_download', { sessionId, path: '/docs/notes.txt' });
  assert.equal(download.name, 'notes.txt');
  assert.equal(download.mimeType, 'text/plain');
  assert.equal(download.path, '/docs/notes.txt');
  assert.equal(typeof download.modifiedAt, 'number');
  const file = await fetch(download.downloadUrl, { headers: bearer(download.token) });
  assert.equal(file.status, 200);
  assert.equal(await file.text(), 'hello assets');
  assert.match(file.headers.get('content-disposition') ?? '', /^attachment; filename="notes.txt"/);
  assert.equal(file.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(file.headers.get('content-security-policy'), 'sandbox');

  // One use only.
  const reuse = await fetch(download.downloadUrl, { headers: bearer(download.token) });
  assert.equal(reuse.status, 401);
  assert.equal((await reuse.json()).error.code, 'ASSET_TOKEN_INVALID');
  const reupload = await fetch(ticket.uploadUrl, {
    method: 'PUT',
    headers: bearer(ticket.token),
    body: 'hello assets',
  });
  assert.equal(reupload.status, 401);

  // The token in the query works for plain links.
  const link = await page.ok('create_asset_download', { sessionId, path: '/docs/notes.txt' });
  assert.equal((await fetch(`${link.downloadUrl}?token=${link.token}`)).status, 200);
});

test('tickets expire, and a wrong token or a ticket of the other direction is refused', async (t) => {
  // Long enough for the upload below to use its ticket on a loaded machine; short enough to wait out.
  const core = await startCore(t, { assetTokenTtlMs: 400 });
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);
  await upload(page, sessionId);

  const expired = await page.ok('create_asset_download', { sessionId, path: '/notes.txt' });
  await delay(450);
  const late = await fetch(expired.downloadUrl, { headers: bearer(expired.token) });
  assert.equal(late.status, 401);
  assert.equal((await late.json()).error.code, 'ASSET_TOKEN_EXPIRED');

  const fresh = await page.ok('create_asset_download', { sessionId, path: '/notes.txt' });
  const wrong = await fetch(fresh.downloadUrl, { headers: bearer('0'.repeat(32)) });
  assert.equal(wrong.status, 401);
  const none = await fetch(fresh.downloadUrl);
  assert.equal(none.status, 401);
  // A download ticket cannot be used to upload.
  const swapped = await fetch(fresh.downloadUrl.replace('/download/', '/upload/'), {
    method: 'PUT',
    headers: bearer(fresh.token),
    body: 'x',
  });
  assert.equal(swapped.status, 401);
});

test('CORS: preflight answered for allowed origins, without credentials; foreign origins refused', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);
  const ticket = await page.ok('create_asset_upload', {
    sessionId,
    filename: 'a.bin',
    sizeBytes: 3,
    mimeType: 'application/octet-stream',
  });
  const path = new URL(ticket.uploadUrl).pathname;

  const preflight = await rawHttp(core, path, {
    method: 'OPTIONS',
    headers: {
      Origin: PAGE_ORIGIN,
      'Access-Control-Request-Method': 'PUT',
      'Access-Control-Request-Headers': 'authorization,content-type',
    },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers['access-control-allow-origin'], PAGE_ORIGIN);
  assert.match(String(preflight.headers['access-control-allow-methods']), /PUT/);
  assert.match(String(preflight.headers['access-control-allow-headers']), /Authorization/i);
  assert.equal(preflight.headers['access-control-allow-credentials'], undefined);

  const foreign = await rawHttp(core, path, {
    method: 'OPTIONS',
    headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'PUT' },
  });
  assert.equal(foreign.status, 403);
  assert.equal(foreign.headers['access-control-allow-origin'], undefined);

  // A foreign origin cannot use a valid ticket either (and does not burn it).
  const put = await rawHttp(core, path, {
    method: 'PUT',
    headers: { Origin: 'https://evil.example', ...bearer(ticket.token) },
    body: 'abc',
  });
  assert.equal(put.status, 403);
  const ok = await rawHttp(core, path, {
    method: 'PUT',
    headers: { Origin: PAGE_ORIGIN, ...bearer(ticket.token), 'Content-Length': '3' },
    body: 'abc',
  });
  assert.equal(ok.status, 201);
  assert.equal(ok.headers['access-control-allow-origin'], PAGE_ORIGIN);
});

test('limits and paths: 100 MiB cap, declared size enforced, bad paths refused', async (t) => {
  const core = await startCore(t, { maxAssetBytes: 1024 });
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);

  const big = await page.request('create_asset_upload', {
    sessionId,
    filename: 'big.bin',
    sizeBytes: 1025,
    mimeType: 'application/octet-stream',
  });
  assert.equal(big.error.code, 'ASSET_TOO_LARGE');
  const defaults = await startCore(t);
  const other = await BridgeClient.open(t, defaults);
  const otherSession = await createSession(other);
  const huge = await other.request('create_asset_upload', {
    sessionId: otherSession,
    filename: 'huge.bin',
    sizeBytes: 100 * 1024 * 1024 + 1,
    mimeType: 'x/y',
  });
  assert.equal(huge.error.code, 'ASSET_TOO_LARGE');
  assert.equal(
    (
      await other.request('create_asset_upload', {
        sessionId: otherSession,
        filename: 'max.bin',
        sizeBytes: 100 * 1024 * 1024,
        mimeType: 'x/y',
      })
    ).ok,
    true,
  );

  const ticket = await page.ok('create_asset_upload', {
    sessionId,
    filename: 'short.txt',
    sizeBytes: 10,
    mimeType: 'text/plain',
  });
  const lying = await fetch(ticket.uploadUrl, { method: 'PUT', headers: bearer(ticket.token), body: 'only five' });
  assert.equal(lying.status, 400);
  assert.equal((await lying.json()).error.code, 'ASSET_SIZE_MISMATCH');
  assert.deepEqual((await page.ok('list_assets', { sessionId })).assets, [], 'nothing half-written is listed');

  for (const targetPath of ['relative.txt', '/a/../b.txt', '/a//b.txt', '/a/./b.txt', '/a\\b.txt', '/']) {
    const response = await page.request('create_asset_upload', {
      sessionId,
      filename: 'x.txt',
      sizeBytes: 1,
      mimeType: 'text/plain',
      targetPath,
    });
    assert.equal(response.error.code, 'ASSET_PATH_INVALID', targetPath);
  }
  for (const filename of ['../x', 'a/b', '', '..']) {
    const response = await page.request('create_asset_upload', {
      sessionId,
      filename,
      sizeBytes: 1,
      mimeType: 'text/plain',
    });
    assert.equal(response.ok, false, filename);
  }
  for (const path of ['/../../etc/passwd', 'notes.txt', '/missing.txt']) {
    const response = await page.request('create_asset_download', { sessionId, path });
    assert.equal(response.ok, false, path);
  }
});

test("one session never sees another's assets, and a session's tickets die with it", async (t) => {
  const { a, b, sessionA, sessionB } = await twoPages(t);
  await upload(a, sessionA, { filename: 'secret.txt', body: 'for A only' });

  assert.deepEqual((await b.ok('list_assets', { sessionId: sessionB })).assets, []);
  assert.equal(
    (await b.request('create_asset_download', { sessionId: sessionB, path: '/secret.txt' })).error.code,
    'ASSET_NOT_FOUND',
  );
  assert.equal((await b.request('list_assets', { sessionId: sessionA })).error.code, 'THREAD_ACCESS_DENIED');

  const ticket = await a.ok('create_asset_download', { sessionId: sessionA, path: '/secret.txt' });
  await a.ok('end_session', { sessionId: sessionA });
  const after = await fetch(ticket.downloadUrl, { headers: bearer(ticket.token) });
  assert.equal(after.status, 401);
});

test('an upload whose path needs a folder where a file is gets 409 ASSET_PATH_CONFLICT, not 500', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);
  assert.equal((await upload(page, sessionId, { targetPath: '/f' })).response.status, 201);
  const { response } = await upload(page, sessionId, { targetPath: '/f/g' });
  assert.equal(response.status, 409);
  assert.equal((await response.json()).error.code, 'ASSET_PATH_CONFLICT');
});

// dev-core.md Safety: malformed input gets "an error response … never a crash"; assets: downloads
// are served with the declared type. A mimeType no HTTP header can carry is accepted at upload and
// then makes every download of that asset fail with a bare 500 (no CORS headers, so the page cannot
// even read why) and an internal-error report.
test('a mimeType that cannot be an HTTP header value is refused at create_asset_upload, or downloads still work', async (t) => {
  const bugs: string[] = [];
  const core = await startCore(t, { onBug: (error) => bugs.push(String(error)) });
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);
  const upload = await page.request('create_asset_upload', {
    sessionId,
    filename: 'a.txt',
    sizeBytes: 2,
    mimeType: 'text/plain\r\nX-Injected: 1',
  });
  if (!upload.ok) {
    assert.equal(upload.error.code, 'INVALID_INPUT');
    return;
  }
  const put = await rawHttp(core, new URL(upload.result.uploadUrl).pathname, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${upload.result.token}`, 'Content-Length': '2' },
    body: 'hi',
  });
  assert.equal(put.status, 201, put.body);
  const ticket = await page.ok('create_asset_download', { sessionId, path: '/a.txt' });
  const got = await rawHttp(core, new URL(ticket.downloadUrl).pathname, {
    headers: { Authorization: `Bearer ${ticket.token}`, Origin: 'http://localhost:5173' },
  });
  assert.deepEqual({ status: got.status, bugs }, { status: 200, bugs: [] }, got.body);
});

test('a session holds at most 128 unused tickets (ASSET_TICKET_LIMIT_REACHED); using one makes room', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);
  const request = { sessionId, filename: 'a.txt', sizeBytes: 1 };
  const tickets: Message[] = [];
  for (let i = 0; i < 128; i++) tickets.push(await page.ok('create_asset_upload', request));
  const refused = await page.request('create_asset_upload', request);
  assert.equal(refused.ok, false);
  assert.equal(refused.error.code, 'ASSET_TICKET_LIMIT_REACHED');
  assert.equal(refused.error.details.limit, 128);
  // Downloads count too.
  assert.equal((await page.request('create_asset_download', { sessionId, path: '/a.txt' })).ok, false);

  const used = await fetch(tickets[0]!.uploadUrl, { method: 'PUT', headers: bearer(tickets[0]!.token), body: 'x' });
  assert.equal(used.status, 201);
  assert.equal((await page.request('create_asset_upload', request)).ok, true);
  // Another session has its own allowance.
  const other = await createSession(page);
  assert.equal((await page.request('create_asset_upload', { ...request, sessionId: other })).ok, true);
});

test('finding 4: all assets together have a quota (ASSET_QUOTA_EXCEEDED); tickets reserve it, ended sessions give it back', async (t) => {
  const core = await startCore(t, { assetQuotaBytes: 64 * 1024, assetTokenTtlMs: 300 });
  const page = await BridgeClient.open(t, core);
  const first = await createSession(page);
  const second = await createSession(page);
  const body = 'x'.repeat(40 * 1024);

  // Stored files count, in every session.
  assert.equal((await upload(page, first, { filename: 'big.txt', body })).response.status, 201);
  const over = await page.request('create_asset_upload', {
    sessionId: second,
    filename: 'b.txt',
    sizeBytes: body.length,
  });
  assert.equal(over.ok, false);
  assert.equal(over.error.code, 'ASSET_QUOTA_EXCEEDED');
  assert.deepEqual(over.error.details, { sizeBytes: body.length, quotaBytes: 64 * 1024, usedBytes: 40 * 1024 });
  // An empty file is not free (one 4 KiB block), so an empty-file flood ends too.
  let empties = 0;
  for (let i = 0; i < 10; i++) {
    const empty = await page.request('create_asset_upload', { sessionId: second, filename: `e${i}.txt`, sizeBytes: 0 });
    if (!empty.ok) {
      assert.equal(empty.error.code, 'ASSET_QUOTA_EXCEEDED');
      break;
    }
    const stored = await fetch(empty.result.uploadUrl, {
      method: 'PUT',
      headers: bearer(empty.result.token),
      body: '',
    });
    assert.equal(stored.status, 201);
    empties++;
  }
  assert.equal(empties, 6);
  // Artifacts count as well.
  const from = page.mark();
  await page.ok('send_text', { sessionId: second, text: '/artifact note.txt hello' });
  assert.match(chatText(await page.turnEnd(second, from)), /ASSET_QUOTA_EXCEEDED/);

  // Ending the session that holds the big file gives its share back.
  await page.ok('end_session', { sessionId: first });
  const ticket = await page.ok('create_asset_upload', { sessionId: second, filename: 'b.txt', sizeBytes: body.length });
  // An unused ticket holds its share until it expires.
  const held = await page.request('create_asset_upload', { sessionId: second, filename: 'c.txt', sizeBytes: 8 * 1024 });
  assert.equal(held.error?.code, 'ASSET_QUOTA_EXCEEDED');
  await delay(1400); // past the ticket's 300 ms and the once-a-second sweep
  assert.equal(
    (await page.request('create_asset_upload', { sessionId: second, filename: 'c.txt', sizeBytes: 8 * 1024 })).ok,
    true,
  );
  const late = await fetch(ticket.uploadUrl, { method: 'PUT', headers: bearer(ticket.token), body });
  assert.equal(late.status, 401);
});
