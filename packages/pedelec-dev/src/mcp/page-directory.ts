/**
 * The pages linked on `/tools` and the names their tools go by for MCP clients (every-agent.md §4):
 * a name only one page offers keeps its name; a name several pages offer becomes `<name>__<label>`.
 * A page's label is its `hello` label (the session element's `mcp-label` or `id`), else a short hash
 * of its origin and path; pages with the same label are numbered in the order they connected (the
 * first keeps the bare label, then `_2`, `_3`, …). Every name is kept within `^[a-zA-Z0-9_-]{1,64}$`.
 * One tool of pedelec-dev's own, {@link PAGES_TOOL}, lists the pages.
 */
import { createHash } from 'node:crypto';
import type { CallAnswer, CallFrame, PageTool } from 'pedelec-elements/protocol';
import type { PageLink } from './page-link.js';

/** The management tool: which pages are linked, and their tools. */
export const PAGES_TOOL = 'pedelec_pages';
const MAX_NAME = 64;

/** A tool as MCP clients see it (`tools/list`). */
export type McpTool = {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean };
};

/**
 * The page and its tool that a listed name stood for when asked: what an approval is asked about
 * (`page()`, made only when asked), and what the approved call then runs on, even if the names change
 * meanwhile. `consequential`: a person must approve each call, and `run` says who did.
 */
export type CallTarget = {
  consequential: boolean;
  page(): PageSummary;
  run(args: unknown, signal?: AbortSignal, approvedBy?: CallFrame['approvedBy']): Promise<CallAnswer>;
};

/** A page as `pedelec_pages` describes it. */
export type PageSummary = {
  label: string;
  origin: string | null;
  title: string;
  url: string;
  /** In a frame: with the top document's origin when the page could read it (else `null`). */
  framed?: { topOrigin: string | null };
  tools: string[];
};

type Entry = { link: PageLink; tool: PageTool };

/** Characters MCP names may not hold become `_`. */
const safe = (text: string) => text.replace(/[^a-zA-Z0-9_-]/g, '_');

/** The label a page gets when it names none: 8 hex characters of its origin and path. */
function hashLabel(origin: string | null, url: string): string {
  let path = '';
  try {
    path = new URL(url).pathname;
  } catch {
    // no usable URL: the origin alone
  }
  return `p${createHash('sha256')
    .update(`${origin ?? ''}${path}`)
    .digest('hex')
    .slice(0, 8)}`;
}

export class PageDirectory {
  /** In the order they said hello. */
  readonly #pages: PageLink[] = [];
  #labels = new Map<PageLink, string>();
  #byName = new Map<string, Entry>();
  readonly #listeners = new Set<() => void>();
  #stale = false;

  /** Told after every change of what `list()` answers (a page joined, left, or changed its tools). */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  joined(link: PageLink): void {
    this.#pages.push(link);
    this.#changed();
  }

  toolsChanged(link: PageLink): void {
    if (this.#pages.includes(link)) this.#changed();
  }

  left(link: PageLink): void {
    const at = this.#pages.indexOf(link);
    if (at < 0) return;
    this.#pages.splice(at, 1);
    this.#changed();
  }

  get size(): number {
    return this.#pages.length;
  }

  /**
   * Every page tool as MCP clients see it, then {@link PAGES_TOOL}. Made when asked, not at every
   * change: pages at their bounds change thousands of tools at a time, and most changes are never
   * listed before the next.
   */
  list(): McpTool[] {
    this.#fresh();
    const where = new Map<PageLink, string>();
    const placeOf = (link: PageLink) => where.get(link) ?? where.set(link, placeOfPage(link)).get(link)!;
    return [
      ...[...this.#byName].map(([name, { link, tool }]) => listed(name, tool, placeOf(link))),
      {
        name: PAGES_TOOL,
        description:
          'Lists the web pages linked to pedelec-dev: for each, its label, origin, title, URL, whether it is in a frame (and of which top page, when known) and the names its tools have here.',
        inputSchema: { type: 'object', properties: {}, additionalProperties: false },
        annotations: { readOnlyHint: true },
      },
    ];
  }

  pages(): PageSummary[] {
    this.#fresh();
    const names = new Map<PageLink, string[]>(this.#pages.map((link) => [link, []]));
    for (const [name, { link }] of this.#byName) names.get(link)!.push(name);
    return this.#pages.map((link) => this.#summary(link, names.get(link)!));
  }

  #summary(link: PageLink, tools: string[]): PageSummary {
    const { origin, title, url, framed, topOrigin } = link.identity!;
    const label = this.#labels.get(link)!;
    return { label, origin, title, url, ...(framed && { framed: { topOrigin } }), tools };
  }

  /** The page and its tool that `name` stands for now; `null` when no page offers it. */
  target(name: string): CallTarget | null {
    this.#fresh();
    const entry = this.#byName.get(name);
    if (!entry) return null;
    const { link, tool } = entry;
    return {
      consequential: tool.consequential === true,
      page: () =>
        this.#summary(
          link,
          [...this.#byName].filter(([, e]) => e.link === link).map(([listed]) => listed),
        ),
      run: (args, signal, approvedBy) => link.call(tool.name, args, signal, approvedBy),
    };
  }

  /**
   * Names are made again once for a batch of changes (the pages' frames that arrived together), not
   * once per change: pages at their bounds change thousands of tools at a time, and every page's
   * names may depend on every other's. A question asked before then gets them made at once.
   */
  #changed(): void {
    if (this.#stale) return;
    this.#stale = true;
    setImmediate(() => this.#fresh());
  }

  #fresh(): void {
    if (!this.#stale) return;
    this.#stale = false;
    this.#rebuild();
  }

  #rebuild(): void {
    this.#labels = new Map();
    const seen = new Map<string, number>();
    for (const link of this.#pages) {
      const { label, origin, url } = link.identity!;
      const base = (label === null ? hashLabel(origin, url) : safe(label)).slice(0, 24);
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      this.#labels.set(link, n === 1 ? base : `${base}_${n}`);
    }
    // How many pages offer each (MCP-safe) name: a name of one page stays bare.
    const offeredBy = new Map<string, number>();
    for (const link of this.#pages) {
      for (const name of new Set(link.tools.map((t) => safe(t.name))))
        offeredBy.set(name, (offeredBy.get(name) ?? 0) + 1);
    }
    const byName = new Map<string, Entry>();
    for (const link of this.#pages) {
      const label = this.#labels.get(link)!;
      for (const tool of link.tools) {
        const name = safe(tool.name);
        const shared = offeredBy.get(name)! > 1 || name === PAGES_TOOL || name.length > MAX_NAME;
        const bare = shared ? `${name.slice(0, MAX_NAME - 2 - label.length)}__${label}` : name;
        // Two of one page's names that differ only in characters MCP cannot carry (`a.b`, `a_b`).
        let listedName = bare;
        for (let n = 2; byName.has(listedName); n++)
          listedName = `${bare.slice(0, MAX_NAME - 1 - String(n).length)}_${n}`;
        byName.set(listedName, { link, tool });
      }
    }
    this.#byName = byName;
    for (const listener of this.#listeners) listener();
  }
}

/** A title as quoted in a description: one line, no quotes of its own, at most 80 characters. */
const quotable = (title: string) =>
  title
    .replace(/[\p{Cc}“”"]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 80);

/** Where a page's tools run, as their descriptions start: the origin its link came from, its title quoted. */
function placeOfPage(link: PageLink): string {
  const { origin, title, framed } = link.identity!;
  const quoted = quotable(title);
  // The top page's origin is the page's own word: pedelec_pages shows it, the description does not.
  return `Web page ${origin ?? 'of unknown origin'}${quoted ? ` “${quoted}”` : ''}${framed ? ' (in a frame)' : ''}`;
}

/**
 * A page tool as MCP clients see it. Its description starts with where it runs — the origin the
 * browser sent with the link (never what the page says of itself), then the page's title quoted —
 * so that what a page writes in a description cannot pass for another page: whatever follows the
 * first colon is the page's.
 */
function listed(name: string, tool: PageTool, where: string): McpTool {
  const out: McpTool = {
    name,
    description: `${where}: ${tool.description}`,
    // The link let only object schemas in (page-link.ts).
    inputSchema: { ...tool.inputSchema, type: 'object' },
  };
  if (tool.title) out.title = tool.title;
  const annotations: McpTool['annotations'] = {};
  // A call that needs a person's approval is never advertised as one that changes nothing.
  if (tool.consequential) annotations.destructiveHint = true;
  else if (tool.readOnly) annotations.readOnlyHint = true;
  if (tool.untrustedContent) annotations.openWorldHint = true;
  if (Object.keys(annotations).length) out.annotations = annotations;
  return out;
}
