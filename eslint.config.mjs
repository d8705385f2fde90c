// Lint for src/, test/, bench/, scripts/ and the workspace package pedelec-dev with its inspector
// page's script (`npm run lint`, part of `npm test`). Formatting is Prettier's (`.prettierrc.json`);
// nothing here overlaps it.
import js from '@eslint/js';
import litA11y from 'eslint-plugin-lit-a11y';
import lit from 'eslint-plugin-lit';
import noOnlyTests from 'eslint-plugin-no-only-tests';
import wc from 'eslint-plugin-wc';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'cdn/',
      'demo/',
      'bench/results/',
      'test/interop/consumer/',
      'packages/pedelec-dev/dist/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{js,mjs,ts,tsx}'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.browser } },
    plugins: { 'no-only-tests': noOnlyTests },
    rules: {
      // A test focused with .only would silently skip the rest of the suite in CI.
      'no-only-tests/no-only-tests': 'error',
      // `_`-prefixed parameters and caught errors are deliberately unused; so are the siblings of a
      // rest element (`const { a, ...rest } = x` to leave `a` out).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', caughtErrors: 'none', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Messages from the bridge are untyped JSON, read defensively at run time (isObject, isText…):
      // `any` there is checked where it is used, not trusted.
      '@typescript-eslint/no-explicit-any': 'off',
      // `interface A extends B {}` names a type (the event maps extend each other this way).
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // `declare module 'react' { namespace JSX … }` is how React's JSX types are extended.
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
    },
  },
  // The elements: Lit and custom-element conventions, and accessible templates.
  {
    files: ['src/elements/**/*.ts', 'src/define/**/*.ts', 'src/*.ts'],
    ...lit.configs['flat/recommended'],
  },
  {
    files: ['src/elements/**/*.ts'],
    ...wc.configs['flat/recommended'],
    // Our elements extend Lit's bases, not HTMLElement directly.
    settings: { wc: { elementBaseClasses: ['ReactiveElement', 'LitElement'] } },
  },
  { files: ['src/elements/**/*.ts'], ...litA11y.configs.recommended },
  // Node-only code: the development Core (the workspace package pedelec-dev: its sources, command and
  // tests), scripts, benchmarks, Node tests, the wtr configs.
  {
    files: [
      'packages/pedelec-dev/src/**/*.ts',
      'packages/pedelec-dev/bin/**',
      'packages/pedelec-dev/test/**',
      'scripts/**',
      'bench/*.mjs',
      'bench/lib/**',
      'test/node/**',
      'test/plugins/**',
      'test/support/**/*.mjs',
      '*.mjs',
    ],
    languageOptions: { globals: { ...globals.node } },
  },
  // Tests poke at internals and build odd values on purpose.
  {
    files: ['test/**', 'packages/pedelec-dev/test/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      // chai's property assertions (`expect(x).to.exist`) and the type tests' `// @ts-expect-error
      // ctx.seq;` are expressions on purpose.
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
  // Outside the perf tier, no test measures elapsed time: a bound on it fails when the machine is busy,
  // not when the code is wrong. Timing bounds live in test/perf/ and packages/pedelec-dev/test/perf/
  // (`npm run test:perf`). A timestamp inside a window (`within(before, Date.now())`) is not elapsed time.
  {
    files: ['test/**', 'packages/pedelec-dev/test/**'],
    ignores: ['test/perf/**', 'packages/pedelec-dev/test/perf/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "BinaryExpression[operator='-'] > CallExpression[callee.property.name='now'][callee.object.name=/^(Date|performance)$/]",
          message: 'Elapsed time is measured only in the perf tier (test/perf/, packages/pedelec-dev/test/perf/).',
        },
        {
          selector: "MemberExpression[object.name='process'][property.name=/^(hrtime|cpuUsage)$/]",
          message: 'Elapsed time is measured only in the perf tier (test/perf/, packages/pedelec-dev/test/perf/).',
        },
      ],
    },
  },
);
