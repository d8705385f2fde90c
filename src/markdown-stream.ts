/**
 * Markdown that grows — a streamed reply — rendered as `renderMarkdown` renders the whole text, at a
 * cost that does not grow with it: finished blocks are parsed, sanitized and rendered once, and kept;
 * each update parses and renders only what follows them (the open block, usually).
 *
 * A block is finished when nothing that can still arrive could change it. Markdown does not always
 * say so at once: a paragraph becomes a setext heading or a table header by the line after it, a
 * list turns loose (its items become paragraphs) by a later item, an indented code block or a list
 * item goes on after blank lines. So a block counts as finished only once another block has begun
 * after it on a complete line, with a blank line between them — or right after it, when it is a
 * heading, a rule or a fenced code block, which nothing that follows can change. A block reads the
 * whole text in one way only: link reference definitions, which may come after their use. When the
 * definitions change, finished blocks that could use one (they hold a `[`) are rendered again, from
 * scratch.
 *
 * Finished blocks are kept in groups (`<div>`s, without attributes) of about {@link GROUP} nodes, so
 * that a page can let the browser lay out and paint a group once and then step over it (the chat
 * makes them `content-visibility: auto`): otherwise the browser's own work per update grows with
 * the reply. Without such CSS a group is transparent: its blocks' margins collapse through it.
 */
import { Lexer, type Links, type Token, type Tokens } from 'marked';
import { marked, renderTokens, sanitizing } from './markdown-render.js';

/** How many nodes a group of finished blocks holds (about two per block: the block, a line break). */
export const GROUP = 64;

/** A fenced code block's opening line: the block ends with its closing fence. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Blocks that no later line can change, once a complete line follows them. */
const closedByItself = (token: Token) =>
  token.type === 'heading' || token.type === 'hr' || (token.type === 'code' && FENCE.test(token.raw));

/** Whether the line that ends just before `at` (where a line starts) is blank. */
function blankLineBefore(text: string, at: number): boolean {
  const start = text.lastIndexOf('\n', at - 2);
  return start >= 0 && /^[ \t]*$/.test(text.slice(start + 1, at - 1));
}

/**
 * How many of `tokens` (the top-level blocks of `text`) are finished, and the length of their text.
 * Only the offsets the tokens' text confirms are trusted: anything else leaves the blocks open.
 */
function finished(text: string, tokens: Token[]): { count: number; length: number } {
  let done = { count: 0, length: 0 };
  let offset = 0;
  let last: Token | undefined; // the last block that is not blank lines
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.type !== 'space' && last) {
      const lineComplete = text.indexOf('\n', offset) >= 0;
      const closed = closedByItself(last) || blankLineBefore(text, offset);
      if (lineComplete && closed && text.startsWith(token.raw, offset)) done = { count: i, length: offset };
    }
    if (token.type !== 'space') last = token;
    offset += token.raw.length;
  }
  return done;
}

/** Whether two sets of link definitions are the same. */
function sameLinks(a: Links, b: Links): boolean {
  const labels = Object.keys(a);
  return (
    labels.length === Object.keys(b).length &&
    labels.every((label) => b[label]?.href === a[label].href && b[label]?.title === a[label].title)
  );
}

/**
 * Renders a growing Markdown text into `element`: after `update(text)`, it holds what
 * `renderMarkdown(text)` returns, finished blocks in groups.
 */
export class MarkdownStream {
  readonly element = document.createElement('div');
  #text = '';
  /** The text of the finished blocks, rendered into `element` before the open ones. */
  #done = '';
  /** The link definitions among the finished blocks (the first of a label wins, as in the whole text). */
  #links = Object.create(null) as Links;
  /** Whether a finished block could use a link definition, and the definitions it was rendered with. */
  #referencing = false;
  #renderedWith = Object.create(null) as Links;
  /** The group that finished blocks go into now. */
  #group: HTMLElement | null = null;
  /** The nodes of the open blocks, rendered again on every update. */
  #open: ChildNode[] = [];

  update(markdown: string): void {
    // Line endings as marked reads them, so that offsets in the text are offsets in its tokens.
    const text = markdown.includes('\r') ? markdown.replace(/\r\n?/g, '\n') : markdown;
    if (text === this.#text) return;
    this.#text = text;
    if (!sanitizing) {
      this.element.replaceChildren(text);
      return;
    }
    if (!text.startsWith(this.#done)) this.#restart();
    this.#render(text);
  }

  #render(text: string): void {
    const rest = text.slice(this.#done.length);
    const lexer = new Lexer({ ...marked.defaults });
    Object.assign(lexer.tokens.links, this.#links);
    const tokens = lexer.lex(rest);
    const links = lexer.tokens.links;
    if (this.#referencing && !sameLinks(links, this.#renderedWith)) {
      this.#restart();
      return this.#render(text);
    }
    for (const node of this.#open) node.remove();
    const { count, length } = finished(rest, tokens);
    if (count > 0) {
      this.#keep(renderTokens(tokens.slice(0, count)));
      for (const token of tokens.slice(0, count)) {
        if (token.type !== 'def') continue;
        const { tag, href, title } = token as Tokens.Def;
        this.#links[tag] ??= { href, title };
      }
      this.#done += rest.slice(0, length);
      this.#referencing ||= rest.slice(0, length).includes('[');
    }
    const open = renderTokens(tokens.slice(count));
    this.#open = [...open.childNodes];
    this.element.append(open);
    this.#renderedWith = links;
  }

  /** Adds finished blocks to the groups, `GROUP` nodes to a group. */
  #keep(blocks: DocumentFragment): void {
    for (const node of [...blocks.childNodes]) {
      if (!this.#group || this.#group.childNodes.length >= GROUP)
        this.#group = this.element.appendChild(document.createElement('div'));
      this.#group.append(node);
    }
  }

  /** Forgets the finished blocks: the next render starts from the beginning of the text. */
  #restart(): void {
    this.element.replaceChildren();
    this.#group = null;
    this.#open = [];
    this.#done = '';
    this.#links = Object.create(null) as Links;
    this.#referencing = false;
  }
}
