/**
 * How <pedelec-chat> renders agent text outside the Markdown page: as text (markup in a delta creates
 * nothing and runs nothing), without ever loading the Markdown renderer, and as text again when a
 * page's renderMarkdown throws (one pedelec-error, the chat goes on).
 */
import { aTimeout, expect } from '@open-wc/testing';
import '../../../src/define.js';
import type { PedelecChatElement } from '../../../src/index.js';
import { available, start, core, pageTurn, mountChat, shadow, read, transcript, update, chatHooks } from './harness.js';

describe('<pedelec-chat>', () => {
  chatHooks();

  describe('agent text', () => {
    it('shows agent text as text: <img onerror> and <script> create no element and run nothing', async () => {
      const { session, chat } = await mountChat();
      await available();
      await start(session);
      const turn = await pageTurn(session, 'hi');
      const payload = '<img src=x onerror="window.__chatXss=1"><script>window.__chatXss=2</script><b>bold?</b>';
      core('chat_delta', { text: payload.slice(0, 9) });
      core('chat_delta', { text: payload.slice(9) });
      core('status_changed', { status: 'idle' });
      await turn.done;
      await update(chat);
      const agent = shadow(chat).querySelector('[part~=agent]')!;
      expect(read(agent as HTMLElement)).to.equal(`agent: ${payload}`);
      expect(agent.querySelectorAll('*').length, 'only the "Agent:" label').to.equal(1);
      expect(shadow(chat).querySelector('img, script, b')).to.equal(null);
      await aTimeout(50); // an error event of a broken image would come about now
      expect((window as any).__chatXss).to.equal(undefined);
    });

    it('a page that never uses markdown never loads the Markdown renderer', async () => {
      const { chat } = await mountChat();
      await available();
      await update(chat);
      const loaded = performance.getEntriesByType('resource').map((e) => e.name);
      expect(loaded.filter((name) => /markdown|marked|dompurify/i.test(name))).to.deep.equal([]);
    });

    it('a renderMarkdown that throws: that message shows as text, one pedelec-error, and the chat goes on', async () => {
      const { session, chat } = await mountChat('provider="codex" model="m"', 'markdown');
      (chat as PedelecChatElement).renderMarkdown = (text: string) => {
        if (text.includes('boom')) throw new Error('renderer bug');
        const strong = document.createElement('strong');
        strong.textContent = text;
        return strong;
      };
      const errors: string[] = [];
      chat.addEventListener('pedelec-error', (e) => errors.push(e.detail.error.code));
      await available();
      await start(session);
      const first = await pageTurn(session, 'one');
      core('chat_delta', { text: 'boom' });
      core('status_changed', { status: 'idle' });
      await first.done;
      await update(chat);
      await new Promise(requestAnimationFrame);
      await update(chat);
      const second = await pageTurn(session, 'two');
      core('chat_delta', { text: 'fine' });
      core('status_changed', { status: 'idle' });
      await second.done;
      await update(chat);
      await new Promise(requestAnimationFrame);
      await update(chat);
      expect(transcript(chat)).to.deep.equal(['user: one', 'agent: boom', 'user: two', 'agent: fine']);
      expect(shadow(chat).querySelectorAll('strong')).to.have.length(1);
      expect(errors).to.deep.equal(['MARKDOWN_RENDER_FAILED']);
    });
  });
});
