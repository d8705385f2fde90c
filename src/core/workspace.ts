/**
 * `PedelecWorkspace`: a folder on the user's machine that Pedelec Desktop shares with the agent
 * (docs/design/sdk-0.4.md, "Workspaces"). Every session has one — a folder the page opened, or one Desktop
 * manages for the session (`path` null). A 0.1.x extension has no workspaces: a session there has a
 * workspace whose `path` is null and whose methods reject `WORKSPACE_UNAVAILABLE`. What the methods do
 * loads on first use (workspace-calls.ts).
 */
import type { BridgeRequest } from './deno-module-setup.js';
import type { DenoModuleDefinition } from './deno-modules.js';
import { pedelecError, type PedelecError } from './errors.js';
import { lazyModule } from './lazy-module.js';
import type { JsonValue } from './json.js';
import type { CreateSessionInput } from './session-input.js';
import type { PedelecSession } from './session.js';
import type { ToolDefinition, ToolNameOf } from './tools.js';
import type { ReadFileType } from './types.js';
import type { WorkspaceTarget } from './workspace-calls.js';

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
  request: BridgeRequest;
  createSession(input: CreateSessionInput, workspace: PedelecWorkspace): Promise<PedelecSession<string>>;
}

const unavailable = (): PedelecError =>
  pedelecError('WORKSPACE_UNAVAILABLE', 'Workspaces need a current Pedelec extension and Desktop app');

type WorkspaceCalls = typeof import('./workspace-calls.js');
/** The workspace methods, by their names in the workspace code. */
type WorkspaceCall = 'listFiles' | 'listFolders' | 'uploadFile' | 'readFile' | 'run';
/** What a method of the workspace code takes after its target. */
type CallArgs<K extends WorkspaceCall> =
  Parameters<WorkspaceCalls[K]> extends [WorkspaceTarget, ...infer A] ? A : never;

/** @internal The workspace code (workspace-calls.ts), loaded on first use. */
export const loadWorkspaceCalls = lazyModule(() => import('./workspace-calls.js'), "the kit's workspace code");

/**
 * A folder on the user's machine the agent works in. Made by `Pedelec` (`openWorkspace`) and for
 * each session (`session.workspace`). Every method returns a promise that rejects with a
 * {@link PedelecError}, never throws.
 */
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
  listFiles(path?: string): Promise<string[]> {
    return this.#call('listFiles', path);
  }

  /** The folders in the workspace (or in its folder `path`), as paths from its root. */
  listFolders(path?: string): Promise<string[]> {
    return this.#call('listFolders', path);
  }

  /**
   * Uploads a `File` (at most 100 MiB) into the workspace — at `targetPath`, a path from its root, or
   * under its own name — and resolves with its path.
   */
  uploadFile(file: File): Promise<string>;
  uploadFile(file: File, targetPath: string): Promise<string>;
  uploadFile(file: File, targetPath?: string): Promise<string> {
    return this.#call('uploadFile', file, targetPath);
  }

  /** Reads a workspace file (a path from its root) as text, parsed JSON, or a `File`. */
  readFile(path: string, type: 'text'): Promise<string>;
  readFile<T = JsonValue>(path: string, type: 'json'): Promise<T>;
  readFile(path: string, type: 'file'): Promise<File>;
  readFile(path: string, type: ReadFileType): Promise<unknown> {
    return this.#call('readFile', path, type);
  }

  /**
   * Runs a Deno script in the workspace folder, with the Deno modules it may import, and resolves with
   * what it printed — whatever its exit code. It waits as long as the run takes: Desktop bounds it
   * (`timeoutMs`, or Desktop's default).
   */
  run(script: string, options: WorkspaceRunOptions = {}): Promise<WorkspaceRunResult> {
    return this.#call('run', script, options);
  }

  /** `method` of the workspace code, where there are workspaces, once that code is loaded. */
  #call<K extends WorkspaceCall>(method: K, ...args: CallArgs<K>): ReturnType<WorkspaceCalls[K]> {
    if (!this.#workspaceId) return Promise.reject(unavailable()) as ReturnType<WorkspaceCalls[K]>;
    const target: WorkspaceTarget = { request: this.#bridge.request, workspaceId: this.#workspaceId };
    const call = (calls: WorkspaceCalls) => (calls[method] as (...all: unknown[]) => unknown)(target, ...args);
    return loadWorkspaceCalls().then(call) as ReturnType<WorkspaceCalls[K]>;
  }
}
