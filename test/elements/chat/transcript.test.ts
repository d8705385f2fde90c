/**
 * The <pedelec-chat> transcript: events kept from before its view loaded, user turns (also from page
 * code), streamed deltas, one row per tool call (running, done, failed, also when its turn ends first),
 * errors; and following the conversation without forcing a layout per delta.
 */
import { aTimeout, expect, fixture, html } from '@open-wc/testing';
import '../../../src/define.js';
import type { PedelecToolElement, PedelecChatElement } from '../../../src/index.js';
import {
  fake,
  available,
  start,
  core,
  pageTurn,
  mountChat,
  shadow,
  transcript,
  update,
  mountChatInDivs,
  chatHooks,
} from './harness.js';

describe('<pedelec-chat>', () => {
  chatHooks();

  describe('transcript', () => {
    it('keeps the events that arrive before its view is loaded, and shows them in order', async () => {
      // The view module is imported on the first update: events dispatched in the same task as the
      // chat's connection arrive before it, and must not be lost.
      const session = document.createElement('pedelec-session');
      const chat = document.createElement('pedelec-chat') as PedelecChatElement;
      session.append(chat);
      document.body.append(session);
      const fire = (type: string, detail: object) => session.dispatchEvent(new CustomEvent(type, { detail }));
      fire('pedelec-turn', { turnId: 't1', kind: 'user', text: 'early' });
      fire('pedelec-chat-delta', { text: 'first ' });
      fire('pedelec-chat-delta', { text: 'words' });
      expect(shadow(chat).querySelector('[role=log]'), 'not rendered yet').to.equal(null);
      await chat.updateComplete;
      expect(transcript(chat)).to.deep.equal(['user: early', 'agent: first words']);
    });

    it('appends deltas in order across a turn, busy until the turn ends', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const turn = await pageTurn(session, 'hi');
      for (const text of ['Hel', 'lo', ', ', 'wor', 'ld']) core('chat_delta', { text });
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: hi', 'agent: Hello, world']);
      const agent = shadow(chat).querySelector('[part~=agent]')!;
      expect(agent.getAttribute('aria-busy')).to.equal('true');
      core('chat_delta', { text: '!' });
      core('status_changed', { status: 'idle' });
      await turn.done;
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: hi', 'agent: Hello, world!']);
      expect(agent.getAttribute('aria-busy')).to.equal('false');
      // The next turn's reply is a new message.
      const next = await pageTurn(session, 'again');
      core('chat_delta', { text: 'Second' });
      core('status_changed', { status: 'idle' });
      await next.done;
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: hi', 'agent: Hello, world!', 'user: again', 'agent: Second']);
    });

    it('shows a user turn started by sendText() from page code', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      await pageTurn(session, 'typed by the page');
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: typed by the page']);
    });

    it('shows one row per tool call: running, then done with its duration, or failed', async () => {
      const host = await fixture<HTMLDivElement>(html`<div></div>`);
      host.innerHTML = `<pedelec-session provider="codex" model="m">
          <pedelec-tool name="slow" description="Takes a while."></pedelec-tool><pedelec-chat></pedelec-chat></pedelec-session>`;
      const session = host.querySelector('pedelec-session')!;
      const chat = host.querySelector('pedelec-chat')!;
      let release!: (value: unknown) => void;
      (host.querySelector('pedelec-tool') as PedelecToolElement).handler = () =>
        new Promise((resolve) => (release = resolve));
      await available();
      await start(session);
      const turn = await pageTurn(session, 'go');
      core('chat_delta', { text: 'Calling.' });
      core('tool_call', { toolRequestId: 't1', tool: 'slow', args: {} });
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: go', 'agent: Calling.', 'running: slow: running…']);
      expect(shadow(chat).querySelector('[part~=tool]')!.getAttribute('part')).to.equal('tool running');
      await aTimeout(15); // the duration is the subject here
      release({ ok: true });
      await fake.answer('submit_tool_result');
      await update(chat);
      const done = shadow(chat).querySelector('[part~=tool]')!;
      expect(done.getAttribute('part')).to.equal('tool done');
      const ms = Number(/^slow: done in (\d+) ms$/.exec(done.textContent!)?.[1]);
      expect(ms).to.be.at.least(10);
      // A call nothing answers fails (TOOL_HANDLER_NOT_FOUND), and the agent's text goes on below it.
      core('tool_call', { toolRequestId: 't2', tool: 'missing', args: {} });
      await fake.answer('submit_tool_result');
      core('chat_delta', { text: 'Done.' });
      core('status_changed', { status: 'idle' });
      await turn.done;
      await update(chat);
      const all = transcript(chat);
      expect(all.slice(0, 3)).to.deep.equal(['user: go', 'agent: Calling.', 'done: ' + done.textContent]);
      expect(all[3]).to.match(/^failed: missing: failed in \d+ ms$/);
      expect(all[4]).to.equal('agent: Done.');
    });

    it('shows errors', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const turn = await pageTurn(session, 'hi');
      core('error', { error: { code: 'PROVIDER_RATE_LIMITED', message: 'Slow down.' } });
      await turn.done;
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: hi', 'error: Slow down. (PROVIDER_RATE_LIMITED)']);
    });

    it('a tool call still running when its turn ends shows as failed, not running for ever', async () => {
      const host = await fixture<HTMLDivElement>(html`<div></div>`);
      host.innerHTML = `<pedelec-session provider="codex" model="m">
          <pedelec-tool name="stuck" description="Never answers."></pedelec-tool><pedelec-chat></pedelec-chat></pedelec-session>`;
      const session = host.querySelector('pedelec-session')!;
      const chat = host.querySelector('pedelec-chat')!;
      (host.querySelector('pedelec-tool') as PedelecToolElement).handler = () => new Promise(() => {});
      await available();
      await start(session);
      const turn = await pageTurn(session, 'go');
      core('tool_call', { toolRequestId: 't1', tool: 'stuck', args: {} });
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: go', 'running: stuck: running…']);
      core('status_changed', { status: 'idle' });
      await turn.done;
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: go', 'failed: stuck: failed']);
    });

    describe('in a <div> of its session', () => {
      const mountChat = mountChatInDivs;

      it('a tool row settled as failed when its turn ended stays failed when the handler answers late', async () => {
        const { session, chat } = await mountChat();
        const tool = document.createElement('pedelec-tool') as HTMLElement & { handler: unknown };
        tool.setAttribute('name', 'slow');
        tool.setAttribute('description', 'Takes a while.');
        let finish!: (value: unknown) => void;
        tool.handler = () => new Promise((resolve) => (finish = resolve));
        session.prepend(tool);
        await available();
        await start(session);
        const turn = session.sendText('go').catch((e) => e);
        await fake.answer('send_text');
        core('tool_call', { toolRequestId: 't1', tool: 'slow', args: {} });
        await update(chat);
        // Core gave up on the call (TOOL_TIMEOUT to the agent) and the turn ended.
        core('status_changed', { status: 'idle' });
        await turn;
        await update(chat);
        expect(transcript(chat)).to.deep.equal(['user: go', 'failed: slow: failed']);
        finish({ late: true });
        await update(chat);
        expect(transcript(chat)[1], 'the late result never reached the agent').to.equal('failed: slow: failed');
      });
    });
  });

  describe('following the conversation', () => {
    it('streamed deltas do not read the log size per delta (no forced layout per piece)', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      await pageTurn(session, 'long');
      await update(chat);
      const log = shadow(chat).querySelector<HTMLElement>('[role=log]')!;
      const size = Object.getOwnPropertyDescriptor(Element.prototype, 'scrollHeight')!;
      let reads = 0;
      Object.defineProperty(log, 'scrollHeight', { configurable: true, get: () => (reads++, size.get!.call(log)) });
      // Faster than frames: each delta is rendered (its update), with no task in between.
      for (let i = 0; i < 60; i++) {
        core('chat_delta', { text: 'word ' });
        await (chat as PedelecChatElement).updateComplete;
      }
      await new Promise(requestAnimationFrame);
      expect(transcript(chat)[1]).to.equal(`agent: ${'word '.repeat(60)}`);
      expect(reads, 'at most one read per animation frame').to.be.below(15);
    });

    it('follows the conversation turn after turn: our own scroll never makes it stop following', async () => {
      const { session, chat } = await mountChat();
      (chat as HTMLElement).style.height = '200px';
      await available();
      await start(session);
      const log = shadow(chat).querySelector<HTMLElement>('[role=log]')!;
      const frame = () => new Promise(requestAnimationFrame);
      for (let i = 0; i < 6; i++) {
        const turn = await pageTurn(session, `question ${i}`);
        for (let j = 0; j < 5; j++) {
          // Each piece adds more than the 40 px that count as "at the bottom"; the scroll event of the
          // previous frame's scroll is dispatched only after it arrived.
          core('chat_delta', { text: `part ${j} of answer ${i}\nsecond line\nthird line\nfourth line\n` });
          await update(chat);
          await frame();
        }
        core('status_changed', { status: 'idle' });
        await turn.done;
        await update(chat);
        await frame();
        await frame();
        expect(log.scrollHeight - log.scrollTop - log.clientHeight, `at the bottom after turn ${i}`).to.be.below(40);
      }
      expect(log.scrollHeight).to.be.above(log.clientHeight * 2);
      // A user who scrolls up is left there.
      log.scrollTop = 0;
      await new Promise((resolve) => log.addEventListener('scroll', resolve, { once: true }));
      const turn = await pageTurn(session, 'more');
      core('chat_delta', { text: 'new text' });
      core('status_changed', { status: 'idle' });
      await turn.done;
      await update(chat);
      await frame();
      await frame();
      expect(log.scrollTop).to.equal(0);
    });
  });
});
