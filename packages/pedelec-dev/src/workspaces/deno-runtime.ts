/**
 * Runs Deno scripts in a workspace as Desktop does: a real Deno, in the workspace folder, allowed to
 * read and write that folder and nothing else — no network, no environment, no subprocesses, no FFI,
 * no system information, no remote or npm imports — with a cleared environment, a time limit, and
 * each output stream kept to 1 MiB.
 *
 * Which Deno: `--deno PATH`, else the `deno` package pedelec-dev installs as an optional dependency
 * (its platform binary), else one on PATH. Without any, a run is refused `DENO_UNAVAILABLE`.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, statSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { WorkspaceRunResult } from 'pedelec-elements/core';
import { DevCoreError } from '../errors.js';

/** Desktop's default time limit for a run. */
export const DEFAULT_RUN_TIMEOUT_MS = 60_000;
/** What is kept of each of stdout and stderr. */
export const MAX_OUTPUT_BYTES = 1024 * 1024;

const isExecutable = (file: string) => {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
};

/** The Deno binary of the `deno` npm package's platform package, if it installed. */
function packagedDeno(): string | null {
  const require = createRequire(import.meta.url);
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  const platform = process.platform === 'linux' ? `linux-${arch}-glibc` : `${process.platform}-${arch}`;
  const binary = process.platform === 'win32' ? 'deno.exe' : 'deno';
  try {
    // Resolved from the `deno` package (the platform package is its optional dependency).
    const from = createRequire(require.resolve('deno/package.json'));
    return join(dirname(from.resolve(`@deno/${platform}/package.json`)), binary);
  } catch {
    return null;
  }
}

/** A `deno` on PATH. */
function denoOnPath(env: Readonly<Record<string, string | undefined>>): string | null {
  const binary = process.platform === 'win32' ? 'deno.exe' : 'deno';
  for (const folder of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    if (isExecutable(join(folder, binary))) return join(folder, binary);
  }
  return null;
}

/** The Deno to run: the one given, else the packaged one, else one on PATH; null when there is none. */
export function findDeno(
  given?: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | null {
  if (given) return isExecutable(given) ? given : null;
  const packaged = packagedDeno();
  return packaged && isExecutable(packaged) ? packaged : denoOnPath(env);
}

export const denoUnavailable = () =>
  new DevCoreError(
    'DENO_UNAVAILABLE',
    'pedelec-dev found no Deno to run this: reinstall pedelec-dev with its optional dependencies ' +
      '(npm install, without --omit=optional), put deno on PATH, or give one with --deno PATH',
  );

/** One stream's first {@link MAX_OUTPUT_BYTES}, and whether more came. */
class Capture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  truncated = false;

  add(chunk: Buffer): void {
    const room = MAX_OUTPUT_BYTES - this.kept;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(part);
    this.kept += part.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

export type DenoRun = {
  deno: string;
  /** The workspace folder (resolved): the run's working folder, and all it may read and write. */
  folder: string;
  script: string;
  timeoutMs: number;
  /** An import map naming the Deno modules the script may import, if any. */
  importMap?: string;
  /** Arguments the script gets (`Deno.args`), never read as Deno's own flags. */
  args?: readonly string[];
};

/**
 * Runs `script` and resolves what it printed, whatever its exit code; a run past its time limit is
 * killed and rejected `DENO_EXECUTION_TIMEOUT`, with what it printed until then.
 *
 * The script is written into the workspace's runtime folder and imported by a fixed entry module given
 * on stdin: a script's own static imports are then checked against the read permission like any file
 * it opens (an entry module's are not), so it cannot import a file from outside the workspace.
 */
export async function runDeno(run: DenoRun): Promise<WorkspaceRunResult> {
  const runtime = join(run.folder, '.pedelec-runtime');
  const runs = join(runtime, 'tmp', 'runs');
  const scriptFile = join(runs, `run_${randomBytes(12).toString('hex')}.ts`);
  const denoDir = join(runtime, 'deno');
  await mkdir(runs, { recursive: true });
  await mkdir(denoDir, { recursive: true });
  await writeFile(scriptFile, run.script);
  const flags = [
    'run',
    '--no-prompt',
    '--no-config',
    '--no-remote',
    '--cached-only',
    '--no-npm',
    ...(run.importMap ? [`--import-map=${run.importMap}`] : []),
    `--allow-read=${run.folder}`,
    `--allow-write=${run.folder}`,
    '--deny-net',
    '--deny-env',
    '--deny-run',
    '--deny-ffi',
    '--deny-sys',
    // The script (`-`: stdin); what follows it is the script's own arguments, never Deno's flags.
    '-',
    ...(run.args ?? []),
  ];
  try {
    return await new Promise<WorkspaceRunResult>((resolve, reject) => {
      const child = spawn(run.deno, flags, {
        cwd: run.folder,
        env: { DENO_DIR: denoDir, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
      const stdout = new Capture();
      const stderr = new Capture();
      child.stdout.on('data', (chunk: Buffer) => stdout.add(chunk));
      child.stderr.on('data', (chunk: Buffer) => stderr.add(chunk));
      const output = () => ({
        stdout: stdout.text(),
        stderr: stderr.text(),
        stdoutTruncated: stdout.truncated,
        stderrTruncated: stderr.truncated,
      });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, run.timeoutMs);
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(new DevCoreError('DENO_PROCESS_SPAWN_FAILED', `Deno could not be started: ${error.message}`));
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        if (timedOut) {
          reject(
            new DevCoreError(
              'DENO_EXECUTION_TIMEOUT',
              `The script ran longer than ${run.timeoutMs} ms and was stopped`,
              {
                timeoutMs: run.timeoutMs,
                ...output(),
              },
            ),
          );
        } else resolve({ exitCode: code ?? -1, ...output() });
      });
      child.stdin.on('error', () => {}); // a script that exits at once closes its stdin early
      // Through a variable: an import of a literal specifier would be loaded with the entry, unchecked.
      child.stdin.end(`const script = ${JSON.stringify(pathToFileURL(scriptFile).href)};\nawait import(script);\n`);
    });
  } finally {
    await rm(scriptFile, { force: true }).catch(() => {});
  }
}
