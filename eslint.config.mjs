// Lint for src/, test/, bench/, scripts/ and the workspace package pedelec-dev with its inspector
// page's script (`npm run lint`, part of `npm test`), the two packages' sources with their types.
// Formatting is Prettier's (`.prettierrc.json`); nothing here overlaps it.
import js from '@eslint/js';
import litA11y from 'eslint-plugin-lit-a11y';
import lit from 'eslint-plugin-lit';
import noOnlyTests from 'eslint-plugin-no-only-tests';
import wc from 'eslint-plugin-wc';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// The two packages' sources are linted with their types, each file by its own project: src/ by
// tsconfig.json, the development Core by packages/pedelec-dev/tsconfig.json — which compiles against
// the kit's built declarations (dist/*.d.ts), so the kit is built first, as `npm test` does. Their
// tests are linted without types.
const TYPED_SOURCES = ['src/**/*.ts', 'packages/pedelec-dev/src/**/*.ts'];

// What the kit throws and rejects with that is no `Error` (paths from the root's tsconfig): its
// errors, plain `PedelecError` values as the public Pedelec SDK's are (src/core/errors.ts), and the
// values a module throws to leave a walk early and catches itself. The development Core throws
// `DevCoreError`s.
const THROWN_VALUES = [
  { from: 'file', name: 'PedelecError', path: 'src/core/errors.ts' },
  { from: 'file', name: 'NotJson', path: 'src/core/json.ts' },
  { from: 'file', name: 'Unvalidated', path: 'src/core/schema/compile.ts' },
  { from: 'file', name: 'StartFailure', path: 'src/elements/session/start-attempt.ts' },
  { from: 'file', name: 'Unreadable', path: 'src/elements/tool/declaration.ts' },
];

// A class reads top down: its statics (the elements' `define()`, `styles`, `properties`), its
// fields, the constructor, then its accessors and methods, in the order that tells its story.
const CLASS_ORDER = [
  'signature',
  ['static-field', 'static-get', 'static-set', 'static-method'],
  'static-initialization',
  'field',
  'constructor',
  ['get', 'set', 'accessor', 'method'],
];

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
      // Tests, scripts and benchmarks build odd values and reach into internals; the sources turn this
      // back on (TYPED_SOURCES below).
      '@typescript-eslint/no-explicit-any': 'off',
      // `interface A extends B {}` names a type (the event maps extend each other this way).
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // `declare module 'react' { namespace JSX … }` is how React's JSX types are extended.
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
    },
  },
  // The sources, with their types (see TYPED_SOURCES).
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: TYPED_SOURCES })),
  {
    files: TYPED_SOURCES,
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // What arrives from the bridge, a page or an agent is `unknown`, and narrowed where it is read.
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/only-throw-error': ['error', { allow: THROWN_VALUES }],
      // A caught value passed on as it is, as `throw` may rethrow it.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allow: THROWN_VALUES, allowThrowingUnknown: true },
      ],
      // Interfaces and object types keep their own order: an API grouped by purpose.
      '@typescript-eslint/member-ordering': [
        'error',
        { default: 'never', classes: CLASS_ORDER, classExpressions: CLASS_ORDER },
      ],
    },
  },
  // `String(value)` of whatever a page sets, as the DOM itself converts a value it reflects to an
  // attribute or puts in a form control.
  {
    files: ['src/elements/arg/pedelec-arg.element.ts', 'src/elements/tool/form-binding.ts'],
    rules: { '@typescript-eslint/no-base-to-string': 'off' },
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
