/**
 * Which session a <pedelec-chat> shows (docs/design/elements.md "<pedelec-chat>"): created by markup,
 * createElement or new; bound to its nearest session, to for="id" or to forElement; detached,
 * reattached, moved within its session or switched to another session, also mid-reply.
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/define.js';
import { type PedelecSessionElement, PedelecChatElement } from '../../../src/index.js';
import {
  fake,
  available,
  start,
  core,
  pageTurn,
  mountChat,
  shadow,
  transcript,
  input,
  update,
  enter,
  mountChatInDivs,
  chatHooks,
} from './harness.js';
import { uniqueTag } from '../helpers.js';
import { nextTask } from '../../support/waits.js';
import { boundSessionOf } from '../../../src/elements/chat/pedelec-chat.element.js';

describe('<pedelec-chat>', () => {
  chatHooks();

  describe('creation and binding', () => {
    it('is created by markup, by document.createElement and by new', async () => {
      const { chat } = await mountChat();
      await available();
      expect(chat).to.be.instanceOf(PedelecChatElement);
      expect(document.createElement('pedelec-chat')).to.be.instanceOf(PedelecChatElement);
      const made = new PedelecChatElement();
      expect(made.localName).to.equal('pedelec-chat');
    });

    it('binds to its nearest session, also across a shadow root', async () => {
      const host = await fixture<HTMLDivElement>(html`<div></div>`);
      host.innerHTML = '<pedelec-session provider="codex" model="m"><div class="panel"></div></pedelec-session>';
      const session = host.querySelector('pedelec-session')!;
      const root = host.querySelector('.panel')!.attachShadow({ mode: 'open' });
      const chat = document.createElement('pedelec-chat');
      root.append(chat);
      await available();
      await start(session);
      await pageTurn(session, 'through the shadow root');
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: through the shadow root']);
    });

    it('renders only its own session: an inner session’s events do not reach the outer chat', async () => {
      const host = await fixture<HTMLDivElement>(html`<div></div>`);
      host.innerHTML = `
        <pedelec-session id="outer" provider="codex" model="m"><pedelec-chat id="outer-chat"></pedelec-chat>
          <pedelec-session id="inner" provider="codex" model="m"><pedelec-chat id="inner-chat"></pedelec-chat></pedelec-session>
        </pedelec-session>`;
      const inner = host.querySelector<PedelecSessionElement>('#inner')!;
      const outerChat = host.querySelector('#outer-chat')!;
      const innerChat = host.querySelector('#inner-chat')!;
      await available();
      await available();
      await start(inner, 'inner-1');
      await pageTurn(inner, 'to the inner agent');
      core('chat_delta', { text: 'inner reply' }, 'inner-1');
      await update(outerChat);
      await update(innerChat);
      expect(transcript(innerChat)).to.deep.equal(['user: to the inner agent', 'agent: inner reply']);
      expect(transcript(outerChat)).to.deep.equal([]);
    });

    it('binds to for="id" in its own root, also when that session appears later', async () => {
      const host = await fixture<HTMLDivElement>(html`<div></div>`);
      host.innerHTML = '<pedelec-chat for="later"></pedelec-chat>';
      const chat = host.querySelector('pedelec-chat')!;
      await update(chat);
      expect(fake.posted, 'nothing to talk to yet').to.deep.equal([]);
      const session = document.createElement('pedelec-session');
      session.id = 'later';
      session.setAttribute('provider', 'codex');
      session.setAttribute('model', 'm');
      host.append(session);
      await available();
      await start(session);
      await pageTurn(session, 'found you');
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: found you']);
    });

    it('prefers the forElement property over for="id" and the nearest session', async () => {
      const host = await fixture<HTMLDivElement>(html`<div></div>`);
      host.innerHTML = `
        <pedelec-session id="a" provider="codex" model="m"><pedelec-chat for="a"></pedelec-chat></pedelec-session>
        <pedelec-session id="b" provider="codex" model="m"></pedelec-session>`;
      const chat = host.querySelector('pedelec-chat')!;
      await available();
      const b = host.querySelector<PedelecSessionElement>('#b')!;
      chat.forElement = b;
      await available();
      await start(b, 'sb');
      await pageTurn(b, 'to b');
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: to b']);
    });

    it('works when defined after it is in the page', async () => {
      const tag = uniqueTag('late-chat');
      const host = await fixture<HTMLDivElement>(html`<div></div>`);
      host.innerHTML = `<pedelec-session provider="codex" model="m"><${tag}></${tag}></pedelec-session>`;
      const session = host.querySelector('pedelec-session')!;
      await start(session);
      customElements.define(tag, class extends PedelecChatElement {});
      const chat = host.querySelector(tag) as PedelecChatElement;
      await available();
      await pageTurn(session, 'late but here');
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: late but here']);
    });

    it('keeps its transcript when detached and reattached, and listens again', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const first = await pageTurn(session, 'one');
      core('status_changed', { status: 'idle' });
      await first.done;
      const parent = chat.parentNode!;
      chat.remove();
      parent.append(chat);
      await available();
      await pageTurn(session, 'two');
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: one', 'user: two']);
    });
  });

  describe('reattached, moved and switched', () => {
    it('reattached after its turn ended elsewhere: the message is no longer busy', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const turn = await pageTurn(session, 'one');
      core('chat_delta', { text: 'Hel' });
      await update(chat);
      expect(shadow(chat).querySelector('[part~=agent]')!.getAttribute('aria-busy')).to.equal('true');
      const parent = chat.parentNode!;
      chat.remove();
      core('status_changed', { status: 'idle' });
      await turn.done;
      parent.append(chat);
      await available();
      await update(chat);
      expect(shadow(chat).querySelector('[part~=agent]')!.getAttribute('aria-busy')).to.equal('false');
    });

    it('a chat bound by for="id" does not re-render for DOM changes elsewhere in the page', async () => {
      const host = await fixture<HTMLDivElement>(html`<div></div>`);
      host.innerHTML = `<pedelec-session id="main-session" provider="codex" model="m"></pedelec-session><p>x</p><pedelec-chat for="main-session"></pedelec-chat>`;
      const chat = host.querySelector('pedelec-chat') as PedelecChatElement;
      await available();
      await update(chat);
      let updates = 0;
      chat.addController({ hostUpdate: () => void updates++ });
      const p = host.querySelector('p')!;
      for (let i = 0; i < 20; i++) {
        p.textContent = `change ${i}`;
        p.append(document.createElement('span'));
        await nextTask(); // its mutation records were delivered
      }
      await update(chat);
      expect(updates).to.equal(0);
      expect(boundSessionOf(chat)).to.equal(host.querySelector('pedelec-session'));
    });

    describe('in a <div> of its session', () => {
      const mountChat = mountChatInDivs;

      it('detached and put back in the same task mid-reply (remove() + append(), as portals and Angular detach/insert do): one busy message, a running tool stays running', async () => {
        const { session, chat } = await mountChat();
        const tool = document.createElement('pedelec-tool') as HTMLElement & { handler: unknown };
        tool.setAttribute('name', 'slow');
        tool.setAttribute('description', 'Takes a while.');
        tool.handler = () => new Promise(() => {});
        session.prepend(tool);
        await available();
        await start(session);
        const turn = session.sendText('hi').catch((e) => e);
        await fake.answer('send_text');
        core('chat_delta', { text: 'Hel' });
        await update(chat);
        chat.remove();
        session.querySelector('.b')!.append(chat); // same task, same session: no event was missed
        await update(chat);
        core('chat_delta', { text: 'lo' });
        await update(chat);
        expect(transcript(chat), 'the reply is one message').to.deep.equal(['user: hi', 'agent: Hello']);
        expect(
          shadow(chat).querySelector('[part~=agent]')!.getAttribute('aria-busy'),
          'its turn has not ended',
        ).to.equal('true');
        core('tool_call', { toolRequestId: 't1', tool: 'slow', args: {} });
        await update(chat);
        chat.remove();
        session.querySelector('.a')!.append(chat);
        await update(chat);
        expect(transcript(chat)[2], 'the call is still running').to.equal('running: slow: running…');
        core('status_changed', { status: 'idle' });
        await turn;
      });

      it("switched to another session while its turn runs: the old session's failure does not land in the new conversation", async () => {
        const host = await fixture<HTMLDivElement>(html`<div></div>`);
        host.innerHTML =
          '<pedelec-session id="a" provider="codex" model="m"></pedelec-session><pedelec-session id="b" provider="codex" model="m"></pedelec-session><pedelec-chat for="a"></pedelec-chat>';
        const a = host.querySelector<PedelecSessionElement>('#a')!;
        const b = host.querySelector<PedelecSessionElement>('#b')!;
        const chat = host.querySelector('pedelec-chat')!;
        await chat.updateComplete;
        await available();
        await start(a, 'sa');
        const field = input(chat);
        field.value = 'question for a';
        enter(field);
        await fake.answer('send_text');
        await update(chat);
        expect(transcript(chat)).to.deep.equal(['user: question for a']);
        // "New conversation": the page points the chat at another session.
        chat.forElement = b;
        await update(chat);
        await available();
        await update(chat);
        expect(transcript(chat), 'a new conversation').to.deep.equal([]);
        // Session a's turn fails afterwards (or a is ended by the page: SESSION_ENDED, the same).
        core('error', { error: { code: 'PROVIDER_RATE_LIMITED', message: 'Slow down.' } }, 'sa');
        await update(chat);
        expect(transcript(chat), "b's conversation shows only b").to.deep.equal([]);
        expect(field.value, 'a message that was sent to a is not put back').to.equal('');
      });
    });
  });
});
