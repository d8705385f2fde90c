/**
 * `PedelecWorkspace`: a folder on the user's machine that Pedelec Desktop shares with the agent
 * (docs/design/sdk-0.4.md, "Workspaces"). Every session has one — a folder the page opened, or one Desktop
 * manages for the session (`path` null). A 0.1.x extension has no workspaces: a session there has a
 * workspace whose `path` is null and whose methods reject `WORKSPACE_UNAVAILABLE`.
 */
import type { DenoModuleDefinition } from './deno-modules.js';
import { pedelecError, type PedelecError } from './errors.js';
import type { JsonValue } from './json.js';
import type { CreateSessionInput } from './session-input.js';
import type { PedelecSession } from './session.js';
import type { ToolDefinition, ToolNameOf } from './tools.js';
import type { ReadFileType } from './types.js';

/** How a workspace run goes: its time limit, and the Deno modules its script may import. */
export type WorkspaceRunOptions = { timeoutMs?: number; denoModules?: readonly DenoModuleDefinition[] };

/** What a workspace run printed, and how it ended (a non-zero exit code still resolves). */
export type WorkspaceRunResult = {
  exitCode: number;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
};

/** @internal What a workspace needs from its client. */
export interface WorkspaceBridge {
  createSession(input: CreateSessionInput, workspace: PedelecWorkspace): Promise<PedelecSession<string>>;
}

const unavailable = (): PedelecError =>
  pedelecError(
    'WORKSPACE_UNAVAILABLE',
    'Workspaces need a current Pedelec extension and Desktop app, with a kit that supports them',
  );

export class PedelecWorkspace {
  #bridge: WorkspaceBridge;
  #workspaceId: string;
  #path: string | null;

  /** @internal Workspaces are made by `Pedelec` (`openWorkspace`, and each session's). */
  constructor(bridge: WorkspaceBridge, workspaceId: string, path: string | null) {
    this.#bridge = bridge;
    this.#workspaceId = workspaceId;
    this.#path = path;
  }

  /** The folder's path on the user's machine; null for a workspace Desktop manages for a session. */
  get path(): string | null {
    return this.#path;
  }

  /** @internal The workspace's id on the wire ("" where there are no workspaces: a 0.1.x extension). */
  get workspaceId(): string {
    return this.#workspaceId;
  }

  /** Creates a session whose agent works in this workspace. */
  createSession(): Promise<PedelecSession<string>>;
  createSession<const TTools extends readonly ToolDefinition[] = readonly ToolDefinition[]>(
    input: CreateSessionInput<TTools>,
  ): Promise<PedelecSession<ToolNameOf<TTools>>>;
  createSession(input: CreateSessionInput = {}): Promise<PedelecSession<string>> {
    if (!this.#workspaceId) return Promise.reject(unavailable());
    return this.#bridge.createSession(input, this);
  }

  /** The files in the workspace (or in its folder `path`), as paths from its root. */
  listFiles(_path?: string): Promise<string[]> {
    return Promise.reject(unavailable());
  }

  /** The folders in the workspace (or in its folder `path`), as paths from its root. */
  listFolders(_path?: string): Promise<string[]> {
    return Promise.reject(unavailable());
  }

  /** Uploads a `File` into the workspace (at `targetPath`, or under its own name) and resolves with its path. */
  uploadFile(file: File): Promise<string>;
  uploadFile(file: File, targetPath: string): Promise<string>;
  uploadFile(_file: File, _targetPath?: string): Promise<string> {
    return Promise.reject(unavailable());
  }

  /** Reads a workspace file as text, parsed JSON, or a `File`. */
  readFile(path: string, type: 'text'): Promise<string>;
  readFile<T = JsonValue>(path: string, type: 'json'): Promise<T>;
  readFile(path: string, type: 'file'): Promise<File>;
  readFile(_path: string, _type: ReadFileType): Promise<unknown> {
    return Promise.reject(unavailable());
  }

  /** Runs a Deno script in the workspace folder and resolves with what it printed. */
  run(_script: string, _options?: WorkspaceRunOptions): Promise<WorkspaceRunResult> {
    return Promise.reject(unavailable());
  }
}
