/**
 * Session assets: a temporary folder per session, reached through loopback URLs with one-time
 * tickets. A ticket is 128 random bits, valid for a short time (60 s), bound to one session, one path
 * and one direction, and consumed by its first use — so a leaked URL or token is worth little.
 *
 * The page's SDK sends the token as `Authorization: Bearer …` with `credentials: "omit"` (sdk-api.md),
 * which makes cross-origin pages preflight: `OPTIONS` is answered for allowed origins, never with
 * credentials. `?token=` is accepted too, so a download URL can be used as a plain link.
 * Downloads are attachments with `nosniff` and a sandbox CSP: a file can never run as a page of this
 * server's origin (the origin that holds the inspector).
 *
 * Nothing a page does here costs more than it asks for, and what it can ask for is capped: at most
 * {@link MAX_TICKETS_PER_SESSION} unused tickets per session, expired tickets swept once per
 * {@link SWEEP_INTERVAL_MS} (not at every request: a flood of tickets made that quadratic), and a total
 * quota over every session's files, in which an upload's declared size is reserved from its ticket on.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { DevCoreError } from '../errors.js';

export const MAX_ASSET_BYTES = 100 * 1024 * 1024;
/** Where the asset URLs live: `/_pedelec/assets/(upload|download)/<id>` (under the server's reserved prefix). */
export const ASSET_URL_PREFIX = '/_pedelec/assets/';
const ASSET_URL = /^\/_pedelec\/assets\/(upload|download)\/([0-9a-f-]{36})$/;
/** All sessions' files together (`--asset-quota-mb`, default 1 024). */
export const DEFAULT_ASSET_QUOTA_BYTES = 1024 * 1024 * 1024;
/** Unused, unexpired tickets one session may hold; one more is `ASSET_TICKET_LIMIT_REACHED`. */
export const MAX_TICKETS_PER_SESSION = 128;
/** Expired tickets are forgotten at most this often. */
const SWEEP_INTERVAL_MS = 1000;
/** A file counts at least this much against the quota (a disk block): empty files are not free. */
const MIN_FILE_CHARGE = 4096;

const chargeOf = (sizeBytes: number) => Math.max(sizeBytes, MIN_FILE_CHARGE);

export type AssetEntry = { name: string; path: string; sizeBytes: number; modifiedAt: number };

type Ticket = {
  kind: 'upload' | 'download';
  id: string;
  token: Buffer;
  sessionId: string;
  path: string;
  expiresAt: number;
  sizeBytes: number;
  mimeType: string;
  /** Bytes of the quota this ticket holds (an upload's charge, until it is stored or fails). */
  reserved: number;
};

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
  /** `http://127.0.0.1:<port>`: known only once the server listens. */
  baseUrl(): string;
  /** May this origin read the answer (CORS)? */
  originAllowed(origin: string): boolean;
  /** Is the session still alive? A ticket dies with its session. */
  sessionAlive(sessionId: string): boolean;
};

/** `/`-rooted, single slashes, no empty/`.`/`..` segment, no `\` or control characters (sdk-api.md). */
export function isAssetPath(path: unknown): path is string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a path must not hold
  if (typeof path !== 'string' || !/^\/[^/\\\x00-\x1f]+(\/[^/\\\x00-\x1f]+)*$/.test(path)) return false;
  return !path.split('/').some((s) => s === '.' || s === '..');
}

function assetName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  res.end(JSON.stringify(body));
}

function fail(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  json(res, status, { error: { code, message } }, headers);
}

/** `attachment; filename="ascii"; filename*=UTF-8''…` — the ASCII fallback never carries quotes or controls. */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

function tokenFrom(req: IncomingMessage, query: URLSearchParams): string | null {
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const match = /^Bearer\s+(\S+)$/i.exec(auth.trim());
    if (match) return match[1];
  }
  return query.get('token');
}

export class AssetStore {
  private root: Promise<string> | null = null;
  private readonly tickets = new Map<string, Ticket>();
  /** The same tickets by session, so a session's count and its end cost only its own tickets. */
  private readonly ticketsBySession = new Map<string, Set<Ticket>>();
  private lastSweep = 0;
  /** Each session's stored files (written by this store, so the list is complete). */
  private readonly files = new Map<string, Map<string, StoredFile>>();
  /** The sum of every stored file's charge. */
  private storedBytes = 0;
  /** The sum of every reservation: upload tickets not used yet, uploads and artifacts being written. */
  private reservedBytes = 0;
  private readonly quotaBytes: number;
  private readonly maxTicketsPerSession: number;

  constructor(private readonly options: AssetOptions) {
    this.quotaBytes = options.quotaBytes ?? DEFAULT_ASSET_QUOTA_BYTES;
    this.maxTicketsPerSession = options.maxTicketsPerSession ?? MAX_TICKETS_PER_SESSION;
  }

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
    const ticket = this.issue('upload', sessionId, path, sizeBytes as number, mimeType || 'application/octet-stream', {
      reserve: chargeOf(sizeBytes as number),
    });
    return {
      uploadId: ticket.id,
      uploadUrl: `${this.options.baseUrl()}${ASSET_URL_PREFIX}upload/${ticket.id}`,
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
    this.reserve(reservation, chargeOf(content.length), content.length);
    try {
      return await this.storeFile(sessionId, path, content, mimeType);
    } finally {
      this.release(reservation);
    }
  }

  private async storeFile(sessionId: string, path: string, content: Buffer, mimeType: string): Promise<AssetEntry> {
    const target = await this.fileOf(sessionId, path);
    const partial = join(await this.base(), 'partial', randomUUID());
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
    const ticket = this.issue('download', sessionId, path, file.size, mimeType);
    return {
      downloadUrl: `${this.options.baseUrl()}${ASSET_URL_PREFIX}download/${ticket.id}`,
      token: ticket.token.toString('hex'),
      name: assetName(path),
      mimeType,
      modifiedAt: file.modifiedAt,
      path,
    };
  }

  /** The file at `path` if it is a regular file really inside the session's folder. */
  private async existingFile(
    sessionId: string,
    path: string,
  ): Promise<{ real: string; size: number; modifiedAt: number } | null> {
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

  private issue(
    kind: Ticket['kind'],
    sessionId: string,
    path: string,
    sizeBytes: number,
    mimeType: string,
    { reserve = 0 } = {},
  ): Ticket {
    this.sweepIfDue();
    const held = this.ticketsBySession.get(sessionId);
    if (held && held.size >= this.maxTicketsPerSession) {
      throw new DevCoreError(
        'ASSET_TICKET_LIMIT_REACHED',
        `A session may hold at most ${this.maxTicketsPerSession} unused asset tickets; use them, or wait for them to expire`,
        { limit: this.maxTicketsPerSession },
      );
    }
    const ticket: Ticket = {
      kind,
      id: randomUUID(),
      token: randomBytes(16),
      sessionId,
      path,
      expiresAt: Date.now() + this.options.ttlMs,
      sizeBytes,
      mimeType,
      reserved: 0,
    };
    this.reserve(ticket, reserve, sizeBytes);
    this.tickets.set(ticket.id, ticket);
    if (held) held.add(ticket);
    else this.ticketsBySession.set(sessionId, new Set([ticket]));
    return ticket;
  }

  /** Takes `charge` bytes of the quota for `holder`, or throws `ASSET_QUOTA_EXCEEDED`. */
  private reserve(holder: { reserved: number }, charge: number, sizeBytes: number): void {
    if (charge === 0) return;
    const used = this.storedBytes + this.reservedBytes;
    if (used + charge > this.quotaBytes) {
      throw new DevCoreError(
        'ASSET_QUOTA_EXCEEDED',
        `pedelec-dev keeps at most ${this.quotaBytes} bytes of assets in all sessions together (--asset-quota-mb); ` +
          `${Math.max(this.quotaBytes - used, 0)} are free`,
        { sizeBytes, quotaBytes: this.quotaBytes, usedBytes: used },
      );
    }
    this.reservedBytes += charge;
    holder.reserved = charge;
  }

  /** Gives back what `holder` reserved (once). */
  private release(holder: { reserved: number }): void {
    this.reservedBytes -= holder.reserved;
    holder.reserved = 0;
  }

  /** A stored file (new or replacing one): its charge replaces the old one's. */
  private recordFile(sessionId: string, path: string, sizeBytes: number, mimeType: string): void {
    if (!this.options.sessionAlive(sessionId)) return; // ended meanwhile: dropSession deleted the folder
    let files = this.files.get(sessionId);
    if (!files) this.files.set(sessionId, (files = new Map()));
    const charge = chargeOf(sizeBytes);
    this.storedBytes += charge - (files.get(path)?.charge ?? 0);
    files.set(path, { charge, mimeType });
  }

  /** Removes a ticket from the lists (its reservation is released by whoever held it). */
  private forget(ticket: Ticket): void {
    this.tickets.delete(ticket.id);
    const held = this.ticketsBySession.get(ticket.sessionId);
    held?.delete(ticket);
    if (held?.size === 0) this.ticketsBySession.delete(ticket.sessionId);
  }

  /** Forgets expired tickets — at most once per {@link SWEEP_INTERVAL_MS}, whatever the request rate. */
  private sweepIfDue(): void {
    const now = Date.now();
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    for (const ticket of this.tickets.values()) {
      if (ticket.expiresAt < now) {
        this.forget(ticket);
        this.release(ticket);
      }
    }
  }

  /** Forgets a session's tickets and files, gives back their quota, and deletes its folder. */
  async dropSession(sessionId: string): Promise<void> {
    for (const ticket of this.ticketsBySession.get(sessionId) ?? []) {
      this.forget(ticket);
      this.release(ticket);
    }
    for (const file of this.files.get(sessionId)?.values() ?? []) this.storedBytes -= file.charge;
    this.files.delete(sessionId);
    if (!this.root) return;
    await rm(await this.sessionDir(sessionId), { recursive: true, force: true }).catch(() => {});
  }

  async dispose(): Promise<void> {
    this.tickets.clear();
    this.ticketsBySession.clear();
    this.files.clear();
    if (this.root) await rm(await this.root, { recursive: true, force: true }).catch(() => {});
  }

  // ───────────────────────────── HTTP ─────────────────────────────

  /** Serves `/_pedelec/assets/{upload,download}/<id>`; `rawPath` has no query. */
  async handle(req: IncomingMessage, res: ServerResponse, rawPath: string, query: URLSearchParams): Promise<void> {
    const match = ASSET_URL.exec(rawPath);
    const origin = req.headers.origin;
    const allowed = origin !== undefined && this.options.originAllowed(origin);
    const cors: Record<string, string> = allowed
      ? { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' }
      : { Vary: 'Origin' };
    if (origin !== undefined && !allowed)
      return fail(res, 403, 'ORIGIN_NOT_ALLOWED', 'This origin may not use pedelec-dev assets', cors);
    if (!match) return fail(res, 404, 'ASSET_NOT_FOUND', 'Not found', cors);
    const kind = match[1] as Ticket['kind'];
    const method = kind === 'upload' ? 'PUT' : 'GET';

    if (req.method === 'OPTIONS') {
      if (!allowed) return fail(res, 403, 'ORIGIN_NOT_ALLOWED', 'Preflight needs an allowed Origin', cors);
      res.writeHead(204, {
        ...cors,
        'Access-Control-Allow-Methods': method,
        'Access-Control-Allow-Headers': 'Authorization, Content-Type',
        'Access-Control-Max-Age': '60',
      });
      res.end();
      return;
    }
    if (req.method !== method && !(kind === 'upload' && req.method === 'POST')) {
      return fail(res, 405, 'METHOD_NOT_ALLOWED', `Use ${method}`, { ...cors, Allow: `${method}, OPTIONS` });
    }

    const ticket = this.redeem(kind, match[2], tokenFrom(req, query));
    if ('error' in ticket) return fail(res, 401, ticket.error, ticket.message, cors);
    try {
      if (!this.options.sessionAlive(ticket.sessionId))
        return fail(res, 410, 'SESSION_ENDED', 'The session has ended', cors);
      if (kind === 'upload') await this.receive(req, res, ticket, cors);
      else await this.sendFile(req, res, ticket, cors);
    } finally {
      // The upload is stored (and charged as a file) or it failed: either way its reservation ends.
      this.release(ticket);
    }
  }

  /** Checks and consumes a ticket: one use, whatever that use's outcome. */
  private redeem(kind: Ticket['kind'], id: string, token: string | null): Ticket | { error: string; message: string } {
    const ticket = this.tickets.get(id);
    const given = token !== null && /^[0-9a-f]{32}$/i.test(token) ? Buffer.from(token, 'hex') : null;
    if (!ticket || ticket.kind !== kind || !given || !timingSafeEqual(given, ticket.token)) {
      return { error: 'ASSET_TOKEN_INVALID', message: 'Missing, wrong or already used asset token' };
    }
    this.forget(ticket);
    if (Date.now() > ticket.expiresAt) {
      this.release(ticket);
      return { error: 'ASSET_TOKEN_EXPIRED', message: 'The asset token has expired; ask for a new one' };
    }
    return ticket;
  }

  private async receive(
    req: IncomingMessage,
    res: ServerResponse,
    ticket: Ticket,
    cors: Record<string, string>,
  ): Promise<void> {
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) !== ticket.sizeBytes) {
      req.resume();
      return fail(
        res,
        400,
        'ASSET_SIZE_MISMATCH',
        `Expected ${ticket.sizeBytes} bytes, Content-Length says ${declared}`,
        cors,
      );
    }
    const target = await this.fileOf(ticket.sessionId, ticket.path);
    const partial = join(await this.base(), 'partial', ticket.id);
    let received = 0;
    try {
      await mkdir(dirname(partial), { recursive: true });
      await mkdir(dirname(target), { recursive: true });
      const limit = ticket.sizeBytes;
      await pipeline(
        req,
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            received += chunk.length;
            // Counted as it streams: a lying client cannot fill the disk past the declared size.
            if (received > limit) throw new DevCoreError('ASSET_TOO_LARGE', `More than the declared ${limit} bytes`);
            yield chunk;
          }
        },
        createWriteStream(partial),
      );
      if (received !== ticket.sizeBytes) {
        throw new DevCoreError('ASSET_SIZE_MISMATCH', `Expected ${ticket.sizeBytes} bytes, received ${received}`);
      }
      const existing = await stat(target).catch(() => null);
      if (existing?.isDirectory()) throw new DevCoreError('ASSET_PATH_CONFLICT', `${ticket.path} is a folder`);
      await rename(partial, target);
      // The session may have ended during the upload: its folder is gone, and must stay gone.
      if (!this.options.sessionAlive(ticket.sessionId)) {
        await this.dropSession(ticket.sessionId);
        throw new DevCoreError('SESSION_ENDED', 'The session has ended');
      }
    } catch (thrown) {
      await rm(partial, { force: true }).catch(() => {});
      if (res.headersSent || res.destroyed) return;
      // A file where the path needs a folder (`/f/g` under the file `/f`) is a conflict, not a failure.
      const onTheWay = ['ENOTDIR', 'EEXIST'].includes((thrown as NodeJS.ErrnoException)?.code ?? '');
      const error =
        thrown instanceof DevCoreError
          ? thrown
          : onTheWay
            ? new DevCoreError('ASSET_PATH_CONFLICT', `${ticket.path}: a folder on the way is a file`)
            : new DevCoreError('ASSET_UPLOAD_FAILED', 'The upload could not be stored');
      const status =
        error.code === 'SESSION_ENDED'
          ? 410
          : error.code === 'ASSET_TOO_LARGE'
            ? 413
            : error.code === 'ASSET_UPLOAD_FAILED'
              ? 500
              : error.code === 'ASSET_PATH_CONFLICT'
                ? 409
                : 400;
      res.setHeader('Connection', 'close'); // the rest of an oversized body is not read
      return fail(res, status, error.code, error.message, cors);
    }
    const info = await stat(target);
    this.recordFile(ticket.sessionId, ticket.path, info.size, ticket.mimeType);
    json(
      res,
      201,
      { path: ticket.path, name: assetName(ticket.path), sizeBytes: info.size, modifiedAt: Math.floor(info.mtimeMs) },
      cors,
    );
  }

  private async sendFile(
    req: IncomingMessage,
    res: ServerResponse,
    ticket: Ticket,
    cors: Record<string, string>,
  ): Promise<void> {
    const file = await this.existingFile(ticket.sessionId, ticket.path);
    if (!file) return fail(res, 404, 'ASSET_NOT_FOUND', `No asset at ${ticket.path}`, cors);
    res.writeHead(200, {
      ...cors,
      'Access-Control-Expose-Headers': 'Content-Disposition',
      'Content-Type': ticket.mimeType,
      'Content-Length': String(file.size),
      'Content-Disposition': contentDisposition(assetName(ticket.path)),
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': 'sandbox',
      'Cache-Control': 'no-store',
    });
    await pipeline(createReadStream(file.real), res).catch(() => res.destroy());
  }
}
