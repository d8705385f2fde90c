/**
 * The default Markdown renderer's bare-URL links (`pedelec-elements/markdown`): GFM links `https://…`
 * and `www.…` in running text, and agents write URLs inside JSON, quotes and brackets. A link ends
 * where the URL does, never taking the closing `"}` of a JSON string with it.
 */
import { expect } from '@open-wc/testing';
import { renderMarkdown } from '../../../src/markdown.js';

/** Each link of the rendered text: [href, text]. */
const links = (markdown: string) =>
  [...renderMarkdown(markdown).querySelectorAll('a')].map((a) => [a.getAttribute('href'), a.textContent]);

describe('Markdown: bare URLs are linked up to where the URL ends', () => {
  it('a URL inside JSON leaves the closing quote and brace out', () => {
    expect(links('{"url":"http://127.0.0.1:7717/"}')).to.deep.equal([
      ['http://127.0.0.1:7717/', 'http://127.0.0.1:7717/'],
    ]);
    expect(links('Result: {"items":[{"link":"https://example.com/a?b=1"}]}')).to.deep.equal([
      ['https://example.com/a?b=1', 'https://example.com/a?b=1'],
    ]);
    // The text around it is kept as text.
    expect(renderMarkdown('{"url":"http://127.0.0.1:7717/"}').textContent?.trim()).to.equal(
      '{"url":"http://127.0.0.1:7717/"}',
    );
  });

  it('quotes, unbalanced brackets and code ticks around a URL are not part of it', () => {
    expect(links("{'url': 'https://example.com/x'}")).to.deep.equal([
      ['https://example.com/x', 'https://example.com/x'],
    ]);
    expect(links('[see https://example.com/x]')).to.deep.equal([['https://example.com/x', 'https://example.com/x']]);
    expect(links('www.example.com"}')).to.deep.equal([['http://www.example.com', 'www.example.com']]);
    // GFM's own rules still apply to what is left: a full stop after the URL is punctuation.
    expect(links('Open "https://example.com/docs".')).to.deep.equal([
      ['https://example.com/docs', 'https://example.com/docs'],
    ]);
  });

  it('URLs that hold brackets or parentheses of their own keep them', () => {
    expect(links('https://en.wikipedia.org/wiki/Pedelec_(bicycle)')).to.deep.equal([
      ['https://en.wikipedia.org/wiki/Pedelec_(bicycle)', 'https://en.wikipedia.org/wiki/Pedelec_(bicycle)'],
    ]);
    expect(links('https://example.com/q?f={x} and https://example.com/a[1]')).to.deep.equal([
      ['https://example.com/q?f=%7Bx%7D', 'https://example.com/q?f={x}'],
      ['https://example.com/a%5B1%5D', 'https://example.com/a[1]'],
    ]);
  });

  it('an explicit link or <autolink> is left as written', () => {
    expect(links('[docs](https://example.com/docs)')).to.deep.equal([['https://example.com/docs', 'docs']]);
    expect(links('<https://example.com/a>')).to.deep.equal([['https://example.com/a', 'https://example.com/a']]);
  });
});
