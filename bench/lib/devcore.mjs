// The Core of the `roundtrip` and `startup` benchmarks: the real `pedelec-dev` command in its own
// process (so the bench driver and puppeteer never share its event loop), on a free loopback port —
// with a rules file that makes the scripted agent call the page's `echo` tool N times for one message
// (`roundtrip`), or serving the pages to load (`startup`).
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 8_000;

/** `{ "^<text>$": calls }` → a rules file: each message calls `echo` with i = 0…calls-1, in order. */
export async function writeEchoScript(dir, messages) {
  const rules = Object.entries(messages).map(([text, calls]) => ({
    match: { regex: `^${text}$` },
    steps: Array.from({ length: calls }, (_, i) => ({ call: 'echo', args: { i } })),
  }));
  const file = join(dir, 'roundtrip-script.json');
  await writeFile(file, JSON.stringify({ rules }));
  return file;
}

/**
 * Starts `pedelec-dev --port 0 ARGS…` (e.g. `--script FILE`, `--serve DIR`); resolves with
 * `{ bridgeUrl, pagesUrl, output(), stop() }`.
 */
export function startDevCoreProcess(root, args) {
  const child = spawn(
    process.execPath,
    [join(root, 'packages', 'pedelec-dev', 'dist', 'cli.js'), '--port', '0', '--host', '127.0.0.1', ...args],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(resolve, STOP_TIMEOUT_MS, 'late');
    });
    if ((await Promise.race([exited, late])) === 'late') {
      child.kill('SIGKILL');
      await exited;
    }
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop().finally(() => reject(new Error(`pedelec-dev did not start within ${START_TIMEOUT_MS} ms:\n${output}`)));
    }, START_TIMEOUT_MS);
    let ready = false;
    const onData = (chunk) => {
      output += chunk; // read to the end, so the child never blocks on a full pipe
      const bridge = ready ? null : /Bridge:\s+(ws:\/\/\S+)/.exec(output);
      if (!bridge) return;
      ready = true;
      clearTimeout(timer);
      // Pages are served on the bridge's host and port.
      const pagesUrl = new URL('/', bridge[1].replace(/^ws/, 'http')).href;
      resolve({ bridgeUrl: bridge[1], pagesUrl, output: () => output, stop });
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`pedelec-dev exited (${code ?? signal}) before it was ready:\n${output}`));
    });
  });
}
