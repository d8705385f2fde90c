/**
 * The <pedelec-chat> availability line (docs/design/elements.md, README): what it says in every state —
 * nothing when ready, install, approve, open Desktop, choose a provider, start pedelec-dev, a refused
 * bridge — checked again when the bridge changes, and only what is still true (a late or stale check
 * never speaks, a working reply clears it).
 */
import { expect, waitUntil } from '@open-wc/testing';
import '../../../src/define.js';
import { APPROVED, SETTINGS, mountChat, transcript, input, note, update, cleanUp } from './harness.js';
import { nextTask } from '../../support/waits.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../../support/fake-chrome.js';

// Two tests replace the port with one that cannot connect: this file keeps its own `fake`, and the
// helpers that answer through it.
let fake: FakePort;
let seq = 0;

/** The chat's own availability check: approval status, then (approved) the settings. */
async function available(status: Record<string, unknown> = APPROVED, settings: unknown = SETTINGS): Promise<void> {
  await fake.answer('get_approval_status', status);
  if (status.installed && status.approved) await fake.answer('get_settings', settings);
}

function core(type: string, fields: Record<string, unknown> = {}, sessionId = 's1'): void {
  fake.event(sessionId, type, { seq: ++seq, ...fields });
}

describe('<pedelec-chat>', () => {
  beforeEach(() => {
    fake = installFakeChrome();
  });
  afterEach(() => cleanUp(fake));

  describe('availability line', () => {
    it('is hidden when everything is ready', async () => {
      const { chat } = await mountChat();
      await available();
      await update(chat);
      expect(note(chat).textContent).to.equal('');
      expect(note(chat).getAttribute('role')).to.equal('status');
    });

    it('extension missing → install the extension', async () => {
      uninstallFakeChrome(); // no chrome.runtime at all: no extension
      fake = installFakeChrome({ noConnect: true });
      const { chat } = await mountChat();
      await waitUntil(() => note(chat).textContent !== '', 'a note');
      expect(note(chat).textContent).to.equal('Install the Pedelec browser extension, then reload this page.');
    });

    it('origin not approved → approve it in the extension’s popup; while pending → approve in the popup now', async () => {
      const { session, chat } = await mountChat();
      await available({ installed: true, approved: false, origin: location.origin, appConnected: true });
      await update(chat);
      expect(note(chat).textContent).to.equal(
        "This site needs your approval: send a message, then approve it in the Pedelec extension's popup.",
      );
      const started = session.start();
      await fake.answer('get_approval_status', {
        installed: true,
        approved: false,
        origin: location.origin,
        appConnected: true,
      });
      await waitUntil(() => session.getAttribute('approval') === 'pending');
      await update(chat);
      expect(note(chat).textContent).to.equal("Approve this site in the Pedelec extension's popup to continue.");
      await fake.answer('create_session', { sessionId: 's1' });
      await started;
      await update(chat);
      expect(note(chat).textContent, 'approved: nothing left to do').to.equal('');
    });

    it('Desktop unavailable → open the Desktop app', async () => {
      const { chat } = await mountChat();
      await fake.answer('get_approval_status', APPROVED);
      await fake.refuse('get_settings', {
        code: 'NATIVE_HOST_UNAVAILABLE',
        message: 'Pedelec Desktop is not running.',
      });
      await update(chat);
      expect(note(chat).textContent).to.equal('Open the Pedelec Desktop app, then send your message again.');
    });

    it('no provider → choose one (found by the check, and when a start fails for it)', async () => {
      const noProvider = { defaultProvider: null, defaultModels: {} };
      const { chat } = await mountChat('');
      await available(APPROVED, noProvider);
      await fake.answer('get_settings', noProvider); // the chat asks: no provider named on the session
      await update(chat);
      const say = "Choose an AI provider in Pedelec's settings, then send your message again.";
      expect(note(chat).textContent).to.equal(say);

      // The same from a failed start, when the check had nothing to say.
      const other = await mountChat('');
      await available(APPROVED, noProvider);
      await fake.answer('get_settings', SETTINGS);
      await update(other.chat);
      expect(note(other.chat).textContent).to.equal('');
      other.session.sendText('hi').catch(() => {});
      await fake.answer('get_approval_status', APPROVED);
      await fake.answer('get_settings', noProvider);
      await update(other.chat);
      expect(note(other.chat).textContent).to.equal(say);
      expect(transcript(other.chat)).to.deep.equal([
        'error: Default provider is not set. Open the Pedelec desktop app Settings page and choose a default provider. (DEFAULT_PROVIDER_NOT_SET)',
      ]);
    });

    it('dev Core unreachable → start pedelec-dev', async () => {
      const { chat } = await mountChat('provider="scripted" bridge="ws://127.0.0.1:1/bridge"');
      await waitUntil(() => note(chat).textContent !== '', 'a note', { timeout: 5000 });
      expect(note(chat).textContent).to.equal(
        "The development Core is not reachable: start it (npm start in the kit's repository, or pedelec-dev), then send your message again.",
      );
    });

    it('checks again when page code sets the session’s bridge after connection', async () => {
      uninstallFakeChrome();
      fake = installFakeChrome({ noConnect: true });
      const { session, chat } = await mountChat('provider="scripted"');
      await waitUntil(() => note(chat).textContent !== '', 'a note');
      expect(note(chat).textContent).to.equal('Install the Pedelec browser extension, then reload this page.');
      session.bridge = 'ws://127.0.0.1:1/bridge';
      await waitUntil(() => note(chat).textContent!.includes('pedelec-dev'), 'the dev Core note', { timeout: 5000 });
    });

    it('a bridge refused by the rules → its reason', async () => {
      const { chat } = await mountChat('provider="scripted" bridge="ws://example.com/bridge"');
      await waitUntil(() => note(chat).textContent !== '', 'a note');
      expect(note(chat).textContent).to.match(/^bridge attribute may only name a loopback host/);
    });
  });

  describe('availability line: only what is still true', () => {
    it('a check that answers after the session became ready does not put back a stale "open Desktop" line', async () => {
      const { session, chat } = await mountChat();
      await fake.answer('get_approval_status', APPROVED); // the chat's check…
      await fake.request('get_settings'); // …whose get_settings probe is still out
      const started = session.start(); // the user sends / autostart: Desktop is up by now
      await fake.answer('get_approval_status', APPROVED);
      await fake.answer('create_session', { sessionId: 's1' });
      await started;
      await update(chat);
      expect(note(chat).textContent, 'ready: nothing to do').to.equal('');
      // The earlier probe times out only now.
      await fake.refuse('get_settings', {
        code: 'NATIVE_HOST_UNAVAILABLE',
        message: 'Pedelec Desktop is not running.',
      });
      await update(chat);
      expect(note(chat).textContent, 'the session is live').to.equal('');
    });

    it('a turn that works clears an "open Desktop" line left by a bridge error', async () => {
      const { session, chat } = await mountChat();
      await fake.answer('get_approval_status', APPROVED);
      await fake.answer('get_settings', SETTINGS);
      const started = session.start();
      await fake.answer('get_approval_status', APPROVED);
      await fake.answer('create_session', { sessionId: 's1' });
      await started;
      // Desktop went away: a transport-wide error; the chat checks and says what to do.
      fake.emit({
        channelId: fake.posted[0]!.channelId,
        type: 'error',
        error: { code: 'NATIVE_HOST_UNAVAILABLE', message: 'Pedelec Desktop is not running.' },
      });
      await fake.answer('get_approval_status', APPROVED);
      await fake.refuse('get_settings', {
        code: 'NATIVE_HOST_UNAVAILABLE',
        message: 'Pedelec Desktop is not running.',
      });
      await update(chat);
      expect(note(chat).textContent).to.equal('Open the Pedelec Desktop app, then send your message again.');
      // Desktop is back (the extension relaunched it); the user sends again, as the line said, and it works.
      input(chat).value = 'again';
      input(chat).dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
      await fake.answer('send_text');
      core('chat_delta', { text: 'Here you go' });
      core('status_changed', { status: 'idle' });
      await update(chat);
      expect(note(chat).textContent, 'the agent answered: nothing left to do').to.equal('');
    });

    it('a re-check on focus does not clear "choose a provider" while the default provider is still unavailable', async () => {
      const providers = [{ name: 'Codex', code: 'codex', available: false, error: 'not signed in' }];
      /** Answers every pending check request the way Pedelec is set up: default provider set, but unavailable. */
      const pedelec = async () => {
        for (let i = 0; i < 20; i++) {
          const out = fake.posted.find(
            (m) => ['get_approval_status', 'get_settings', 'list_providers'].includes(m.type) && !fake.answered.has(m),
          );
          if (out)
            await fake.answer(
              out.type,
              out.type === 'get_approval_status' ? APPROVED : out.type === 'get_settings' ? SETTINGS : providers,
            );
          else await nextTask();
        }
      };
      const { session, chat } = await mountChat(''); // no provider: the user's default
      await pedelec();
      const started = session.start().catch((e) => e);
      await pedelec();
      expect((await started).code).to.equal('DEFAULT_PROVIDER_UNAVAILABLE');
      await update(chat);
      const say = "Choose an AI provider in Pedelec's settings, then send your message again.";
      expect(note(chat).textContent).to.equal(say);
      // The user comes back to the field; nothing was changed in Pedelec.
      input(chat).focus();
      await pedelec();
      await update(chat);
      expect(note(chat).textContent, 'the default provider is still unavailable').to.equal(say);
    });
  });
});
