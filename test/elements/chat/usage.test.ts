/**
 * `show-usage` on <pedelec-chat>: a line with the session's total tokens, shown once Core reports
 * some and updated live as it reports more; without the attribute, no line.
 */
import { expect } from '@open-wc/testing';
import '../../../src/define.js';
import { available, core, mountChat, pageTurn, shadow, start, update, chatHooks } from './harness.js';

const usageLine = (chat: Element) => shadow(chat).querySelector<HTMLElement>('[part=usage]');

describe('<pedelec-chat>: show-usage', () => {
  chatHooks();

  it('shows the session’s total tokens, updated as Core reports them', async () => {
    const { session, chat } = await mountChat(undefined, 'show-usage');
    await available();
    await start(session);
    await update(chat);
    expect(usageLine(chat), 'nothing reported yet: no line').to.equal(null);
    await pageTurn(session, 'hi');
    core('usage_updated', { totalTokens: 1200 });
    await update(chat);
    expect(usageLine(chat)!.textContent).to.equal(`${(1200).toLocaleString()} tokens`);
    core('chat_delta', { text: 'Hello.' });
    core('usage_updated', { totalTokens: 3456 });
    await update(chat);
    expect(usageLine(chat)!.textContent).to.equal(`${(3456).toLocaleString()} tokens`);
    expect(session.session!.usage.totalTokens).to.equal(3456);

    chat.showUsage = false;
    await update(chat);
    expect(usageLine(chat)).to.equal(null);
  });

  it('shows no line without show-usage', async () => {
    const { session, chat } = await mountChat();
    await available();
    await start(session);
    await pageTurn(session, 'hi');
    core('usage_updated', { totalTokens: 50 });
    await update(chat);
    expect(usageLine(chat)).to.equal(null);
    expect(session.session!.usage.totalTokens).to.equal(50);
  });
});
