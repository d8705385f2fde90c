/**
 * Drop-in compatibility with the public Pedelec SDK (sdk-compat.md §1): a session's sandbox files —
 * what uploadAsset resolves, the order of its checks, and MIME types both ways. Each rule is one test,
 * written as an SDK user's page calls the API, on the fake Chrome port and a fake `fetch`.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import type { AssetPath } from '../../../src/core/index.js';
import { rejection, track } from '../../support/promises.js';
import { fake, MiB, open, sessionHooks } from '../session/harness.js';

sessionHooks();

/** The fake `fetch`: every call recorded, answered by `respond`. */
let fetched: { url: string; init: RequestInit }[] = [];
let respond: (url: string) => Response = () => new Response(null, { status: 500 });
const realFetch = globalThis.fetch;
beforeEach(() => {
  fetched = [];
  globalThis.fetch = (async (url: RequestInfo | URL, init?: RequestInit) => {
    fetched.push({ url: String(url), init: init ?? {} });
    return respond(String(url));
  }) as typeof fetch;
});
afterEach(() => {
  globalThis.fetch = realFetch;
});

const UPLOAD_TICKET = { uploadId: 'u1', uploadUrl: 'http://127.0.0.1:9/upload/u1', token: 'up-token' };
const stored = (path: string) => () => Response.json({ path });

describe('SDK compatibility: assets', () => {
  it('uploadAsset resolves to the path string', async () => {
    const { session } = await open();
    respond = stored('/docs/notes.txt');
    const uploaded = session.uploadAsset(new File(['hello'], 'notes.txt', { type: 'text/plain' }), '/docs/notes.txt');
    await fake.answer('create_asset_upload', UPLOAD_TICKET);
    expect(await uploaded).to.equal('/docs/notes.txt');
  });

  it('uploadAsset checks: ended → SESSION_ENDED; an upload running → SESSION_BUSY; then file, size, target path', async () => {
    const { session } = await open();
    const bad = { notAFile: 'notes.txt' as unknown as File, tooBig: new File(['x'], 'big.bin'), path: 'no-slash' };
    Object.defineProperty(bad.tooBig, 'size', { value: 100 * MiB + 1 });
    const codeOf = async (file: File, targetPath?: string) =>
      (await rejection(session.uploadAsset(file, targetPath as AssetPath))).code;

    // Nothing running: the file first, then its size, then the path.
    expect(await codeOf(bad.notAFile, bad.path)).to.equal('INVALID_INPUT');
    expect(await codeOf(bad.tooBig, bad.path)).to.equal('ASSET_TOO_LARGE');
    expect(await codeOf(new File(['x'], 'a.txt'), bad.path)).to.equal('ASSET_PATH_INVALID');
    // An upload running: busy before anything about the file.
    const running = track(session.uploadAsset(new File(['x'], 'a.txt')));
    expect(await codeOf(bad.notAFile, bad.path)).to.equal('SESSION_BUSY');
    expect(await codeOf(bad.tooBig)).to.equal('SESSION_BUSY');
    // Ended: before all of it.
    session.detach();
    expect(await codeOf(bad.notAFile, bad.path)).to.equal('SESSION_ENDED');
    expect(running.state).to.equal('pending');
  });

  it('create_asset_upload names file.type as is ("" when empty); the PUT says application/octet-stream then', async () => {
    const { session } = await open();
    respond = stored('/blob.bin');
    const uploaded = session.uploadAsset(new File([new Uint8Array([1, 2, 3])], 'blob.bin'));
    const request = await fake.answer('create_asset_upload', UPLOAD_TICKET);
    expect(request).to.include({ filename: 'blob.bin', sizeBytes: 3, mimeType: '' });
    await uploaded;
    expect(new Headers(fetched[0]!.init.headers).get('Content-Type')).to.equal('application/octet-stream');

    // A typed file: its type both times.
    const typed = session.uploadAsset(new File(['{}'], 'data.json', { type: 'application/json' }));
    expect(fake.last('create_asset_upload')).to.include({ mimeType: 'application/json' });
    await fake.answer('create_asset_upload', UPLOAD_TICKET);
    await typed;
    expect(new Headers(fetched[1]!.init.headers).get('Content-Type')).to.equal('application/json');
  });

  it('a file read with an empty MIME type gets type application/octet-stream', async () => {
    const { session } = await open();
    respond = () => new Response(new Uint8Array([1, 2, 3]));
    const read = session.readAsset('/out/blob', 'file');
    await fake.answer('create_asset_download', {
      downloadUrl: 'http://127.0.0.1:9/download/d1',
      token: 'dl-token',
      name: 'blob',
      mimeType: '',
      modifiedAt: 1_700_000_000_000,
      path: '/out/blob',
    });
    const file = await read;
    expect(file).to.be.instanceOf(File);
    expect(file.type).to.equal('application/octet-stream');
    expect(file.name).to.equal('blob');
    expect(file.size).to.equal(3);
  });
});
