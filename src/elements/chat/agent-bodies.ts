/**
 * How the chat shows its agent's messages, each kept from render to render and told its text as it
 * grows: text, appended to (never laid out whole again); in Markdown mode the default renderer's
 * stream (finished blocks rendered once, the open one per frame), or the page's `renderMarkdown`.
 */
import { lazyModule } from '../../core/lazy-module.js';
import { normalizeError } from '../../core/errors.js';
import { PedelecErrorEvent } from '../../events/error.event.js';
import type { RenderMarkdown } from './pedelec-chat.element.js';
import type { ChatEntry } from './transcript.js';

/**
 * How long the open part of a streamed text grows before the next line break closes it (characters).
 * The browser lays out one text node of a reply whole on every delta — over a 50 KB reply, per frame,
 * more than the whole frame budget; a closed part is laid out once.
 */
export const TEXT_BLOCK = 1024;

/**
 * An agent message in text mode, appended to as it streams. A short message is one text node; past
 * `TEXT_BLOCK` characters, each line break that follows closes the part before it, and the text goes
 * on in a new block: a change lays out the last block only. A block ends with its line break, so the
 * text looks, selects and copies as one (a line break at the end of a block adds no line).
 */
export class AgentText {
  /** The message's nodes, in order: its first text node, then a block per later part. */
  readonly nodes: Node[] = [document.createTextNode('')];
  #open = this.nodes[0] as Text;
  #shown = 0;

  /** Shows `text`, which extends the text shown so far (a message only grows). */
  update(text: string): void {
    let added = text.slice(this.#shown);
    this.#shown = text.length;
    while (added) {
      const end = added.indexOf('\n', Math.max(0, TEXT_BLOCK - this.#open.length)) + 1;
      if (end === 0) {
        this.#open.appendData(added);
        return;
      }
      this.#open.appendData(added.slice(0, end));
      added = added.slice(end);
      const block = document.createElement('div');
      this.#open = block.appendChild(document.createTextNode(''));
      this.nodes.push(block);
    }
  }
}

/** An agent message as it shows: `update` it with the message's text, then insert `shown`. */
type AgentBody = { update(text: string): void; readonly shown: unknown };

/** What the chat's agent messages need from the chat. */
interface Chat extends Element {
  readonly markdown: boolean;
  readonly renderMarkdown: RenderMarkdown | undefined;
  requestUpdate(): void;
}

/** The default renderer (`pedelec-elements/markdown`), loaded on first use and shared by every chat. */
let loadedMarkdown: typeof import('../../markdown.js') | undefined;
const loadMarkdown = lazyModule(() => import('../../markdown.js').then((chunk) => (loadedMarkdown = chunk)));

/** The chat's agent messages as they show, one body per message, made anew when how they render changes. */
export class AgentBodies {
  #bodies = new WeakMap<ChatEntry, AgentBody>();
  #generation = 0;
  #awaitingRenderer = false;
  #renderFailed = false;

  constructor(private readonly chat: Chat) {}

  /** Changes whenever every message must render again. */
  get generation(): number {
    return this.#generation;
  }

  /** Every message renders anew (the mode or the renderer changed). */
  reset(): void {
    this.#bodies = new WeakMap();
    this.#generation++;
  }

  /** An agent message as it shows now. */
  shown(entry: ChatEntry & { kind: 'agent' }): unknown {
    let body = this.#bodies.get(entry);
    if (!body) this.#bodies.set(entry, (body = this.#newBody()));
    body.update(entry.text);
    return body.shown;
  }

  /** Until the default renderer is loaded, a Markdown message shows as text. */
  #newBody(): AgentBody {
    const { markdown, renderMarkdown } = this.chat;
    if (markdown && renderMarkdown) {
      let text: string | undefined;
      const body = {
        shown: '' as unknown,
        update: (next: string) => {
          if (next !== text) body.shown = this.#render(renderMarkdown, (text = next));
        },
      };
      return body;
    }
    if (markdown && loadedMarkdown) {
      const stream = new loadedMarkdown.MarkdownStream();
      stream.element.className = 'blocks';
      return { shown: stream.element, update: (text) => stream.update(text) };
    }
    if (markdown) this.#loadRenderer();
    const text = new AgentText();
    return { shown: text.nodes, update: (next) => text.update(next) };
  }

  #loadRenderer(): void {
    if (this.#awaitingRenderer) return;
    this.#awaitingRenderer = true;
    loadMarkdown().then(
      () => {
        this.#awaitingRenderer = false;
        this.reset();
        this.chat.requestUpdate();
      },
      // Not fetched (offline, say): messages stay text, and the next one tries again.
      () => (this.#awaitingRenderer = false),
    );
  }

  /** A page renderer that throws must not freeze the chat: that message shows as text, said once. */
  #render(render: RenderMarkdown, text: string): Node | string {
    try {
      return render(text);
    } catch (thrown) {
      if (!this.#renderFailed) {
        this.#renderFailed = true;
        const { message } = normalizeError(thrown, 'MARKDOWN_RENDER_FAILED', 'renderMarkdown failed');
        this.chat.dispatchEvent(
          new PedelecErrorEvent({ error: { code: 'MARKDOWN_RENDER_FAILED', message } }, this.chat),
        );
      }
      return text;
    }
  }
}
