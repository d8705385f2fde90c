/**
 * Where the installed package's own files are, found from this module's place in it: the kit's
 * `cdn/` and `dist/`, the inspector page, and package.json's version. Apart from server.ts because the
 * command (cli.ts) and the HTTP routes need them too, and neither should have to load the server.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The package's root folder, with a trailing slash. */
export const packageRoot = fileURLToPath(new URL('../../', import.meta.url));
/** The inspector's static files (HTML, script, styles), copied beside the compiled server by the build. */
export const inspectorPageDir = fileURLToPath(new URL('./inspector-page/', import.meta.url));

export function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(`${packageRoot}package.json`, 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
