// Which system browsers the tests use, and how to launch them without touching the network.
// Nothing here downloads a browser: puppeteer-core drives the Debian packages (or CHROME_PATH/FIREFOX_PATH).
import { existsSync } from 'node:fs';

export const browsers = {
  chromium: {
    env: 'CHROME_PATH',
    candidates: [
      '/usr/lib/chromium/chromium',
      '/usr/bin/chromium',
      '/usr/bin/google-chrome',
      '/usr/bin/chromium-browser',
    ],
    install: 'apt-get install chromium (or set CHROME_PATH to a Chrome/Chromium binary)',
  },
  firefox: {
    env: 'FIREFOX_PATH',
    candidates: ['/usr/bin/firefox-esr', '/usr/bin/firefox'],
    install: 'apt-get install firefox-esr (or set FIREFOX_PATH to a Firefox binary)',
  },
};

/** The executable for a browser, or null when it is not on this machine. */
export function executableFor(name) {
  const b = browsers[name];
  const fromEnv = process.env[b.env];
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : null;
  return b.candidates.find((p) => existsSync(p)) ?? null;
}

// Chromium on a closed network: no background services, no lookups of Google hosts.
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-quic',
  '--disable-domain-reliability',
  '--no-pings',
  '--no-first-run',
  '--no-default-browser-check',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1',
  // Test files run side by side in tabs; a tab in the background must not have its timers throttled.
  '--disable-background-timer-throttling',
  '--disable-renderer-backgrounding',
  '--disable-backgrounding-occluded-windows',
];

// The browser's agent API (WebMCP) on, for `<pedelec-session webmcp>`: Chromium's feature flag, and
// Firefox's older API with its testing half (getTools/invokeTool, which the tests call as an agent would).
export const webmcpChromiumArgs = ['--enable-features=WebMCP'];
export const webmcpFirefoxPrefs = { 'dom.modelcontext.enabled': true, 'dom.modelcontext.testing.enabled': true };

// Firefox: every name resolves to loopback, and the usual phone-home features are off.
export const firefoxPrefs = {
  'network.dns.forceResolve': '127.0.0.1',
  'app.update.enabled': false,
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
  'datareporting.healthreport.uploadEnabled': false,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'toolkit.telemetry.enabled': false,
  // Two test files run side by side; the one in the background tab must not have its timers
  // throttled (mocha steps between tests with a timer), or a 7 s run takes two minutes.
  'dom.min_background_timeout_value': 0,
  'dom.min_background_timeout_value_without_budget_throttling': 0,
  'dom.timeout.enable_budget_timer_throttling': false,
};

/** The browsers this run tests in: both, or those `BROWSERS` names (`BROWSERS=chromium`: the quick tier). */
export const selectedBrowsers = process.env.BROWSERS
  ? process.env.BROWSERS.split(',')
      .map((s) => s.trim())
      .filter(Boolean)
  : Object.keys(browsers);

/** Browsers that must not be skipped for being absent (`.ci/run` sets REQUIRE_BROWSERS=chromium,firefox). */
export const requiredBrowsers = new Set(
  (process.env.REQUIRE_BROWSERS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/**
 * Why a Node test that drives `name` is skipped — not selected, or not installed (unless required) —
 * or false. A required browser that is missing is not skipped: the test fails saying so.
 */
export function skipBrowser(name) {
  if (!selectedBrowsers.includes(name)) return `${name} is not selected (BROWSERS=${process.env.BROWSERS})`;
  if (!executableFor(name) && !requiredBrowsers.has(name)) return `${name} is not installed`;
  return false;
}
