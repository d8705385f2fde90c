/**
 * `MarkdownStream` (pedelec-elements/markdown): a text that grows renders exactly as `renderMarkdown`
 * renders the whole text — after every piece, however the pieces fall — while finished blocks are
 * rendered once and kept (in groups that leave what shows unchanged). The corpus holds what Markdown decides late: link definitions after their
 * use, setext headings, tables, lists that turn loose, code blocks that go on after blank lines; and
 * the XSS corpus.
 */
import { expect } from '@open-wc/testing';
import { MarkdownStream, renderMarkdown } from '../../../src/markdown.js';
import { GROUP } from '../../../src/markdown-stream.js';
import { exfiltration, payloads } from './xss-corpus.js';

/** What `renderMarkdown(text)` shows, as markup. */
function whole(text: string): string {
  const div = document.createElement('div');
  div.append(renderMarkdown(text));
  return div.innerHTML;
}

/** What a stream shows, as markup, its groups of finished blocks taken apart (Markdown makes no `<div>`). */
function shown(stream: MarkdownStream): string {
  const copy = stream.element.cloneNode(true) as HTMLElement;
  for (const group of copy.querySelectorAll(':scope > div')) group.replaceWith(...group.childNodes);
  return copy.innerHTML;
}

/** Texts where a later line changes what an earlier one is. */
const LATE = [
  // Link definitions after their use, changed definitions, and one that streams in.
  'See [the docs][docs] and [docs].\n\nMore text.\n\n[docs]: https://example.com/docs "The docs"\n',
  '[a][x] and [b][y]\n\n[x]: https://a.example\n[y]: https://b.example\n\n[x]: https://ignored.example\n',
  'Intro [ref].\n\n- item [ref]\n\n> quoted [ref]\n\n[REF]:\n  https://example.com/multiline\n  "title"\n',
  '![img][i]\n\n[![badge][i]][l]\n\n[i]: https://img.example/a.png\n[l]: https://ci.example/run\n',
  // Setext headings, and rules that are not headings.
  'Title\n=====\n\nSub\ntitle\n---\n\ntext\n\n---\n\nmore\n***\n',
  // Tables: a header becomes one by the next line; a paragraph line before it.
  'intro\n| a | b |\n|:--|--:|\n| 1 | 2 |\nrow without pipes\n\nafter\n',
  '| a |\n| - |\n\n| not | a table |\nx\n',
  // Lists that turn loose, go on after blank lines, change their marker or number.
  '- one\n- two\n\n- three\n\nafter\n',
  '1. one\n2. two\n\n   still two\n\n3. three\n\n1\n\n1. again\n',
  '- a\n\n  b\n\n* c\n+ d\n\n-\n\n- e\n',
  '- [x] done\n- [ ] todo\n\n  more\n\ntext\n',
  // Code: fenced (closed, unclosed, longer fences, tildes), indented after blank lines.
  '```js\nconst a = 1;\n\n\nconst b = 2;\n```\ntext\n````\n```\nstill code\n````\n~~~\ntilde\n~~~\n',
  '    indented\n\n    still code\n\ntext\n\n    code again\n```\nunclosed\n\n# not a heading\n',
  // Headings right before text; blockquotes with lazy lines; HTML blocks shown as text.
  '# Heading\ntext right after\n## Next\n> quote\nlazy line\n\n> other\n\n<div>\n*html*\n\n</div>\n<!--\n\ncomment\n-->\n',
  // Line breaks, emphasis over lines, CRLF line endings.
  'line one  \nline two\nthree\n\n**bold\nover lines** and _em_\r\n\r\npara\r\nnext\r\n',
];

const CORPUS = [...LATE, ...payloads, ...exfiltration];

describe('MarkdownStream', () => {
  it('renders every prefix of every text as the whole prefix renders', function () {
    this.timeout(120_000);
    for (const text of CORPUS) {
      const stream = new MarkdownStream();
      for (let end = 1; end <= text.length; end++) {
        const prefix = text.slice(0, end);
        stream.update(prefix);
        if (shown(stream) !== whole(prefix)) {
          expect(shown(stream), `after ${JSON.stringify(prefix)}`).to.equal(whole(prefix));
        }
      }
    }
  });

  it('renders a text split into two pieces at every position as the whole text', function () {
    this.timeout(120_000);
    const messages = [
      LATE.join('\n'),
      `Some **steps**:\n\n1. read [the page][p]\n2. call \`get_counter\`\n\n| tool | ms |\n|---|--:|\n| a | 3 |\n\n${payloads.slice(25, 34).join('\n\n')}\n\n[p]: https://example.com/page\n`,
    ];
    for (const text of messages) {
      for (let cut = 1; cut < text.length; cut++) {
        const stream = new MarkdownStream();
        stream.update(text.slice(0, cut));
        stream.update(text);
        if (shown(stream) !== whole(text)) {
          expect(shown(stream), `cut after ${JSON.stringify(text.slice(0, cut))}`).to.equal(whole(text));
        }
      }
    }
  });

  it('keeps finished blocks: rendered once, the same nodes while the text grows', () => {
    const stream = new MarkdownStream();
    let text = '# Report\n\nThe first paragraph.\n\n';
    stream.update(text);
    const heading = stream.element.querySelector('h1');
    for (let i = 0; i < 50; i++) {
      text += `Paragraph ${i} with **bold** text.\n\n`;
      stream.update(text);
    }
    expect(stream.element.querySelector('h1'), 'the finished heading').to.equal(heading);
    const groups = [...stream.element.querySelectorAll(':scope > div')];
    expect(groups.length, 'finished blocks in groups').to.be.above(1);
    expect(groups.slice(0, -1).every((g) => g.childNodes.length >= GROUP && g.attributes.length === 0)).to.equal(true);
    const first = stream.element.querySelectorAll('p')[1];
    stream.update(`${text}- a list\n- going on`);
    expect(stream.element.querySelectorAll('p')[1], 'a finished paragraph').to.equal(first);
    expect(shown(stream)).to.equal(whole(`${text}- a list\n- going on`));
  });

  it('renders finished blocks again when a link definition arrives for them', () => {
    const stream = new MarkdownStream();
    stream.update('Read [the guide][g] first.\n\nThen the rest.\n\n');
    expect(stream.element.querySelector('a')).to.equal(null);
    stream.update('Read [the guide][g] first.\n\nThen the rest.\n\n[g]: https://example.com/guide\n');
    expect(stream.element.querySelector('a')!.getAttribute('href')).to.equal('https://example.com/guide');
  });

  it('starts over for a text that does not extend the last one', () => {
    const stream = new MarkdownStream();
    stream.update('# One\n\nfirst text\n\nmore');
    stream.update('# Two\n\nanother text');
    expect(shown(stream)).to.equal(whole('# Two\n\nanother text'));
  });
});
