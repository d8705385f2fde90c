/**
 * createSession's approval wait (the element's 65 s, passed as requestTimeoutMs) covers every step the
 * extension may hold for approval — get_settings and list_providers too, not only create_session
 * (elements.md: "the page never gives up while the user is still deciding"). Failed before its fix.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import { expect } from '../support/expect.js';
import { Pedelec } from '../../src/core/index.js';
import type { PedelecOptions } from '../../src/core/index.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../support/fake-chrome.js';
import { track } from '../support/promises.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
let fake: FakePort;
let clients: Pedelec[] = [];
function client(options?: PedelecOptions): Pedelec {
  const c = new Pedelec(options);
  clients.push(c);
  return c;
}
beforeEach(() => {
  fake = installFakeChrome();
  clients = [];
});
afterEach(() => {
  clients.forEach((c) => c.disconnect());
  uninstallFakeChrome();
});

describe('createSession: the approval wait covers every held request', () => {
  for (const [label, input] of [
    ['no provider', {}],
    ['provider only', { provider: 'codex' }],
  ] as const) {
    it(`${label}: the approval-held get_settings waits requestTimeoutMs, not bridgeTimeoutMs`, async () => {
      const c = client({ bridgeTimeoutMs: 20 });
      const p = track(c.createWiredSession(input, { requestTimeoutMs: 400 }));
      expect(fake.last().type).to.equal('get_settings');
      await sleep(80); // past bridgeTimeoutMs, well within requestTimeoutMs
      expect(p.state, JSON.stringify(p.error)).to.equal('pending');
    });
  }
});
