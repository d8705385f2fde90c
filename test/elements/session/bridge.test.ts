/**
 * <pedelec-session> bridge rules (docs/design/elements.md "Bridge", reliability.md "Security"): the extension
 * by default or by extension-id, a loopback ws:// development Core, foreign and non-ws bridges refused
 * without any connection; and bridge-timeout-ms. WebSockets only ever reach a closed loopback port.
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/define.js';
import type { PedelecErrorEvent, PedelecSessionElement, PedelecError } from '../../../src/index.js';
import {
  DEFAULT_EXTENSION_ID,
  PORT_NAME,
  CLOSED_PORT,
  fake,
  connects,
  APPROVED,
  started,
  soon,
  collect,
  watchWebSockets,
  sessionHooks,
} from './harness.js';

describe('<pedelec-session>', () => {
  sessionHooks();

  describe('bridge', () => {
    for (const bridge of [undefined, '']) {
      it(`${bridge === undefined ? 'absent' : 'empty'} bridge connects to the extension with the default id`, async () => {
        const el = await fixture<PedelecSessionElement>(
          bridge === undefined
            ? html`<pedelec-session provider="codex" model="m"></pedelec-session>`
            : html`<pedelec-session bridge="" provider="codex" model="m"></pedelec-session>`,
        );
        const ws = watchWebSockets();
        await started(el);
        expect(connects).to.deep.equal([[DEFAULT_EXTENSION_ID, { name: PORT_NAME }]]);
        expect(ws).to.deep.equal([]);
        expect(el.status).to.equal('idle');
      });
    }

    it('extension-id overrides the extension id', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session
          extension-id="abcdefghijklmnopabcdefghijklmnop"
          provider="codex"
          model="m"
        ></pedelec-session>`,
      );
      await started(el);
      expect(connects).to.deep.equal([['abcdefghijklmnopabcdefghijklmnop', { name: PORT_NAME }]]);
    });

    it('a loopback ws:// bridge in markup uses a WebSocket; an unreachable Core fails start with BRIDGE_UNAVAILABLE', async () => {
      const ws = watchWebSockets();
      const url = `ws://127.0.0.1:${CLOSED_PORT}/bridge`;
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session bridge=${url} provider="codex" model="m"></pedelec-session>`,
      );
      const errors = collect<PedelecErrorEvent>(el, 'pedelec-error');
      const error = await el.start().then(
        () => null,
        (e) => e,
      );
      // Each request tries the Core again (the approval check, then the create): never the extension.
      expect(ws.length).to.be.above(0);
      expect(new Set(ws)).to.deep.equal(new Set([url]));
      expect(connects).to.deep.equal([]);
      expect(error).to.include({ code: 'BRIDGE_UNAVAILABLE', message: `Development Core not reachable at ${url}` });
      expect(el.status).to.equal('error');
      expect(el.getAttribute('status')).to.equal('error');
      expect(el.session).to.equal(null);
      expect(errors.map((e) => e.detail.error.code)).to.deep.equal(['BRIDGE_UNAVAILABLE']);
    });

    it('localhost and [::1] are loopback hosts too', async () => {
      const ws = watchWebSockets();
      const urls = [`ws://localhost:${CLOSED_PORT}/bridge`, `ws://[::1]:${CLOSED_PORT}/bridge`];
      for (const url of urls) {
        const el = await fixture<PedelecSessionElement>(
          html`<pedelec-session bridge=${url} provider="codex" model="m"></pedelec-session>`,
        );
        const error = await el.start().then(
          () => null,
          (e) => e,
        );
        expect(error?.code, url).to.equal('BRIDGE_UNAVAILABLE');
        el.remove();
      }
      expect(new Set(ws)).to.deep.equal(new Set(urls));
      expect(connects).to.deep.equal([]);
    });

    for (const foreign of [
      'ws://evil.example/bridge',
      'wss://evil.example/bridge',
      'ws://localhost.evil.example/bridge',
      'ws://127.0.0.1@evil.example/bridge',
    ]) {
      it(`a foreign bridge in markup is refused without any connection: ${foreign}`, async () => {
        const ws = watchWebSockets();
        const el = await fixture<PedelecSessionElement>(
          html`<pedelec-session bridge=${foreign} provider="codex" model="m"></pedelec-session>`,
        );
        const errors = collect<PedelecErrorEvent>(el, 'pedelec-error');
        const outcome = await soon(el.start());
        expect(outcome.settled, 'start() settles at once').to.equal(true);
        expect(outcome.error?.code).to.equal('INVALID_INPUT');
        expect(errors.map((e) => e.detail.error.code)).to.deep.equal(['INVALID_INPUT']);
        expect(el.status).to.equal('error');
        expect(el.getAttribute('status')).to.equal('error');
        expect(ws, 'no WebSocket constructed').to.deep.equal([]);
        expect(connects, 'no extension port opened').to.deep.equal([]);
        expect(fake.posted).to.deep.equal([]);
      });
    }

    it('the same foreign URL set through the bridge property from script is accepted', async () => {
      const ws = watchWebSockets();
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      el.bridge = 'ws://evil.example/bridge';
      const error = await el.start().then(
        () => null,
        (e) => e,
      );
      expect(new Set(ws)).to.deep.equal(new Set(['ws://evil.example/bridge']));
      expect(error?.code).to.not.equal('INVALID_INPUT');
      expect(connects).to.deep.equal([]);
    });

    for (const [how, value] of [
      ['attribute', `http://127.0.0.1:${CLOSED_PORT}/bridge`],
      ['attribute', 'not a url'],
      ['property', `https://127.0.0.1:${CLOSED_PORT}/bridge`],
      ['property', 'javascript:alert(1)'],
    ] as const) {
      it(`a non-ws bridge (${how} "${value}") → INVALID_INPUT, no connection`, async () => {
        const ws = watchWebSockets();
        const el = await fixture<PedelecSessionElement>(
          how === 'attribute'
            ? html`<pedelec-session bridge=${value} provider="codex" model="m"></pedelec-session>`
            : html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
        );
        if (how === 'property') el.bridge = value;
        const errors = collect<PedelecErrorEvent>(el, 'pedelec-error');
        const outcome = await soon(el.start());
        expect(outcome.error?.code).to.equal('INVALID_INPUT');
        expect(errors.map((e) => e.detail.error.code)).to.deep.equal(['INVALID_INPUT']);
        expect(el.status).to.equal('error');
        expect(ws).to.deep.equal([]);
        expect(connects).to.deep.equal([]);
      });
    }

    it('checkAvailability() with a refused bridge resolves (never rejects) with the INVALID_INPUT error', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session bridge="ws://evil.example/bridge"></pedelec-session>`,
      );
      const availability = await el.checkAvailability();
      expect(availability.available).to.equal(false);
      expect(availability.error?.code).to.equal('INVALID_INPUT');
      expect(connects).to.deep.equal([]);
    });
  });

  describe('bridge-timeout-ms', () => {
    it('bridge-timeout-ms="20" makes an unanswered create_session reject with SDK_BRIDGE_TIMEOUT', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session bridge-timeout-ms="20" provider="codex" model="m"></pedelec-session>`,
      );
      const p = el.start().then(
        () => null,
        (e) => e,
      );
      await fake.answer('get_approval_status', APPROVED());
      await fake.request('create_session');
      const error = await p; // time is the subject: the 20 ms timeout
      expect(error.code).to.equal('SDK_BRIDGE_TIMEOUT');
      expect(error.details).to.include({ type: 'create_session' });
      expect(el.status).to.equal('error');
      expect(el.session).to.equal(null);
    });

    it('bridge-timeout-ms set after the client exists applies to the next start', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      void el.checkAvailability();
      await fake.answer('get_approval_status', APPROVED());
      el.setAttribute('bridge-timeout-ms', '30');
      await el.updateComplete;
      const result = await el.start().catch((error: PedelecError) => error);
      expect((result as PedelecError).code).to.equal('SDK_BRIDGE_TIMEOUT');
    });
  });
});
