// The CDN demo (demo/cdn.html + demo/cdn.js, the CDN file only, no build) in a frame served with a
// strict Content Security Policy header, then with Trusted Types enforced as well. On each, the page
// first provokes one deliberate violation (proving the listener hears them), then a whole session with
// tool calls must run with zero violations.
import { expect } from '@open-wc/testing';
import { installFakeChrome, proveCounterApp, uninstallFakeChrome, type FakePort } from './harness.js';
import { until } from '../support/waits.js';

type Violation = { directive: string; blocked: string; sample: string; where: string };
type FrameWindow = Window & typeof globalThis & { cspViolations: Violation[]; inlineRan?: boolean };

const POLICIES = {
  strict: "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'",
  'trusted-types':
    "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'; require-trusted-types-for 'script'; trusted-types lit-html dompurify pedelec-elements",
} as const;

async function openPage(
  csp: keyof typeof POLICIES,
): Promise<{ frame: HTMLIFrameElement; win: FrameWindow; fake: FakePort }> {
  const url = `/demo/cdn.html?csp=${csp}&bridge=extension`;
  // The server really sends the policy.
  const response = await fetch(url);
  expect(response.headers.get('content-security-policy')).to.equal(POLICIES[csp]);
  const frame = document.createElement('iframe');
  const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  frame.src = url;
  document.body.append(frame);
  await loaded;
  const win = frame.contentWindow as FrameWindow;
  await win.customElements.whenDefined('pedelec-session');
  // The fake extension port, installed in the frame's realm (where the kit looks for chrome.runtime).
  // Its messages are made in that realm too, as a real port's structured clones are (the kit checks
  // that args are plain objects of its own realm).
  const fake = installFakeChrome();
  (win as any).chrome = (globalThis as any).chrome;
  uninstallFakeChrome();
  const emit = fake.emit;
  fake.emit = (message) => emit(win.JSON.parse(JSON.stringify(message)));
  return { frame, win, fake };
}

/** Tries to run an inline script in the page, which its policy forbids; returns whether it ran. */
function provokeViolation(win: FrameWindow): boolean {
  const script = win.document.createElement('script');
  try {
    script.textContent = 'window.inlineRan = true;'; // under Trusted Types this assignment itself is refused
    win.document.head.append(script);
  } catch (error) {
    expect((error as Error).name).to.equal('TypeError');
  }
  return win.inlineRan === true;
}

for (const csp of Object.keys(POLICIES) as Array<keyof typeof POLICIES>) {
  describe(`CDN demo under CSP: ${csp}`, () => {
    let frame: HTMLIFrameElement | undefined;
    afterEach(() => frame?.remove());

    it('loads with no violation, reports a deliberate one, then runs a session and its tool calls with none', async () => {
      const page = await openPage(csp);
      frame = page.frame;
      const { win, fake } = page;
      expect(win.cspViolations, 'violations while loading').to.deep.equal([]);
      // (The test server adds one external script of its own, /__web-dev-server__web-socket.js.)
      const scripts = [...win.document.scripts].filter((s) => !s.src.includes('/__web-dev-server__'));
      expect(scripts.map((s) => new URL(s.src).pathname)).to.deep.equal([
        '/test/interop/csp-probe.js',
        '/_pedelec/cdn/pedelec-elements.js',
        '/demo/cdn.js',
      ]);
      expect(
        [...win.document.scripts].every((s) => s.src !== '' && s.textContent === ''),
        'no inline script',
      ).to.equal(true);

      // The listener hears violations: one deliberate inline script, blocked.
      expect(provokeViolation(win), 'the inline script ran').to.equal(false);
      await until(() => win.cspViolations.length > 0, 'the deliberate violation to be reported');
      // (One report per policy that forbids it: the header's, and for script-src the page's own meta policy too.)
      const expected = csp === 'trusted-types' ? 'require-trusted-types-for' : 'script-src-elem';
      expect(win.cspViolations.map((v) => v.directive))
        .to.include(expected)
        .and.satisfy((all: string[]) => all.every((d) => d === expected));
      win.cspViolations.length = 0;

      await proveCounterApp(
        win.document.body,
        fake,
        () => win.document.getElementById('counter')?.textContent,
        'disabled',
      );
      // Violation events are queued as tasks: give any late one time to arrive.
      await new Promise((r) => setTimeout(r, 50));
      expect(win.cspViolations, 'violations during the session').to.deep.equal([]);
    });
  });
}
