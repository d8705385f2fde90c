// React 19 interop: the demo app (demo/react/app.tsx) mounted as its page mounts it, elements defined
// first. React sets `handler={fn}` as a property and binds `onpedelec-tool-call={fn}` to the event.
import { expect } from '@open-wc/testing';
import 'pedelec-elements/define.js';
import { mountCounterApp } from '../../demo/react/app.js';
import { installFakeChrome, proveCounterApp, toolNamed, uninstallFakeChrome, waitFor, type FakePort } from './harness.js';

describe('React 19', () => {
  let fake: FakePort;
  let host: HTMLDivElement;
  let unmount: (() => void) | undefined;
  beforeEach(() => {
    fake = installFakeChrome();
    host = document.createElement('div');
    document.body.append(host);
  });
  afterEach(() => {
    unmount?.();
    unmount = undefined;
    host.remove();
    uninstallFakeChrome();
  });

  it('binds handler={fn} as a property and onpedelec-tool-call to the event', async () => {
    unmount = mountCounterApp(host);
    const tool = await waitFor(() => toolNamed(host, 'update_counter'), 'update_counter');
    expect(tool.handler).to.be.a('function');
    expect(tool.hasAttribute('handler'), 'not stringified into an attribute').to.equal(false);
    const result = await tool.closest('pedelec-session')!.invoke('get_counter', {});
    expect(result).to.deep.equal({ ok: true, result: { value: 0 } });
  });

  it('sends the declared tools, answers by property and by event, and drops the conditional tool', async () => {
    unmount = mountCounterApp(host);
    await proveCounterApp(host, fake, () => host.querySelector('output.counter')?.textContent);
  });
});
