/**
 * What a workspace's methods do (workspace.ts), loaded on first use: most pages never open a
 * workspace. Each call is checked in the public SDK's order and words, then asked of Desktop; file
 * contents move through tickets as assets do (file-transfers.ts), and a run first uploads the Deno
 * modules its workspace does not have yet (deno-module-setup.ts).
 */
import { PEDELEC_PROTOCOL_VERSION } from './bridge-port.js';
import { readRunModules, uploadModule, type BridgeRequest } from './deno-module-setup.js';
import { invalidInput, pedelecError, protocolError } from './errors.js';
import { downloadWith, uploadWith } from './file-transfers.js';
import { fieldsOf, isFilled, isObject, isPlainObject, type JsonValue } from './json.js';
import { readWorkspace, type WorkspaceReply } from './responses.js';
import { isWorkspacePath } from './workspace-names.js';
import type { WorkspaceRunOptions, WorkspaceRunResult } from './workspace.js';

/** What the calls act on: the bridge, and the workspace's id on the wire. */
export type WorkspaceTarget = { request: BridgeRequest; workspaceId: string };

const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
const pathInvalid = (message: string) => pedelecError('WORKSPACE_PATH_INVALID', message);

/**
 * `open_workspace`: the folder at `path`, or one the user picks (no time limit: the user takes their
 * time); null when the user cancels.
 */
export async function openWorkspace(request: BridgeRequest, path: unknown): Promise<WorkspaceReply | null> {
  if (path !== undefined && !isFilled(path)) throw invalidInput('path must be a non-empty string when provided');
  const picked = path === undefined;
  const payload = { ...(!picked && { path }), callerSdkVersion: PEDELEC_PROTOCOL_VERSION };
  const answer = await request('open_workspace', payload, picked ? Infinity : undefined);
  if (answer === null) return null;
  if (!isObject(answer) || !('workspace' in answer))
    throw protocolError('open_workspace response had an invalid shape');
  if (answer.workspace === null) return null;
  const workspace = readWorkspace(answer.workspace);
  if (!workspace) throw protocolError('open_workspace response had an invalid Workspace shape');
  return workspace;
}

/** The files in the whole workspace, or in its folder `path`. */
export const listFiles = (target: WorkspaceTarget, path?: unknown) => listPaths(target, 'workspace_list_files', path);

/** The folders in the whole workspace, or in its folder `path`. */
export const listFolders = (target: WorkspaceTarget, path?: unknown) =>
  listPaths(target, 'workspace_list_folders', path);

/** `workspace_list_files` or `workspace_list_folders`, in the whole workspace or in folder `path`. */
async function listPaths(
  { request, workspaceId }: WorkspaceTarget,
  type: 'workspace_list_files' | 'workspace_list_folders',
  path: unknown,
): Promise<string[]> {
  if (path !== undefined) {
    if (typeof path !== 'string') throw invalidInput('path must be a string when provided');
    if (!path.trim()) throw invalidInput('path must not be empty when provided');
  }
  const answer = await request(type, { workspaceId, ...(path !== undefined && { path }) });
  // Desktop answers the list itself, or `{ paths }`.
  const paths = Array.isArray(answer) ? answer : fieldsOf(answer).paths;
  if (!Array.isArray(paths) || paths.some((entry) => typeof entry !== 'string'))
    throw protocolError('workspace list response had an invalid shape');
  return paths as string[];
}

/** Uploads a `File` (at most 100 MiB) to `targetPath`, or under its own name; resolves with the path. */
export async function uploadFile(
  { request, workspaceId }: WorkspaceTarget,
  file: File,
  targetPath?: unknown,
): Promise<string> {
  if (typeof File === 'undefined' || !(file instanceof File) || !file.name)
    throw invalidInput('uploadFile requires a browser File with a filename');
  const { name, size, type } = file;
  if (size > MAX_UPLOAD_BYTES)
    throw pedelecError('WORKSPACE_FILE_TOO_LARGE', 'workspace file exceeds the 100 MiB limit', { sizeBytes: size });
  const given = targetPath !== undefined;
  if (given && !isWorkspacePath(targetPath)) throw pathInvalid('workspace target path is invalid');
  if (!given && !isWorkspacePath(name)) throw pathInvalid('workspace filename is invalid');
  const payload = { workspaceId, filename: name, sizeBytes: size, mimeType: type, ...(given && { targetPath }) };
  const ticket = await request('create_workspace_file_upload', payload);
  const failure = { code: 'WORKSPACE_FILE_UPLOAD_FAILED', message: 'workspace file upload failed' };
  const path = await uploadWith('create_workspace_file_upload', ticket, file, failure);
  if (!isWorkspacePath(path)) throw protocolError('file upload response had an invalid path');
  if (path !== (given ? targetPath : name)) throw protocolError('file upload response path did not match target path');
  return path;
}

/** Reads a workspace file as text, parsed JSON, or a `File`. */
export async function readFile(
  { request, workspaceId }: WorkspaceTarget,
  path: unknown,
  as: unknown,
): Promise<string | JsonValue | File> {
  if (!isWorkspacePath(path) || (as !== 'text' && as !== 'json' && as !== 'file'))
    throw pathInvalid('workspace path or read type is invalid');
  const ticket = await request('create_workspace_file_download', { workspaceId, path });
  return downloadWith('create_workspace_file_download', ticket, as, isWorkspacePath, {
    path,
    code: 'WORKSPACE_FILE_READ_FAILED',
    message: 'workspace file read failed',
    undecodable: { code: 'WORKSPACE_FILE_TEXT_DECODE_FAILED', message: 'workspace file is not valid UTF-8' },
    notJson: { code: 'WORKSPACE_FILE_INVALID_JSON', message: 'workspace file does not contain valid JSON' },
  });
}

/**
 * Runs a Deno script in the workspace folder. Its modules are checked first; those Desktop says the
 * workspace lacks are uploaded; then the run, which waits as long as Desktop takes (its own
 * `timeoutMs` bounds it), and resolves whatever the exit code.
 */
export async function run(
  { request, workspaceId }: WorkspaceTarget,
  script: unknown,
  options: WorkspaceRunOptions = {},
): Promise<WorkspaceRunResult> {
  if (typeof script !== 'string') throw invalidInput('script must be a string');
  if (!isPlainObject(options)) throw invalidInput('options must be an object');
  const { timeoutMs } = options;
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs <= 0))
    throw invalidInput('timeoutMs must be a positive integer');
  const modules = readRunModules(options.denoModules);
  const moduleNames = modules.map(({ name }) => name);
  if (modules.length) {
    const answer = await request('prepare_workspace_deno_modules', { workspaceId, moduleNames });
    const missing = fieldsOf(answer).missingModuleNames;
    if (!Array.isArray(missing)) throw protocolError('prepare_workspace_deno_modules response had an invalid shape');
    if (new Set(missing).size !== missing.length || missing.some((name) => !moduleNames.includes(name as string)))
      throw protocolError('prepare_workspace_deno_modules response had unknown or duplicate modules');
    for (const name of missing as string[]) {
      const module = modules[moduleNames.indexOf(name)];
      await uploadModule(request, 'create_workspace_deno_module_upload', { workspaceId, moduleName: name }, module);
    }
  }
  const payload = {
    workspaceId,
    script,
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(modules.length && { denoModules: moduleNames }),
  };
  const { exitCode, stdout, stderr, stdoutTruncated, stderrTruncated } = fieldsOf(
    await request('workspace_run', payload, Infinity),
  );
  const wellFormed =
    Number.isInteger(exitCode) &&
    typeof stdout === 'string' &&
    typeof stderr === 'string' &&
    typeof stdoutTruncated === 'boolean' &&
    typeof stderrTruncated === 'boolean';
  if (!wellFormed) throw protocolError('workspace_run response had an invalid shape');
  return { exitCode: exitCode as number, stdout, stderr, stdoutTruncated, stderrTruncated };
}
