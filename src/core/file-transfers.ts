/**
 * What a file transfer does once its request is answered — loaded on first use, while that request
 * is on its way (file-transfer.ts): check the list or ticket Pedelec gave, fetch the ticket's URL with
 * its bearer token and no credentials, and read what came back. Most pages never move a file.
 */
import { isAssetPath } from './asset-path.js';
import { keepError, normalizeError, pedelecError, protocolError } from './errors.js';
import { fieldsOf, type JsonValue } from './json.js';
import type { Asset, ReadFileType } from './types.js';

/** The type of bytes whose type nobody named. */
const OCTET_STREAM = 'application/octet-stream';
const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;
const shapeError = (type: string) => protocolError(`${type} response had an invalid shape`);

/** How a transfer's failures are called: its code and message. */
export type Failure = { code: string; message: string };

/** `list_assets`' answer: every entry well formed, or the whole answer refused. */
export function readAssetList(answer: unknown): Asset[] {
  const assets = (answer as { assets?: unknown } | undefined)?.assets;
  if (!Array.isArray(assets)) throw shapeError('list_assets');
  return assets.map((entry: unknown) => {
    const { name, path, sizeBytes, modifiedAt } = fieldsOf(entry);
    // The path being valid and ending in `name` also makes `name` a valid file name.
    const named = isAssetPath(path) && path.slice(path.lastIndexOf('/') + 1) === name;
    if (!named || !isCount(sizeBytes) || !isCount(modifiedAt)) throw shapeError('list_assets');
    return { name, path, sizeBytes, modifiedAt };
  });
}

/**
 * Fetches a ticket's URL (`url`) with its bearer token and no credentials — a PUT of `upload` when
 * given, else a GET. A network or HTTP failure rejects with `failure`'s code (or the server's own error).
 */
export async function fetchTicket(token: string, url: string, failure: Failure, upload?: Blob): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: upload ? 'PUT' : 'GET',
      headers: {
        Authorization: `Bearer ${token}`,
        ...(upload && { 'Content-Type': upload.type || OCTET_STREAM }),
      },
      body: upload,
      credentials: 'omit',
    });
  } catch (thrown) {
    throw normalizeError(thrown, failure.code, failure.message);
  }
  if (!response.ok) {
    const { status } = response;
    const body = (await response.json().catch(() => undefined)) as { error?: unknown } | undefined;
    throw keepError(body?.error, pedelecError(failure.code, `${failure.message} (HTTP ${status})`, { status }));
  }
  return response;
}

/** An upload ticket (`type`'s answer) used: the file PUT, and the path it was stored at, as the server says. */
export async function uploadWith(type: string, ticket: unknown, file: File, failure: Failure): Promise<unknown> {
  const { uploadUrl, token } = fieldsOf(ticket);
  if (typeof uploadUrl !== 'string' || typeof token !== 'string') throw shapeError(type);
  const response = await fetchTicket(token, uploadUrl, failure, file);
  return ((await response.json().catch(() => undefined)) as { path?: unknown } | undefined)?.path;
}

/** What a download is about, for its errors: the path, and the codes of its failures. */
export type DownloadFailures = Failure & { path: string; undecodable: Failure; notJson: Failure };

/**
 * A download ticket (`type`'s answer) used: its file read as text, parsed JSON, or a `File` named as
 * the ticket says. `validPath` checks the path the ticket names.
 */
export async function downloadWith(
  type: string,
  ticket: unknown,
  as: ReadFileType,
  validPath: (path: unknown) => boolean,
  failures: DownloadFailures,
): Promise<string | JsonValue | File> {
  const fields = fieldsOf(ticket);
  const { downloadUrl, token, name, mimeType, modifiedAt } = fields;
  const wellFormed =
    typeof downloadUrl === 'string' &&
    typeof token === 'string' &&
    typeof name === 'string' &&
    typeof mimeType === 'string';
  if (!wellFormed || !validPath(fields.path)) throw shapeError(type);
  const response = await fetchTicket(token, downloadUrl, failures);
  let bytes: ArrayBuffer;
  try {
    bytes = await response.arrayBuffer();
  } catch (thrown) {
    // The connection can still fail while the body streams in.
    throw normalizeError(thrown, failures.code, failures.message);
  }
  if (as === 'file') {
    const lastModified = typeof modifiedAt === 'number' ? { lastModified: modifiedAt } : {};
    return new File([bytes], name, { type: mimeType || OCTET_STREAM, ...lastModified });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw pedelecError(failures.undecodable.code, failures.undecodable.message, { path: failures.path });
  }
  if (as === 'text') return text;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    throw pedelecError(failures.notJson.code, failures.notJson.message, { path: failures.path });
  }
}
