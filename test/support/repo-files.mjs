// The repository's own files, for the Node tests that read the sources or the build to check a rule.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder, with a trailing separator. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Every file under `folder` (a path from the repository's root) whose name ends with `suffix`, as absolute paths. */
export function filesUnder(folder, suffix) {
  const dir = join(repoRoot, folder);
  return readdirSync(dir, { recursive: true })
    .filter((name) => name.endsWith(suffix))
    .map((name) => join(dir, name));
}
