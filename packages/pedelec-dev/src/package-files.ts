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

/** pedelec-dev's root folder, with a trailing slash. */
export const packageRoot = fileURLToPath(new URL('../', import.meta.url));
/** The inspector's static files (HTML, script, styles), copied beside the compiled server by the build. */
export const inspectorPageDir = fileURLToPath(new URL('./inspector-page/', import.meta.url));
/** The command itself, as `node` runs it: `node <cliPath> …` starts pedelec-dev from any folder. */
export const cliPath = fileURLToPath(new URL('./cli.js', import.meta.url));

/**
 * `node <absolute path of cli.js> ARGS…`, each word quoted for a POSIX shell where it needs it: the
 * command lines pedelec-dev prints name this very installation, never a package to fetch by name.
 */
export function cliCommand(...args: string[]): string {
  return ['node', cliPath, ...args].map(shellWord).join(' ');
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
