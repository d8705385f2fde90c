/**
 * Session assets: a temporary folder per session, reached through loopback URLs with one-time
 * tickets (tickets.ts), served over HTTP (asset-http.ts), under one byte quota over all sessions
 * (quota.ts). This file keeps the folders — where a session's files live, what they are, their
 * listing — and {@link AssetStore}, the one object the bridge and the server talk to, which composes
 * the parts.
 *
 * Nothing a page does here costs more than it asks for, and what it can ask for is capped: a session
 * holds a bounded number of unused tickets, expired tickets are swept at a bounded rate, and every
 * session's files count against one quota, in which an upload's declared size is reserved from its
 * ticket on.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { DevCoreError } from '../errors.js';
import { ASSET_URL_PREFIX, AssetHttp, type ExistingFile } from './asset-http.js';
import { assetName, isAssetPath } from './asset-paths.js';
import { AssetQuota, chargeOf, DEFAULT_ASSET_QUOTA_BYTES } from './quota.js';
import { MAX_TICKETS_PER_SESSION, TicketBook } from './tickets.js';

export { ASSET_URL_PREFIX, DEFAULT_ASSET_QUOTA_BYTES, isAssetPath, MAX_TICKETS_PER_SESSION };

export const MAX_ASSET_BYTES = 100 * 1024 * 1024;

export type AssetEntry = { name: string; path: string; sizeBytes: number; modifiedAt: number };

/** What the store remembers of a stored file: its charge against the quota and its declared type. */
type StoredFile = { charge: number; mimeType: string };

export type AssetOptions = {
  /** How long a ticket stays valid (60 s; tests shorten it). */
  ttlMs: number;
  maxBytes: number;
  /** All sessions' files together, in bytes ({@link DEFAULT_ASSET_QUOTA_BYTES}). */
  quotaBytes?: number;
  /** {@link MAX_TICKETS_PER_SESSION} unless a test says otherwise. */
  maxTicketsPerSession?: number;
  /** `http://127.0.0.1:<port>`, the start of the upload and download URLs. */
  baseUrl: string;
  /** May this origin read the answer (CORS)? */
  originAllowed(origin: string): boolean;
  /** Is the session still alive? A ticket dies with its session. */
  sessionAlive(sessionId: string): boolean;
};

export class AssetStore {
  private root: Promise<string> | null = null;
  /** Each session's stored files (written by this store, so the list is complete). */
  private readonly files = new Map<string, Map<string, StoredFile>>();
  private readonly quota: AssetQuota;
  private readonly tickets: TicketBook;
  private readonly http: AssetHttp;

  constructor(private readonly options: AssetOptions) {
    this.quota = new AssetQuota(options.quotaBytes ?? DEFAULT_ASSET_QUOTA_BYTES);
    this.tickets = new TicketBook(
      { ttlMs: options.ttlMs, maxTicketsPerSession: options.maxTicketsPerSession ?? MAX_TICKETS_PER_SESSION },
      this.quota,
    );
    this.http = new AssetHttp({
      prefix: ASSET_URL_PREFIX,
      tickets: this.tickets,
      quota: this.quota,
      folders: {
        fileOf: (sessionId, path) => this.fileOf(sessionId, path),
        partialFile: (_sessionId, name) => this.partialFile(name),
        existingFile: (sessionId, path) => this.existingFile(sessionId, path),
        recordFile: (sessionId, path, sizeBytes, mimeType) => this.recordFile(sessionId, path, sizeBytes, mimeType),
        dropSession: (sessionId) => this.dropSession(sessionId),
      },
      originAllowed: (origin) => options.originAllowed(origin),
      sessionAlive: (sessionId) => options.sessionAlive(sessionId),
    });
  }

  // ───────────────────────────── folders ─────────────────────────────

  private base(): Promise<string> {
    this.root ??= mkdtemp(join(tmpdir(), 'pedelec-dev-'));
    return this.root;
  }

  private async sessionDir(sessionId: string): Promise<string> {
    // Session ids are server-made (`session_<uuid>`), but the folder name is checked anyway.
    if (!/^[A-Za-z0-9_-]+$/.test(sessionId)) throw new DevCoreError('INVALID_INPUT', 'bad session id');
    return join(await this.base(), 'sessions', sessionId);
  }

  private async fileOf(sessionId: string, path: string): Promise<string> {
    return join(await this.sessionDir(sessionId), ...path.slice(1).split('/'));
  }

  /** Beside the sessions' folders: a file is written here, then renamed into place, never seen half-written. */
  private async partialFile(name: string): Promise<string> {
    return join(await this.base(), 'partial', name);
  }

  /** The file at `path` if it is a regular file really inside the session's folder. */
  private async existingFile(sessionId: string, path: string): Promise<ExistingFile | null> {
    try {
      const dir = await realpath(await this.sessionDir(sessionId));
      const real = await realpath(await this.fileOf(sessionId, path));
      if (!real.startsWith(dir + sep)) return null;
      const info = await stat(real);
      return info.isFile() ? { real, size: info.size, modifiedAt: Math.floor(info.mtimeMs) } : null;
    } catch {
      return null;
    }
  }

  /** A stored file (new or replacing one): its charge replaces the old one's. */
  private recordFile(sessionId: string, path: string, sizeBytes: number, mimeType: string): void {
    if (!this.options.sessionAlive(sessionId)) return; // ended meanwhile: dropSession deleted the folder
    let files = this.files.get(sessionId);
    if (!files) this.files.set(sessionId, (files = new Map<string, StoredFile>()));
    const charge = chargeOf(sizeBytes);
    this.quota.store(charge, files.get(path)?.charge ?? 0);
    files.set(path, { charge, mimeType });
  }

  // ───────────────────────────── bridge requests ─────────────────────────────

  async list(sessionId: string): Promise<AssetEntry[]> {
    const dir = await this.sessionDir(sessionId);
    const out: AssetEntry[] = [];
    const walk = async (folder: string, prefix: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(folder, { withFileTypes: true });
      } catch {
        return; // No folder yet: no assets.
      }
      for (const entry of entries) {
        const path = `${prefix}/${entry.name}`;
        if (entry.isDirectory()) await walk(join(folder, entry.name), path);
        else if (entry.isFile()) {
          const info = await stat(join(folder, entry.name));
          out.push({ name: entry.name, path, sizeBytes: info.size, modifiedAt: Math.floor(info.mtimeMs) });
        }
      }
    };
    await walk(dir, '');
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  createUpload(
    sessionId: string,
    request: Record<string, unknown>,
  ): { uploadId: string; uploadUrl: string; token: string } {
    const { filename, sizeBytes, mimeType, targetPath } = request;
    if (
      typeof filename !== 'string' ||
      filename === '' ||
      filename === '.' ||
      filename === '..' ||
      // eslint-disable-next-line no-control-regex -- control characters are exactly what a path must not hold
      /[/\\\x00-\x1f]/.test(filename)
    ) {
      throw new DevCoreError('INVALID_INPUT', 'filename must be a plain file name');
    }
    if (!Number.isInteger(sizeBytes) || (sizeBytes as number) < 0)
      throw new DevCoreError('INVALID_INPUT', 'sizeBytes must be a non-negative integer');
    if ((sizeBytes as number) > this.options.maxBytes) {
      throw new DevCoreError('ASSET_TOO_LARGE', `Assets are limited to ${this.options.maxBytes} bytes`, {
        sizeBytes,
        limit: this.options.maxBytes,
      });
    }
    // It becomes the download's Content-Type: a value no HTTP header can carry would fail every download.
    if (mimeType !== undefined && (typeof mimeType !== 'string' || /[^\t\x20-\x7e]/.test(mimeType))) {
      throw new DevCoreError('INVALID_INPUT', 'mimeType must be a string of printable ASCII (a Content-Type)');
    }
    const path = targetPath === undefined ? `/${filename}` : targetPath;
    if (!isAssetPath(path))
      throw new DevCoreError('ASSET_PATH_INVALID', 'targetPath is not a valid asset path', { path });
    const ticket = this.tickets.issue(
      'upload',
      sessionId,
      path,
      sizeBytes as number,
      mimeType || 'application/octet-stream',
      { reserve: chargeOf(sizeBytes as number) },
    );
    return {
      uploadId: ticket.id,
      uploadUrl: `${this.options.baseUrl}${ASSET_URL_PREFIX}upload/${ticket.id}`,
      token: ticket.token.toString('hex'),
    };
  }

  /**
   * Stores a file an agent made (a published artifact) in the session's folder, where `list_assets`
   * and `create_asset_download` find it like an upload. It is written beside the folder and renamed
   * into place, as uploads are, so a download never sees half a file.
   */
  async writeFile(sessionId: string, path: string, content: Buffer, mimeType: string): Promise<AssetEntry> {
    if (!isAssetPath(path)) throw new DevCoreError('ASSET_PATH_INVALID', 'not a valid asset path', { path });
    if (content.length > this.options.maxBytes) {
      throw new DevCoreError('ASSET_TOO_LARGE', `Assets are limited to ${this.options.maxBytes} bytes`, {
        sizeBytes: content.length,
        limit: this.options.maxBytes,
      });
    }
    // It becomes the download's Content-Type (see createUpload).
    if (/[^\t\x20-\x7e]/.test(mimeType))
      throw new DevCoreError('INVALID_INPUT', 'mimeType must be a string of printable ASCII (a Content-Type)');
    if (!this.options.sessionAlive(sessionId))
      throw new DevCoreError('SESSION_ENDED', 'The session has ended', { sessionId });
    const reservation = { reserved: 0 };
    this.quota.reserve(reservation, chargeOf(content.length), content.length);
    try {
      return await this.storeFile(sessionId, path, content, mimeType);
    } finally {
      this.quota.release(reservation);
    }
  }

  private async storeFile(sessionId: string, path: string, content: Buffer, mimeType: string): Promise<AssetEntry> {
    const target = await this.fileOf(sessionId, path);
    const partial = await this.partialFile(randomUUID());
    try {
      await mkdir(dirname(partial), { recursive: true });
      await mkdir(dirname(target), { recursive: true });
      await writeFile(partial, content);
      const existing = await stat(target).catch(() => null);
      if (existing?.isDirectory()) throw new DevCoreError('ASSET_PATH_CONFLICT', `${path} is a folder`);
      await rename(partial, target);
    } catch (thrown) {
      await rm(partial, { force: true }).catch(() => {});
      if (thrown instanceof DevCoreError) throw thrown;
      const onTheWay = ['ENOTDIR', 'EEXIST'].includes((thrown as NodeJS.ErrnoException)?.code ?? '');
      if (onTheWay) throw new DevCoreError('ASSET_PATH_CONFLICT', `${path}: a folder on the way is a file`);
      throw new DevCoreError('ASSET_WRITE_FAILED', `${path} could not be stored`);
    }
    // The session may have ended while the file was written: its folder is gone, and must stay gone.
    if (!this.options.sessionAlive(sessionId)) {
      await this.dropSession(sessionId);
      throw new DevCoreError('SESSION_ENDED', 'The session has ended', { sessionId });
    }
    const info = await stat(target);
    this.recordFile(sessionId, path, info.size, mimeType);
    return { name: assetName(path), path, sizeBytes: info.size, modifiedAt: Math.floor(info.mtimeMs) };
  }

  async createDownload(sessionId: string, path: unknown): Promise<Record<string, unknown>> {
    if (!isAssetPath(path)) throw new DevCoreError('ASSET_PATH_INVALID', 'path is not a valid asset path', { path });
    const file = await this.existingFile(sessionId, path);
    if (!file) throw new DevCoreError('ASSET_NOT_FOUND', `No asset at ${path}`, { path });
    const mimeType = this.files.get(sessionId)?.get(path)?.mimeType ?? 'application/octet-stream';
    const ticket = this.tickets.issue('download', sessionId, path, file.size, mimeType);
    return {
      downloadUrl: `${this.options.baseUrl}${ASSET_URL_PREFIX}download/${ticket.id}`,
      token: ticket.token.toString('hex'),
      name: assetName(path),
      mimeType,
      modifiedAt: file.modifiedAt,
      path,
    };
  }

  // ───────────────────────────── lifetime and HTTP ─────────────────────────────

  /** Forgets a session's tickets and files, gives back their quota, and deletes its folder. */
  async dropSession(sessionId: string): Promise<void> {
    this.tickets.dropSession(sessionId);
    for (const file of this.files.get(sessionId)?.values() ?? []) this.quota.unstore(file.charge);
    this.files.delete(sessionId);
    if (!this.root) return;
    await rm(await this.sessionDir(sessionId), { recursive: true, force: true }).catch(() => {});
  }

  async dispose(): Promise<void> {
    this.tickets.clear();
    this.files.clear();
    if (this.root) await rm(await this.root, { recursive: true, force: true }).catch(() => {});
  }

  /** Serves `/_pedelec/assets/{upload,download}/<id>`; `rawPath` has no query (see asset-http.ts). */
  handle(req: IncomingMessage, res: ServerResponse, rawPath: string, query: URLSearchParams): Promise<void> {
    return this.http.handle(req, res, rawPath, query);
  }
}
