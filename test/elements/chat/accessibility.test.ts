/**
 * <pedelec-chat> accessibility and theming: a labelled log, field and button (axe), a live region in
 * the accessibility tree before its text, visually hidden prefixes that never scroll the page, and
 * prefers-color-scheme, light and dark.
 */
import { expect } from '@open-wc/testing';
import { emulateMedia } from '@web/test-runner-commands';
import '../../../src/define.js';
import {
  fake,
  APPROVED,
  SETTINGS,
  available,
  start,
  core,
  pageTurn,
  mountChat,
  shadow,
  input,
  sendButton,
  note,
  update,
  chatHooks,
} from './harness.js';

describe('<pedelec-chat>', () => {
  chatHooks();

  describe('accessibility and theming', () => {
    it('is accessible, with a labelled log, field and button', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const turn = await pageTurn(session, 'hi');
      core('chat_delta', { text: 'Hello' });
      core('tool_call', { toolRequestId: 't1', tool: 'missing', args: {} });
      await fake.answer('submit_tool_result');
      core('status_changed', { status: 'idle' });
      await turn.done;
      await update(chat);
      const log = shadow(chat).querySelector('[part=log]')!;
      expect(log.getAttribute('role')).to.equal('log');
      expect(log.getAttribute('aria-label')).to.equal('Conversation');
      expect(input(chat).getAttribute('aria-label')).to.equal('Message');
      expect(sendButton(chat).textContent!.trim()).to.equal('Send');
      await expect(chat).to.be.accessible();
    });

    it('follows prefers-color-scheme, light and dark', async () => {
      const { chat } = await mountChat();
      await available();
      const LIGHT = 'rgb(255, 255, 255)';
      const DARK = 'rgb(27, 28, 31)';
      const background = () => getComputedStyle(chat).backgroundColor;
      // By default the user's preference decides (`color-scheme: light dark` + light-dark()).
      expect(background()).to.equal(matchMedia('(prefers-color-scheme: dark)').matches ? DARK : LIGHT);
      // Firefox over WebDriver BiDi cannot emulate media features: not asked there (the failed command
      // would print its stack trace in a green run).
      let emulated = !navigator.userAgent.includes('Firefox');
      try {
        if (emulated) await emulateMedia({ colorScheme: 'dark' });
      } catch {
        emulated = false;
      }
      if (emulated) {
        try {
          expect(matchMedia('(prefers-color-scheme: dark)').matches).to.equal(true);
          expect(background()).to.equal(DARK);
          await emulateMedia({ colorScheme: 'light' });
          expect(background()).to.equal(LIGHT);
        } finally {
          await emulateMedia({ colorScheme: 'light' });
        }
      }
      // A page can force a scheme, or override the colour itself.
      chat.style.colorScheme = 'dark';
      expect(background()).to.equal(DARK);
      chat.style.colorScheme = 'light';
      expect(background()).to.equal(LIGHT);
      chat.style.setProperty('--pedelec-chat-background', 'rgb(1, 2, 3)');
      expect(background()).to.equal('rgb(1, 2, 3)');
    });
  });

  describe('accessibility: live region and hidden prefixes', () => {
    it('the availability live region is in the accessibility tree before its text arrives', async () => {
      const { chat } = await mountChat();
      await update(chat);
      const line = note(chat);
      // Still empty (the check is out): a polite status region is announced only if it was rendered
      // before its content changed.
      const before = getComputedStyle(line).display;
      await fake.answer('get_approval_status', {
        installed: true,
        approved: false,
        origin: location.origin,
        appConnected: true,
      });
      await update(chat);
      expect(line.textContent).to.contain('approve');
      expect(before, 'role=status was display:none (hidden) until the text was put in').to.not.equal('none');
    });

    it('the visually hidden "You:"/"Agent:" prefixes do not make the page scroll', async () => {
      const { session, chat } = await mountChat();
      await fake.answer('get_approval_status', APPROVED);
      await fake.answer('get_settings', SETTINGS);
      const started = session.start();
      await fake.answer('get_approval_status', APPROVED);
      await fake.answer('create_session', { sessionId: 's1' });
      await started;
      const page = document.scrollingElement!;
      await update(chat);
      const height = page.scrollHeight;
      for (let i = 0; i < 60; i++) {
        const turn = session.sendText(`question ${i}`).catch((e) => e);
        await fake.answer('send_text');
        core('chat_delta', { text: `answer ${i}` });
        core('status_changed', { status: 'idle' });
        await turn;
      }
      await update(chat);
      await new Promise(requestAnimationFrame);
      const log = shadow(chat).querySelector<HTMLElement>('[part=log]')!;
      expect(log.scrollHeight, 'the log itself scrolls').to.be.greaterThan(log.clientHeight * 3);
      expect(page.scrollHeight, 'the page grew with the hidden prefixes of the whole transcript').to.be.at.most(
        height + 2,
      );
    });
  });
});
