// Browser tests in headless Chromium (this file) and Firefox (web-test-runner.firefox.config.mjs).
// Run through `npm test` (scripts/test-browsers.mjs), which skips or requires each browser.
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher } from '@web/test-runner-chrome';
import { executableFor, chromiumArgs, webmcpChromiumArgs } from './scripts/browsers.mjs';
import { cspPlugin } from './test/plugins/csp.mjs';
import { devCorePlugin } from './test/plugins/dev-core.mjs';
import { failOnce } from './test/plugins/fail-once.mjs';
import { frameworkPlugins } from './test/plugins/frameworks.mjs';

/** Everything but the browser: shared with the Firefox variant. */
export const baseConfig = {
  // test/core needs no DOM: it runs once, in Node (`npm run test:node`, scripts/test-node.mjs).
  // test/node/, test/core/ and *.node.test.ts run in Node (scripts/test-node.mjs).
  files: ['test/**/*.test.ts', 'test/**/*.test.tsx', '!test/node/**', '!test/core/**', '!test/**/*.node.test.ts'],
  nodeResolve: { exportConditions: ['production'] },
  // One page at a time: a page in a background tab gets no animation frames, and fixture() waits for one.
  concurrency: 1,
  // The fake browsers never reach the network; a test that hangs is a failure, not a wait.
  testFramework: { config: { timeout: 10000 } },
  testsFinishTimeout: 5 * 60 * 1000,
  middleware: [failOnce],
  plugins: [
    cspPlugin(),
    esbuildPlugin({ ts: true, tsconfig: './tsconfig.json', target: 'es2021' }),
    devCorePlugin(),
    ...frameworkPlugins,
  ],
  // What pages log is shown, except Angular's notice that the interop tests run it in development mode.
  filterBrowserLogs: ({ args }) => args[0] !== 'Angular is running in development mode.',
};

export default {
  ...baseConfig,
  browsers: [
    chromeLauncher({
      launchOptions: {
        executablePath: executableFor('chromium') ?? '/usr/bin/chromium',
        headless: true,
        // WebMCP on: test/elements/webmcp/ registers with document.modelContext. `gc()` for the leak tests
        // that check what is collected (test/reliability/leaks-chat.test.ts).
        args: [...chromiumArgs, ...webmcpChromiumArgs, '--js-flags=--expose-gc'],
      },
    }),
  ],
};
