// `stream`: the chat under a long streamed reply, on the path a page's reply takes. Each subject is a
// <pedelec-session> started on a port that speaks today's Pedelec protocol (the extension's: the
// kit's own transport, client, session and element all run); the reply arrives on that port as Core
// sends it — `chat_delta` events with the turn's `operationId`, one per animation frame (each in a
// task of its own, as a port message arrives), then the whole `chat_message` and the turn's end. The
// kit shows it in a <pedelec-chat> in text mode and in `markdown` mode. Beside it, in the same page and
// run, bare incremental stand-ins show the same session's `pedelec-chat-delta`s — the least work that
// shows a streamed reply:
// - text: append the delta to the open text node;
// - Markdown: lex the text after the finished blocks, render and sanitize only the last (open) block,
//   keep the finished ones as they were rendered (no check that they are really finished).
// Each subject sits in the same box and follows the reply to its bottom once per frame, as the chat
// does. Every animation frame is marked; the Node side (bench/lib/stream.mjs) traces the stream and
// reads the main-thread time of each frame from the trace (bench/lib/frames.mjs).
import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import '../../dist/define.js';
import { deltas, markdownReply } from './reply.js';
import { collectGarbage } from './timing.js';

const BOX = 'display: block; width: 480px; height: 600px;';
const nextFrame = () => new Promise(requestAnimationFrame);

/**
 * The extension's side of the port, as far as a chat needs it: every request is answered (an approved
 * origin, a default provider, a session per `create_session`, `send_text` accepted), and `send()`
 * delivers a Core event to the page. Messages go out in tasks of their own, as a port delivers them.
 */
class ProtocolPort {
  #listeners = [];
  #sessions = 0;
  /** Per session id: the channel it was created on, and its last event's `seq`. */
  sessions = new Map();
  /** The last `send_text` per session: its `operationId`. */
  turns = new Map();

  connect() {
    const port = {
      name: 'pedelec-sdk-external',
      postMessage: (message) => this.#posted(message),
      onMessage: { addListener: (fn) => this.#listeners.push(fn) },
      onDisconnect: { addListener() {} },
      disconnect() {},
    };
    return port;
  }

  #answer(message, result) {
    const { channelId, requestId } = message;
    setTimeout(() => this.#deliver({ channelId, type: 'response', requestId, ok: true, result }));
  }

  #deliver(message) {
    for (const listener of this.#listeners) listener(message);
  }

  #posted(message) {
    if (!message.requestId) return; // the handshake (sdk_hello, page_activity) is not answered
    switch (message.type) {
      case 'get_approval_status':
        return this.#answer(message, { installed: true, approved: true, origin: location.origin, appConnected: true });
      case 'get_settings':
        return this.#answer(message, { defaultProvider: 'codex', defaultModels: { codex: 'm' } });
      case 'list_providers':
        return this.#answer(message, [{ code: 'codex', name: 'Codex', available: true }]);
      case 'create_session': {
        const sessionId = `s${++this.#sessions}`;
        this.sessions.set(sessionId, { channelId: message.channelId, seq: 0 });
        return this.#answer(message, { sessionId });
      }
      case 'send_text':
        this.turns.set(message.sessionId, message.operationId);
        return this.#answer(message, {});
      default:
        return this.#answer(message, {});
    }
  }

  /** Sends a Core event of `sessionId`, numbered as Core numbers them. */
  send(sessionId, type, fields = {}) {
    const session = this.sessions.get(sessionId);
    const message = { channelId: session.channelId, type, sessionId, seq: ++session.seq, ...fields };
    this.#deliver(message);
  }
}

const port = new ProtocolPort();
globalThis.chrome = { runtime: { connect: () => port.connect() } };

/** A started session on the port; `view` (the chat, or nothing) inside it. */
class Session {
  async open(view) {
    this.element = document.createElement('pedelec-session');
    this.element.setAttribute('provider', 'codex');
    this.element.setAttribute('model', 'm');
    if (view) this.element.append(view);
    document.body.append(this.element);
    await this.element.start();
    this.id = this.element.session.sessionId;
  }
  /** The user's turn starts: its `send_text` is accepted and Core says the session runs. */
  async begin() {
    this.text = '';
    this.turn = this.element.sendText('Go on.');
    while (!port.turns.has(this.id)) await new Promise((resolve) => setTimeout(resolve));
    this.operationId = port.turns.get(this.id);
    port.turns.delete(this.id);
    port.send(this.id, 'status_changed', { status: 'running', operationId: this.operationId });
  }
  delta(text) {
    this.text += text;
    port.send(this.id, 'chat_delta', { text, operationId: this.operationId });
  }
  /** The whole message, then the turn's end, as Core closes a reply. */
  async end() {
    const { operationId } = this;
    port.send(this.id, 'chat_message', { text: this.text, operationId });
    port.send(this.id, 'status_changed', { status: 'idle', operationId });
    port.send(this.id, 'operation_completed', { operationId, operationKind: 'user', success: true });
    await this.turn;
  }
  remove() {
    this.element.remove();
  }
}

/** The kit: a chat in its session. */
class Chat {
  constructor(markdown) {
    this.chat = document.createElement('pedelec-chat');
    this.chat.toggleAttribute('markdown', markdown);
    this.chat.style.cssText = BOX;
    this.session = new Session();
  }
  open() {
    return this.session.open(this.chat);
  }
  get root() {
    return this.chat.shadowRoot;
  }
  begin() {
    return this.session.begin();
  }
  delta(text) {
    this.session.delta(text);
  }
  end() {
    return this.session.end();
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

/**
 * What both stand-ins share: a message in a log that follows its bottom once per frame, showing the
 * `pedelec-chat-delta`s of a session of its own (no chat in it).
 */
class StandIn {
  constructor(markdown) {
    this.host = document.createElement('div');
    this.host.style.cssText = BOX;
    this.root = this.host.attachShadow({ mode: 'open' });
    this.root.innerHTML = `<style>${STAND_IN_STYLE}</style><div class="log"></div>`;
    this.log = this.root.querySelector('.log');
    this.markdown = markdown;
    this.following = false;
    this.session = new Session();
    document.body.append(this.host);
  }
  async open() {
    await this.session.open(null);
    this.session.element.addEventListener('pedelec-chat-delta', (event) => this.show(event.detail.text));
  }
  async begin() {
    this.message = document.createElement('div');
    this.message.className = this.markdown ? 'message md' : 'message';
    this.log.append(this.message);
    await this.session.begin();
  }
  delta(text) {
    this.session.delta(text);
  }
  follow() {
    if (this.following) return;
    this.following = true;
    requestAnimationFrame(() => {
      this.following = false;
      this.log.scrollTop = this.log.scrollHeight;
    });
  }
  end() {
    return this.session.end();
  }
  remove() {
    this.session.remove();
    this.host.remove();
  }
}

class TextStandIn extends StandIn {
  begin() {
    const begun = super.begin();
    this.text = document.createTextNode('');
    this.message.append(this.text);
    return begun;
  }
  show(text) {
    this.text.appendData(text);
    this.follow();
  }
}

const marked = new Marked({ gfm: true, breaks: true });
const render = (tokens) => DOMPurify.sanitize(marked.parser(tokens), { RETURN_DOM_FRAGMENT: true });

class MarkdownStandIn extends StandIn {
  begin() {
    this.source = '';
    this.finished = 0; // characters of `source` in finished blocks
    this.shownOpen = [];
    return super.begin();
  }
  show(text) {
    this.source += text;
    const tokens = marked.lexer(this.source.slice(this.finished));
    // Every block but the last is taken as finished: rendered once here, and kept.
    const open = Math.max(
      tokens.findLastIndex((t) => t.type !== 'space'),
      0,
    );
    this.shownOpen.forEach((node) => node.remove());
    if (open > 0) {
      this.message.append(render(tokens.slice(0, open)));
      for (const token of tokens.slice(0, open)) this.finished += token.raw.length;
    }
    const fragment = render(tokens.slice(open));
    this.shownOpen = [...fragment.childNodes];
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
  await subject.begin();
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
  // The reply's close (the whole message, the turn's end) and the frame that shows it: one more figure.
  await subject.end();
  await nextFrame();
  await nextFrame();
  if (prefix) performance.mark(`${prefix}closed`);
  return pieces.length;
}

let subject = null;

globalThis.bench = {
  subjects: Object.keys(SUBJECTS),
  /** JIT warm-up, off the record: a short reply through every subject. */
  async warmUp({ bytes = 8_000, deltaChars = 200 } = {}) {
    for (const make of Object.values(SUBJECTS)) {
      const s = make();
      await s.open();
      await stream(s, markdownReply(bytes), deltaChars);
      s.remove();
    }
  },
  async mount(id) {
    subject = SUBJECTS[id]();
    await subject.open();
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
