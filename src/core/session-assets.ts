/**
 * A session's asset files (docs/design/sdk-api.md "Assets"): listing them, uploading a `File`, reading one
 * as text, JSON or a `File`. What is checked before a request, and the request itself, happen at once;
 * the code that handles the answer (file-transfers.ts) is loaded meanwhile, on first use.
 */
import { isAssetPath } from './asset-path.js';
import type { BridgeRequestType } from './bridge-messages.js';
import { invalidInput, pedelecError, protocolError, type PedelecError } from './errors.js';
import type { JsonValue } from './json.js';
import { lazyModule } from './lazy-module.js';
import type { Asset, AssetPath, ReadAssetType } from './types.js';

const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
const loadTransfers = lazyModule(() => import('./file-transfers.js'), "the kit's file transfer code");

/** What the assets need from their session. */
export interface AssetsHost {
  /** A request about the session (its `sessionId` added). */
  request<T = unknown>(type: BridgeRequestType, payload?: object): Promise<T>;
  /** Throws `SESSION_ENDED` once the session ended or while its `end()` is in flight. */
  checkUsable(): void;
  /** `SESSION_BUSY` for this session. */
  busy(): PedelecError;
}

export class SessionAssets {
  #uploading = false;

  constructor(private readonly host: AssetsHost) {}

  // Async methods: a check that throws becomes a rejection, and the request is still posted
  // synchronously (an async function runs up to its first await at once).

  /** The files in the session's assets; a bad entry fails the whole list. */
  async list(): Promise<Asset[]> {
    this.host.checkUsable();
    const [answer, transfers] = await Promise.all([this.host.request('list_assets'), loadTransfers()]);
    return transfers.readAssetList(answer);
  }

  /**
   * Uploads a `File` (at most 100 MiB; one upload at a time) and resolves with its path. Checked in
   * the public SDK's order: ended, busy, then the file, its size and the target path.
   */
  async upload(file: File, targetPath?: string): Promise<AssetPath> {
    this.host.checkUsable();
    if (this.#uploading) throw this.host.busy();
    if (typeof File === 'undefined' || !(file instanceof File) || !file.name) {
      throw invalidInput('file must be a File with a name');
    }
    const { name, size, type } = file;
    if (size > MAX_UPLOAD_BYTES) {
      throw pedelecError('ASSET_TOO_LARGE', 'file is larger than 100 MiB', { sizeBytes: size });
    }
    const given = targetPath !== undefined;
    if (given && !isAssetPath(targetPath)) {
      throw pedelecError('ASSET_PATH_INVALID', 'targetPath is not a valid asset path', { path: targetPath });
    }
    this.#uploading = true;
    try {
      // The ticket names the file's own type, "" when it has none; only the PUT needs a fallback.
      const payload = { filename: name, sizeBytes: size, mimeType: type, ...(given && { targetPath }) };
      const [ticket, transfers] = await Promise.all([
        this.host.request('create_asset_upload', payload),
        loadTransfers(),
      ]);
      const failure = { code: 'ASSET_UPLOAD_FAILED', message: 'Asset upload failed' };
      const path = await transfers.uploadWith('create_asset_upload', ticket, file, failure);
      if (!isAssetPath(path) || (given && path !== targetPath)) {
        throw protocolError('asset upload response had an invalid path');
      }
      return path;
    } finally {
      this.#uploading = false;
    }
  }

  /** Reads a file as text, parsed JSON, or a `File`. */
  async read(path: string, type: ReadAssetType): Promise<string | JsonValue | File> {
    this.host.checkUsable();
    if (!isAssetPath(path) || !['text', 'json', 'file'].includes(type)) {
      throw pedelecError('ASSET_PATH_INVALID', 'path or type is not valid for readAsset', { path, type });
    }
    const [ticket, transfers] = await Promise.all([
      this.host.request('create_asset_download', { path }),
      loadTransfers(),
    ]);
    return transfers.downloadWith('create_asset_download', ticket, type, isAssetPath, {
      path,
      code: 'ASSET_READ_FAILED',
      message: 'Asset read failed',
      undecodable: { code: 'ASSET_TEXT_DECODE_FAILED', message: 'asset is not valid UTF-8 text' },
      notJson: { code: 'ASSET_INVALID_JSON', message: 'asset is not valid JSON' },
    });
  }
}
