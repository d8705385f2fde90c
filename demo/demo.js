// The demo's page logic: plain DOM, no framework. Tool handlers attach two ways — a property and
// the pedelec-tool-call event — to show that both are first-class.
const session = document.querySelector('pedelec-session');
const $ = (id) => document.getElementById(id);

// Served by pedelec-dev: talk to it over WebSocket on the same host. Set from script (the property
// is trusted); `?bridge=extension` uses the real Pedelec extension instead.
const wanted = new URLSearchParams(location.search).get('bridge');
if (wanted !== 'extension') session.bridge = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/bridge`;
// And link the same tools to pedelec-dev for desktop MCP clients (`npm start` runs it with --mcp).
session.mcp = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/tools`;

// ── State ───────────────────────────────────────────────────────────────
let counter = 0;
const todos = [];
let nextId = 1;

function renderCounter() {
  $('counter').value = String(counter);
}
function renderTodos() {
  const list = $('todos');
  list.replaceChildren(
    ...todos.map((todo) => {
      const li = document.createElement('li');
      const label = document.createElement('label');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.checked = todo.done;
      box.addEventListener('change', () => {
        todo.done = box.checked;
        renderTodos();
      });
      label.append(box, ` #${todo.id} ${todo.text}`);
      li.append(label);
      if (todo.done) li.className = 'done';
      return li;
    }),
  );
}
function addCounter(delta) {
  counter += delta;
  renderCounter();
  return counter;
}
function addTodo(text) {
  const todo = { id: nextId++, text, done: false };
  todos.push(todo);
  renderTodos();
  return todo;
}

$('inc').addEventListener('click', () => addCounter(1));
$('dec').addEventListener('click', () => addCounter(-1));
$('todo-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const text = $('todo-text').value.trim();
  if (text) addTodo(text);
  $('todo-text').value = '';
});

// ── Forms: one submit listener for people and every agent ─────────────
// A submit from an agent (a `<pedelec-tool form>` call, or the browser's own agent through WebMCP)
// says so with `agentInvoked` and is answered with `respondWith`; a person's is handled the same way.
$('counter-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const value = Number(new FormData(event.target).get('value'));
  addCounter(value - counter);
  if (event.agentInvoked) event.respondWith({ value: counter });
});
$('feedback-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const data = new FormData(event.target);
  const sent = { note: data.get('note'), rating: data.get('rating') };
  $('feedback-sent').hidden = false;
  $('feedback-sent').textContent = `Thanks: "${sent.note}" (${sent.rating}).`;
  if (event.agentInvoked) event.respondWith({ received: true, ...sent });
});

// ── Tools, the property way ─────────────────────────────────────────────
const tool = (name) => document.querySelector(`pedelec-tool[name="${name}"]`);
customElements.whenDefined('pedelec-tool').then(() => {
  tool('update_counter').handler = ({ delta }) => ({ value: addCounter(delta) });
  tool('get_counter').handler = () => ({ value: counter });
  tool('list_todos').handler = () => ({ items: todos.map((t) => ({ ...t })) });
  tool('get_current_page').handler = () => ({ title: document.title, url: location.href });
  tool('clear_todos').handler = () => {
    const removed = todos.splice(0).length;
    renderTodos();
    return { removed };
  };
  // How the chat shows a result under the call's row (text, never HTML); null shows its JSON.
  tool('update_counter').renderResult = (result, { error }) => (error ? null : `The counter is now ${result.value}.`);
  tool('add_todo').renderResult = (result, { error }) => (error ? null : `Added #${result.id}: ${result.text}`);
});

// ── Tools, the event way ────────────────────────────────────────────────
tool('add_todo').addEventListener('pedelec-tool-call', (event) => {
  event.respondWith(addTodo(event.detail.args.text));
});
tool('complete_todo').addEventListener('pedelec-tool-call', (event) => {
  const { id, done = true } = event.detail.args;
  const todo = todos.find((t) => t.id === id);
  if (!todo) return event.deny(`There is no to-do item #${id}.`);
  todo.done = done;
  renderTodos();
  event.respondWith({ ...todo });
});

// ── Status and activity ─────────────────────────────────────────────────
session.addEventListener('pedelec-status', (event) => {
  // The line sits outside the session: it mirrors the status for the stylesheet too (error in red).
  $('status').value = $('status').dataset.status = event.detail.status;
});
session.addEventListener('pedelec-tools-changed', () => ($('stale').hidden = false));
session.addEventListener('pedelec-ready', () => ($('stale').hidden = true));
// Who called: the agent in the chat (said by nothing), the page's own invoke(), or the browser's
// agent through WebMCP.
const by = (event) => (event.detail.via === 'pedelec' ? '' : ` [${event.detail.via}]`);
// The latest calls, newest first: a log that kept every call would grow for as long as an agent
// calls, and the browser would lay all of it out again for each one.
const ACTIVITY_SHOWN = 50;
const activityItems = new Map(); // toolRequestId → its row
session.addEventListener('pedelec-tool-start', (event) => {
  const item = document.createElement('li');
  const id = event.detail.context.toolRequestId;
  item.dataset.id = id;
  item.textContent = `${event.detail.tool}(${JSON.stringify(event.detail.args)})${by(event)} … running`;
  $('activity').prepend(item);
  activityItems.set(id, item);
  for (let last; $('activity').children.length > ACTIVITY_SHOWN; ) {
    last = $('activity').lastElementChild;
    activityItems.delete(last.dataset.id);
    last.remove();
  }
});
session.addEventListener('pedelec-tool-result', (event) => {
  const { tool: name, ok, durationMs, result, context } = event.detail;
  const item = activityItems.get(context.toolRequestId);
  if (item) {
    activityItems.delete(context.toolRequestId);
    item.textContent = `${name}${by(event)} → ${ok ? 'done' : 'failed'} in ${durationMs.toFixed(1)} ms: ${JSON.stringify(result)}`;
    item.className = ok ? 'ok' : 'failed';
  }
});
// The conversation itself — turns, streamed replies, errors — is shown by <pedelec-chat>.
