// `stream`: the chat under a long streamed reply. A <pedelec-chat> in its <pedelec-session> receives a
// Markdown reply in `pedelec-chat-delta`s, one delta per animation frame (each in a task of its own,
// as a socket message arrives), in text mode and in `markdown` mode. Beside it, in the same page and
// run, bare incremental stand-ins get the same deltas — the least work that shows a streamed reply:
// - text: append the delta to the open text node;
// - Markdown: lex the text after the finished blocks, render and sanitize only the last (open) block,
//   keep the finished ones as they were rendered (no check that they are really finished).
// Each subject sits in the same box and follows the reply to its bottom once per frame, as the chat
// does. Every animation frame is marked; the Node side (bench/lib/stream.mjs) traces the stream and
// reads the main-thread time of each frame from the trace (bench/lib/frames.mjs).
import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import '../../dist/define.js';
import { PedelecChatDeltaEvent, PedelecStatusEvent, PedelecTurnEvent } from '../../dist/index.js';
import { deltas, markdownReply } from './reply.js';
import { collectGarbage } from './timing.js';

const BOX = 'display: block; width: 480px; height: 600px;';
const nextFrame = () => new Promise(requestAnimationFrame);

/** The kit: a chat in its session; the test plays the session's agent. */
class Chat {
  constructor(markdown) {
    this.session = document.createElement('pedelec-session');
    this.session.setAttribute('provider', 'codex');
    this.session.setAttribute('model', 'm');
    this.chat = document.createElement('pedelec-chat');
    this.chat.toggleAttribute('markdown', markdown);
    this.chat.style.cssText = BOX;
    this.session.append(this.chat);
    document.body.append(this.session);
    this.turns = 0;
  }
  get root() {
    return this.chat.shadowRoot;
  }
  begin() {
    this.session.dispatchEvent(new PedelecTurnEvent({ turnId: `t${++this.turns}`, kind: 'user', text: 'Go on.' }));
  }
  delta(text) {
    this.session.dispatchEvent(new PedelecChatDeltaEvent({ text, context: {} }));
  }
  end() {
    this.session.dispatchEvent(new PedelecStatusEvent({ status: 'idle', previousStatus: 'running' }));
  }
  remove() {
    this.session.remove();
  }
}

const STAND_IN_STYLE = `
  .log { height: 100%; overflow-y: auto; padding: 0.75rem; box-sizing: border-box; }
  .message { max-width: 85%; padding: 0.5rem 0.75rem; white-space: pre-wrap; overflow-wrap: anywhere; }
  .md { white-space: normal; }
`;

/** What both stand-ins share: a message in a log that follows its bottom once per frame. */
class StandIn {
  constructor(markdown) {
    this.host = document.createElement('div');
    this.host.style.cssText = BOX;
    this.root = this.host.attachShadow({ mode: 'open' });
    this.root.innerHTML = `<style>${STAND_IN_STYLE}</style><div class="log"></div>`;
    this.log = this.root.querySelector('.log');
    this.markdown = markdown;
    this.following = false;
    document.body.append(this.host);
  }
  begin() {
    this.message = document.createElement('div');
    this.message.className = this.markdown ? 'message md' : 'message';
    this.log.append(this.message);
  }
  follow() {
    if (this.following) return;
    this.following = true;
    requestAnimationFrame(() => {
      this.following = false;
      this.log.scrollTop = this.log.scrollHeight;
    });
  }
  end() {}
  remove() {
    this.host.remove();
  }
}

class TextStandIn extends StandIn {
  begin() {
    super.begin();
    this.text = document.createTextNode('');
    this.message.append(this.text);
  }
  delta(text) {
    this.text.appendData(text);
    this.follow();
  }
}

const marked = new Marked({ gfm: true, breaks: true });
const render = (tokens) => DOMPurify.sanitize(marked.parser(tokens), { RETURN_DOM_FRAGMENT: true });

class MarkdownStandIn extends StandIn {
  begin() {
    super.begin();
    this.source = '';
    this.finished = 0; // characters of `source` in finished blocks
    this.open = [];
  }
  delta(text) {
    this.source += text;
    const tokens = marked.lexer(this.source.slice(this.finished));
    // Every block but the last is taken as finished: rendered once here, and kept.
    const open = Math.max(
      tokens.findLastIndex((t) => t.type !== 'space'),
      0,
    );
    this.open.forEach((node) => node.remove());
    if (open > 0) {
      this.message.append(render(tokens.slice(0, open)));
      for (const token of tokens.slice(0, open)) this.finished += token.raw.length;
    }
    const fragment = render(tokens.slice(open));
    this.open = [...fragment.childNodes];
    this.message.append(fragment);
    this.follow();
  }
}

const SUBJECTS = {
  'kit text': () => new Chat(false),
  'kit markdown': () => new Chat(true),
  'stand-in text': () => new TextStandIn(false),
  'stand-in markdown': () => new MarkdownStandIn(true),
};

/** Nodes in a shadow tree, shadow roots within included. */
function countNodes(root) {
  let count = 0;
  const walker = document.createTreeWalker(root);
  for (let node = walker.currentNode; node; node = walker.nextNode()) {
    count++;
    if (node.shadowRoot) count += countNodes(node.shadowRoot);
  }
  return count;
}

/** Streams `text` into `subject`, one delta per animation frame, marking each frame `<prefix><i>`. */
async function stream(subject, text, deltaChars, prefix) {
  const pieces = deltas(text, deltaChars);
  subject.begin();
  await nextFrame();
  await nextFrame();
  for (let i = 0; i < pieces.length; i++) {
    await nextFrame();
    if (prefix) performance.mark(`${prefix}${i}`);
    setTimeout(() => subject.delta(pieces[i]));
  }
  // Two more frames: the last delta's render, and the frame that closes it.
  await nextFrame();
  await nextFrame();
  if (prefix) performance.mark(`${prefix}end`);
  subject.end();
  return pieces.length;
}

let subject = null;

globalThis.bench = {
  subjects: Object.keys(SUBJECTS),
  /** JIT warm-up, off the record: a short reply through every subject. */
  async warmUp({ bytes = 8_000, deltaChars = 200 } = {}) {
    for (const make of Object.values(SUBJECTS)) {
      const s = make();
      await stream(s, markdownReply(bytes), deltaChars);
      s.remove();
    }
  },
  async mount(id) {
    subject = SUBJECTS[id]();
    await nextFrame();
    collectGarbage();
    await nextFrame();
  },
  /** The traced part: the whole reply into the mounted subject. */
  async stream({ bytes, deltaChars, prefix }) {
    const count = await stream(subject, markdownReply(bytes), deltaChars, prefix);
    const root = subject.root;
    return {
      deltas: count,
      domNodes: countNodes(root),
      // What the subjects show must match, or the comparison means nothing.
      shown: {
        text: root.querySelector('[part~=agent], .message')?.textContent.replace(/^Agent: /, '').length,
        headings: root.querySelectorAll('h2').length,
        tables: root.querySelectorAll('table').length,
        codeBlocks: root.querySelectorAll('pre').length,
      },
    };
  },
  unmount() {
    subject?.remove();
    subject = null;
  },
};
