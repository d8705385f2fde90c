// The CDN build: one minified ES module with Lit inside, for <script type="module" src=…> users.
// It bundles the already compiled dist/ (tsc owns TypeScript), so there is one compiler, not two.
import minifyLiterals from '@lit-labs/rollup-plugin-minify-html-literals';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import terser from '@rollup/plugin-terser';

export default {
  input: 'dist/cdn.js',
  // Lazily loaded chunks (the chat view, Markdown) import what they share with the main file from it,
  // so the main file may export a few extra (minified) names rather than become a facade over a
  // shared chunk — one request for the main file, whatever the page uses.
  preserveEntrySignatures: 'allow-extension',
  output: {
    dir: 'cdn',
    format: 'es',
    entryFileNames: 'pedelec-elements.js',
    // Lazily imported parts (the chat view, the Markdown renderer) become chunks beside the main file.
    chunkFileNames: 'pedelec-elements-[name]-[hash].js',
    sourcemap: true,
  },
  plugins: [
    nodeResolve({ browser: true, exportConditions: ['production'] }),
    // Templates and CSS are written to be read (src/); what ships is minified: html`` and css``
    // literals lose their layout whitespace, comments and redundant syntax.
    minifyLiterals({ include: ['dist/**/*.js'], failOnError: true }),
    // ES2022 is what tsc emits (class fields, static blocks); a second compress pass finds what the
    // first one's inlining made possible.
    terser({ ecma: 2022, module: true, compress: { passes: 2 }, format: { comments: false } }),
  ],
  onwarn(warning) {
    // A warning in the CDN build is a defect: fail instead of scrolling past it.
    throw new Error(`rollup: ${warning.message}`);
  },
};
