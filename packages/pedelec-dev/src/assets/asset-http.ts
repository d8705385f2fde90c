/**
 * The HTTP side of session assets: `/_pedelec/assets/{upload,download}/<id>`, where a page uses the
 * one-time tickets the bridge gave it — and of workspace files, the same way under their own prefix. Apart from the store because it is all about what a browser
 * sees — CORS, headers, status codes — while the store keeps the files and the bookkeeping.
 *
 * The page's SDK sends the token as `Authorization: Bearer …` with `credentials: "omit"` (sdk-api.md),
 * which makes cross-origin pages preflight: `OPTIONS` is answered for allowed origins, never with
 * credentials. `?token=` is accepted too, so a download URL can be used as a plain link.
 * Downloads are attachments with `nosniff` and a sandbox CSP: a file can never run as a page of this
 * server's origin (the origin that holds the inspector).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { DevCoreError } from '../errors.js';
import { assetName } from './asset-paths.js';
import type { AssetQuota } from './quota.js';
import type { Ticket, TicketBook, TicketKind } from './tickets.js';

/** Where the asset URLs live: `/_pedelec/assets/(upload|download)/<id>` (under the server's reserved prefix). */
export const ASSET_URL_PREFIX = '/_pedelec/assets/';

/** A file found in a session's folder: its real path, size and modification time (ms). */
export type ExistingFile = { real: string; size: number; modifiedAt: number };

/** What the handler needs of the session folders, which the asset store keeps. */
export type AssetFolders = {
  /** Where the file at `path` of the session lives (it may not exist yet). */
  fileOf(sessionId: string, path: string): Promise<string>;
  /**
   * Where a file of the session is written before it is renamed into place, so that no one ever sees
   * half of it (on the same file system as its folder: a rename cannot cross one).
   */
  partialFile(sessionId: string, name: string): Promise<string>;
  /** The file at `path` if it is a regular file really inside the session's folder. */
  existingFile(sessionId: string, path: string): Promise<ExistingFile | null>;
  /** Charges a stored file to the quota and remembers its declared type. */
  recordFile(sessionId: string, path: string, sizeBytes: number, mimeType: string): void;
  /** Forgets a session's tickets and files, gives back their quota, and deletes its folder. */
  dropSession(sessionId: string): Promise<void>;
};

export type AssetHttpDeps = {
  /** Where these URLs live (`upload/<id>`, `download/<id>` under it): {@link ASSET_URL_PREFIX} for assets. */
  prefix: string;
  tickets: TicketBook;
  quota: AssetQuota;
  folders: AssetFolders;
  /** May this origin read the answer (CORS)? */
  originAllowed(origin: string): boolean;
  /** Is the session still alive? A ticket dies with its session. */
  sessionAlive(sessionId: string): boolean;
};

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  res.end(JSON.stringify(body));
}

export function fail(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  json(res, status, { error: { code, message } }, headers);
}

/**
 * The CORS headers of a ticket URL's answer — the `Origin` echoed when it may read the answer — and
 * whether it may. A request from an origin that may not is refused (403) by the caller.
 */
export function ticketCors(
  req: IncomingMessage,
  originAllowed: (origin: string) => boolean,
): { allowed: boolean; refused: boolean; cors: Record<string, string> } {
  const origin = req.headers.origin;
  const allowed = origin !== undefined && originAllowed(origin);
  const cors: Record<string, string> = allowed
    ? { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' }
    : { Vary: 'Origin' };
  return { allowed, refused: origin !== undefined && !allowed, cors };
}

/** Answers a ticket URL's preflight: 204 naming `method`, for an allowed origin only. */
export function answerPreflight(
  res: ServerResponse,
  allowed: boolean,
  cors: Record<string, string>,
  method: string,
): void {
  if (!allowed) return fail(res, 403, 'ORIGIN_NOT_ALLOWED', 'Preflight needs an allowed Origin', cors);
  res.writeHead(204, {
    ...cors,
    'Access-Control-Allow-Methods': method,
    'Access-Control-Allow-Headers': 'Authorization, Content-Type',
    'Access-Control-Max-Age': '60',
  });
  res.end();
}

/** `attachment; filename="ascii"; filename*=UTF-8''…` — the ASCII fallback never carries quotes or controls. */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export function tokenFrom(req: IncomingMessage, query: URLSearchParams): string | null {
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const match = /^Bearer\s+(\S+)$/i.exec(auth.trim());
    if (match) return match[1];
  }
  return query.get('token');
}

/** What a failed upload answers: the error (anything unexpected made one) and its status. */
function uploadFailure(thrown: unknown, path: string): { status: number; error: DevCoreError } {
  // A file where the path needs a folder (`/f/g` under the file `/f`) is a conflict, not a failure.
  const onTheWay = ['ENOTDIR', 'EEXIST'].includes((thrown as NodeJS.ErrnoException)?.code ?? '');
  const error =
    thrown instanceof DevCoreError
      ? thrown
      : onTheWay
        ? new DevCoreError('ASSET_PATH_CONFLICT', `${path}: a folder on the way is a file`)
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
  return { status, error };
}

export class AssetHttp {
  /** `<prefix>(upload|download)/<ticket id>`. */
  private readonly url: RegExp;

  constructor(private readonly deps: AssetHttpDeps) {
    this.url = new RegExp(`^${deps.prefix.replace(/[/.]/g, '\\$&')}(upload|download)/([0-9a-f-]{36})$`);
  }

  /** Serves `/_pedelec/assets/{upload,download}/<id>`; `rawPath` has no query. */
  async handle(req: IncomingMessage, res: ServerResponse, rawPath: string, query: URLSearchParams): Promise<void> {
    const match = this.url.exec(rawPath);
    const { allowed, refused, cors } = ticketCors(req, (origin) => this.deps.originAllowed(origin));
    if (refused) return fail(res, 403, 'ORIGIN_NOT_ALLOWED', 'This origin may not use pedelec-dev assets', cors);
    if (!match) return fail(res, 404, 'ASSET_NOT_FOUND', 'Not found', cors);
    const kind = match[1] as TicketKind;
    const method = kind === 'upload' ? 'PUT' : 'GET';
    if (req.method === 'OPTIONS') return answerPreflight(res, allowed, cors, method);
    if (req.method !== method && !(kind === 'upload' && req.method === 'POST')) {
      return fail(res, 405, 'METHOD_NOT_ALLOWED', `Use ${method}`, { ...cors, Allow: `${method}, OPTIONS` });
    }

    const ticket = this.deps.tickets.redeem(kind, match[2], tokenFrom(req, query));
    if ('error' in ticket) return fail(res, 401, ticket.error, ticket.message, cors);
    try {
      if (!this.deps.sessionAlive(ticket.sessionId))
        return fail(res, 410, 'SESSION_ENDED', 'The session has ended', cors);
      if (kind === 'upload') await this.receive(req, res, ticket, cors);
      else await this.sendFile(req, res, ticket, cors);
    } finally {
      // The upload is stored (and charged as a file) or it failed: either way its reservation ends.
      this.deps.quota.release(ticket);
    }
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
    const { folders } = this.deps;
    let partial: string | null = null;
    let target = '';
    let received = 0;
    try {
      // Inside the try: a folder may refuse the path now (a symbolic link appeared on the way).
      target = await folders.fileOf(ticket.sessionId, ticket.path);
      partial = await folders.partialFile(ticket.sessionId, ticket.id);
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
      if (!this.deps.sessionAlive(ticket.sessionId)) {
        await folders.dropSession(ticket.sessionId);
        throw new DevCoreError('SESSION_ENDED', 'The session has ended');
      }
    } catch (thrown) {
      if (partial) await rm(partial, { force: true }).catch(() => {});
      if (res.headersSent || res.destroyed) return;
      const { status, error } = uploadFailure(thrown, ticket.path);
      res.setHeader('Connection', 'close'); // the rest of an oversized body is not read
      return fail(res, status, error.code, error.message, cors);
    }
    const info = await stat(target);
    folders.recordFile(ticket.sessionId, ticket.path, info.size, ticket.mimeType);
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
    const file = await this.deps.folders.existingFile(ticket.sessionId, ticket.path);
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
