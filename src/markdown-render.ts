/**
 * The sanitized Markdown of `pedelec-elements/markdown` (./markdown.ts): `marked` configured for text
 * written by an agent that may have read hostile pages, and `DOMPurify` behind the Trusted Types
 * policy `pedelec-elements` (what it lets through is listed in ./markdown.ts).
 */
import DOMPurify from 'dompurify';
import { Marked, Tokenizer, type Token, type Tokens } from 'marked';

type Policy = { createHTML(input: string): string };
type TrustedTypesFactory = { createPolicy(name: string, rules: { createHTML(input: string): string }): Policy };

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Marks the images inside a link: they become their alt text, not a link of their own inside it. */
const markImages = (tokens: Token[] = []): void =>
  tokens.forEach((t) =>
    t.type === 'image'
      ? ((t as Token & { inLink?: boolean }).inLink = true)
      : markImages((t as { tokens?: Token[] }).tokens),
  );

/**
 * Where a bare URL that GFM would link (`https://…`, `www.…`) really ends. Characters a URL never
 * holds unencoded (RFC 3986) end it: in agent text, `"` closes a JSON string (`"url":"http://x/"}`)
 * and `` ` `` a code span. A quote and an unbalanced `}` or `]` at its end are punctuation around it,
 * as GFM already treats `)`.
 */
function urlEnd(raw: string): number {
  const stop = raw.search(/["<>\\^`|]/);
  let end = stop < 0 ? raw.length : stop;
  const unbalanced = (close: string, open: string) => {
    const text = raw.slice(0, end);
    return text.split(close).length > text.split(open).length;
  };
  for (;;) {
    const last = raw[end - 1];
    if (last === "'" || (last === '}' && unbalanced('}', '{')) || (last === ']' && unbalanced(']', '['))) end--;
    else return end;
  }
}

/** The Markdown parser, configured: its tokens render through {@link renderTokens}. */
/** Where a URL goes: its host — for `mailto:`, its address — without a leading `www.`; `''` when it is no URL. */
function destination(href: string): string {
  try {
    const url = new URL(href);
    return (url.protocol === 'mailto:' ? decodeURIComponent(url.pathname) : url.hostname)
      .toLowerCase()
      .replace(/^www\./, '');
  } catch {
    return '';
  }
}

/**
 * Where a link's text says it goes, when it reads as a URL (`https://bank.example/x`), a domain
 * (`bank.example/login`) or an address (`me@bank.example`); `''` for other text (`docs`, `e.g.`,
 * `@octocat`, `1.5`).
 */
function claimedDestination(text: string): string {
  const t = text.trim();
  if (/\s/.test(t)) return '';
  if (/^([a-z][\w+.-]*:\/\/|mailto:)/i.test(t)) return destination(t);
  const claimed = destination(t.includes('@') ? `mailto:${t}` : `http://${t}`);
  return /[^.@]\.[a-z]{2,}\.?$/i.test(claimed) ? claimed : '';
}

export const marked = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    html: ({ text }) => escape(text),
    // A link nested in a link would be split by the parser: `[![badge](img)](target)` stays one link to its target.
    image: (t) =>
      (t as Tokens.Image & { inLink?: boolean }).inLink
        ? escape(t.text || t.href)
        : `<a href="${escape(t.href)}">${escape(t.text || t.href)}</a>`,
    // No form controls: a task list's state as text.
    checkbox: ({ checked }) => (checked ? '☑ ' : '☐ '),
  },
  tokenizer: {
    // GFM's own autolink, on the source cut where the URL really ends (its trailing-punctuation rules
    // then apply to the shorter text); nothing linkable left → no link (not the uncut default).
    url(src) {
      let token = Tokenizer.prototype.url.call(this, src);
      while (token) {
        const end = urlEnd(token.raw);
        if (end === token.raw.length) return token;
        token = Tokenizer.prototype.url.call(this, src.slice(0, end));
      }
      return undefined;
    },
  },
  walkTokens(token) {
    if (token.type === 'link') markImages(token.tokens);
  },
});

const CONFIG = {
  ALLOWED_TAGS: [
    'p',
    'br',
    'hr',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'strong',
    'em',
    'del',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
  ],
  ALLOWED_ATTR: ['href', 'title', 'start', 'align'],
  ALLOWED_URI_REGEXP: /^(?:https?|mailto):/i,
  // Not URLs: without this DOMPurify tests their values against the URL rule above and drops them
  // (a list starting at 3 would restart at 1, a centred column lose its alignment).
  ADD_URI_SAFE_ATTR: ['start', 'align'],
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
};

const sanitize = (html: string) => DOMPurify.sanitize(html, CONFIG);

const tt = (globalThis as { trustedTypes?: TrustedTypesFactory }).trustedTypes;
let policy: Policy | null = null;
try {
  policy = tt ? tt.createPolicy('pedelec-elements', { createHTML: sanitize }) : { createHTML: sanitize };
  // DOMPurify parses through a policy of its own, `dompurify`; where it could not create it (not
  // allowed, or already taken by the page's own DOMPurify without 'allow-duplicates') it returns ''
  // for everything: plain text then, not blank replies.
  if (tt && sanitize('<p>x</p>') === '') policy = null;
} catch {
  // The page's CSP does not allow our policy: render plain text rather than fail.
}

/** Whether Markdown can be rendered at all: without the policy (the page's CSP), it shows as plain text. */
export const sanitizing = policy !== null;

/**
 * Block tokens of {@link marked} as sanitized nodes. Blocks render alone exactly as within the whole
 * text (each is its own complete HTML), so a text can be rendered block by block.
 */
export function renderTokens(tokens: Token[]): DocumentFragment {
  // The walkTokens set above is synchronous: the walk is done when this returns.
  void marked.walkTokens(tokens, marked.defaults.walkTokens!);
  const template = document.createElement('template');
  template.innerHTML = policy!.createHTML(marked.parser(tokens));
  for (const a of template.content.querySelectorAll('a[href]')) {
    a.setAttribute('target', '_blank');
    a.setAttribute('rel', 'noopener noreferrer nofollow');
    // Text that names another destination (`[bank.example](https://evil.example)`) shows the real one;
    // a subdomain of the one named is the same site.
    const claimed = claimedDestination(a.textContent ?? '');
    const real = destination(a.getAttribute('href')!);
    if (claimed && real !== claimed && !real.endsWith(`.${claimed}`)) a.textContent = a.getAttribute('href');
  }
  return template.content;
}

/** Renders agent Markdown as a sanitized fragment (plain text when the page's CSP forbids the policy). */
export function renderMarkdown(markdown: string): DocumentFragment {
  if (!policy) {
    const template = document.createElement('template');
    template.content.append(markdown);
    return template.content;
  }
  return renderTokens(marked.lexer(markdown));
}
