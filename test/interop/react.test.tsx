// React 19 interop: the demo app (demo/react/app.tsx) mounted as its page mounts it, elements defined
// first. React sets `handler={fn}` as a property and binds `onpedelec-tool-call={fn}` to the event.
import { expect } from '@open-wc/testing';
import { StrictMode, createElement, useEffect, useRef } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import 'pedelec-elements/define.js';
import type { PedelecSessionElement, PedelecToolCallEvent, PedelecToolElement } from 'pedelec-elements';
import { mountCounterApp } from '../../demo/react/app.js';
import {
  installFakeChrome,
  proveCounterApp,
  startSession,
  toolNamed,
  uninstallFakeChrome,
  type FakePort,
} from './harness.js';
import { until } from '../support/waits.js';

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
    const tool = await until(() => toolNamed(host, 'update_counter'), 'update_counter');
    expect(tool.handler).to.be.a('function');
    expect(tool.hasAttribute('handler'), 'not stringified into an attribute').to.equal(false);
    const result = await tool.closest('pedelec-session')!.invoke('get_counter', {});
    expect(result).to.deep.equal({ ok: true, result: { value: 0 } });
  });

  it('sends the declared tools, answers by property and by event, and drops the conditional tool', async () => {
    unmount = mountCounterApp(host);
    await proveCounterApp(host, fake, () => host.querySelector('output.counter')?.textContent);
  });

  it('StrictMode: an effect that starts the session and ends it in its cleanup leaves a usable session', async () => {
    let element: PedelecSessionElement | null = null;
    function Chat() {
      const ref = useRef<PedelecSessionElement>(null);
      useEffect(() => {
        const session = ref.current!;
        element = session;
        session.start().catch(() => {});
        return () => void session.end().catch(() => {});
      }, []);
      return createElement('pedelec-session', { ref, provider: 'codex' });
    }
    const root = createRoot(host);
    unmount = () => root.unmount();
    // StrictMode runs the effect, its cleanup and the effect again: start(), end(), start().
    root.render(createElement(StrictMode, null, createElement(Chat)));
    const session = await until(() => element, 'the effect');
    await startSession(session, fake);
    const refused = session.sendText('hello').then(
      () => '',
      (error: { code: string }) => error.code,
    );
    const outcome = await Promise.race([refused, fake.request('send_text').then(() => 'sent')]);
    expect(outcome, 'start() after end() keeps the session').to.equal('sent');
  });

  // README "React": under hydrateRoot (server-rendered HTML, e.g. Next.js) React 19 sets no properties
  // and binds no custom events on the elements it adopts; a ref callback does (the documented way).
  it('hydrateRoot: handlers set in a ref callback reach the server-rendered elements', async () => {
    host.innerHTML =
      '<pedelec-session provider="codex"><pedelec-tool name="by_prop" description="d"></pedelec-tool><pedelec-tool name="by_event" description="d"></pedelec-tool></pedelec-session>';
    let hydrated: PedelecSessionElement | null = null;
    const onCall = (event: PedelecToolCallEvent) => event.respondWith('by event');
    const app = createElement(
      'pedelec-session',
      { provider: 'codex', ref: (el: PedelecSessionElement | null) => void (hydrated = el) },
      createElement('pedelec-tool', {
        name: 'by_prop',
        description: 'd',
        ref: (el: PedelecToolElement | null) => {
          if (el) el.handler = () => 'by property';
        },
      }),
      createElement('pedelec-tool', {
        name: 'by_event',
        description: 'd',
        ref: (el: PedelecToolElement | null) => {
          if (!el) return;
          el.addEventListener('pedelec-tool-call', onCall);
          return () => el.removeEventListener('pedelec-tool-call', onCall);
        },
      }),
    );
    const root = hydrateRoot(host, app);
    unmount = () => root.unmount();
    const session = await until(() => hydrated, 'hydration');
    expect(session, 'hydrated, not re-created').to.equal(host.firstElementChild);
    const results = [await session.invoke('by_prop', {}), await session.invoke('by_event', {})];
    expect(results.map((r) => (r.ok ? r.result : r.error.code))).to.deep.equal(['by property', 'by event']);
  });
});
