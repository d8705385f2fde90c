/**
 * Where the files pedelec-dev serves and reports are: its own (the inspector page, package.json's
 * version), found from this module's place in the package, and the kit's `cdn/` and `dist/`, found
 * where Node finds the `pedelec-elements` package beside it (a dependency of pedelec-dev; in the
 * repository, the workspace's root). Apart from server.ts because the command (cli.ts) and the HTTP
 * routes need them too, and neither should have to load the server.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Whether this is pedelec-dev's TypeScript source run through tsx (its own tests, and the kit's, run
 * it so, with no build), not the compiled package.
 */
export const runsFromSource = import.meta.url.endsWith('.ts');
/** The extension of pedelec-dev's own modules here: `.ts` from source, `.js` compiled. */
const moduleExtension = runsFromSource ? '.ts' : '.js';

/** pedelec-dev's root folder, with a trailing slash. */
export const packageRoot = fileURLToPath(new URL('../', import.meta.url));
/** The inspector's static files (HTML, script, styles), copied beside the compiled server by the build. */
export const inspectorPageDir = fileURLToPath(new URL('./inspector/page/', import.meta.url));
/** The command itself, as `node` runs it: `node <cliPath> …` starts pedelec-dev from any folder. */
export const cliPath = fileURLToPath(new URL(`./cli${moduleExtension}`, import.meta.url));

/**
 * `node <absolute path of cli.js> ARGS…`, each word quoted for a POSIX shell where it needs it: the
 * command lines pedelec-dev prints name this very installation, never a package to fetch by name.
 */
export function cliCommand(...args: string[]): string {
  return ['node', ...(runsFromSource ? ['--import', 'tsx'] : []), cliPath, ...args].map(shellWord).join(' ');
}

/**
 * A worker thread running pedelec-dev's module `name` (`./pattern-worker`, say). From source the
 * worker needs tsx too, which a worker thread does not inherit from its parent on Node 20: it starts
 * from a line that registers tsx, then imports the module.
 */
export function startWorker(name: string, options: WorkerOptions): Worker {
  const module = new URL(`${name}${moduleExtension}`, import.meta.url);
  if (!runsFromSource) return new Worker(module, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = `import(${JSON.stringify(tsx)}).then((tsx) => (tsx.register(), import(${JSON.stringify(module.href)})));`;
  return new Worker(entry, { ...options, eval: true });
}

const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * The kit's root folder (where its `cdn/` and `dist/` are), with a trailing slash. Resolved when the
 * Core starts, not at import: a missing kit is a start-up error the command prints, not a crash.
 */
export function kitRoot(): string {
  const kitPackage = createRequire(import.meta.url).resolve('pedelec-elements/package.json');
  return `${dirname(kitPackage)}/`;
}

export function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(`${packageRoot}package.json`, 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
