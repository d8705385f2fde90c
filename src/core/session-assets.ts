/**
 * A session's sandbox files (spec/sdk-api.md "Assets"): listing them, uploading a `File`, reading
 * one as text, JSON or a `File`. A transfer asks the bridge for a one-time ticket, then fetches its
 * URL with the ticket's bearer token and no credentials.
 */
import { invalidInput, keepError, normalizeError, pedelecError, protocolError, type PedelecError } from './errors.js';
import { fieldsOf, type JsonValue } from './json.js';
import type { ReadAssetType, SandboxAsset, SandboxAssetPath } from './types.js';

const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
/** The type of bytes whose type nobody named. */
const OCTET_STREAM = 'application/octet-stream';
const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;
const shapeError = (type: string) => protocolError(`${type} response had an invalid shape`);

/**
 * A valid sandbox asset path: rooted, single slashes, no segment empty, `.` or `..`, no `\` and no
 * control characters.
 */
export const isAssetPath = (path: unknown): path is SandboxAssetPath =>
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a path must not hold
  typeof path === 'string' && /^(\/(?!\.\.?(\/|$))[^/\\\x00-\x1f]+)+$/.test(path);

/** What the assets need from their session. */
export interface AssetsHost {
  /** A request about the session (its `sessionId` added). */
  request<T = unknown>(type: string, payload?: object): Promise<T>;
  /** Throws `SESSION_ENDED` once the session ended or while its `end()` is in flight. */
  checkUsable(): void;
  /** `SESSION_BUSY` for this session. */
  busy(): PedelecError;
}

/** A transfer ticket's request, what it must name, and how its failures are called. */
type Transfer = {
  type: 'create_asset_upload' | 'create_asset_download';
  payload: object;
  /** The ticket's string fields, the URL first. */
  keys: string[];
  code: 'ASSET_UPLOAD_FAILED' | 'ASSET_READ_FAILED';
  message: string;
  /** An upload's file, PUT with its content type; none: a GET. */
  upload?: { file: File; contentType: string };
};

export class SessionAssets {
  #uploading = false;

  constructor(private readonly host: AssetsHost) {}

  // Async methods: a check that throws becomes a rejection, and the first request is still posted
  // synchronously (an async function runs up to its first await at once).

  /** The files in the sandbox; a bad entry fails the whole list. */
  async list(): Promise<SandboxAsset[]> {
    this.host.checkUsable();
    const assets = (await this.host.request<{ assets?: unknown } | undefined>('list_assets'))?.assets;
    if (!Array.isArray(assets)) throw shapeError('list_assets');
    return assets.map((entry: unknown) => {
      const { name, path, sizeBytes, modifiedAt } = fieldsOf(entry);
      // The path being valid and ending in `name` also makes `name` a valid file name.
      const named = isAssetPath(path) && path.slice(path.lastIndexOf('/') + 1) === name;
      if (!named || !isCount(sizeBytes) || !isCount(modifiedAt)) throw shapeError('list_assets');
      return { name, path, sizeBytes, modifiedAt } as SandboxAsset;
    });
  }

  /**
   * Uploads a `File` (at most 100 MiB; one upload at a time) and resolves with its path. Checked in
   * the public SDK's order: ended, busy, then the file, its size and the target path.
   */
  async upload(file: File, targetPath?: string): Promise<SandboxAssetPath> {
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
      const [, response] = await this.#transfer({
        type: 'create_asset_upload',
        // The ticket names the file's own type, "" when it has none; only the PUT needs a fallback.
        payload: { filename: name, sizeBytes: size, mimeType: type, ...(given && { targetPath }) },
        keys: ['uploadUrl', 'token'],
        code: 'ASSET_UPLOAD_FAILED',
        message: 'Asset upload failed',
        upload: { file, contentType: type || OCTET_STREAM },
      });
      const path = ((await response.json().catch(() => undefined)) as { path?: unknown } | undefined)?.path;
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
    const [{ name, mimeType, modifiedAt }, response] = await this.#transfer({
      type: 'create_asset_download',
      payload: { path },
      keys: ['downloadUrl', 'token', 'name', 'mimeType'],
      code: 'ASSET_READ_FAILED',
      message: 'Asset read failed',
    });
    let bytes: ArrayBuffer;
    try {
      bytes = await response.arrayBuffer();
    } catch (thrown) {
      // The connection can still fail while the body streams in.
      throw normalizeError(thrown, 'ASSET_READ_FAILED', 'Asset read failed');
    }
    if (type === 'file') {
      const lastModified = typeof modifiedAt === 'number' ? { lastModified: modifiedAt } : {};
      return new File([bytes], name, { type: mimeType || OCTET_STREAM, ...lastModified });
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw pedelecError('ASSET_TEXT_DECODE_FAILED', 'asset is not valid UTF-8 text', { path });
    }
    if (type === 'text') return text;
    try {
      return JSON.parse(text) as JsonValue;
    } catch {
      throw pedelecError('ASSET_INVALID_JSON', 'asset is not valid JSON', { path });
    }
  }

  /**
   * Asks for a transfer ticket and checks it (a download ticket also names a valid path), then fetches
   * the URL with the ticket's bearer token and no credentials. Network and HTTP failures reject with
   * the transfer's code (or the server's own error).
   */
  async #transfer({ type, payload, keys, code, message, upload }: Transfer): Promise<[Record<string, any>, Response]> {
    const ticket = await this.host.request<Record<string, any> | undefined>(type, payload);
    if (keys.some((key) => typeof ticket?.[key] !== 'string') || (!upload && !isAssetPath(ticket!.path))) {
      throw shapeError(type);
    }
    let response: Response;
    try {
      response = await fetch(ticket![keys[0]!], {
        method: upload ? 'PUT' : 'GET',
        headers: { Authorization: `Bearer ${ticket!.token}`, ...(upload && { 'Content-Type': upload.contentType }) },
        body: upload?.file,
        credentials: 'omit',
      });
    } catch (thrown) {
      throw normalizeError(thrown, code, message);
    }
    if (!response.ok) {
      const { status } = response;
      const body = (await response.json().catch(() => undefined)) as { error?: unknown } | undefined;
      throw keepError(body?.error, pedelecError(code, `${message} (HTTP ${status})`, { status }));
    }
    return [ticket!, response];
  }
}
