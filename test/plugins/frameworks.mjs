// web-test-runner plugins for the interop tests (test/interop/): the demo apps importing the package by
// its own name, `.tsx`, Vue, React 19 (CommonJS), and the CDN demo page under a CSP header. Spread
// into `baseConfig.plugins` of web-test-runner.config.mjs (after the csp and esbuild plugins).
//
// Order matters (docs/design/toolchain.md): the Vue resolver comes before commonjs, or commonjs's resolver breaks
// Vue. Angular needs nothing here: its packages are ES modules that the test runner's node-resolve finds.
import { createRequire } from 'node:module';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';
import { fromRollup } from '@web/dev-server-rollup';
import rollupCommonjs from '@rollup/plugin-commonjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const require = createRequire(join(root, 'package.json'));

/**
 * `import … from 'pedelec-elements/…'` in the demo apps and interop tests, resolved as a consumer's
 * bundler would (through package.json "exports") but to the TypeScript sources, so the browser tests
 * always run the current code (and the same module instances as `../../src/…` imports elsewhere).
 * Types are checked against the built dist/ by `npm run typecheck:consumer`.
 */
function selfReference() {
  const resolve = (subpath) => {
    const exact = pkg.exports[subpath];
    let target = typeof exact === 'object' ? exact.default : exact;
    if (target === undefined) {
      for (const [key, value] of Object.entries(pkg.exports)) {
        const star = key.indexOf('*');
        if (star < 0) continue;
        const [before, after] = [key.slice(0, star), key.slice(star + 1)];
        if (subpath.startsWith(before) && subpath.endsWith(after) && subpath.length >= key.length - 1) {
          const middle = subpath.slice(before.length, subpath.length - after.length);
          target = (typeof value === 'object' ? value.default : value).replace('*', middle);
          break;
        }
      }
    }
    if (target === undefined) return undefined;
    const source = target.replace(/^\.\/dist\//, './src/').replace(/\.js$/, '.ts');
    return existsSync(join(root, source)) ? source.slice(1) : target.slice(1);
  };
  return {
    name: 'pedelec-self-reference',
    resolveImport({ source }) {
      if (source !== pkg.name && !source.startsWith(`${pkg.name}/`)) return undefined;
      return resolve(`.${source.slice(pkg.name.length)}`);
    },
  };
}

/**
 * `.tsx` (React tests and the React demo), compiled here rather than by the shared esbuild plugin so
 * the JSX settings do not depend on tsconfig.json: React 19's automatic runtime (`react/jsx-runtime`).
 */
function tsx() {
  return {
    name: 'pedelec-tsx',
    resolveMimeType(context) {
      return context.path.endsWith('.tsx') ? 'js' : undefined;
    },
    async transform(context) {
      if (!context.path.endsWith('.tsx')) return undefined;
      const { code } = await transform(context.body, {
        loader: 'tsx',
        jsx: 'automatic',
        target: 'es2021',
        sourcemap: 'inline',
        sourcefile: join(root, decodeURIComponent(context.path)),
        tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: false } },
      });
      return { body: code };
    },
    // TypeScript's `./x.js` specifiers name `./x.ts` or `./x.tsx` (the esbuild plugin does `.ts` for `.ts` importers only).
    resolveImport({ source, context }) {
      if (!source.startsWith('.') || !source.endsWith('.js') || !/\.tsx?$/.test(context.path)) return undefined;
      const dir = dirname(join(root, decodeURIComponent(context.path)));
      const stem = source.slice(0, -3);
      if (existsSync(join(dir, `${stem}.js`))) return undefined;
      if (context.path.endsWith('.tsx') && existsSync(join(dir, `${stem}.ts`))) return `${stem}.ts`;
      return existsSync(join(dir, `${stem}.tsx`)) ? `${stem}.tsx` : undefined;
    },
  };
}

/** Vue's browser ES build with the template compiler: in-DOM and string templates both compile. */
function vueResolver() {
  return {
    name: 'pedelec-vue-resolver',
    resolveImport({ source }) {
      if (source === 'vue') return '/node_modules/vue/dist/vue.esm-browser.js';
      return undefined;
    },
  };
}

/**
 * React ships CommonJS only. commonjs turns each file into ES modules, but outside a real rollup build
 * it gives no named exports: these facades re-export the CommonJS module's keys (read once from Node)
 * as named exports, for the entry points applications import.
 */
const REACT_ENTRIES = ['react', 'react-dom', 'react-dom/client', 'react/jsx-runtime', 'react/jsx-dev-runtime'];

/**
 * The URL of a file Node resolved (a real path) as the test server serves it. Under node_modules/ it is
 * `/node_modules/…` relative to node_modules' real location: node_modules may be a symlink (a git
 * worktree sharing another checkout's), and a real path then lies outside the project folder.
 */
function servedUrl(file) {
  const real = realpathSync(file);
  const inModules = relative(realpathSync(join(root, 'node_modules')), real);
  const path =
    inModules.startsWith('..') || isAbsolute(inModules) ? relative(root, real) : join('node_modules', inModules);
  return `/${path.split(sep).join('/')}`;
}
const FACADE_PREFIX = '/__pedelec-react-facade__/';

function reactFacades() {
  const facades = new Map();
  return {
    name: 'pedelec-react-facades',
    serverStart() {
      const previous = process.env.NODE_ENV;
      process.env.NODE_ENV = 'development';
      try {
        for (const entry of REACT_ENTRIES) {
          const url = servedUrl(require.resolve(entry));
          const names = Object.keys(require(entry)).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && k !== 'default');
          facades.set(
            `${FACADE_PREFIX}${entry}.js`,
            [
              `import m from ${JSON.stringify(url)};`,
              'export default m;',
              ...names.map((name) => `export const ${name} = m.${name};`),
            ].join('\n'),
          );
        }
      } finally {
        if (previous === undefined) delete process.env.NODE_ENV;
        else process.env.NODE_ENV = previous;
      }
    },
    resolveImport({ source, context }) {
      if (!REACT_ENTRIES.includes(source)) return undefined;
      // Inside React's own CommonJS files, commonjs resolves its requires itself.
      if (/\/node_modules\/(react|react-dom|scheduler)\//.test(context.path)) return undefined;
      return `${FACADE_PREFIX}${source}.js`;
    },
    serve(context) {
      const body = facades.get(context.path);
      return body === undefined ? undefined : { body, type: 'js' };
    },
  };
}

/** React's files read `process.env.NODE_ENV`, which browsers lack: the development build, as a bundler would pick. */
function reactEnv() {
  return {
    name: 'pedelec-react-env',
    transform(context) {
      if (!/\/node_modules\/(react|react-dom|scheduler)\//.test(context.path) || typeof context.body !== 'string')
        return undefined;
      return { body: context.body.replaceAll('process.env.NODE_ENV', '"development"') };
    },
  };
}

/** React's CommonJS → ES modules, limited to react, react-dom and scheduler (docs/design/toolchain.md's three fixes). */
const commonjs = fromRollup(rollupCommonjs);

/**
 * `demo/cdn.html?csp=strict` and `?csp=trusted-types`: the CDN demo page as a strict site serves it —
 * the policy in a response header (next to the page's own meta policy) — with one same-origin classic
 * script put first in <head>, test/interop/csp-probe.js, which records every `securitypolicyviolation`
 * from the start. Nothing else on the page changes. (test/plugins/csp.mjs does the same for wtr's own
 * test pages, which carry inline scripts and need nonces; this page has none.)
 */
export const CDN_PAGE_POLICIES = {
  strict: "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'",
  'trusted-types':
    "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'; require-trusted-types-for 'script'; trusted-types lit-html dompurify pedelec-elements",
};

function cdnPageUnderCsp() {
  return {
    name: 'pedelec-cdn-page-csp',
    transform(context) {
      const policy = context.path === '/demo/cdn.html' ? CDN_PAGE_POLICIES[context.query.csp] : undefined;
      if (!policy || typeof context.body !== 'string') return undefined;
      return {
        body: context.body.replace(/<head>/, '<head>\n    <script src="/test/interop/csp-probe.js"></script>'),
        headers: { 'Content-Security-Policy': policy, 'Cache-Control': 'no-store' },
        transformCache: false,
      };
    },
  };
}

export const frameworkPlugins = [
  cdnPageUnderCsp(),
  selfReference(),
  tsx(),
  vueResolver(),
  reactFacades(),
  reactEnv(),
  commonjs({
    include: ['**/node_modules/react/**', '**/node_modules/react-dom/**', '**/node_modules/scheduler/**'],
    strictRequires: false,
    requireReturnsDefault: 'preferred',
  }),
];

export default frameworkPlugins;
