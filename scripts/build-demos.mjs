// Bundles the framework demos (demo/vue, demo/angular, demo/react) into demo/<name>/build/main.js with
// esbuild, so `npm start` can serve them beside the plain-HTML and CDN demos: /vue/, /angular/,
// /react/. Each bundle holds its framework and the kit (`pedelec-elements/define.js`, resolved through
// package.json "exports" to dist/: run `npm run build` first — `npm start` does).
// The browser tests run the same app modules unbundled (test/interop/, test/plugins/frameworks.mjs).
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
if (!existsSync(`${root}dist/define.js`)) {
  console.error('build-demos: dist/ is missing — run `npm run build` first.');
  process.exit(1);
}

const demos = [
  { name: 'vue', entry: 'demo/vue/main.ts' },
  { name: 'angular', entry: 'demo/angular/main.ts' },
  { name: 'react', entry: 'demo/react/main.tsx' },
];

for (const { name, entry } of demos) {
  const started = Date.now();
  await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile: `demo/${name}/build/main.js`,
    bundle: true,
    format: 'esm',
    target: 'es2022',
    sourcemap: true,
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    jsx: 'automatic',
    // Vue's build with the template compiler: the Vue demo's template is the page's own HTML.
    alias: { vue: 'vue/dist/vue.esm-bundler.js' },
    define: {
      'process.env.NODE_ENV': '"production"',
      // Angular's production mode (its JIT compiler still runs: the component is compiled in the browser).
      ngDevMode: 'false',
      __VUE_OPTIONS_API__: 'true',
      __VUE_PROD_DEVTOOLS__: 'false',
      __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
    },
    // Lit's production build, as the CDN file uses.
    conditions: ['production'],
  });
  console.log(`build-demos: demo/${name}/build/main.js (${Date.now() - started} ms)`);
}
