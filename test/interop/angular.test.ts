// Angular interop: the demo component (demo/angular/app.ts) compiled just in time, zoneless, with
// CUSTOM_ELEMENTS_SCHEMA. `[handler]` sets the property; `(pedelec-tool-call)` listens to the event.
import '@angular/compiler';
import { expect } from '@open-wc/testing';
import type { ApplicationRef } from '@angular/core';
import 'pedelec-elements/define.js';
import { bootstrapCounterApp } from '../../demo/angular/app.js';
import { installFakeChrome, proveCounterApp, toolNamed, uninstallFakeChrome, type FakePort } from './harness.js';
import { until } from '../support/waits.js';

describe('Angular (JIT, zoneless, CUSTOM_ELEMENTS_SCHEMA)', () => {
  let fake: FakePort;
  let host: HTMLDivElement;
  let app: ApplicationRef | undefined;
  beforeEach(() => {
    fake = installFakeChrome();
    host = document.createElement('div');
    host.append(document.createElement('counter-app'));
    document.body.append(host);
  });
  afterEach(() => {
    app?.destroy();
    app = undefined;
    host.remove();
    uninstallFakeChrome();
  });

  it('binds [handler] as a property and (pedelec-tool-call) to the event', async () => {
    app = await bootstrapCounterApp();
    const tool = await until(() => toolNamed(host, 'update_counter'), 'update_counter');
    expect(tool.handler).to.be.a('function');
    expect(await tool.closest('pedelec-session')!.invoke('get_counter', {})).to.deep.equal({
      ok: true,
      result: { value: 0 },
    });
  });

  it('sends the declared tools, answers by property and by event, and drops the conditional tool', async () => {
    app = await bootstrapCounterApp();
    await proveCounterApp(host, fake, () => host.querySelector('output.counter')?.textContent);
  });
});
