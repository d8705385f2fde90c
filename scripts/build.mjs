// `npm run build`: the kit — dist/ (tsc: unbundled ES modules + .d.ts), cdn/ (rollup), custom-elements.json
// (cem) — and the workspace package pedelec-dev (packages/pedelec-dev/dist/).
// Each step runs as a child process so a failure stops the build with that tool's own message.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => `${root}node_modules/.bin/${name}`;

function run(label, cmd, args) {
  const started = Date.now();
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`build: ${label} failed`);
    process.exit(result.status ?? 1);
  }
  console.log(`build: ${label} (${Date.now() - started} ms)`);
}

const dev = `${root}packages/pedelec-dev/`;

rmSync(`${root}dist`, { recursive: true, force: true });
rmSync(`${root}cdn`, { recursive: true, force: true });
rmSync(`${dev}dist`, { recursive: true, force: true });
run('tsc → dist/', bin('tsc'), ['-p', 'tsconfig.json']);
// The development Core, the workspace package pedelec-dev (Node only, its own tsconfig with Node
// types). It imports the kit by name, so it compiles against the kit's declarations just written.
// Its inspector page is plain HTML/JS/CSS served as files, so it is copied beside the compiled
// server — but not the tsconfig.json that type-checks its script, which is no page file; cli.js
// keeps its shebang and must be executable for the package's `bin`.
run('tsc (pedelec-dev) → packages/pedelec-dev/dist/', bin('tsc'), ['-p', `${dev}tsconfig.json`]);
cpSync(`${dev}src/inspector/page`, `${dev}dist/inspector/page`, {
  recursive: true,
  filter: (path) => !path.endsWith('tsconfig.json'),
});
chmodSync(`${dev}dist/cli.js`, 0o755);
run('rollup → cdn/', bin('rollup'), ['-c', 'rollup.config.mjs', '--silent']);
// What the analyzer reads, and how, is in custom-elements-manifest.config.mjs (shared with `npm run docs`).
run('cem → custom-elements.json', bin('cem'), ['analyze']);
