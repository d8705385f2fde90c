/**
 * Workspaces as Desktop keeps them: real folders the agent works in. One a page opens (`open_workspace`
 * with a path inside `--workspace-root`, or the folder the operator picks), or one made for a session
 * that names none (a managed workspace: `path` null, a temporary folder deleted when the session ends).
 * Each has an id the page uses, good only for the origins that opened it; the same folder opened
 * again is the same workspace.
 *
 * Files move through the one-time tickets assets use (tickets.ts, asset-http.ts) under
 * `/_pedelec/workspaces/`, with their own byte quota over what pages upload into workspaces.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { lstat, mkdir, realpath, rm, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { isWorkspacePath } from 'pedelec-elements/protocol';
import { DevCoreError } from '../errors.js';
import { AssetHttp, type ExistingFile } from '../assets/asset-http.js';
import { AssetQuota, chargeOf } from '../assets/quota.js';
import { MAX_TICKETS_PER_SESSION, TicketBook } from '../assets/tickets.js';
import { mimeTypeOf, pathInvalid, resolveInside } from './workspace-paths.js';

export const WORKSPACE_URL_PREFIX = '/_pedelec/workspaces/';
/** The largest file a page may upload into, or read from, a workspace (as Desktop: 100 MiB). */
export const MAX_WORKSPACE_FILE_BYTES = 100 * 1024 * 1024;
/** What pages upload into workspaces, all together (`--workspace-quota-mb`, default 1 024). */
export const DEFAULT_WORKSPACE_QUOTA_BYTES = 1024 * 1024 * 1024;
/** Where Desktop keeps what it writes in a workspace (its Deno cache, modules, uploads in progress). */
export const RUNTIME_FOLDER = '.pedelec-runtime';

/** Where `--workspace-root` is when not given: a folder under the user's data directory. */
export function defaultWorkspaceRoot(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const home = homedir();
  const data =
    process.platform === 'win32'
      ? (env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'))
      : process.platform === 'darwin'
        ? join(home, 'Library', 'Application Support')
        : (env.XDG_DATA_HOME ?? join(home, '.local', 'share'));
  return join(data, 'pedelec-dev', 'workspaces');
}

export type Workspace = {
  readonly id: string;
  /** The folder, resolved (no link in it). */
  readonly folder: string;
  /** What the page is told: the folder, or null for a managed workspace. */
  readonly path: string | null;
  /** The origins that may use it (`null` for clients without one). */
  readonly origins: Set<string | null>;
  /** What pages uploaded here: each file's charge against the quota. */
  readonly uploads: Map<string, number>;
};

export type WorkspaceOptions = {
  /** Pages may open folders inside this one (the root itself too). */
  root: string;
  /**
   * The folder the user picks (`open_workspace` without a path): `--workspace`, or the inspector's
   * operator; null when the pick is cancelled.
   */
  pick(origin: string | null): Promise<string | null>;
  ttlMs: number;
  quotaBytes: number;
  baseUrl: string;
  originAllowed(origin: string): boolean;
};

type Ticket = { uploadId?: string; uploadUrl?: string; downloadUrl?: string; token: string };

export class WorkspaceStore {
  private readonly byId = new Map<string, Workspace>();
  private readonly byFolder = new Map<string, Workspace>();
  private readonly quota: AssetQuota;
  private readonly tickets: TicketBook;
  private readonly http: AssetHttp;
  /** The server's temporary folder of managed workspaces, made when the first one is. */
  private managedBase: string | null = null;

  constructor(private readonly options: WorkspaceOptions) {
    this.quota = new AssetQuota(options.quotaBytes, {
      code: 'WORKSPACE_QUOTA_EXCEEDED',
      holds: 'files uploaded into workspaces',
      flag: '--workspace-quota-mb',
    });
    this.tickets = new TicketBook({ ttlMs: options.ttlMs, maxTicketsPerSession: MAX_TICKETS_PER_SESSION }, this.quota);
    this.http = new AssetHttp({
      prefix: WORKSPACE_URL_PREFIX,
      tickets: this.tickets,
      quota: this.quota,
      folders: {
        fileOf: (id, path) => resolveInside(this.workspace(id).folder, path),
        partialFile: (id, name) => Promise.resolve(join(this.workspace(id).folder, RUNTIME_FOLDER, 'tmp', name)),
        existingFile: (id, path) => this.existingFile(id, path),
        recordFile: (id, path, sizeBytes) => this.recordUpload(id, path, sizeBytes),
        dropSession: async () => {},
      },
      originAllowed: (origin) => options.originAllowed(origin),
      sessionAlive: (id) => this.byId.has(id),
    });
  }

  // ───────────────────────────── opening ─────────────────────────────

  /**
   * `open_workspace`: the folder at `path` (absolute, inside the root; made when missing), or — no
   * path — the folder the user picks; `{ workspace: null }` when the pick is cancelled.
   */
  async open(
    path: unknown,
    origin: string | null,
  ): Promise<{ workspace: { workspaceId: string; path: string } | null }> {
    let folder: string;
    if (path === undefined) {
      const picked = await this.options.pick(origin);
      if (picked === null) return { workspace: null };
      folder = await this.existingFolder(picked);
    } else {
      if (typeof path !== 'string' || !path.trim())
        throw new DevCoreError('INVALID_INPUT', 'path must be a non-empty string when provided');
      if (!isAbsolute(path)) throw pathInvalid('A workspace path must be absolute', path);
      folder = await this.folderInRoot(path);
    }
    const workspace = this.byFolder.get(folder) ?? this.remember(folder, folder);
    workspace.origins.add(origin);
    return { workspace: { workspaceId: workspace.id, path: folder } };
  }

  /**
   * A new managed workspace for a session of `origin`: a fresh folder, `path` null. Made synchronously
   * (two small mkdirs): `create_session` stays answered in the same turn it arrives, so a page that
   * leaves meanwhile cannot be given a session after its connection closed.
   */
  managed(origin: string | null): Workspace {
    this.managedBase ??= realpathSync(mkdtempSync(join(tmpdir(), 'pedelec-dev-workspaces-')));
    const id = newId();
    const folder = join(this.managedBase, id);
    mkdirSync(folder);
    const workspace = this.remember(folder, null, id);
    workspace.origins.add(origin);
    return workspace;
  }

  /** The workspace `workspaceId` for a request of `origin`: unknown → `WORKSPACE_NOT_FOUND`, not theirs → `WORKSPACE_ACCESS_DENIED`. */
  use(workspaceId: unknown, origin: string | null): Workspace {
    if (typeof workspaceId !== 'string' || workspaceId === '')
      throw new DevCoreError('INVALID_INPUT', 'workspaceId must be a non-empty string');
    const workspace = this.byId.get(workspaceId);
    if (!workspace) throw new DevCoreError('WORKSPACE_NOT_FOUND', `No workspace ${workspaceId}: open it again`);
    if (!workspace.origins.has(origin))
      throw new DevCoreError('WORKSPACE_ACCESS_DENIED', `Workspace ${workspaceId} was not opened by this origin`);
    return workspace;
  }

  /** Forgets a managed workspace and deletes its folder (its session ended); a page's folder stays. */
  async dropManaged(workspaceId: string): Promise<void> {
    const workspace = this.byId.get(workspaceId);
    if (!workspace || workspace.path !== null) return;
    this.forget(workspace);
    await rm(workspace.folder, { recursive: true, force: true }).catch(() => {});
  }

  private remember(folder: string, path: string | null, id = newId()): Workspace {
    const workspace: Workspace = { id, folder, path, origins: new Set(), uploads: new Map() };
    this.byId.set(id, workspace);
    if (path !== null) this.byFolder.set(folder, workspace);
    return workspace;
  }

  private forget(workspace: Workspace): void {
    this.byId.delete(workspace.id);
    this.byFolder.delete(workspace.folder);
    this.tickets.dropSession(workspace.id);
    for (const charge of workspace.uploads.values()) this.quota.unstore(charge);
  }

  private workspace(id: string): Workspace {
    const workspace = this.byId.get(id);
    if (!workspace) throw new DevCoreError('WORKSPACE_NOT_FOUND', `No workspace ${id}`);
    return workspace;
  }

  /** A page's path: inside the root (made when missing), a folder, resolved. */
  private async folderInRoot(path: string): Promise<string> {
    const { root } = this.options;
    // Checked before anything is made, then again once links are resolved.
    const outside = (folder: string, base: string) => folder !== base && !folder.startsWith(base + sep);
    const refuse = () => pathInvalid(`${path} is outside the folder pages may open (--workspace-root ${root})`, path);
    if (outside(resolve(path), resolve(root))) throw refuse();
    await mkdir(root, { recursive: true });
    const realRoot = await realpath(root);
    try {
      await mkdir(path, { recursive: true });
    } catch {
      throw new DevCoreError('WORKSPACE_CREATE_FAILED', `${path} could not be made`, { path });
    }
    const folder = await this.existingFolder(path);
    if (outside(folder, realRoot)) throw refuse();
    return folder;
  }

  private async existingFolder(path: string): Promise<string> {
    const folder = await realpath(path).catch(() => null);
    const info = folder === null ? null : await stat(folder).catch(() => null);
    if (folder === null || !info?.isDirectory()) throw pathInvalid(`${path} is not a folder`, path);
    return folder;
  }

  // ───────────────────────────── files ─────────────────────────────

  /** `create_workspace_file_upload`: a one-time ticket to PUT the file at `targetPath` (or its own name). */
  async createUpload(workspace: Workspace, request: Record<string, unknown>): Promise<Ticket> {
    const { filename, sizeBytes, mimeType, targetPath } = request;
    if (typeof filename !== 'string' || !filename.trim() || filename === '.' || filename === '..')
      throw new DevCoreError('INVALID_INPUT', 'filename must be a file name');
    if (!Number.isInteger(sizeBytes) || (sizeBytes as number) < 0)
      throw new DevCoreError('INVALID_INPUT', 'sizeBytes must be a non-negative integer');
    if ((sizeBytes as number) > MAX_WORKSPACE_FILE_BYTES)
      throw new DevCoreError('WORKSPACE_FILE_TOO_LARGE', 'workspace file exceeds the 100 MiB limit', { sizeBytes });
    // It becomes a download's Content-Type later: only what a header can carry.
    if (mimeType !== undefined && (typeof mimeType !== 'string' || /[^\t\x20-\x7e]/.test(mimeType)))
      throw new DevCoreError('INVALID_INPUT', 'mimeType must be a string of printable ASCII (a Content-Type)');
    const path = targetPath ?? filename;
    if (!isWorkspacePath(path)) throw pathInvalid('workspace target path is invalid', path);
    const target = await resolveInside(workspace.folder, path);
    const existing = await lstat(target).catch(() => null);
    if (existing && !existing.isFile())
      throw new DevCoreError('WORKSPACE_FILE_NOT_REGULAR', `${path} is not a regular file`, { path });
    const ticket = this.tickets.issue('upload', workspace.id, path, sizeBytes as number, 'application/octet-stream', {
      reserve: chargeOf(sizeBytes as number),
    });
    return {
      uploadId: ticket.id,
      uploadUrl: `${this.options.baseUrl}${WORKSPACE_URL_PREFIX}upload/${ticket.id}`,
      token: ticket.token.toString('hex'),
    };
  }

  /** `create_workspace_file_download`: a one-time ticket to GET the file at `path`. */
  async createDownload(workspace: Workspace, path: unknown): Promise<Record<string, unknown>> {
    const file = await resolveInside(workspace.folder, path);
    const info = await lstat(file).catch(() => null);
    if (!info) throw new DevCoreError('WORKSPACE_FILE_NOT_FOUND', `No file ${String(path)} in the workspace`, { path });
    if (!info.isFile())
      throw new DevCoreError('WORKSPACE_FILE_NOT_REGULAR', `${String(path)} is not a regular file`, { path });
    if (info.size > MAX_WORKSPACE_FILE_BYTES)
      throw new DevCoreError('WORKSPACE_FILE_READ_TOO_LARGE', 'workspace file exceeds the 100 MiB limit', { path });
    const name = (path as string).slice((path as string).lastIndexOf('/') + 1);
    const mimeType = mimeTypeOf(name);
    const ticket = this.tickets.issue('download', workspace.id, path as string, info.size, mimeType);
    return {
      downloadId: ticket.id,
      downloadUrl: `${this.options.baseUrl}${WORKSPACE_URL_PREFIX}download/${ticket.id}`,
      token: ticket.token.toString('hex'),
      path,
      name,
      sizeBytes: info.size,
      modifiedAt: Math.floor(info.mtimeMs),
      mimeType,
    };
  }

  /** The regular file at `path` if it really is inside the workspace (no link on the way). */
  private async existingFile(id: string, path: string): Promise<ExistingFile | null> {
    try {
      const { folder } = this.workspace(id);
      const file = await resolveInside(folder, path);
      const info = await lstat(file);
      return info.isFile() ? { real: file, size: info.size, modifiedAt: Math.floor(info.mtimeMs) } : null;
    } catch {
      return null;
    }
  }

  private recordUpload(id: string, path: string, sizeBytes: number): void {
    const workspace = this.byId.get(id);
    if (!workspace) return;
    const charge = chargeOf(sizeBytes);
    this.quota.store(charge, workspace.uploads.get(path) ?? 0);
    workspace.uploads.set(path, charge);
  }

  // ───────────────────────────── lifetime and HTTP ─────────────────────────────

  /** Serves `/_pedelec/workspaces/{upload,download}/<id>`. */
  handle(req: IncomingMessage, res: ServerResponse, rawPath: string, query: URLSearchParams): Promise<void> {
    return this.http.handle(req, res, rawPath, query);
  }

  /** Deletes the managed workspaces; the folders pages opened stay as they are. */
  async dispose(): Promise<void> {
    for (const workspace of this.byId.values()) this.tickets.dropSession(workspace.id);
    this.byId.clear();
    this.byFolder.clear();
    if (this.managedBase) await rm(this.managedBase, { recursive: true, force: true }).catch(() => {});
  }
}

/** A workspace id: `ws_` and 128 random bits. */
const newId = () => `ws_${randomBytes(16).toString('hex')}`;
