// The CDN build: one minified ES module with Lit inside, for <script type="module" src=…> users.
// It bundles the already compiled dist/ (tsc owns TypeScript), so there is one compiler, not two.
import { nodeResolve } from '@rollup/plugin-node-resolve';
import terser from '@rollup/plugin-terser';

export default {
  input: 'dist/cdn.js',
  output: {
    dir: 'cdn',
    format: 'es',
    entryFileNames: 'pedelec-elements.js',
    // Lazily imported parts (the Markdown renderer) become chunks beside the main file.
    chunkFileNames: 'pedelec-elements-[name]-[hash].js',
    sourcemap: true,
  },
  plugins: [
    nodeResolve({ browser: true, exportConditions: ['production'] }),
    terser({ ecma: 2021, module: true, format: { comments: false } }),
  ],
  onwarn(warning, warn) {
    // A warning in the CDN build is a defect: fail instead of scrolling past it.
    throw new Error(`rollup: ${warning.message}`);
  },
};
