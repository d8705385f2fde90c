// Browser tests in headless Chromium (this file) and Firefox (web-test-runner.firefox.config.mjs).
// Run through `npm test` / `npm run test:quick` / `npm run test:perf` (scripts/test-browsers.mjs), which
// names the tier in TEST_TIER; scripts/test-tiers.mjs lists each tier's files.
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher } from '@web/test-runner-chrome';
import { executableFor, chromiumArgs, webmcpChromiumArgs } from './scripts/browsers.mjs';
import { tiers } from './scripts/test-tiers.mjs';
import { cspPlugin } from './test/plugins/csp.mjs';
import { devCorePlugin } from './test/plugins/dev-core.mjs';
import { failOnce } from './test/plugins/fail-once.mjs';
import { frameworkPlugins } from './test/plugins/frameworks.mjs';

/**
 * Two test files at a time: measured fastest on two cores (99 s → 81 s for the whole suite; three: 87 s).
 * The perf tier's files one at a time: each measures time or what is collected, and another file
 * running in the same browser meanwhile disturbs that (beside the streamed-reply bound, the chat leak
 * test now and then saw removed chats still held).
 */
export const CONCURRENCY = process.env.TEST_TIER === 'perf' ? 1 : 2;

/** Everything but the browser: shared with the Firefox variant. */
export const baseConfig = {
  files: tiers[process.env.TEST_TIER ?? 'full']().browser,
  nodeResolve: { exportConditions: ['production'] },
  concurrency: CONCURRENCY,
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
      // Each test file in a window of its own: a background tab gets no animation frames, and
      // fixture() waits for one, so files side by side in tabs of one window would stall.
      createPage: ({ context }) => context.newPage({ type: 'window' }),
      launchOptions: {
        executablePath: executableFor('chromium') ?? '/usr/bin/chromium',
        headless: true,
        // WebMCP on: test/elements/webmcp/ registers with document.modelContext. `gc()` for the leak tests
        // that check what is collected (test/perf/leaks-chat.test.ts).
        args: [...chromiumArgs, ...webmcpChromiumArgs, '--js-flags=--expose-gc'],
      },
    }),
  ],
};
