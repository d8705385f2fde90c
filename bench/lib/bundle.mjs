// Bundles the browser side of the benchmarks (bench/browser/*.js, importing the built dist/ and the
// peers) with esbuild into a temporary folder, one page per benchmark. Not minified: a CPU profile
// then shows real function names.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

export async function bundlePages(root, outdir, names) {
  await build({
    absWorkingDir: root,
    entryPoints: names.map((name) => join(root, 'bench', 'browser', `${name}.js`)),
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: false,
    logLevel: 'warning',
  });
  for (const name of names) {
    await writeFile(
      join(outdir, `${name}.html`),
      `<!doctype html>\n<meta charset="utf-8">\n<title>bench: ${name}</title>\n<link rel="icon" href="data:,">\n<body>\n<script type="module" src="./${name}.js"></script>\n`,
    );
  }
}
