/**
 * Deno modules as Desktop keeps them: a page uploads each module's prepared artifact (`{ version: 1,
 * format: "esm", runtimeSource, typesSource }`) through a one-time ticket, and it becomes a package in
 * the workspace's runtime folder that a script imports by the module's name, through an import map.
 *
 * Two scopes, never mixed: a session's modules (declared in its manifest, uploaded in its setup, used
 * by the agent's runs) and a workspace's run modules (one set per workspace and page origin, declared by
 * `prepare_workspace_deno_modules`, kept ready for later runs while the server runs).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isModuleName } from 'pedelec-elements/protocol';
import { DevCoreError } from '../errors.js';
import { answerPreflight, fail, json, ticketCors, tokenFrom } from '../assets/asset-http.js';
import { AssetQuota } from '../assets/quota.js';
import { MAX_TICKETS_PER_SESSION, TicketBook } from '../assets/tickets.js';
import { RUNTIME_FOLDER } from './workspace-store.js';

export const DENO_MODULE_URL_PREFIX = '/_pedelec/deno-modules/';
const MODULE_URL = /^\/_pedelec\/deno-modules\/upload\/([0-9a-f-]{36})$/;
const MAX_ARTIFACT_BYTES = 100 * 1024 * 1024;

type ModuleState = 'pending' | 'uploading' | 'ready';

/** One set of modules: where their packages live, and how far each is. */
class ModuleScope {
  readonly modules = new Map<string, ModuleState>();
  /** A session's setup completed (`complete_session_setup`): its turns may run. */
  completed = false;

  constructor(
    readonly key: string,
    /** The folder holding `modules/<name>/` (and, for runs, `runs/<id>/`). */
    readonly folder: string,
  ) {}

  packageOf(name: string): string {
    return join(this.folder, 'modules', ...name.split('/'));
  }

  /** Every module ready, or `DENO_MODULE_SETUP_INCOMPLETE` naming those that are not. */
  requireReady(names: readonly string[], details: Record<string, unknown>): void {
    const missing = names.filter((name) => this.modules.get(name) !== 'ready');
    if (missing.length)
      throw new DevCoreError('DENO_MODULE_SETUP_INCOMPLETE', `Deno modules not ready: ${missing.join(', ')}`, {
        ...details,
        modules: missing,
      });
  }

  /** An import map (written at `file`) naming `names`, each to its package's entry. */
  async writeImportMap(file: string, names: readonly string[]): Promise<string> {
    const imports = Object.fromEntries(
      names.map((name) => [name, pathToFileURL(join(this.packageOf(name), 'index.mjs')).href]),
    );
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(file, JSON.stringify({ imports }, null, 2));
    return file;
  }
}

export type ModuleOptions = { ttlMs: number; baseUrl: string; originAllowed(origin: string): boolean };

export class DenoModules {
  private readonly scopes = new Map<string, ModuleScope>();
  /** Workspaces whose run modules were reset in this server's life (the first prepare starts afresh). */
  private readonly resetFolders = new Set<string>();
  private readonly tickets: TicketBook;

  constructor(private readonly options: ModuleOptions) {
    // Module uploads are not charged to a quota: each is at most 100 MiB, and one ticket per module.
    this.tickets = new TicketBook(
      { ttlMs: options.ttlMs, maxTicketsPerSession: MAX_TICKETS_PER_SESSION },
      new AssetQuota(Number.MAX_SAFE_INTEGER),
    );
  }

  // ───────────────────────────── a workspace's run modules ─────────────────────────────

  private runScope(workspace: { id: string; folder: string }, origin: string | null): ModuleScope {
    const key = `${workspace.id}|${origin ?? ''}`;
    let scope = this.scopes.get(key);
    if (!scope) {
      const id = `scope_${randomBytes(8).toString('hex')}`;
      scope = new ModuleScope(key, join(workspace.folder, RUNTIME_FOLDER, 'deno', 'workspace', id));
      this.scopes.set(key, scope);
    }
    return scope;
  }

  /**
   * `prepare_workspace_deno_modules`: the names a run will import; those not ready yet are listed
   * missing (and expected as uploads).
   */
  async prepare(
    workspace: { id: string; folder: string },
    origin: string | null,
    moduleNames: unknown,
  ): Promise<{ missingModuleNames: string[] }> {
    const names = checkedNames(moduleNames);
    if (!this.resetFolders.has(workspace.folder)) {
      this.resetFolders.add(workspace.folder);
      await rm(join(workspace.folder, RUNTIME_FOLDER, 'deno', 'workspace'), { recursive: true, force: true });
    }
    const scope = this.runScope(workspace, origin);
    const missing: string[] = [];
    for (const name of names) {
      const state = scope.modules.get(name);
      if (state === 'ready') continue;
      if (state === 'uploading')
        throw new DevCoreError('DENO_MODULE_SETUP_INCOMPLETE', `Deno module ${name} is being uploaded`, {
          moduleName: name,
        });
      scope.modules.set(name, 'pending');
      missing.push(name);
    }
    return { missingModuleNames: missing };
  }

  /** `create_workspace_deno_module_upload`: a ticket for one module `prepare` listed missing. */
  workspaceUpload(workspace: { id: string; folder: string }, origin: string | null, request: Record<string, unknown>) {
    return this.ticketFor(this.runScope(workspace, origin), request);
  }

  /** The import map for a run importing `names` (all ready), written for this run; removed by the caller. */
  async runImportMap(
    workspace: { id: string; folder: string },
    origin: string | null,
    names: unknown,
  ): Promise<{ file: string; folder: string } | null> {
    if (names === undefined) return null;
    const checked = checkedNames(names);
    if (!checked.length) return null;
    const scope = this.runScope(workspace, origin);
    scope.requireReady(checked, { workspaceId: workspace.id });
    const folder = join(scope.folder, 'runs', `wr_${randomBytes(16).toString('hex')}`);
    return { file: await scope.writeImportMap(join(folder, 'import-map.json'), checked), folder };
  }

  // ───────────────────────────── a session's modules ─────────────────────────────

  /**
   * A new session's modules, as its manifest declares them, to be uploaded before its setup completes.
   * Returns whether it has any.
   */
  declareSession(sessionId: string, folder: string, names: readonly string[]): boolean {
    if (!names.length) return false;
    const scope = new ModuleScope(sessionId, join(folder, RUNTIME_FOLDER, 'deno', 'threads', sessionId));
    for (const name of names) scope.modules.set(name, 'pending');
    this.scopes.set(sessionId, scope);
    return true;
  }

  /** `create_deno_module_upload`: a ticket for one of the session's declared modules. */
  sessionUpload(sessionId: string, request: Record<string, unknown>) {
    const scope = this.scopes.get(sessionId);
    if (!scope) throw new DevCoreError('DENO_MODULE_NOT_FOUND', 'This session declared no Deno modules', { sessionId });
    return this.ticketFor(scope, request);
  }

  /**
   * `complete_session_setup`: every declared module ready, then the session's import map is written.
   * Resolves its path (null for a session without modules).
   */
  async completeSession(sessionId: string): Promise<string | null> {
    const scope = this.scopes.get(sessionId);
    if (!scope) return null;
    const names = [...scope.modules.keys()];
    scope.requireReady(names, { sessionId });
    const file = await scope.writeImportMap(join(scope.folder, 'import-map.json'), names);
    scope.completed = true;
    return file;
  }

  /** Whether the session declared modules and its setup has not completed yet. */
  setupIncomplete(sessionId: string): boolean {
    const scope = this.scopes.get(sessionId);
    return !!scope && !scope.completed;
  }

  /** The session's import map, once its setup completed (null for a session without modules). */
  sessionImportMap(sessionId: string): string | null {
    const scope = this.scopes.get(sessionId);
    return scope?.completed ? join(scope.folder, 'import-map.json') : null;
  }

  /** Forgets a session's modules (it ended; its folder goes with its workspace, or stays with the page's). */
  dropSession(sessionId: string): void {
    this.scopes.delete(sessionId);
    this.tickets.dropSession(sessionId);
  }

  // ───────────────────────────── uploads ─────────────────────────────

  private ticketFor(scope: ModuleScope, request: Record<string, unknown>) {
    const { moduleName, expectedSizeBytes } = request;
    if (!isModuleName(moduleName))
      throw new DevCoreError('DENO_MODULE_NAME_INVALID', 'Deno Module name is invalid', { moduleName });
    const state = scope.modules.get(moduleName);
    if (state === undefined)
      throw new DevCoreError('DENO_MODULE_NOT_FOUND', `Deno module ${moduleName} was not declared`, { moduleName });
    if (state === 'ready')
      throw new DevCoreError(
        'DENO_MODULE_ALREADY_READY',
        `Deno module ${moduleName} is ready: give a new one a new name`,
        {
          moduleName,
        },
      );
    if (state === 'uploading')
      throw new DevCoreError('DENO_MODULE_SETUP_INCOMPLETE', `Deno module ${moduleName} is being uploaded`, {
        moduleName,
      });
    if (!Number.isInteger(expectedSizeBytes) || (expectedSizeBytes as number) <= 0)
      throw new DevCoreError('DENO_MODULE_UPLOAD_SIZE_MISMATCH', 'expectedSizeBytes must be a positive integer', {
        moduleName,
      });
    if ((expectedSizeBytes as number) > MAX_ARTIFACT_BYTES)
      throw new DevCoreError('DENO_MODULE_ARTIFACT_TOO_LARGE', 'A Deno module artifact is limited to 100 MiB', {
        moduleName,
        expectedSizeBytes,
        maxSizeBytes: MAX_ARTIFACT_BYTES,
      });
    const ticket = this.tickets.issue('upload', scope.key, moduleName, expectedSizeBytes as number, 'application/json');
    scope.modules.set(moduleName, 'uploading');
    return {
      uploadId: ticket.id,
      uploadUrl: `${this.options.baseUrl}${DENO_MODULE_URL_PREFIX}upload/${ticket.id}`,
      token: ticket.token.toString('hex'),
    };
  }

  /** Serves `PUT /_pedelec/deno-modules/upload/<id>`: the artifact, checked and made into a package. */
  async handle(req: IncomingMessage, res: ServerResponse, rawPath: string, query: URLSearchParams): Promise<void> {
    const { allowed, refused, cors } = ticketCors(req, (origin) => this.options.originAllowed(origin));
    if (refused) return fail(res, 403, 'ORIGIN_NOT_ALLOWED', 'This origin may not upload Deno modules', cors);
    const match = MODULE_URL.exec(rawPath);
    if (!match) return fail(res, 404, 'DENO_MODULE_NOT_FOUND', 'Not found', cors);
    if (req.method === 'OPTIONS') return answerPreflight(res, allowed, cors, 'PUT');
    if (req.method !== 'PUT')
      return fail(res, 405, 'METHOD_NOT_ALLOWED', 'Use PUT', { ...cors, Allow: 'PUT, OPTIONS' });
    const ticket = this.tickets.redeem('upload', match[1], tokenFrom(req, query));
    if ('error' in ticket) {
      req.resume();
      return fail(res, 401, 'DENO_MODULE_UPLOAD_UNAUTHORIZED', ticket.message, cors);
    }
    const scope = this.scopes.get(ticket.sessionId);
    const name = ticket.path;
    const failed = (status: number, error: DevCoreError) => {
      if (scope?.modules.get(name) === 'uploading') scope.modules.set(name, 'pending');
      res.setHeader('Connection', 'close');
      fail(res, status, error.code, error.message, cors);
    };
    if (!scope)
      return failed(410, new DevCoreError('DENO_MODULE_NOT_FOUND', 'The module’s session or workspace is gone'));
    try {
      const body = await readExactly(req, ticket.sizeBytes);
      const { runtimeSource, typesSource } = readArtifact(body, name);
      await materialize(scope.packageOf(name), name, runtimeSource, typesSource);
    } catch (thrown) {
      const error =
        thrown instanceof DevCoreError
          ? thrown
          : new DevCoreError('DENO_MODULE_MATERIALIZATION_FAILED', `Deno module ${name} could not be written`);
      const status = error.code === 'DENO_MODULE_UPLOAD_SIZE_MISMATCH' ? 413 : 422;
      return failed(status, error);
    }
    scope.modules.set(name, 'ready');
    json(res, 201, { moduleName: name, ready: true }, cors);
  }
}

/** The names a request lists: an array of valid, distinct module names. */
function checkedNames(value: unknown): string[] {
  if (!Array.isArray(value)) throw new DevCoreError('INVALID_INPUT', 'moduleNames must be an array of module names');
  const names: unknown[] = value;
  for (const name of names)
    if (!isModuleName(name))
      throw new DevCoreError('DENO_MODULE_NAME_INVALID', 'Deno Module name is invalid', { moduleName: name });
  if (new Set(names).size !== names.length) throw new DevCoreError('INVALID_INPUT', 'duplicate Deno Module name');
  return names as string[];
}

/** The request's body, exactly `size` bytes, or `DENO_MODULE_UPLOAD_SIZE_MISMATCH`. */
async function readExactly(req: IncomingMessage, size: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  const mismatch = (got: string) =>
    new DevCoreError('DENO_MODULE_UPLOAD_SIZE_MISMATCH', `Expected ${size} bytes, ${got}`);
  if (declared !== undefined && Number(declared) !== size) {
    req.resume();
    throw mismatch(`Content-Length says ${declared}`);
  }
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > size) throw mismatch('received more');
    chunks.push(chunk);
  }
  if (received !== size) throw mismatch(`received ${received}`);
  return Buffer.concat(chunks);
}

/** The artifact's sources, or `DENO_MODULE_ARTIFACT_INVALID`. */
function readArtifact(body: Buffer, name: string): { runtimeSource: string; typesSource: string } {
  let artifact: unknown;
  try {
    artifact = JSON.parse(body.toString('utf8'));
  } catch {
    artifact = null;
  }
  const { version, format, runtimeSource, typesSource } = (artifact ?? {}) as Record<string, unknown>;
  const filled = (source: unknown): source is string => typeof source === 'string' && source.trim() !== '';
  if (version !== 1 || format !== 'esm' || !filled(runtimeSource) || !filled(typesSource))
    throw new DevCoreError(
      'DENO_MODULE_ARTIFACT_INVALID',
      `Deno module ${name}: expected { version: 1, format: "esm", runtimeSource, typesSource }`,
      { moduleName: name },
    );
  return { runtimeSource, typesSource };
}

/** The module's package (`index.mjs`, `index.d.ts`, `package.json`), written beside it and renamed into place. */
async function materialize(folder: string, name: string, runtimeSource: string, typesSource: string): Promise<void> {
  const staging = `${folder}.${randomBytes(6).toString('hex')}.partial`;
  await mkdir(staging, { recursive: true });
  try {
    await writeFile(join(staging, 'index.mjs'), runtimeSource);
    await writeFile(join(staging, 'index.d.ts'), typesSource);
    const exports = { '.': { types: './index.d.ts', import: './index.mjs' } };
    const manifest = { name, type: 'module', types: './index.d.ts', exports };
    await writeFile(join(staging, 'package.json'), JSON.stringify(manifest, null, 2));
    await rm(folder, { recursive: true, force: true });
    await rename(staging, folder);
  } catch (thrown) {
    await rm(staging, { recursive: true, force: true }).catch(() => {});
    throw thrown;
  }
}
