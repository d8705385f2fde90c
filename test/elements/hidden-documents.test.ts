/**
 * Declarations are never displayed (spec/elements.md: <pedelec-tool> "Renders nothing (`display:
 * none`)"; <pedelec-guidance> "`display: none` from the first paint") — in another (iframe) document's
 * shadow roots too; found in review, each test failed before its fix (an uncaught NotAllowedError, a
 * visible host).
 */
import { expect } from '@open-wc/testing';
import '../../src/define.js';
import { installFakeChrome, mount, mountHost, uninstallFakeChrome } from './helpers.js';

describe('declarations stay hidden in other documents', () => {
  beforeEach(() => installFakeChrome());
  afterEach(() => uninstallFakeChrome());

  it('a tool connected inside a shadow root in a same-origin iframe is hidden, without throwing', async () => {
    const host = await mountHost();
    const iframe = document.createElement('iframe');
    host.append(iframe);
    const idoc = iframe.contentDocument!;
    const shadowHost = idoc.createElement('div');
    idoc.body.append(shadowHost);
    const root = shadowHost.attachShadow({ mode: 'open' });
    const tool = document.createElement('pedelec-tool'); // upgraded by this window's registry
    tool.textContent = 'tool text';
    // Throws "NotAllowedError: Sharing constructed stylesheets in multiple documents is not allowed"
    // from connectedCallback (hidden.ts:48): the :host sheet was constructed for the top document.
    root.append(tool);
    expect(iframe.contentWindow!.getComputedStyle(tool).display).to.equal('none');
  });

  it('a guidance moved from the document into a shadow root in an iframe stays display: none', async () => {
    const host = await mount(`<pedelec-guidance>guidance text</pedelec-guidance>`);
    const guidance = host.querySelector('pedelec-guidance')!;
    const iframe = document.createElement('iframe');
    host.append(iframe);
    const idoc = iframe.contentDocument!;
    const shadowHost = idoc.createElement('div');
    idoc.body.append(shadowHost);
    shadowHost.attachShadow({ mode: 'open' }).append(guidance);
    expect(iframe.contentWindow!.getComputedStyle(guidance).display).to.equal('none');
  });
});
