// Vue 3 interop: the demo app (demo/vue/app.ts) mounted with the page's own HTML as its template
// (in-DOM, exactly the markup of demo/vue/index.html, as a CDN user writes it) and with the compiled
// string template. `:handler.prop` sets the property; `@pedelec-tool-call` listens to the event.
import { expect } from '@open-wc/testing';
import type { App } from 'vue';
import 'pedelec-elements/define.js';
import { createCounterApp, createInDomCounterApp } from '../../demo/vue/app.js';
import { installFakeChrome, proveCounterApp, toolNamed, uninstallFakeChrome, waitFor, type FakePort } from './harness.js';

/** The in-DOM template of demo/vue/index.html: the inner HTML of its #app, as the browser parsed it. */
async function inDomTemplate(): Promise<string> {
  const page = await (await fetch('/demo/vue/index.html')).text();
  const app = new DOMParser().parseFromString(page, 'text/html').getElementById('app');
  if (!app) throw new Error('demo/vue/index.html has no #app');
  return app.innerHTML;
}

describe('Vue 3', () => {
  let fake: FakePort;
  let host: HTMLDivElement;
  let app: App | undefined;
  beforeEach(() => {
    fake = installFakeChrome();
    host = document.createElement('div');
    document.body.append(host);
  });
  afterEach(() => {
    app?.unmount();
    app = undefined;
    host.remove();
    uninstallFakeChrome();
  });

  describe('in-DOM template (the page HTML, as a CDN user writes it)', () => {
    it('binds :handler.prop as a property and @pedelec-tool-call to the event', async () => {
      const template = await inDomTemplate();
      expect(template).to.include(':handler.prop="updateCounter"').and.include('@pedelec-tool-call="onGetCounter"').and.include('v-if="allowReset"');
      host.innerHTML = template;
      app = createInDomCounterApp();
      app.mount(host);
      const tool = await waitFor(() => toolNamed(host, 'update_counter'), 'update_counter');
      expect(tool.handler).to.be.a('function');
      expect(await tool.closest('pedelec-session')!.invoke('get_counter', {})).to.deep.equal({ ok: true, result: { value: 0 } });
    });

    it('sends the declared tools, answers by property and by event, and drops the conditional tool', async () => {
      host.innerHTML = await inDomTemplate();
      app = createInDomCounterApp();
      app.mount(host);
      await proveCounterApp(host, fake, () => host.querySelector('output.counter')?.textContent);
    });
  });

  describe('compiled template', () => {
    it('sends the declared tools, answers by property and by event, and drops the conditional tool', async () => {
      app = createCounterApp();
      app.mount(host);
      await proveCounterApp(host, fake, () => host.querySelector('output.counter')?.textContent);
    });
  });
});
