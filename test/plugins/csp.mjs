// A web-test-runner plugin that serves chosen test pages under a Content Security Policy
// (docs/design/toolchain.md "Strict CSP inside the test runner"). wtr injects two inline module scripts into each
// test page, so a bare `script-src 'self'` would break the page: this plugin's `transform` (listed
// first) recognises the test file in the injected config, puts one fresh nonce on every <script>,
// and sends the policy for that page only. No 'unsafe-inline', no 'unsafe-eval'.
import { randomBytes } from 'node:crypto';

/**
 * Enforced, with Trusted Types, as the README tells CDN users to deploy. Styles may be inline: the
 * spec's strict CSP is about scripts, and the define entries inject one `<style>` (hiding declarations).
 */
const STRICT =
  "default-src 'self'; script-src 'self' 'nonce-{nonce}'; style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'; " +
  "require-trusted-types-for 'script'; trusted-types lit-html dompurify pedelec-elements";

/**
 * Report-only: nothing is blocked, so a payload that slipped through would really run (and set its
 * flag), and every load or inline script it *attempts* fires `securitypolicyviolation`.
 */
const REPORTING =
  "default-src 'self'; script-src 'self' 'nonce-{nonce}'; style-src 'self' 'unsafe-inline'; img-src 'none'; " +
  "media-src 'none'; font-src 'none'; frame-src 'none'; object-src 'none'; form-action 'none'; base-uri 'none'";

/** Test file (as it appears in wtr's injected config) → [header, policy]. */
export const CSP_PAGES = {
  '/test/cdn/chat-csp.test.ts': ['Content-Security-Policy', STRICT],
  '/test/elements/chat/markdown.test.ts': ['Content-Security-Policy-Report-Only', REPORTING],
};

export function cspPlugin(pages = CSP_PAGES) {
  return {
    name: 'pedelec-csp',
    transform(context) {
      if (!context.response.is('html') || typeof context.body !== 'string') return;
      const match = /"testFile":"([^"?]+)/.exec(context.body);
      const page = match && pages[match[1]];
      if (!page) return;
      const nonce = randomBytes(16).toString('base64');
      const [header, policy] = page;
      return {
        body: context.body.replace(/<script\b/g, `<script nonce="${nonce}"`),
        headers: { [header]: policy.replace('{nonce}', nonce) },
        transformCache: false,
      };
    },
  };
}
