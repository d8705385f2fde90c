// @ts-check
// The pedelec-dev inspector: plain DOM, no framework, no innerHTML — everything shown here comes from
// pages and agents, so it is only ever set as text. Served as written, with no build: its types are
// JSDoc, checked by tsc (tsconfig.json here, part of `npm run typecheck`).

// ───────────────────────────── types ─────────────────────────────

// The inspector socket's messages, as this page reads and sends them. The server declares them in
// ../inspector.ts, ../message-log.ts (LogEntry), ../approval.ts (ApprovalPrompt, ApprovalEvent),
// ../../agents/operator.ts (OpenTurnInfo, DeskEvent) and ../../bridge/session.ts (SessionSummary);
// they are restated here because importing them would bring Node's types into a browser script.

/**
 * @typedef {{ code: string, message: string, details?: unknown }} WireError
 * @typedef {{
 *   type?: string | string[], description?: string, enum?: unknown[], maxLength?: number, minimum?: number,
 *   maximum?: number, properties?: Record<string, SchemaNode | undefined>, required?: string[]
 * }} SchemaNode A tool's args schema or one of its nodes: any JSON Schema, of which the page reads these.
 * @typedef {{ name: string, description: string, argsSchema: SchemaNode, timeoutMs?: number }} ToolManifest
 * @typedef {{ guidance: string, tools: ToolManifest[] }} SkillsManifest
 * @typedef {{
 *   version: string, agent: string, approval: string, strictProviders: boolean, protocol?: string,
 *   fragments?: boolean, coreStatuses?: boolean, bridgeUrl: string
 * }} ServerInfo The Core's facts; one from before the protocol option sends no protocol, fragments, coreStatuses.
 * @typedef {{
 *   sessionId: string, origin: string | null, provider: string, agent: string, model?: string,
 *   explicitModel?: boolean, effortLevel?: string, effort?: string, workspaceId?: string,
 *   autoEndOnDisconnect: boolean, status: string, routes: number, createdAt: number, skills?: SkillsManifest
 * }} SessionSummary Updates leave `skills` out; a Core from before explicitModel sends none.
 * @typedef {{ sessionId: string, text: string, openedAt: number }} OpenTurn
 * @typedef {{ client: string, tool: string, page: string }} CallInQuestion
 * @typedef {{ id: string, origin: string | null, askedAt: number, call?: CallInQuestion }} ApprovalPrompt
 * @typedef {{
 *   id: number, at: number, dir: 'in' | 'out' | 'info', connectionId: string, origin: string | null,
 *   type: string | null, sessionId: string | null, text: string, truncated: boolean
 * }} LogEntry
 * @typedef {{ ok: true, result: unknown, durationMs: number } | { ok: false, error: WireError }} CallOutcome
 *   What an operator's tool call came to: `result` is whatever the agent got, the page's JSON or the Core's
 *   error result `{ error }`.
 */

/**
 * @typedef {(
 *   | { type: 'hello', server: ServerInfo, sessions: SessionSummary[], turns: OpenTurn[],
 *       approvals: ApprovalPrompt[], log: LogEntry[] }
 *   | { type: 'session_created' | 'session_updated', session: SessionSummary }
 *   | { type: 'session_ended', sessionId: string }
 *   | { type: 'turn_opened', turn: OpenTurn }
 *   | { type: 'turn_closed', sessionId: string }
 *   | { type: 'approval_requested', prompt: ApprovalPrompt }
 *   | { type: 'approval_resolved', id: string, origin: string | null, approved: boolean, reason: string }
 *   | { type: 'log', entry: LogEntry }
 *   | ({ type: 'operator_result', callId: unknown } & CallOutcome)
 *   | { type: 'error', error: WireError, for?: unknown }
 * )} InspectorMessage What the Core sends this page.
 */

/**
 * @typedef {(
 *   | { type: 'approve', id: string, approved: boolean }
 *   | { type: 'operator_say', sessionId: string | null, text: string }
 *   | { type: 'operator_end_turn', sessionId: string | null }
 *   | { type: 'operator_call', callId: number, sessionId: string | null, tool: string, args: unknown }
 * )} OperatorMessage What this page sends the Core: `sessionId` is the selected one's, null while none is.
 */

/**
 * The elements of index.html this script uses, by id.
 * @typedef {{
 *   'server-info': HTMLParagraphElement, 'socket-state': HTMLOutputElement, 'no-token': HTMLParagraphElement,
 *   approvals: HTMLElement, 'approval-list': HTMLUListElement, sessions: HTMLUListElement,
 *   'no-sessions': HTMLParagraphElement, 'detail-empty': HTMLParagraphElement, 'detail-body': HTMLDivElement,
 *   'detail-facts': HTMLDListElement, 'detail-guidance': HTMLPreElement, 'detail-tools': HTMLUListElement,
 *   'operator-idle': HTMLParagraphElement, 'operator-turn': HTMLDivElement, 'operator-text': HTMLQuoteElement,
 *   'say-form': HTMLFormElement, 'say-text': HTMLInputElement, 'call-form': HTMLFormElement,
 *   'call-tool': HTMLSelectElement, 'call-fields': HTMLFieldSetElement, 'call-args': HTMLTextAreaElement,
 *   'call-result': HTMLDivElement, 'end-turn': HTMLButtonElement, 'log-filter': HTMLFormElement,
 *   'filter-text': HTMLInputElement, 'filter-dir': HTMLSelectElement, 'filter-session': HTMLInputElement,
 *   'log-pause': HTMLInputElement, 'log-clear': HTMLButtonElement, log: HTMLTableSectionElement
 * }} PageElements
 */

/**
 * The element of index.html with this id (never null: the page has each one).
 * @template {keyof PageElements} K
 * @param {K} id
 * @returns {PageElements[K]}
 */
const $ = (id) => /** @type {PageElements[K]} */ (document.getElementById(id));

/**
 * The session maps are keyed by session id, and looked up with `selected` too, which is null while no
 * session is selected (and then finds nothing).
 * @type {{
 *   sessions: Map<string | null, SessionSummary>, turns: Map<string | null, OpenTurn>,
 *   approvals: Map<string, ApprovalPrompt>, log: LogEntry[], selected: string | null, nextCallId: number
 * }}
 */
const state = {
  sessions: new Map(), // sessionId → summary
  turns: new Map(), // sessionId → open operator turn
  approvals: new Map(), // id → prompt
  log: [],
  selected: null,
  nextCallId: 1,
};
const MAX_LOG = 2000;
/** @type {WebSocket | null} */
let socket = null;

/**
 * A new element with `props` set on it (`class`, `dataset`, `on…` listeners, any other as a property)
 * and `children` appended, null and undefined left out.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any>} [props]
 * @param {...(Node | string | null | undefined)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'class') node.className = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (node))[key] = value;
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

/** @param {string | null | undefined} id */
const short = (id) =>
  id
    ? String(id)
        .replace(/^session_/, '')
        .slice(0, 8)
    : '';
/** @param {number} ms */
const time = (ms) => {
  const d = new Date(ms);
  return `${d.toLocaleTimeString([], { hour12: false })}.${String(d.getMilliseconds()).padStart(3, '0')}`;
};

// ───────────────────────────── socket ─────────────────────────────

// The token arrives in the fragment (never sent to the server). It is kept for this tab only and
// taken out of the address bar, so it does not stay in history or show in a screenshot.
const TOKEN_KEY = 'pedelec-dev-inspector-token';
const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? sessionStorage.getItem(TOKEN_KEY);
if (token) {
  sessionStorage.setItem(TOKEN_KEY, token);
  history.replaceState(null, '', location.pathname + location.search);
}
// A new URL pasted into this tab (pedelec-dev restarted: a new token) changes only the fragment, which
// does not reload the page: take the token and start over with it.
addEventListener('hashchange', () => {
  const next = new URLSearchParams(location.hash.slice(1)).get('token');
  if (!next) return;
  sessionStorage.setItem(TOKEN_KEY, next);
  history.replaceState(null, '', location.pathname + location.search);
  location.reload();
});

function connect() {
  if (!token) {
    $('no-token').hidden = false;
    $('socket-state').value = 'no token';
    return;
  }
  socket = new WebSocket(
    `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/_pedelec/inspector/socket?token=${encodeURIComponent(token)}`,
  );
  socket.addEventListener('open', () => ($('socket-state').value = 'connected'));
  socket.addEventListener('message', (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    handle(message);
  });
  socket.addEventListener('close', (event) => {
    $('socket-state').value = `closed (${event.code}${event.reason ? `: ${event.reason}` : ''}) — retrying in 2 s`;
    // 1008 means the token or origin was refused: retrying cannot help.
    if (event.code === 1008) $('socket-state').value = `refused: ${event.reason}`;
    else setTimeout(connect, 2000);
  });
}

/** @param {OperatorMessage} message */
function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

/** @param {InspectorMessage} message */
function handle(message) {
  switch (message.type) {
    case 'hello': {
      const s = message.server;
      // A Core from before the protocol option sends no `protocol`: say nothing rather than guess.
      const notes = [s.fragments === false && 'no fragments', s.coreStatuses === true && 'Core statuses'].filter(
        Boolean,
      );
      const protocol = s.protocol ? ` · protocol ${s.protocol}${notes.length ? ` (${notes.join(', ')})` : ''}` : '';
      $('server-info').textContent =
        `pedelec-dev ${s.version} · agent ${s.agent} · approval ${s.approval}${protocol}${s.strictProviders ? ' · strict providers' : ''} · bridge ${s.bridgeUrl}`;
      state.sessions = new Map(message.sessions.map((x) => [x.sessionId, x]));
      state.turns = new Map(message.turns.map((t) => [t.sessionId, t]));
      state.approvals = new Map(message.approvals.map((p) => [p.id, p]));
      state.log = message.log.slice(-MAX_LOG);
      if (!state.sessions.has(state.selected)) state.selected = state.sessions.keys().next().value ?? null;
      formFor = null;
      renderAll();
      break;
    }
    case 'session_created':
    case 'session_updated': {
      const id = message.session.sessionId;
      // Updates leave the manifest out (it never changes): keep the one already known.
      state.sessions.set(id, { ...state.sessions.get(id), ...message.session });
      renderSessions();
      if (!state.selected) select(id);
      else if (id === state.selected) renderFacts();
      break;
    }
    case 'session_ended':
      state.sessions.delete(message.sessionId);
      state.turns.delete(message.sessionId);
      if (state.selected === message.sessionId) state.selected = null;
      renderSessions();
      renderDetail();
      break;
    case 'turn_opened':
      state.turns.set(message.turn.sessionId, message.turn);
      renderSessions();
      if (!state.selected) select(message.turn.sessionId);
      else if (message.turn.sessionId === state.selected) renderOperator();
      break;
    case 'turn_closed':
      state.turns.delete(message.sessionId);
      renderSessions();
      if (message.sessionId === state.selected) renderOperator();
      break;
    case 'approval_requested':
      state.approvals.set(message.prompt.id, message.prompt);
      renderApprovals();
      break;
    case 'approval_resolved':
      state.approvals.delete(message.id);
      renderApprovals();
      break;
    case 'log':
      state.log.push(message.entry);
      if (state.log.length > MAX_LOG) state.log.shift();
      if (!$('log-pause').checked && matches(message.entry)) prependLogRow(message.entry);
      break;
    case 'operator_result':
      showCallResult(message);
      break;
    case 'error':
      showCallResult({ ok: false, error: message.error });
      break;
  }
}

// ───────────────────────────── approvals ─────────────────────────────

function renderApprovals() {
  const list = $('approval-list');
  list.replaceChildren(
    ...[...state.approvals.values()].map((p) =>
      el(
        'li',
        {},
        el(
          'span',
          {},
          p.call
            ? `${p.call.client} (MCP) calls ${p.call.tool} in ${p.call.page} `
            : `${p.origin ?? '(no origin)'} asks to use Pedelec `,
        ),
        el('button', { type: 'button', onclick: () => send({ type: 'approve', id: p.id, approved: true }) }, 'Approve'),
        ' ',
        el('button', { type: 'button', onclick: () => send({ type: 'approve', id: p.id, approved: false }) }, 'Reject'),
      ),
    ),
  );
  $('approvals').hidden = state.approvals.size === 0;
}

// ───────────────────────────── sessions ─────────────────────────────

function renderSessions() {
  const list = $('sessions');
  list.replaceChildren(
    ...[...state.sessions.values()].map((s) => {
      const waiting = state.turns.has(s.sessionId);
      return el(
        'li',
        { class: s.sessionId === state.selected ? 'selected' : '' },
        el(
          'button',
          { type: 'button', onclick: () => select(s.sessionId) },
          el('strong', {}, short(s.sessionId)),
          ` ${s.origin ?? '(no origin)'} · ${s.provider}${s.provider !== s.agent ? ` → ${s.agent}` : ''} · ${s.status}`,
          waiting ? el('span', { class: 'badge' }, ' awaiting operator') : null,
        ),
      );
    }),
  );
  $('no-sessions').hidden = state.sessions.size > 0;
}

/** @param {string} sessionId */
function select(sessionId) {
  // A reply typed for one session never goes to another (the next one may be a hostile page's).
  if (sessionId !== state.selected) $('say-text').value = '';
  state.selected = sessionId;
  renderSessions();
  renderDetail();
  renderLog();
}

function renderFacts() {
  const s = state.sessions.get(state.selected);
  if (!s) return;
  const facts = [
    ['Session', s.sessionId],
    ['Origin', s.origin ?? '(none: a non-browser client)'],
    ['Provider asked', s.provider],
    ['Served by', s.agent],
    // A Core from before explicitModel sends none: show the model alone.
    ['Model', `${s.model ?? '—'}${s.explicitModel === false ? ' (the agent’s default: profile mode)' : ''}`],
    ...(typeof s.effortLevel === 'string' ? [['Effort level', s.effortLevel]] : []),
    ...(typeof s.effort === 'string' ? [['Effort', s.effort]] : []),
    ...(typeof s.workspaceId === 'string' ? [['Workspace', `${s.workspaceId} (managed)`]] : []),
    ['Status', s.status],
    ['Connections', String(s.routes)],
    ['Ends on disconnect', s.autoEndOnDisconnect ? 'yes' : 'no (persistent)'],
    ['Created', new Date(s.createdAt).toLocaleString()],
  ];
  $('detail-facts').replaceChildren(...facts.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]));
}

function renderDetail() {
  const s = state.sessions.get(state.selected);
  $('detail-empty').hidden = Boolean(s);
  $('detail-body').hidden = !s;
  if (!s) return;
  renderFacts();
  $('detail-guidance').textContent = s.skills ? s.skills.guidance || '(empty)' : '(no skills manifest)';
  const tools = s.skills ? s.skills.tools : [];
  $('detail-tools').replaceChildren(
    ...(tools.length
      ? tools.map((t) =>
          el(
            'li',
            {},
            el('code', {}, t.name),
            ` — ${t.description}${t.timeoutMs ? ` (timeout ${t.timeoutMs} ms)` : ''}`,
            el('details', {}, el('summary', {}, 'args schema'), el('pre', {}, JSON.stringify(t.argsSchema, null, 2))),
          ),
        )
      : [el('li', { class: 'muted' }, 'No tools.')]),
  );
  renderOperator();
}

// ───────────────────────────── operator ─────────────────────────────

/**
 * The session whose tool form is built: rebuilt only on a change of session, so typing survives updates.
 * @type {string | null}
 */
let formFor = null;

function renderOperator() {
  const turn = state.turns.get(state.selected);
  $('operator-idle').hidden = Boolean(turn);
  $('operator-turn').hidden = !turn;
  if (!turn) return;
  $('operator-text').textContent = turn.text;
  if (formFor === state.selected) return;
  formFor = state.selected;
  $('call-result').replaceChildren();
  const s = state.sessions.get(state.selected);
  const tools = s && s.skills ? s.skills.tools : [];
  const select = $('call-tool');
  const previous = select.value;
  select.replaceChildren(...tools.map((t) => el('option', { value: t.name }, t.name)));
  if (tools.some((t) => t.name === previous)) select.value = previous;
  buildArgsForm();
}

/**
 * One input per top-level property of the tool's args schema, and the JSON box, which is what gets
 * sent. Each follows the other: a field's edit changes its property in the box (other properties typed
 * there stay), and a hand edit of the box that parses to an object sets every field from it.
 * @type {Array<[string, Field]>}
 */
let fields = []; // [name, { read, write }]

function buildArgsForm() {
  const s = state.sessions.get(state.selected);
  const tool = s && s.skills ? s.skills.tools.find((t) => t.name === $('call-tool').value) : null;
  const fieldset = $('call-fields');
  fieldset.replaceChildren(el('legend', {}, 'Arguments'));
  fields = [];
  if (!tool) {
    $('call-args').value = '{}';
    return;
  }
  const props = tool.argsSchema.properties || {};
  const required = new Set(tool.argsSchema.required || []);
  /** @type {Record<string, unknown>} */
  const args = {};
  for (const [name, node] of Object.entries(props)) {
    const field = controlFor(node, required.has(name));
    const sync = () => fieldToJson(name, field);
    field.control.addEventListener('input', sync);
    field.control.addEventListener('change', sync);
    const label = el('label', {}, `${name}${required.has(name) ? ' *' : ''} `, field.control);
    if (node && node.description) label.title = node.description;
    fieldset.append(label);
    fields.push([name, field]);
    const value = field.read();
    if (value !== undefined) args[name] = value;
  }
  if (fields.length === 0) fieldset.append(el('p', { class: 'muted' }, 'This tool takes no arguments.'));
  $('call-args').value = JSON.stringify(args, null, 2);
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
const isArgsObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The JSON box as an object, or null while it holds something else (being typed, say).
 * @returns {Record<string, unknown> | null}
 */
function argsInBox() {
  try {
    const args = JSON.parse($('call-args').value || '{}');
    return isArgsObject(args) ? args : null;
  } catch {
    return null;
  }
}

/**
 * A field changed: its property in the box follows (the box is rebuilt from the fields if it does not parse).
 * @param {string} name
 * @param {Field} field
 */
function fieldToJson(name, field) {
  let args = argsInBox();
  if (!args) {
    args = {};
    for (const [other, { read }] of fields) if (read() !== undefined) args[other] = read();
  }
  const value = field.read();
  if (value === undefined) delete args[name];
  else args[name] = value;
  $('call-args').value = JSON.stringify(args, null, 2);
}

/** The box was edited by hand: once it parses to an object, every field shows its property (or none). */
function jsonToFields() {
  const args = argsInBox();
  if (!args) return;
  for (const [name, { write }] of fields) write(Object.hasOwn(args, name) ? args[name] : undefined);
}

/**
 * @typedef {{
 *   control: HTMLInputElement | HTMLSelectElement, read: () => unknown, write: (value: unknown) => void
 * }} Field
 */

/**
 * The input for one property: `read()` gives its value (undefined: not set), `write(value)` shows one.
 * @param {SchemaNode | undefined} node
 * @param {boolean} required
 * @returns {Field}
 */
function controlFor(node, required) {
  node = node || {};
  const asText = (/** @type {unknown} */ value) =>
    value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  if (Array.isArray(node.enum)) {
    const values = node.enum;
    const control = el('select', {}, required ? null : el('option', { value: '' }, '(not set)'));
    values.forEach((v, i) => control.append(el('option', { value: String(i) }, JSON.stringify(v))));
    return {
      control,
      read: () => (control.value === '' ? undefined : values[Number(control.value)]),
      write: (value) => {
        const i = values.findIndex((v) => JSON.stringify(v) === JSON.stringify(value));
        control.value = i < 0 ? '' : String(i);
      },
    };
  }
  switch (node.type) {
    case 'string': {
      const control = el('input', { type: 'text' });
      // A schema may allow any length (up to 2^53); an input's maxLength wraps past 2^31 - 1 and throws.
      if (node.maxLength !== undefined) control.maxLength = Math.min(node.maxLength, 2 ** 31 - 1);
      return {
        control,
        read: () => (control.value === '' && !required ? undefined : control.value),
        write: (value) => (control.value = asText(value)),
      };
    }
    case 'integer':
    case 'number': {
      const control = el('input', { type: 'number', step: node.type === 'integer' ? '1' : 'any' });
      if (node.minimum !== undefined) control.min = String(node.minimum);
      if (node.maximum !== undefined) control.max = String(node.maximum);
      return {
        control,
        read: () => (control.value === '' ? undefined : Number(control.value)),
        write: (value) => (control.value = typeof value === 'number' ? String(value) : ''),
      };
    }
    case 'boolean': {
      const control = el(
        'select',
        {},
        el('option', { value: '' }, '(not set)'),
        el('option', { value: 'true' }, 'true'),
        el('option', { value: 'false' }, 'false'),
      );
      return {
        control,
        read: () => (control.value === '' ? undefined : control.value === 'true'),
        write: (value) => (control.value = typeof value === 'boolean' ? String(value) : ''),
      };
    }
    default: {
      // Arrays, objects and oneOf: typed as JSON.
      const control = el('input', { type: 'text', placeholder: 'JSON' });
      return {
        control,
        read: () => {
          if (control.value.trim() === '') return undefined;
          try {
            return JSON.parse(control.value);
          } catch {
            return control.value;
          }
        },
        write: (value) => (control.value = value === undefined ? '' : JSON.stringify(value)),
      };
    }
  }
}

/** @param {CallOutcome} message */
function showCallResult(message) {
  const box = $('call-result');
  // The agent got a result, but an error result (denied, invalid args, timed out…) is a failure. A result
  // is any JSON: only the Core's error result, `{ error: { code, message } }`, has an `error` with a code.
  const failure = message.ok
    ? /** @type {{ error?: { code?: unknown, message?: unknown } } | null} */ (message.result)?.error
    : message.error;
  if (message.ok && typeof failure?.code === 'string') {
    box.replaceChildren(
      el(
        'p',
        { class: 'failed' },
        `Failed in ${message.durationMs.toFixed(1)} ms: ${failure.code}: ${failure.message ?? ''}`,
      ),
      el('pre', {}, JSON.stringify(message.result, null, 2)),
    );
  } else if (message.ok) {
    box.replaceChildren(
      el('p', { class: 'ok' }, `Result in ${message.durationMs.toFixed(1)} ms:`),
      el('pre', {}, JSON.stringify(message.result, null, 2)),
    );
  } else {
    box.replaceChildren(el('p', { class: 'failed' }, `${message.error.code}: ${message.error.message}`));
  }
}

$('call-tool').addEventListener('change', buildArgsForm);
$('call-args').addEventListener('input', jsonToFields);
$('call-form').addEventListener('submit', (event) => {
  event.preventDefault();
  let args;
  try {
    args = JSON.parse($('call-args').value || '{}');
  } catch (error) {
    // What JSON.parse throws: a SyntaxError.
    showCallResult({ ok: false, error: { code: 'INVALID_JSON', message: /** @type {Error} */ (error).message } });
    return;
  }
  $('call-result').replaceChildren(el('p', { class: 'muted' }, 'Waiting for the page…'));
  send({
    type: 'operator_call',
    callId: state.nextCallId++,
    sessionId: state.selected,
    tool: $('call-tool').value,
    args,
  });
});
$('say-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const text = $('say-text').value;
  if (!text) return;
  send({ type: 'operator_say', sessionId: state.selected, text });
  $('say-text').value = '';
});
$('end-turn').addEventListener('click', () => send({ type: 'operator_end_turn', sessionId: state.selected }));

// ───────────────────────────── log ─────────────────────────────

/** @param {LogEntry} entry */
function matches(entry) {
  const dir = $('filter-dir').value;
  if (dir && entry.dir !== dir) return false;
  if ($('filter-session').checked && state.selected && entry.sessionId !== state.selected) return false;
  const needle = $('filter-text').value.trim().toLowerCase();
  if (!needle) return true;
  return [entry.text, entry.type, entry.origin, entry.sessionId, entry.connectionId].some(
    (v) => v && String(v).toLowerCase().includes(needle),
  );
}

/**
 * The frame without the fields that have their own column, shortened.
 * @param {LogEntry} entry
 */
function previewOf(entry) {
  let text = entry.text;
  try {
    // Left out of the preview: they have their own columns.
    const { channelId, type, sessionId, ...rest } = JSON.parse(entry.text);
    text = JSON.stringify(rest);
  } catch {
    // not JSON (or cut): show as received
  }
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}

/** @param {LogEntry} entry */
function logRow(entry) {
  const arrow = entry.dir === 'in' ? '→ Core' : entry.dir === 'out' ? '← Core' : '•';
  const preview = previewOf(entry);
  const cell = el('td', { class: 'message' }, preview);
  const row = el(
    'tr',
    { class: `dir-${entry.dir}`, title: entry.origin ?? '' },
    el('td', {}, time(entry.at)),
    el('td', {}, arrow),
    el('td', {}, entry.connectionId),
    el('td', {}, entry.type ?? ''),
    el('td', {}, short(entry.sessionId)),
    cell,
  );
  row.addEventListener('click', () => {
    if (cell.dataset.open) {
      cell.replaceChildren(preview);
      delete cell.dataset.open;
      return;
    }
    let pretty = entry.text;
    try {
      pretty = JSON.stringify(JSON.parse(entry.text), null, 2);
    } catch {
      // not JSON (or cut): show as received
    }
    cell.replaceChildren(el('pre', {}, pretty + (entry.truncated ? '\n… (cut)' : '')));
    cell.dataset.open = '1';
  });
  return row;
}

/** @param {LogEntry} entry */
function prependLogRow(entry) {
  const body = $('log');
  body.prepend(logRow(entry));
  while (body.childElementCount > 500) body.lastElementChild?.remove();
}

function renderLog() {
  const rows = [];
  for (let i = state.log.length - 1; i >= 0 && rows.length < 500; i--) {
    if (matches(state.log[i])) rows.push(logRow(state.log[i]));
  }
  $('log').replaceChildren(...rows);
}

for (const id of /** @type {const} */ (['filter-text', 'filter-dir', 'filter-session', 'log-pause']))
  $(id).addEventListener('input', renderLog);
$('log-filter').addEventListener('submit', (event) => event.preventDefault());
$('log-clear').addEventListener('click', () => {
  state.log = [];
  renderLog();
});

function renderAll() {
  renderApprovals();
  renderSessions();
  renderDetail();
  renderLog();
}

connect();
