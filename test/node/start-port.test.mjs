// `npm start` checks the demo's port before it builds anything (scripts/port-free.mjs): taken by
// another program or by another pedelec-dev (an earlier `npm start`), it says which, how to stop it or
// move, and that the page's bridge must then name the new port — at once, with exit code 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the check for `port`: its exit code and what it printed. */
const check = (port) =>
  new Promise((resolve) =>
    execFile(process.execPath, [`${root}scripts/port-free.mjs`, String(port)], (error, stdout, stderr) =>
      resolve({ code: error ? error.code : 0, stdout, stderr }),
    ),
  );

test("npm start's port check: free passes silently; another program or another pedelec-dev is named, exit 1", async (t) => {
  assert.ok(existsSync(`${root}packages/pedelec-dev/dist/server.js`), 'dist/ is missing: npm test builds it first');
  const blocker = net.createServer((socket) => socket.destroy());
  await new Promise((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const { port } = blocker.address();
  await new Promise((resolve) => blocker.close(resolve));
  assert.deepEqual(await check(port), { code: 0, stdout: '', stderr: '' });

  const taken = net.createServer((socket) => socket.destroy());
  await new Promise((resolve) => taken.listen(port, '127.0.0.1', resolve));
  const byProgram = await check(port);
  await new Promise((resolve) => taken.close(resolve));
  assert.equal(byProgram.code, 1);
  assert.match(
    byProgram.stderr,
    new RegExp(`^npm start: Port ${port} on 127\\.0\\.0\\.1 is already in use by another program`),
  );

  const { startDevCore } = await import('pedelec-dev');
  const other = await startDevCore({ port: 0 });
  t.after(() => other.close());
  const byPedelecDev = await check(other.port);
  assert.equal(byPedelecDev.code, 1);
  assert.equal(byPedelecDev.stderr.trimEnd().split('\n').length, 1);
  assert.match(byPedelecDev.stderr, /is held by another pedelec-dev \(npm start/);
  assert.match(byPedelecDev.stderr, /name that port in its bridge \(ws:\/\/127\.0\.0\.1:N\/bridge\)/);
});
