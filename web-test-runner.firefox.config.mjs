// The same browser suite in headless Firefox, driven over WebDriver BiDi by puppeteer-core
// (which never downloads a browser: it launches the system's firefox-esr or FIREFOX_PATH).
import * as puppeteer from 'puppeteer-core';
import { chromeLauncher } from '@web/test-runner-chrome';
import { baseConfig } from './web-test-runner.config.mjs';
import { executableFor, firefoxPrefs, webmcpFirefoxPrefs } from './scripts/browsers.mjs';

export default {
  ...baseConfig,
  // One file at a time: side by side (in tabs or in windows), the keyboard tests lose focus to the other
  // file's page and the end-to-end tests in a background tab time out.
  concurrency: 1,
  browsers: [
    chromeLauncher({
      puppeteer,
      launchOptions: {
        browser: 'firefox',
        protocol: 'webDriverBiDi',
        executablePath: executableFor('firefox') ?? '/usr/bin/firefox-esr',
        headless: true,
        // WebMCP on: test/elements/webmcp/ registers with navigator.modelContext.
        extraPrefsFirefox: { ...firefoxPrefs, ...webmcpFirefoxPrefs },
      },
    }),
  ],
};
