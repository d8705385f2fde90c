/**
 * <pedelec-session> clients (docs/design/elements.md "Bridge"): sessions on the same bridge share one client and
 * port, released by the last holder; another extension-id gets its own; a client whose connection is
 * gone is not joined, and restart() after a disconnect reconnects. Ends with the file-wide leak check.
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/define.js';
import type { PedelecErrorEvent, PedelecSessionElement } from '../../../src/index.js';
import {
  DEFAULT_EXTENSION_ID,
  CLOSED_PORT,
  fake,
  connects,
  leaks,
  APPROVED,
  coreEvent,
  started,
  openTurn,
  collect,
  watchWebSockets,
  sessionHooks,
} from './harness.js';
import { twoSessions } from '../helpers.js';
import { nextTask } from '../../support/waits.js';

describe('<pedelec-session>', () => {
  sessionHooks();

  describe('shared client', () => {
    it('two sessions with the same bridge share one client and one port, closed when the last releases it', async () => {
      const [a, b] = await twoSessions();
      await started(a, 's1');
      await started(b, 's2');
      expect(a.client).to.not.equal(null);
      expect(a.client).to.equal(b.client);
      expect(connects).to.have.length(1);

      a.remove();
      await fake.answer('end_session', {}, (m) => m.sessionId === 's1');
      await nextTask();
      expect(fake.disconnectCalls, 'still held by b').to.equal(0);
      expect(b.status).to.equal('idle');
      await openTurn(b, 's2');

      b.remove();
      await fake.answer('end_session', {}, (m) => m.sessionId === 's2');
      await nextTask(); // the last holder released the client
      expect(fake.disconnectCalls).to.equal(1);
    });

    it('a different extension-id gets its own client', async () => {
      const root = await fixture<HTMLElement>(
        html`<div>
          <pedelec-session id="a" provider="codex" model="m"></pedelec-session>
          <pedelec-session
            id="c"
            extension-id="abcdefghijklmnopabcdefghijklmnop"
            provider="codex"
            model="m"
          ></pedelec-session>
        </div>`,
      );
      const a = root.querySelector('#a') as PedelecSessionElement;
      const c = root.querySelector('#c') as PedelecSessionElement;
      await started(a, 's1');
      await started(c, 's2');
      expect(a.client).to.not.equal(c.client);
      expect(connects.map((args) => args[0])).to.deep.equal([DEFAULT_EXTENSION_ID, 'abcdefghijklmnopabcdefghijklmnop']);
    });

    it('two sessions with the same dev bridge open one WebSocket', async () => {
      const ws = watchWebSockets();
      const url = `ws://127.0.0.1:${CLOSED_PORT}/shared`;
      const root = await fixture<HTMLElement>(
        html`<div>
          <pedelec-session id="a" bridge=${url}></pedelec-session>
          <pedelec-session id="b" bridge=${url}></pedelec-session>
        </div>`,
      );
      const a = root.querySelector('#a') as PedelecSessionElement;
      const b = root.querySelector('#b') as PedelecSessionElement;
      const [ra, rb] = await Promise.all([a.checkAvailability(), b.checkAvailability()]);
      expect(ws).to.deep.equal([url]);
      expect(a.client).to.equal(b.client);
      expect(ra.available).to.equal(false);
      expect(rb.available).to.equal(false);
    });

    it('a new element does not join a shared client whose connection is gone', async () => {
      const [a, b] = await twoSessions();
      await started(a, 's1');
      fake.disconnect();
      await nextTask();
      expect(a.client?.unavailableReason).to.not.equal(null);
      const starting = b.start();
      await fake.answer('get_approval_status', APPROVED());
      await fake.answer('create_session', { sessionId: 's2' });
      expect((await starting).sessionId).to.equal('s2');
      expect(connects).to.have.length(2);
      expect(b.client).to.not.equal(a.client);
    });

    it('restart() after a bridge disconnect reconnects with a new client', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      await started(el, 's1');
      const oldClient = el.client;
      const oldChannel = fake.posted[0]!.channelId;
      fake.disconnect();
      await nextTask();
      expect(el.status).to.equal('error');
      const errors = collect<PedelecErrorEvent>(el, 'pedelec-error');

      const restarting = el.restart();
      const approval = await fake.answer('get_approval_status', APPROVED());
      const create = await fake.answer('create_session', { sessionId: 's2' });
      await restarting;
      expect(connects).to.have.length(2);
      expect(el.client).to.not.equal(null);
      expect(el.client).to.not.equal(oldClient);
      expect(approval.channelId).to.not.equal(oldChannel);
      expect(create.channelId).to.equal(approval.channelId);
      expect(el.sessionId).to.equal('s2');
      expect(el.status).to.equal('idle');
      // The old session went with its connection (Core ends a dropped page's sessions itself): restart()
      // has nothing more to end there, and nothing to report.
      expect(errors.map((e) => e.detail.error.code)).to.deep.equal([]);
      const { outcome: turn } = await openTurn(el, 's2');
      coreEvent('s2', 'done');
      expect(await turn).to.equal('done');
    });
  });

  it('no test left a shared client open', () => {
    expect(leaks).to.deep.equal([]);
  });
});
