/**
 * <pedelec-session> status (docs/design/elements.md "Status"): inactive → starting → Core's statuses, reflected
 * as the status attribute and as custom states; approval="pending" while the user decides (longer than
 * bridge-timeout-ms); a failed start.
 */
import { aTimeout, expect, fixture, html } from '@open-wc/testing';
import '../../../src/define.js';
import type { PedelecErrorEvent, PedelecStatusEvent, PedelecSessionElement } from '../../../src/index.js';
import {
  fake,
  APPROVED,
  coreEvent,
  ended,
  openTurn,
  soon,
  collect,
  toolOf,
  statesSupported,
  sessionHooks,
} from './harness.js';
import { nextTask } from '../../support/waits.js';

describe('<pedelec-session>', () => {
  sessionHooks();

  describe('status', () => {
    it('is inactive at first, with no status attribute, nothing posted and no session', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"
          ><pedelec-tool name="t" description="T."></pedelec-tool
        ></pedelec-session>`,
      );
      await nextTask(); // nothing happens by itself
      expect(el.status).to.equal('inactive');
      expect(el.hasAttribute('status')).to.equal(false);
      expect(el.hasAttribute('approval')).to.equal(false);
      expect(el.session).to.equal(null);
      expect(el.sessionId).to.equal(null);
      expect(fake.posted).to.deep.equal([]);
    });

    it('exposes inactive as a custom state before anything happened', async function () {
      if (!statesSupported) this.skip();
      const el = await fixture<PedelecSessionElement>(html`<pedelec-session></pedelec-session>`);
      expect(el.matches(':state(inactive)')).to.equal(true);
    });

    it('goes starting → core statuses, reflected as the attribute and as custom states', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"
          ><pedelec-tool name="t" description="T."></pedelec-tool
        ></pedelec-session>`,
      );
      toolOf(el, 't').handler = () => ({ done: true });
      const statuses = collect<PedelecStatusEvent>(el, 'pedelec-status');
      const check = (status: string) => {
        expect(el.status).to.equal(status);
        expect(el.getAttribute('status')).to.equal(status);
        if (statesSupported) {
          expect(el.matches(`:state(${status})`), `:state(${status})`).to.equal(true);
          for (const other of ['inactive', 'starting', 'idle', 'running', 'waiting_tool_result', 'ended', 'error']) {
            if (other !== status) expect(el.matches(`:state(${other})`), `not :state(${other})`).to.equal(false);
          }
        }
      };

      const p = el.start();
      await fake.request('get_approval_status');
      check('starting');
      await fake.answer('get_approval_status', APPROVED());
      await fake.request('create_session');
      check('starting');
      await fake.answer('create_session', { sessionId: 's1' });
      await p;
      check('idle');
      expect(el.sessionId).to.equal('s1');
      expect(el.hasAttribute('sessionid')).to.equal(false);
      expect(el.hasAttribute('resume-id'), 'inputs are never written').to.equal(false);

      const { outcome: turn } = await openTurn(el);
      check('running');
      coreEvent('s1', 'tool_call', { toolRequestId: 'c1', tool: 't', args: {} });
      check('waiting_tool_result');
      await fake.answer('submit_tool_result');
      coreEvent('s1', 'status_changed', { status: 'running' });
      check('running');
      coreEvent('s1', 'status_changed', { status: 'idle' });
      expect(await turn).to.equal('done');
      check('idle');

      await ended(el);
      check('ended');

      expect(statuses.map((e) => e.detail.status)).to.deep.equal([
        'starting',
        'idle',
        'running',
        'waiting_tool_result',
        'running',
        'idle',
        'ended',
      ]);
      expect(statuses.map((e) => e.detail.previousStatus)).to.deep.equal([
        'inactive',
        'starting',
        'idle',
        'running',
        'waiting_tool_result',
        'running',
        'idle',
      ]);
    });

    it('reflects approval="pending" while the origin awaits approval, and removes it after', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const p = el.start();
      await fake.answer('get_approval_status', {
        installed: true,
        approved: false,
        origin: location.origin,
        appConnected: true,
      });
      await fake.request('create_session');
      expect(el.getAttribute('approval')).to.equal('pending');
      expect(el.status).to.equal('starting');
      await fake.answer('create_session', { sessionId: 's1' });
      await p;
      expect(el.hasAttribute('approval')).to.equal(false);
      expect(el.status).to.equal('idle');
    });

    it('no approval attribute when the origin is already approved', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const p = el.start();
      await fake.answer('get_approval_status', APPROVED());
      await fake.request('create_session');
      expect(el.hasAttribute('approval')).to.equal(false);
      await fake.answer('create_session', { sessionId: 's1' });
      await p;
    });

    it('while approval is pending, create_session may outlive bridge-timeout-ms (held for the user)', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session bridge-timeout-ms="30" provider="codex" model="m"></pedelec-session>`,
      );
      const p = el.start();
      const outcome = soon(p);
      await fake.answer('get_approval_status', {
        installed: true,
        approved: false,
        origin: location.origin,
        appConnected: true,
      });
      await fake.request('create_session');
      await aTimeout(150); // time is the subject: well past the 30 ms bridge timeout
      expect((await outcome).settled, 'create_session still waiting for the user').to.equal(false);
      await fake.answer('create_session', { sessionId: 's1' });
      await p;
      expect(el.status).to.equal('idle');
    });

    it('a failed start → status error, session null, pedelec-error', async () => {
      const el = await fixture<PedelecSessionElement>(
        html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
      );
      const errors = collect<PedelecErrorEvent>(el, 'pedelec-error');
      const p = el.start().then(
        () => null,
        (e) => e,
      );
      await fake.answer('get_approval_status', APPROVED());
      await fake.refuse('create_session', { code: 'PROVIDER_UNAVAILABLE', message: 'codex is not available' });
      const error = await p;
      expect(error).to.include({ code: 'PROVIDER_UNAVAILABLE' });
      expect(el.status).to.equal('error');
      expect(el.getAttribute('status')).to.equal('error');
      expect(el.session).to.equal(null);
      expect(el.sessionId).to.equal(null);
      expect(el.hasAttribute('approval')).to.equal(false);
      expect(errors.map((e) => e.detail.error.code)).to.deep.equal(['PROVIDER_UNAVAILABLE']);
      if (statesSupported) expect(el.matches(':state(error)')).to.equal(true);
    });
  });
});
