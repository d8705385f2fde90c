/**
 * Declarations are never displayed (docs/design/elements.md: <pedelec-tool> "Renders nothing (`display:
 * none`)", <pedelec-guidance> "`display: none` from the first paint"): in the document, in shadow
 * roots, when moved, whatever the page's styles, and in another (iframe) document's shadow roots.
 */
import { expect } from '@open-wc/testing';
import '../../../src/define.js';
import { sessionIn, defineShadowHost, declarationHooks } from './harness.js';
import { mount, mountHost, toolNames } from '../helpers.js';

describe('declarations', () => {
  declarationHooks();

  describe('rendering', () => {
    it('<pedelec-tool> and <pedelec-arg> render nothing (display: none, no boxes), also inside a shadow root', async () => {
      const tag = defineShadowHost(
        `<pedelec-tool name="s" description="d">Text<pedelec-arg name="x">arg text</pedelec-arg></pedelec-tool><pedelec-arg name="stray">stray</pedelec-arg>`,
      );
      const host = await mount(`
        <pedelec-session>
          <pedelec-tool name="t" description="d">Some text<pedelec-arg name="x">arg text</pedelec-arg></pedelec-tool>
          <pedelec-arg name="stray">stray arg text</pedelec-arg>
          <${tag}></${tag}>
        </pedelec-session>`);
      const shadowRoot = host.querySelector(tag)!.shadowRoot!;
      for (const root of [host, shadowRoot] as ParentNode[]) {
        const tool = root.querySelector('pedelec-tool')!;
        const nestedArg = root.querySelector('pedelec-tool > pedelec-arg')!;
        const strayArg = root.querySelector('pedelec-arg[name="stray"]')!;
        // A tool and a stray arg are styled display: none; an arg inside a tool is not even in the flat tree.
        expect(getComputedStyle(tool).display, 'pedelec-tool').to.equal('none');
        expect(getComputedStyle(strayArg).display, 'stray pedelec-arg').to.equal('none');
        for (const el of [tool, nestedArg, strayArg])
          expect(el.getClientRects().length, `boxes of ${el.outerHTML}`).to.equal(0);
      }
      expect(toolNames(sessionIn(host))).to.deep.equal(['t', 's']);
    });

    it('guidance text never shows: not when the page replaces document.adoptedStyleSheets, nor under a display rule of its own', async () => {
      const before = document.adoptedStyleSheets;
      const sheet = new CSSStyleSheet();
      sheet.replaceSync('.card * { display: block }');
      try {
        document.adoptedStyleSheets = [sheet]; // e.g. a CSS-in-JS library replacing the list
        const host = await mount(
          `<div class="card"><pedelec-session><pedelec-guidance>Secret agent instructions</pedelec-guidance><pedelec-tool name="t" description="d"></pedelec-tool></pedelec-session></div>`,
        );
        const guidance = host.querySelector('pedelec-guidance')!;
        expect(guidance.getClientRects().length, 'no box for the guidance').to.equal(0);
        expect(
          getComputedStyle(host.querySelector('pedelec-tool')!).display,
          'tools: the sheet is adopted again, !important',
        ).to.equal('none');
      } finally {
        document.adoptedStyleSheets = before;
      }
    });

    it('stays hidden when moved from the document into another shadow root', async () => {
      const tag = defineShadowHost('<slot></slot>');
      const host = await mount(`<div><${tag}></${tag}></div>`);
      const shadowRoot = host.querySelector(tag)!.shadowRoot!;
      const tool = document.createElement('pedelec-tool');
      tool.innerHTML = '<pedelec-arg name="x">arg text</pedelec-arg>text';
      const guidance = document.createElement('pedelec-guidance');
      guidance.textContent = 'guidance text';
      const arg = document.createElement('pedelec-arg');
      arg.textContent = 'stray arg text';
      host.append(tool, guidance, arg);
      for (const el of [tool, guidance, arg])
        expect(el.getClientRects().length, `${el.localName} in the document`).to.equal(0);
      shadowRoot.append(tool, guidance, arg); // now where the document's stylesheet does not reach
      for (const el of [tool, guidance, arg]) {
        expect(getComputedStyle(el).display, `${el.localName} moved into a shadow root`).to.equal('none');
        expect(el.getClientRects().length, `boxes of ${el.localName}`).to.equal(0);
      }
    });

    it('is hidden, in the document and inside a shadow root', async () => {
      const tag = defineShadowHost(`<pedelec-guidance>Shadow guidance.</pedelec-guidance>`);
      const host = await mount(
        `<pedelec-session><pedelec-guidance>Visible? No.</pedelec-guidance><${tag}></${tag}></pedelec-session>`,
      );
      const light = host.querySelector('pedelec-guidance')!;
      const shadow = host.querySelector(tag)!.shadowRoot!.querySelector('pedelec-guidance')!;
      for (const guidance of [light, shadow]) {
        expect(getComputedStyle(guidance).display).to.equal('none');
        expect(guidance.getBoundingClientRect().height).to.equal(0);
      }
      const guidance = sessionIn(host).manifest?.guidance;
      expect(guidance).to.contain('Visible? No.').and.to.contain('Shadow guidance.');
    });
  });

  describe('in other documents', () => {
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
});
