// For the Node tests that start the `pedelec-dev` command as a user does (its CLI, directly or through
// npx), rather than in process: start it, wait for its banner, stop it. Every wait is bounded.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
/** The built command; `npm test` builds it first. */
export const CLI = `${root}packages/pedelec-dev/dist/cli.js`;

const START_LIMIT_MS = 20_000;
const STOP_LIMIT_MS = 5_000;

/**
 * Runs `command args…` (by default in the repository's root) and resolves once it has printed its
 * banner ("Press Ctrl+C to stop."), with `output` (stdout and stderr so far) and `url`, the base URL of
 * the pages it serves. Rejects with the output when it exits first or is not up within `limitMs`.
 *
 * The command runs in a process group of its own, because npx runs the server as a grandchild that a
 * signal to npx alone would leave running. `stop()` ends the group (SIGTERM, then SIGKILL when it does
 * not end in time) and resolves with the child's `{ code, signal }`; with `t`, it also runs in that
 * test's teardown.
 */
export async function startDevCommand(command, args, { t, cwd = root, limitMs = START_LIMIT_MS } = {}) {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const signalGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
      return true;
    } catch {
      return false; // ESRCH: nothing of the group is left
    }
  };
  let stopping = null;
  const stop = () =>
    (stopping ??= (async () => {
      if (child.pid === undefined) return exited;
      signalGroup('SIGTERM');
      // The group, not only the child: a grandchild may still be closing its server.
      const deadline = Date.now() + STOP_LIMIT_MS;
      while (signalGroup(0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      signalGroup('SIGKILL');
      return exited;
    })());
  t?.after(stop);

  let output = '';
  child.stderr.on('data', (chunk) => (output += chunk));
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${command} did not start in ${limitMs} ms:\n${output}`)),
        limitMs,
      );
      child.stdout.on('data', (chunk) => {
        output += chunk;
        if (!output.includes('Press Ctrl+C to stop.')) return;
        clearTimeout(timer);
        resolve();
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${command} exited (${code}) before it was up:\n${output}`));
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const url = /Pages?:\s+(http:\/\/\S+?)\/?\s/.exec(output)?.[1];
  if (!url) {
    await stop();
    throw new Error(`no page URL in the banner:\n${output}`);
  }
  return { child, output, url, port: Number(new URL(url).port), exited, stop };
}
