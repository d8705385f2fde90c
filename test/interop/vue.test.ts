// Vue 3 interop: the demo app (demo/vue/app.ts) mounted with the page's own HTML as its template
// (in-DOM, exactly the markup of demo/vue/index.html, as a CDN user writes it) and with the compiled
// string template. `:handler.prop` sets the property; `@pedelec-tool-call` listens to the event.
import { expect } from '@open-wc/testing';
import { createApp, type App } from 'vue';
import 'pedelec-elements/define.js';
import { createCounterApp, createInDomCounterApp } from '../../demo/vue/app.js';
import { installFakeChrome, proveCounterApp, toolNamed, uninstallFakeChrome, type FakePort } from './harness.js';
import { until } from '../support/waits.js';

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
      expect(template)
        .to.include(':handler.prop="updateCounter"')
        .and.include('@pedelec-tool-call="onGetCounter"')
        .and.include('v-if="allowReset"');
      host.innerHTML = template;
      app = createInDomCounterApp();
      app.mount(host);
      const tool = await until(() => toolNamed(host, 'update_counter'), 'update_counter');
      expect(tool.handler).to.be.a('function');
      expect(await tool.closest('pedelec-session')!.invoke('get_counter', {})).to.deep.equal({
        ok: true,
        result: { value: 0 },
      });
    });

    it('sends the declared tools, answers by property and by event, and drops the conditional tool', async () => {
      host.innerHTML = await inDomTemplate();
      app = createInDomCounterApp();
      app.mount(host);
      await proveCounterApp(host, fake, () => host.querySelector('output.counter')?.textContent);
    });
  });

  // The Vue typings accept props by camelCase name (README "Vue"): each must reach the element, bound
  // either way, as Vue sets a property when the element has one and an attribute otherwise.
  describe('bindings by camelCase and kebab-case name', () => {
    function mount(template: string): void {
      app = createApp({ template });
      app.config.compilerOptions.isCustomElement = (tag) => tag.startsWith('pedelec-');
      app.config.warnHandler = (message) => {
        throw new Error(`Vue warned: ${message}`);
      };
      app.mount(host);
    }
    const SCHEMA = {
      s: { type: 'string', minLength: 2, maxLength: 5 },
      list: { type: 'array', minItems: 1, maxItems: 3, uniqueItems: true, items: { type: 'string' } },
    };

    for (const [how, args] of [
      [
        'camelCase',
        `<pedelec-arg name="s" :minLength="2" :maxLength="5"></pedelec-arg><pedelec-arg name="list" type="array" items="string" :minItems="1" :maxItems="3" :uniqueItems="true"></pedelec-arg>`,
      ],
      [
        'kebab-case',
        `<pedelec-arg name="s" :min-length="2" :max-length="5"></pedelec-arg><pedelec-arg name="list" type="array" items="string" :min-items="1" :max-items="3" :unique-items="true"></pedelec-arg>`,
      ],
    ]) {
      it(`<pedelec-arg> keywords bound by ${how} name reach the schema`, async () => {
        mount(`<pedelec-session><pedelec-tool name="t" description="d">${args}</pedelec-tool></pedelec-session>`);
        const session = host.querySelector('pedelec-session')!;
        const manifest = await until(() => session.manifest, 'the manifest');
        expect(manifest.tools[0]!.argsSchema.properties).to.deep.equal(SCHEMA);
      });
    }

    it('resume-id (kebab-case) reaches the resumeId property', async () => {
      mount(`<pedelec-session provider="codex" :resume-id="'old-1'"></pedelec-session>`);
      expect(host.querySelector('pedelec-session')!.resumeId).to.equal('old-1');
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
