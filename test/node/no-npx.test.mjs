// Neither pedelec-dev nor the kit is published on the npm registry: outside this repository,
// `npx pedelec-dev` (or `npx -p … pedelec-dev`, or an MCP client configured with `"command": "npx"`)
// would fetch and run whatever the registry holds under that name. So no doc, demo, source (the
// command's help and banner, the chat's advice) or script tells anyone to run it that way; a line that
// runs it inside the repository says so. The command's own output names its absolute path instead, and
// inside the repository `npx pedelec-dev` runs the workspace's command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDevCommand } from '../support/dev-command.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const devRoot = join(root, 'packages/pedelec-dev');
const CLI = join(devRoot, 'dist/cli.js');
const START_LIMIT_MS = 15_000;

/** What users read: docs, demo pages, sources whose strings are printed or shown, scripts. */
const SCANNED = [
  'README.md',
  'CHANGELOG.md',
  'docs',
  'demo',
  'src',
  'scripts',
  'bench',
  'packages/pedelec-dev/README.md',
  'packages/pedelec-dev/src',
  'packages/pedelec-dev/bin',
];
/** Built or installed, not written: demo bundles, dependencies, benchmark results. */
const SKIPPED = new Set(['node_modules', 'build', 'dist', 'results']);
const TEXT = /\.(md|html|js|mjs|ts|tsx|css|json)$/;

/** A line that tells someone to run pedelec-dev through npx (or npm exec). */
// The package npx runs is its first word after the options (`-p X` included): `npx --yes pedelec-dev`,
// `npx -p pedelec-elements pedelec-dev` — not a path passed on to another package's command (the
// Inspector's `npx @modelcontextprotocol/inspector --cli node …/pedelec-dev/dist/cli.js mcp`).
const NPX_RUN = /\b(npx|npm\s+exec)(\s+(-p\s+\S+|-\S+))*\s+pedelec-dev\b|"command"\s*:\s*"npx"/;
/** …which is allowed only where the line itself says it is run inside this repository. */
const IN_REPOSITORY = /\b(in|inside) (this|the) repository\b/i;

function filesUnder(path) {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [full];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) =>
    SKIPPED.has(entry.name) ? [] : filesUnder(join(path, entry.name)),
  );
}

/** Each line of `text` that tells someone to run pedelec-dev through npx outside the repository. */
function offendingLines(text) {
  return text.split('\n').filter((line) => NPX_RUN.test(line) && !IN_REPOSITORY.test(line));
}

test('the check finds npx instructions and lets lines for inside the repository pass', () => {
  for (const line of [
    'npx pedelec-dev --serve demo',
    'anywhere else, `npx -p pedelec-elements pedelec-dev`.',
    'PEDELEC_DEV_API_KEY=… npx --yes pedelec-dev --agent openai',
    'npm exec pedelec-dev -- --port 0',
    '{"mcpServers":{"pedelec":{"command":"npx","args":["pedelec-dev","mcp"]}}}',
  ]) {
    assert.deepEqual(offendingLines(line), [line]);
  }
  for (const line of [
    '- inside this repository: `npx pedelec-dev` runs the workspace’s own command',
    'npx pedelec-dev --serve demo   # in this repository',
    'node /home/me/pedelec-elements/packages/pedelec-dev/dist/cli.js --serve .',
    'Outside this repository, `npx` cannot find the command.',
    'restart pedelec-dev with --allow-origin http://localhost:3000',
    'npx @modelcontextprotocol/inspector --cli node /home/me/clone/packages/pedelec-dev/dist/cli.js mcp',
  ]) {
    assert.deepEqual(offendingLines(line), []);
  }
});

test('no doc, demo, source or script tells anyone to run pedelec-dev through npx outside the repository', () => {
  const files = SCANNED.flatMap(filesUnder).filter((file) => TEXT.test(file));
  assert.ok(files.length > 100, `scanned ${files.length} files`);
  assert.ok(
    files.some((file) => file.endsWith(join('pedelec-dev', 'src', 'cli.ts'))),
    'the command is scanned',
  );
  const found = files.flatMap((file) =>
    offendingLines(readFileSync(file, 'utf8')).map((line) => `${relative(root, file)}: ${line.trim()}`),
  );
  assert.deepEqual(found, []);
});

test('pedelec-dev --help names no npx', () => {
  assert.ok(existsSync(CLI), 'packages/pedelec-dev/dist/ is missing: npm test builds it first');
  const help = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8', timeout: START_LIMIT_MS });
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^Usage: pedelec-dev /);
  assert.doesNotMatch(help.stdout + help.stderr, /\bnpx\b/);
});

test('npm start prints no npx, and the command it starts prints its own absolute path', async (t) => {
  // The line npm start prints before the server's banner.
  const hint = spawnSync(process.execPath, [join(root, 'scripts/webmcp-hint.mjs')], { encoding: 'utf8' });
  assert.equal(hint.status, 0, hint.stderr);
  assert.doesNotMatch(hint.stdout, /\bnpx\b/);

  // The server as npm start runs it, on a free port.
  const server = await startDevCommand(process.execPath, [CLI, '--port', '0', '--serve', 'demo'], { t });
  const banner = server.output;
  assert.deepEqual(await server.stop(), { code: 0, signal: null });

  assert.doesNotMatch(banner, /\bnpx\b/);
  const command = /^ {2}Command: +node (\S+) /m.exec(banner);
  assert.ok(command, `a Command: line in\n${banner}`);
  assert.ok(isAbsolute(command[1]), command[1]);
  assert.equal(realpathSync(command[1]), realpathSync(CLI));
});

test('inside the repository, npx pedelec-dev runs the workspace’s command (linked by npm ci), offline', () => {
  const bin = join(root, 'node_modules/.bin/pedelec-dev');
  assert.ok(existsSync(bin), 'node_modules/.bin/pedelec-dev: npm ci links the workspace’s command');
  assert.equal(realpathSync(bin), realpathSync(join(devRoot, 'bin/pedelec-dev.js')));
  // --no: never install; --offline: never ask the registry.
  const run = spawnSync('npx', ['--no', '--offline', 'pedelec-dev', '--version'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
  const { version } = JSON.parse(readFileSync(join(devRoot, 'package.json'), 'utf8'));
  assert.equal(run.stdout.trim(), version);
});
