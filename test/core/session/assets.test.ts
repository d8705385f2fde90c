/**
 * Session assets (docs/design/sdk-api.md "Assets"): isAssetPath, listAssets, uploadAsset and readAsset — the
 * ticket requests, the HTTP transfer through a fake fetch, every failure — and all of them once the
 * session has ended.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import { expect } from '../../support/expect.js';
import { PedelecSession, type AssetPath } from '../../../src/core/index.js';
import { isAssetPath } from '../../../src/core/asset-path.js';
import type {} from '../../../src/core/errors.js';
import { fake, MiB, track, expectPedelecError, open, openAnother, postedOf, sessionHooks } from './harness.js';
import { rejection as rejectionOf, settled } from '../../support/promises.js';

sessionHooks();

/** A fake `fetch`, installed per test and restored afterwards. */
type FetchCall = { url: string; init: RequestInit };
let fetchCalls: FetchCall[] = [];
let fetchImpl: (url: string, init: RequestInit) => Promise<Response>;
const realFetch = globalThis.fetch;

const jsonResponse = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

beforeEach(() => {
  fetchCalls = [];
  fetchImpl = () => Promise.reject(new TypeError('no fetch expected in this test'));
  globalThis.fetch = ((url: RequestInfo | URL, init?: RequestInit) => {
    fetchCalls.push({ url: String(url), init: init ?? {} });
    return fetchImpl(String(url), init ?? {});
  }) as typeof fetch;
});

afterEach(() => {
  globalThis.fetch = realFetch;
});

describe('isAssetPath', () => {
  it('accepts rooted paths of non-empty segments', () => {
    for (const p of ['/a', '/a.txt', '/dir/file.json', '/a/b/c/d', '/with space/ü.txt', '/...', '/.hidden', '/a..b']) {
      expect(isAssetPath(p), p).to.equal(true);
    }
  });

  it('rejects everything else', () => {
    const bad: unknown[] = [
      '',
      '/',
      'a',
      'a/b',
      '//a',
      '/a//b',
      '/a/',
      '/.',
      '/..',
      '/a/./b',
      '/a/../b',
      '/a/..',
      '/a\\b',
      '\\a',
      '/a\u0000b',
      '/a\u001fb',
      '/a\nb',
      '/a\tb',
      42,
      null,
      undefined,
      ['/a'],
    ];
    for (const p of bad) expect(isAssetPath(p), JSON.stringify(p)).to.equal(false);
  });
});

describe('PedelecSession.listAssets', () => {
  const good = { name: 'notes.txt', path: '/docs/notes.txt', sizeBytes: 12, modifiedAt: 1_700_000_000_000 };

  it('posts list_assets { sessionId } at once and returns the entries', async () => {
    const { session } = await open();
    const listed = session.listAssets();
    const msg = fake.last();
    expect(msg).to.include({ type: 'list_assets', sessionId: 's1' });
    expect(Object.keys(msg).sort()).to.deep.equal(['channelId', 'requestId', 'sessionId', 'type']);
    const root = { name: 'a', path: '/a', sizeBytes: 0, modifiedAt: 0 };
    fake.respond({ assets: [good, root] }, msg);
    expect(await listed).to.deep.equal([good, root]);
  });

  it('accepts an empty list', async () => {
    const { session } = await open();
    const listed = session.listAssets();
    fake.respond({ assets: [] }, fake.last('list_assets'));
    expect(await listed).to.deep.equal([]);
  });

  const badEntries: [string, unknown][] = [
    ['empty name', { ...good, name: '', path: '/docs/' }],
    ['name with /', { ...good, name: 'a/b', path: '/a/b' }],
    ['name with \\', { ...good, name: 'a\\b', path: '/docs/a\\b' }],
    ['name .', { ...good, name: '.', path: '/docs/.' }],
    ['name ..', { ...good, name: '..', path: '/docs/..' }],
    ['name not a string', { ...good, name: 5 }],
    ['missing name', { path: good.path, sizeBytes: 1, modifiedAt: 1 }],
    ['invalid path', { ...good, path: 'docs/notes.txt' }],
    ['path with empty segment', { ...good, path: '/docs//notes.txt' }],
    ['last segment differs from name', { ...good, path: '/docs/other.txt' }],
    ['missing path', { name: 'x', sizeBytes: 1, modifiedAt: 1 }],
    ['negative sizeBytes', { ...good, sizeBytes: -1 }],
    ['fractional sizeBytes', { ...good, sizeBytes: 1.5 }],
    ['string sizeBytes', { ...good, sizeBytes: '12' }],
    ['negative modifiedAt', { ...good, modifiedAt: -5 }],
    ['fractional modifiedAt', { ...good, modifiedAt: 0.5 }],
    ['missing modifiedAt', { name: good.name, path: good.path, sizeBytes: 1 }],
    ['null entry', null],
    ['string entry', '/docs/notes.txt'],
  ];
  for (const [label, entry] of badEntries) {
    it(`rejects SDK_PROTOCOL_ERROR "list_assets response had an invalid shape" for ${label}`, async () => {
      const { session } = await open();
      const listed = session.listAssets();
      fake.respond({ assets: [good, entry] }, fake.last('list_assets'));
      const error = await rejectionOf(listed);
      expectPedelecError(error, 'SDK_PROTOCOL_ERROR');
      expect(error.message).to.equal('list_assets response had an invalid shape');
    });
  }

  it('rejects SDK_PROTOCOL_ERROR when assets is not an array', async () => {
    const { session } = await open();
    const listed = session.listAssets();
    fake.respond({ assets: { a: good } }, fake.last('list_assets'));
    const error = await rejectionOf(listed);
    expectPedelecError(error, 'SDK_PROTOCOL_ERROR');
    expect(error.message).to.equal('list_assets response had an invalid shape');
  });

  it('passes a failed request through', async () => {
    const { session } = await open();
    const listed = session.listAssets();
    fake.fail({ code: 'APPROVAL_REJECTED', message: 'no' }, fake.last('list_assets'));
    expect(await rejectionOf(listed)).to.deep.equal({ code: 'APPROVAL_REJECTED', message: 'no', details: undefined });
  });
});

describe('PedelecSession.uploadAsset', () => {
  const ticket = { uploadId: 'u1', uploadUrl: 'http://127.0.0.1:9/upload/u1', token: 'tok-123' };
  const textFile = () => new File(['hello'], 'notes.txt', { type: 'text/plain' });

  it('rejects INVALID_INPUT for anything but a File with a name, posting nothing', async () => {
    const { session } = await open();
    const count = fake.posted.length;
    const notFiles: unknown[] = [
      new Blob(['x']),
      { name: 'a.txt', size: 1, type: 'text/plain' },
      null,
      undefined,
      'a.txt',
      new File(['x'], ''),
    ];
    for (const value of notFiles) {
      const error = await rejectionOf(session.uploadAsset(value as File));
      expectPedelecError(error, 'INVALID_INPUT');
    }
    expect(fake.posted.length).to.equal(count);
  });

  it('rejects ASSET_TOO_LARGE over 100 MiB; exactly 100 MiB is accepted', async () => {
    const { session } = await open();
    const count = fake.posted.length;
    const big = Object.defineProperty(new File(['x'], 'big.bin'), 'size', { value: 100 * MiB + 1 });
    expect(big).to.be.instanceOf(File);
    expectPedelecError(await rejectionOf(session.uploadAsset(big)), 'ASSET_TOO_LARGE');
    expect(fake.posted.length).to.equal(count);

    const limit = Object.defineProperty(new File(['x'], 'limit.bin'), 'size', { value: 100 * MiB });
    track(session.uploadAsset(limit));
    expect(fake.last()).to.include({ type: 'create_asset_upload', sizeBytes: 100 * MiB });
  });

  it('rejects ASSET_PATH_INVALID for a bad targetPath, posting nothing', async () => {
    const { session } = await open();
    const count = fake.posted.length;
    for (const target of ['notes.txt', '/', '/a//b', '/a/../b', '/a/./b', '/a\\b', '/a/', '', '/a\u0001b']) {
      expectPedelecError(await rejectionOf(session.uploadAsset(textFile(), target as AssetPath)), 'ASSET_PATH_INVALID');
    }
    expect(fake.posted.length).to.equal(count);
  });

  it('posts create_asset_upload { sessionId, filename, sizeBytes, mimeType, targetPath } at once', async () => {
    const { session, client } = await open();
    track(session.uploadAsset(textFile(), '/docs/notes.txt'));
    expect(fake.last()).to.deep.equal({
      channelId: client.channelId,
      type: 'create_asset_upload',
      requestId: fake.last().requestId,
      sessionId: 's1',
      filename: 'notes.txt',
      sizeBytes: 5,
      mimeType: 'text/plain',
      targetPath: '/docs/notes.txt',
    });
  });

  it('without targetPath the ticket request has no targetPath value', async () => {
    const { session } = await open();
    track(session.uploadAsset(textFile()));
    expect(fake.last()).to.include({
      type: 'create_asset_upload',
      filename: 'notes.txt',
      sizeBytes: 5,
      sessionId: 's1',
    });
    expect(fake.last().targetPath).to.equal(undefined);
  });

  it('PUTs the file to uploadUrl with the bearer token, its Content-Type and credentials omit; resolves the path', async () => {
    const { session } = await open();
    fetchImpl = async () => jsonResponse({ path: '/docs/notes.txt' });
    const file = textFile();
    const uploaded = session.uploadAsset(file, '/docs/notes.txt');
    fake.respond(ticket, fake.last('create_asset_upload'));
    expect(await uploaded).to.equal('/docs/notes.txt');
    expect(fetchCalls).to.have.length(1);
    const { url, init } = fetchCalls[0];
    expect(url).to.equal(ticket.uploadUrl);
    expect(init.method).to.equal('PUT');
    const headers = new Headers(init.headers);
    expect(headers.get('Authorization')).to.equal('Bearer tok-123');
    expect(headers.get('Content-Type')).to.equal('text/plain');
    expect(init.body).to.equal(file);
    expect(init.credentials).to.equal('omit');
  });

  it('uses application/octet-stream when the file has no type, and accepts any valid path without targetPath', async () => {
    const { session } = await open();
    fetchImpl = async () => jsonResponse({ path: '/blob.bin' });
    const uploaded = session.uploadAsset(new File([new Uint8Array([1, 2, 3])], 'blob.bin'));
    fake.respond(ticket, fake.last('create_asset_upload'));
    expect(await uploaded).to.equal('/blob.bin');
    expect(new Headers(fetchCalls[0].init.headers).get('Content-Type')).to.equal('application/octet-stream');
  });

  const badBodies: [string, () => Response, string | undefined][] = [
    ['a path different from targetPath', () => jsonResponse({ path: '/docs/other.txt' }), '/docs/notes.txt'],
    ['an invalid path', () => jsonResponse({ path: 'docs/notes.txt' }), undefined],
    ['a path with ..', () => jsonResponse({ path: '/docs/../x' }), undefined],
    ['no path', () => jsonResponse({ ok: true }), undefined],
    ['a body that is not JSON', () => new Response('done', { status: 200 }), undefined],
  ];
  for (const [label, body, target] of badBodies) {
    it(`rejects SDK_PROTOCOL_ERROR when the upload response has ${label}`, async () => {
      const { session } = await open();
      fetchImpl = async () => body();
      const uploaded = session.uploadAsset(textFile(), target as AssetPath);
      fake.respond(ticket, fake.last('create_asset_upload'));
      expectPedelecError(await rejectionOf(uploaded), 'SDK_PROTOCOL_ERROR');
    });
  }

  it('an HTTP failure rejects with the response error when it has one', async () => {
    const { session } = await open();
    const quota = { code: 'ASSET_QUOTA_EXCEEDED', message: 'sandbox full', details: { limit: 10 } };
    fetchImpl = async () => jsonResponse({ error: quota }, 413);
    const uploaded = session.uploadAsset(textFile());
    fake.respond(ticket, fake.last('create_asset_upload'));
    expect(await rejectionOf(uploaded)).to.deep.equal(quota);
  });

  it('an HTTP failure without an error rejects ASSET_UPLOAD_FAILED', async () => {
    const { session } = await open();
    fetchImpl = async () => new Response('Internal error', { status: 500 });
    const uploaded = session.uploadAsset(textFile());
    fake.respond(ticket, fake.last('create_asset_upload'));
    expectPedelecError(await rejectionOf(uploaded), 'ASSET_UPLOAD_FAILED');
  });

  it('an HTTP failure whose error is malformed rejects ASSET_UPLOAD_FAILED', async () => {
    const { session } = await open();
    fetchImpl = async () => jsonResponse({ error: 'nope' }, 400);
    const uploaded = session.uploadAsset(textFile());
    fake.respond(ticket, fake.last('create_asset_upload'));
    expectPedelecError(await rejectionOf(uploaded), 'ASSET_UPLOAD_FAILED');
  });

  it('a network failure rejects ASSET_UPLOAD_FAILED', async () => {
    const { session } = await open();
    fetchImpl = () => Promise.reject(new TypeError('Failed to fetch'));
    const uploaded = session.uploadAsset(textFile());
    fake.respond(ticket, fake.last('create_asset_upload'));
    expectPedelecError(await rejectionOf(uploaded), 'ASSET_UPLOAD_FAILED');
  });

  it('allows one upload at a time (SESSION_BUSY), and another once it settled', async () => {
    const { session } = await open();
    const first = track(session.uploadAsset(textFile(), '/one.txt'));
    const count = fake.posted.length;
    expectPedelecError(await rejectionOf(session.uploadAsset(textFile(), '/two.txt')), 'SESSION_BUSY');
    expect(fake.posted.length).to.equal(count);

    fake.fail({ code: 'APPROVAL_REJECTED', message: 'no' }, fake.last('create_asset_upload'));
    await settled(first.promise);
    expect(first.rejected).to.equal(true);

    fetchImpl = async () => jsonResponse({ path: '/three.txt' });
    const third = session.uploadAsset(textFile(), '/three.txt');
    expect(postedOf('create_asset_upload')).to.have.length(2);
    fake.respond(ticket, fake.last('create_asset_upload'));
    expect(await third).to.equal('/three.txt');

    track(session.uploadAsset(textFile(), '/four.txt'));
    expect(postedOf('create_asset_upload')).to.have.length(3);
  });

  it('an upload of another session does not make this one busy', async () => {
    const { session, client } = await open();
    const other = await openAnother(client, 's2');
    track(other.uploadAsset(textFile()));
    track(session.uploadAsset(textFile()));
    expect(postedOf('create_asset_upload').map((m) => m.sessionId)).to.deep.equal(['s2', 's1']);
  });
});

describe('PedelecSession.readAsset', () => {
  const ticket = {
    downloadUrl: 'http://127.0.0.1:9/download/d1',
    token: 'dl-token',
    name: 'data.json',
    mimeType: 'application/json',
    modifiedAt: 1_700_000_000_000,
    path: '/docs/data.json',
  };
  const bytesResponse = (bytes: BlobPart) => new Response(new Blob([bytes]), { status: 200 });

  async function read(type: 'text' | 'json' | 'file', body: () => Response, t: object = ticket) {
    const { session } = await open();
    fetchImpl = async () => body();
    const reading = session.readAsset('/docs/data.json', type as 'text');
    fake.respond(t, fake.last('create_asset_download'));
    return { reading: reading as Promise<unknown>, session };
  }

  it('rejects ASSET_PATH_INVALID for a bad path or type, posting nothing', async () => {
    const { session } = await open();
    const count = fake.posted.length;
    for (const p of ['docs/a.txt', '/', '/a/../b', '/a//b', '/a\\b', '']) {
      expectPedelecError(await rejectionOf(session.readAsset(p, 'text')), 'ASSET_PATH_INVALID');
    }
    for (const type of ['blob', 'TEXT', '', undefined]) {
      expectPedelecError(await rejectionOf(session.readAsset('/a.txt', type as 'text')), 'ASSET_PATH_INVALID');
    }
    expect(fake.posted.length).to.equal(count);
  });

  it('posts create_asset_download { sessionId, path } at once', async () => {
    const { session } = await open();
    track(session.readAsset('/docs/data.json', 'text'));
    const msg = fake.last();
    expect(msg).to.include({ type: 'create_asset_download', sessionId: 's1', path: '/docs/data.json' });
    expect(Object.keys(msg).sort()).to.deep.equal(['channelId', 'path', 'requestId', 'sessionId', 'type']);
  });

  const badTickets: [string, object][] = [
    ['no downloadUrl', { ...ticket, downloadUrl: undefined }],
    ['no token', { ...ticket, token: undefined }],
    ['a non-string token', { ...ticket, token: 5 }],
    ['no name', { ...ticket, name: undefined }],
    ['an invalid path', { ...ticket, path: 'docs/data.json' }],
  ];
  for (const [label, bad] of badTickets) {
    it(`rejects SDK_PROTOCOL_ERROR for a ticket with ${label}, without fetching`, async () => {
      const { reading } = await read('text', () => bytesResponse('x'), bad);
      expectPedelecError(await rejectionOf(reading), 'SDK_PROTOCOL_ERROR');
      expect(fetchCalls).to.have.length(0);
    });
  }

  it('GETs downloadUrl with the bearer token and credentials omit; "text" resolves the text', async () => {
    const { reading } = await read('text', () => bytesResponse('héllo ✓'));
    expect(await reading).to.equal('héllo ✓');
    expect(fetchCalls).to.have.length(1);
    const { url, init } = fetchCalls[0];
    expect(url).to.equal(ticket.downloadUrl);
    expect((init.method ?? 'GET').toUpperCase()).to.equal('GET');
    expect(new Headers(init.headers).get('Authorization')).to.equal('Bearer dl-token');
    expect(init.credentials).to.equal('omit');
  });

  it('"json" resolves the parsed value', async () => {
    const { reading } = await read('json', () => bytesResponse('{"a":[1,2,{"b":null}],"c":"d"}'));
    expect(await reading).to.deep.equal({ a: [1, 2, { b: null }], c: 'd' });
  });

  it('"file" resolves a File named from the ticket with the bytes', async () => {
    const bytes = new Uint8Array([0xff, 0x00, 0x41, 0xfe]);
    const { reading } = await read('file', () => bytesResponse(bytes), {
      ...ticket,
      name: 'image.bin',
      mimeType: 'application/octet-stream',
    });
    const file = (await reading) as File;
    expect(file).to.be.instanceOf(File);
    expect(file.name).to.equal('image.bin');
    expect(Array.from(new Uint8Array(await file.arrayBuffer()))).to.deep.equal([0xff, 0x00, 0x41, 0xfe]);
  });

  it('invalid UTF-8 rejects ASSET_TEXT_DECODE_FAILED (text and json)', async () => {
    const invalid = () => bytesResponse(new Uint8Array([0x61, 0xff, 0xfe, 0x62]));
    expectPedelecError(await rejectionOf((await read('text', invalid)).reading), 'ASSET_TEXT_DECODE_FAILED');
    expectPedelecError(await rejectionOf((await read('json', invalid)).reading), 'ASSET_TEXT_DECODE_FAILED');
  });

  it('bad JSON rejects ASSET_INVALID_JSON', async () => {
    const { reading } = await read('json', () => bytesResponse('{"a":'));
    expectPedelecError(await rejectionOf(reading), 'ASSET_INVALID_JSON');
  });

  it('an HTTP failure rejects with the response error when it has one', async () => {
    const missing = { code: 'ASSET_NOT_FOUND', message: 'no such file' };
    const { reading } = await read('text', () => jsonResponse({ error: missing }, 404));
    expect(await rejectionOf(reading)).to.deep.equal({ ...missing, details: undefined });
  });

  it('an HTTP failure without an error rejects ASSET_READ_FAILED', async () => {
    const { reading } = await read('text', () => new Response('gone', { status: 410 }));
    expectPedelecError(await rejectionOf(reading), 'ASSET_READ_FAILED');
  });

  it('a connection lost while the body streams in rejects ASSET_READ_FAILED (a PedelecError, not an Error)', async () => {
    const { session } = await open();
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"par'));
        controller.error(new TypeError('network connection lost'));
      },
    });
    fetchImpl = () => Promise.resolve(new Response(body, { status: 200 }));
    const reading = session.readAsset('/docs/data.json', 'text');
    fake.respond(ticket, fake.last('create_asset_download'));
    const error = await rejectionOf(reading);
    expect(error instanceof Error).to.equal(false);
    expectPedelecError(error, 'ASSET_READ_FAILED');
  });

  it('a network failure rejects ASSET_READ_FAILED', async () => {
    const { session } = await open();
    fetchImpl = () => Promise.reject(new TypeError('NetworkError when attempting to fetch resource.'));
    const reading = session.readAsset('/docs/data.json', 'text');
    fake.respond(ticket, fake.last('create_asset_download'));
    expectPedelecError(await rejectionOf(reading), 'ASSET_READ_FAILED');
  });
});

describe('PedelecSession assets once ended', () => {
  const file = () => new File(['x'], 'a.txt', { type: 'text/plain' });

  async function expectAllEnded(session: PedelecSession): Promise<void> {
    const count = fake.posted.length;
    for (const attempt of [
      () => session.listAssets(),
      () => session.uploadAsset(file(), '/a.txt'),
      () => session.readAsset('/a.txt', 'text'),
    ]) {
      expectPedelecError(await rejectionOf(attempt()), 'SESSION_ENDED', { sessionId: session.sessionId });
    }
    expect(fake.posted.length, 'nothing posted').to.equal(count);
    expect(fetchCalls).to.have.length(0);
  }

  it('reject SESSION_ENDED with no request after end()', async () => {
    const { session } = await open();
    const ending = session.end();
    fake.respond({}, fake.last('end_session'));
    await ending;
    await expectAllEnded(session);
  });

  it('reject SESSION_ENDED with no request after an ended event', async () => {
    const { session } = await open();
    fake.event('s1', 'ended');
    await expectAllEnded(session);
  });

  it('reject SESSION_ENDED with no request while end() is in flight', async () => {
    const { session } = await open();
    track(session.end());
    await expectAllEnded(session);
  });

  it('work again after a failed end()', async () => {
    const { session } = await open();
    const ending = track(session.end());
    fake.fail({ code: 'F', message: 'f' }, fake.last('end_session'));
    await settled(ending.promise);
    expect(ending.rejected).to.equal(true);
    track(session.listAssets());
    expect(fake.last()).to.include({ type: 'list_assets', sessionId: 's1' });
  });
});
