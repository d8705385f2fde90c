/**
 * The default Markdown renderer's links (`pedelec-elements/markdown`): agent text may come from hostile
 * pages, and `[bank.example](https://evil.example/login)` reads as a link to the bank. A link whose
 * text names another destination than its href shows the href instead; text that names its own
 * destination, or no destination at all, is left as written.
 */
import { expect } from '@open-wc/testing';
import { renderMarkdown } from '../../../src/markdown.js';

/** Each link of the rendered text: [href, text]. */
const links = (markdown: string) =>
  [...renderMarkdown(markdown).querySelectorAll('a')].map((a) => [a.getAttribute('href'), a.textContent]);

describe('Markdown: link text that claims another destination', () => {
  it('a link whose text is another URL, domain or address shows where it really goes', () => {
    const evil = 'https://evil.example/login';
    for (const text of [
      'https://bank.example/login',
      'http://bank.example',
      'bank.example',
      'www.bank.example',
      'bank.example/login?next=/account',
      'bank.example:8443',
      'BANK.EXAMPLE',
      'support@bank.example',
      'mailto:support@bank.example',
      // A look-alike name is another name.
      'evil.example.bank.example',
    ]) {
      expect(links(`Sign in at [${text}](${evil}).`), text).to.deep.equal([[evil, evil]]);
    }
    expect(links('[bank.example](mailto:phish@evil.example)')).to.deep.equal([
      ['mailto:phish@evil.example', 'mailto:phish@evil.example'],
    ]);
    expect(links('[help@bank.example](mailto:help@evil.example)')).to.deep.equal([
      ['mailto:help@evil.example', 'mailto:help@evil.example'],
    ]);
    // Formatting inside the text does not hide the claim; an image that became a link is checked too.
    expect(links(`[**bank.example**](${evil})`)).to.deep.equal([[evil, evil]]);
    expect(links(`![bank.example](${evil})`)).to.deep.equal([[evil, evil]]);
  });

  it('text naming the link’s own destination, or a subdomain of it, is kept', () => {
    expect(links('[bank.example](https://bank.example/login)')).to.deep.equal([
      ['https://bank.example/login', 'bank.example'],
    ]);
    expect(links('[https://bank.example/](https://www.bank.example/a)')).to.deep.equal([
      ['https://www.bank.example/a', 'https://bank.example/'],
    ]);
    expect(links('[bank.example](https://login.bank.example/)')).to.deep.equal([
      ['https://login.bank.example/', 'bank.example'],
    ]);
    expect(links('[Help@Bank.example](mailto:help@bank.example)')).to.deep.equal([
      ['mailto:help@bank.example', 'Help@Bank.example'],
    ]);
    // Autolinks: the text is the URL itself.
    expect(links('See https://bank.example/a?q={x} or www.bank.example or help@bank.example')).to.deep.equal([
      ['https://bank.example/a?q=%7Bx%7D', 'https://bank.example/a?q={x}'],
      ['http://www.bank.example', 'www.bank.example'],
      ['mailto:help@bank.example', 'help@bank.example'],
    ]);
  });

  it('text that names no destination is kept', () => {
    for (const text of ['docs', 'the docs', 'e.g.', '@octocat', '1.5', 'v1.2.3', 'Read bank.example docs']) {
      expect(links(`[${text}](https://evil.example/)`), text).to.deep.equal([['https://evil.example/', text]]);
    }
  });
});
