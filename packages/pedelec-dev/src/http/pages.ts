/**
 * The pages of a `--serve DIR` folder worth printing at start, so a user sees every page and not only
 * the first (`npm start` serves the demo folder: the plain-HTML, CDN, Vue, Angular and React demos).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** More than this many are cut, with a note: a folder of a whole site is not listed page by page. */
export const MAX_LISTED_PAGES = 12;

/**
 * The URL paths of the pages at the top of `dir`: `/` for its `index.html`, `/name.html` for its
 * other HTML files, `/sub/` for a folder holding an `index.html` — in that order, each group sorted.
 * Dotfiles and dot-folders are left out (static serving refuses them), and so are symlinks (which it
 * may refuse). A folder that cannot be read lists nothing.
 */
export function pagesIn(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const visible = entries.filter((e) => !e.name.startsWith('.')).sort((a, b) => (a.name < b.name ? -1 : 1));
  const files = visible.filter((e) => e.isFile() && /\.html?$/i.test(e.name));
  const folders = visible.filter((e) => e.isDirectory() && isFile(join(dir, e.name, 'index.html')));
  return [
    ...files.filter((e) => e.name === 'index.html').map(() => '/'),
    ...files.filter((e) => e.name !== 'index.html').map((e) => `/${encodeURIComponent(e.name)}`),
    ...folders.map((e) => `/${encodeURIComponent(e.name)}/`),
  ];
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
