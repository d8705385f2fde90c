// The two packages as npm ships them: `npm pack` of the kit (the root) and of pedelec-dev (the
// workspace), each tarball installed into a fresh project, with no network. A page that installs the
// kit gets no server, `ws`, `sirv` or MCP SDK, and the kit's core entry imports in Node; pedelec-dev's
// tarball installs beside it and its command starts, serving the kit it found there.
//
// Offline: `npm install --offline` reads only the npm cache, which `npm ci` filled with the exact
// tarballs package-lock.json names; but it would also need the registry's metadata to choose versions,
// and `npm ci` never fetches that. So the fresh project gets a lockfile of its own, made from this
// repository's (the same versions, the same integrity hashes): npm then takes every package from the
// cache, as a user's install with that lockfile would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const devRoot = join(root, 'packages/pedelec-dev');
const NPM_LIMIT_MS = 120_000;
const START_LIMIT_MS = 15_000;

/** Packages a page that installs the kit must not get: a server, its WebSocket and files, the MCP SDK. */
const SERVER_PACKAGES = [
  'ws',
  'sirv',
  '@modelcontextprotocol/sdk',
  '@modelcontextprotocol/server',
  '@modelcontextprotocol/client',
  '@modelcontextprotocol/node',
  'express',
  'polka',
];
/** Modules the kit's files must not load: those packages and Node's servers. */
const SERVER_IMPORT = new RegExp(
  String.raw`(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]` +
    String.raw`(ws|sirv|@modelcontextprotocol\/(?:sdk|server|client|node)|express|polka|(?:node:)?(?:http|https|http2|net))(?:\/[^'"]*)?['"]`,
);

/**
 * npm for a project of its own: without the `npm_*` variables `npm test` sets for this repository (its
 * prefix, its package), but with the same cache and user config.
 */
function npm(cwd, args) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('npm_') || ['npm_config_cache', 'npm_config_userconfig'].includes(name),
    ),
  );
  const run = spawnSync('npm', args, { cwd, env, encoding: 'utf8', timeout: NPM_LIMIT_MS });
  assert.equal(run.status, 0, `npm ${args.join(' ')} in ${cwd}:\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** `npm pack` of the package at `dir` into `into`: the tarball's path and the files it holds. */
function pack(dir, into) {
  const [report] = JSON.parse(npm(dir, ['pack', '--json', '--pack-destination', into]));
  return { tarball: join(into, report.filename), files: report.files.map((file) => file.path) };
}

/** The lockfile entry fields npm needs to install a package from the cache (dev flags left behind). */
const LOCK_FIELDS = [
  'version',
  'resolved',
  'integrity',
  'license',
  'dependencies',
  'optionalDependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'bin',
  'engines',
  'os',
  'cpu',
  'hasInstallScript',
];

/**
 * A fresh project at `dir` that depends on `tarballs` (`{ name: { file, manifest } }`), with a
 * lockfile taking every other package from this repository's lockfile, where Node's lookup finds it.
 */
function freshProject(dir, tarballs) {
  const repoLock = readJson(join(root, 'package-lock.json')).packages;
  const entries = {};
  const pick = (entry) => Object.fromEntries(LOCK_FIELDS.filter((k) => k in entry).map((k) => [k, entry[k]]));
  /** The nearest `node_modules/<name>` up from the package at lock path `from`, as Node would find it. */
  const lookup = (from, name) => {
    for (let at = from; ; at = at.slice(0, Math.max(0, at.lastIndexOf('/node_modules/')))) {
      const path = `${at ? `${at}/` : ''}node_modules/${name}`;
      if (repoLock[path] && !repoLock[path].link) return path;
      if (!at) return null;
    }
  };
  const visit = (from, entry) => {
    const optional = new Set([
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...Object.entries(entry.peerDependenciesMeta ?? {})
        .filter(([, meta]) => meta.optional)
        .map(([name]) => name),
    ]);
    const names = Object.keys({ ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies });
    for (const name of names) {
      if (name in tarballs) continue;
      const path = lookup(from, name);
      if (!path) {
        assert.ok(optional.has(name), `${name}, needed by ${from}, is not in package-lock.json`);
        continue;
      }
      if (path in entries) continue;
      entries[path] = pick(repoLock[path]);
      visit(path, repoLock[path]);
    }
  };
  const dependencies = {};
  for (const [name, { file, manifest }] of Object.entries(tarballs)) {
    dependencies[name] = `file:${file}`;
    const integrity = `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
    entries[`node_modules/${name}`] = pick({ ...manifest, resolved: `file:${file}`, integrity });
    visit(`node_modules/${name}`, manifest);
  }
  const project = { name: 'pack-check', version: '1.0.0', private: true, type: 'module', dependencies };
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify(project, null, 2));
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({
      name: project.name,
      version: project.version,
      lockfileVersion: 3,
      requires: true,
      packages: { '': { name: project.name, version: project.version, dependencies }, ...entries },
    }),
  );
  npm(dir, ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts']);
  return dir;
}

/** Every package installed in `dir`'s node_modules, scoped ones as `@scope/name`. */
function installed(dir) {
  const names = [];
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const path = join(folder, entry.name);
      if (entry.name.startsWith('@')) {
        for (const scoped of readdirSync(path)) names.push(`${entry.name}/${scoped}`);
      } else {
        names.push(entry.name);
        if (existsSync(join(path, 'node_modules'))) walk(join(path, 'node_modules'));
      }
    }
  };
  walk(join(dir, 'node_modules'));
  return names;
}

/** Runs `code` as an ES module in the project at `dir` (so bare imports resolve from its node_modules). */
function nodeIn(dir, code) {
  return spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: dir,
    encoding: 'utf8',
    timeout: START_LIMIT_MS,
  });
}

test('npm pack of each package, installed offline into a fresh project', { timeout: 4 * NPM_LIMIT_MS }, async (t) => {
  assert.ok(existsSync(join(root, 'dist/index.js')), 'dist/ is missing: npm test builds it first');
  assert.ok(existsSync(join(devRoot, 'dist/cli.js')), 'packages/pedelec-dev/dist/ is missing: npm test builds it');
  const work = mkdtempSync(join(tmpdir(), 'pedelec-pack-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  const kit = { ...pack(root, work), manifest: readJson(join(root, 'package.json')) };
  const dev = { ...pack(devRoot, work), manifest: readJson(join(devRoot, 'package.json')) };

  await t.test('the kit ships no development Core: no bin, no dist/dev, no server dependency', () => {
    assert.equal(kit.manifest.bin, undefined);
    assert.ok(kit.files.includes('dist/core/index.js') && kit.files.includes('cdn/pedelec-elements.js'));
    assert.deepEqual(
      kit.files.filter((file) => /(^|\/)dev\//.test(file) || file.startsWith('packages/')),
      [],
    );
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      const names = Object.keys(kit.manifest[field] ?? {});
      assert.deepEqual(
        names.filter((name) => SERVER_PACKAGES.includes(name)),
        [],
        field,
      );
    }
  });

  await t.test('pedelec-dev ships its command, its build and the inspector, not its sources or tests', () => {
    for (const file of ['bin/pedelec-dev.js', 'dist/cli.js', 'dist/index.js', 'dist/inspector/page/index.html']) {
      assert.ok(dev.files.includes(file), file);
    }
    assert.deepEqual(
      dev.files.filter((file) => file.startsWith('src/') || file.startsWith('test/')),
      [],
    );
    assert.equal(dev.manifest.dependencies['pedelec-elements'], kit.manifest.version);
  });

  await t.test('a page that installs the kit gets no server, ws, sirv or MCP SDK, and core imports in Node', () => {
    const app = freshProject(join(work, 'kit-only'), {
      'pedelec-elements': { file: kit.tarball, manifest: kit.manifest },
    });
    const packages = installed(app);
    assert.ok(packages.includes('lit') && packages.includes('pedelec-elements'), packages.join(', '));
    assert.deepEqual(
      packages.filter((name) => SERVER_PACKAGES.includes(name)),
      [],
    );
    const kitDir = join(app, 'node_modules/pedelec-elements');
    const loading = [];
    const walk = (folder) => {
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.(js|mjs|cjs)$/.test(entry.name) && SERVER_IMPORT.test(readFileSync(path, 'utf8')))
          loading.push(path.slice(kitDir.length + 1));
      }
    };
    walk(kitDir);
    assert.deepEqual(loading, []);
    const core = nodeIn(
      app,
      `const core = await import('pedelec-elements/core');
       const protocol = await import('pedelec-elements/protocol');
       const { websocketTransport } = await import('pedelec-elements/transports');
       console.log(typeof core.Pedelec, typeof protocol.compileArgsValidator, typeof websocketTransport);`,
    );
    assert.equal(core.status, 0, core.stderr);
    assert.equal(core.stdout.trim(), 'function function function');
  });

  await t.test('pedelec-dev installs offline beside the kit, and its command starts', async (t) => {
    const app = freshProject(join(work, 'with-dev'), {
      'pedelec-elements': { file: kit.tarball, manifest: kit.manifest },
      'pedelec-dev': { file: dev.tarball, manifest: dev.manifest },
    });
    const bin = join(app, 'node_modules/.bin/pedelec-dev');
    assert.ok(existsSync(bin), 'npm linked the pedelec-dev command');
    const child = spawn(bin, ['--port', '0'], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    t.after(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    });
    let output = '';
    child.stderr.on('data', (chunk) => (output += chunk));
    const banner = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`pedelec-dev did not start:\n${output}`)), START_LIMIT_MS);
      child.stdout.on('data', (chunk) => {
        output += chunk;
        if (!output.includes('Press Ctrl+C to stop.')) return;
        clearTimeout(timer);
        resolve(output);
      });
      child.once('exit', (code) => reject(new Error(`pedelec-dev exited (${code}):\n${output}`)));
    });
    const base = /Pages?:\s+(http:\/\/127\.0\.0\.1:\d+)\//.exec(banner)?.[1];
    assert.ok(base, banner);
    // The command names this installation, and serves the kit installed beside it.
    const command = /^ {2}Command: +node (\S+)/m.exec(banner);
    assert.ok(command, banner);
    assert.equal(realpathSync(command[1]), realpathSync(join(app, 'node_modules/pedelec-dev/dist/cli.js')));
    const served = await fetch(`${base}/_pedelec/cdn/pedelec-elements.js`);
    assert.equal(served.status, 200);
    assert.equal(
      await served.text(),
      readFileSync(join(app, 'node_modules/pedelec-elements/cdn/pedelec-elements.js'), 'utf8'),
    );
    child.kill('SIGTERM');
    assert.deepEqual(await exited, { code: 0, signal: null });
  });
});
