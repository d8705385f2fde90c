/**
 * The <pedelec-chat> composer: Enter sends, Shift+Enter and IME compositions do not, editable during a
 * turn, SESSION_BUSY kept quiet, keyboard only; a message that never became a turn is given back, and a
 * failed send or prepare never leaves the chat stuck.
 */
import { expect, fixture, html } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../../src/define.js';
import {
  fake,
  APPROVED,
  available,
  start,
  core,
  pageTurn,
  mountChat,
  transcript,
  input,
  sendButton,
  sendTexts,
  update,
  enter,
  focused,
  mountChatInDivs,
  chatHooks,
} from './harness.js';
import { nextTask } from '../../support/waits.js';

describe('<pedelec-chat>', () => {
  chatHooks();

  describe('composer', () => {
    it('Enter sends and clears; Shift+Enter does not send', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const field = input(chat);
      field.focus();
      field.value = 'line one';
      expect(enter(field, { shiftKey: true }).defaultPrevented, 'Shift+Enter is left to the textarea').to.equal(false);
      await nextTask(); // nothing is sent
      expect(sendTexts()).to.deep.equal([]);
      expect(enter(field).defaultPrevented).to.equal(true);
      await fake.answer('send_text');
      expect(sendTexts()).to.deep.equal(['line one']);
      expect(field.value).to.equal('');
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: line one']);
      expect(focused(chat)).to.equal(field);
    });

    it('never sends on Enter during an IME composition (isComposing, keyCode 229)', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const field = input(chat);
      field.focus();
      field.value = 'にほんご';
      field.dispatchEvent(new CompositionEvent('compositionstart', { data: '' }));
      expect(enter(field, { isComposing: true }).defaultPrevented).to.equal(false);
      const legacy = enter(field, { keyCode: 229 } as KeyboardEventInit);
      expect(legacy.keyCode, 'this browser keeps keyCode from the init dict').to.equal(229);
      expect(legacy.defaultPrevented).to.equal(false);
      field.dispatchEvent(new CompositionEvent('compositionend', { data: 'にほんご' }));
      await nextTask(); // nothing is sent
      expect(sendTexts()).to.deep.equal([]);
      expect(field.value).to.equal('にほんご');
      // The same Enter after the composition ended sends.
      enter(field);
      await fake.answer('send_text');
      expect(sendTexts()).to.deep.equal(['にほんご']);
    });

    it('stays editable during a turn; only the send button is aria-disabled; Enter then keeps the text', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const field = input(chat);
      const button = sendButton(chat);
      expect(button.getAttribute('aria-disabled')).to.equal('false');
      const turn = await pageTurn(session, 'page turn');
      await update(chat);
      expect(button.getAttribute('aria-disabled')).to.equal('true');
      expect(button.disabled).to.equal(false);
      expect(field.disabled || field.readOnly).to.equal(false);
      field.focus();
      field.value = 'next question';
      enter(field);
      button.click();
      await update(chat);
      expect(sendTexts()).to.deep.equal(['page turn']);
      expect(field.value).to.equal('next question');
      expect(focused(chat)).to.equal(field);
      expect(transcript(chat)).to.deep.equal(['user: page turn']);
      core('status_changed', { status: 'idle' });
      await turn.done;
      await update(chat);
      expect(button.getAttribute('aria-disabled')).to.equal('false');
      enter(field);
      await fake.answer('send_text');
      expect(sendTexts()).to.deep.equal(['page turn', 'next question']);
    });

    it('handles SESSION_BUSY gracefully: the text stays, no error is shown', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const field = input(chat);
      field.value = 'mine';
      // Page code starts a turn in the same task the user presses Enter: the chat still sees `idle`.
      const page = session.sendText('page').catch((e) => e);
      enter(field);
      await fake.answer('send_text');
      await update(chat);
      expect(sendTexts()).to.deep.equal(['page']);
      expect(field.value).to.equal('mine');
      expect(transcript(chat)).to.deep.equal(['user: page']);
      core('status_changed', { status: 'idle' });
      await page;
    });

    it('sends with the keyboard only, and focus never leaves the composer', async () => {
      const host = await fixture<HTMLDivElement>(html`<div><button id="before">before</button></div>`);
      host.insertAdjacentHTML(
        'beforeend',
        '<pedelec-session provider="codex" model="m"><pedelec-chat></pedelec-chat></pedelec-session>',
      );
      const session = host.querySelector('pedelec-session')!;
      const chat = host.querySelector('pedelec-chat')!;
      await available();
      await start(session);
      host.querySelector<HTMLButtonElement>('#before')!.focus();
      await sendKeys({ press: 'Tab' }); // the transcript (a focusable, scrollable log)
      expect(focused(chat)?.getAttribute('role')).to.equal('log');
      await sendKeys({ press: 'Tab' });
      expect(focused(chat)).to.equal(input(chat));
      await sendKeys({ type: 'hello' });
      await sendKeys({ down: 'Shift' });
      await sendKeys({ press: 'Enter' });
      await sendKeys({ up: 'Shift' });
      await sendKeys({ type: 'there' });
      await sendKeys({ press: 'Enter' });
      await fake.answer('send_text');
      expect(sendTexts()).to.deep.equal(['hello\nthere']);
      expect(focused(chat)).to.equal(input(chat));
      core('status_changed', { status: 'idle' });
      await update(chat);
      // Now the send button, by keyboard: focus comes back to the text field.
      await sendKeys({ type: 'by button' });
      await sendKeys({ press: 'Tab' });
      expect(focused(chat)).to.equal(sendButton(chat));
      await sendKeys({ press: 'Enter' });
      await fake.answer('send_text');
      expect(sendTexts()).to.deep.equal(['hello\nthere', 'by button']);
      expect(focused(chat)).to.equal(input(chat));
      core('status_changed', { status: 'idle' });
    });

    it('a message that never became a turn (the start failed) is given back to the field', async () => {
      const { session, chat } = await mountChat();
      await available();
      input(chat).value = 'my long question';
      enter(input(chat));
      expect(input(chat).value, 'cleared while sending').to.equal('');
      await fake.answer('get_approval_status', APPROVED);
      await fake.refuse('create_session', {
        code: 'NATIVE_HOST_UNAVAILABLE',
        message: 'Pedelec Desktop is not running.',
      });
      await update(chat);
      expect(input(chat).value).to.equal('my long question');
      expect(session.status).to.equal('error');
    });

    describe('in a <div> of its session', () => {
      const mountChat = mountChatInDivs;

      it('after a send_text request fails (the session is then in error, as SDK 0.4.6 leaves it), the user can send again', async () => {
        const { session, chat } = await mountChat();
        await available();
        await start(session);
        const field = input(chat);
        field.value = 'first';
        enter(field);
        await fake.refuse('send_text', { code: 'SESSION_NOT_FOUND', message: 'Core does not know this session.' });
        await update(chat);
        expect(transcript(chat)).to.deep.equal([
          'user: first',
          'error: Core does not know this session. (SESSION_NOT_FOUND)',
        ]);
        // The turn is over and the session in error: the chat lets the user try again.
        expect(session.status, 'what the chat gates on').to.equal('error');
        expect(sendButton(chat).getAttribute('aria-disabled'), 'send button').to.equal('false');
        field.value = 'second';
        enter(field);
        await fake.request('send_text'); // Enter sent it
        expect(sendTexts()).to.deep.equal(['first', 'second']);
      });

      it('after a page prepare() fails (status left at running), the chat is not stuck', async () => {
        const { session, chat } = await mountChat();
        await available();
        await start(session);
        const prepared = session.prepare().catch((e) => e);
        await fake.refuse('prepare_session', { code: 'PREPARE_FAILED', message: 'Could not warm up.' });
        await prepared;
        await update(chat);
        const field = input(chat);
        field.value = 'hello';
        enter(field);
        await fake.request('send_text'); // Enter sent it
        expect(sendTexts()).to.deep.equal(['hello']);
      });

      it('a message that never became a turn is not lost when the user typed the next one meanwhile (approval popup open)', async () => {
        const { chat } = await mountChat();
        await available();
        const field = input(chat);
        field.value = 'my long first question';
        enter(field);
        // The origin is not approved yet: the extension holds the create request while its popup is open.
        await fake.answer('get_approval_status', {
          installed: true,
          approved: false,
          origin: location.origin,
          appConnected: true,
        });
        await fake.request('create_session');
        expect(field.value, 'cleared while sending').to.equal('');
        field.value = 'and a follow-up'; // the textarea stays editable: the user goes on typing
        await fake.refuse('create_session', {
          code: 'ORIGIN_NOT_APPROVED',
          message: 'The user did not approve this site.',
        });
        await update(chat);
        const shown = [...transcript(chat), field.value].join('\n');
        expect(shown, 'the first question is somewhere the user can get it back').to.include('my long first question');
      });
    });
  });
});
