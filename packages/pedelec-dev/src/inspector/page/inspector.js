// @ts-check
// The pedelec-dev inspector: plain DOM, no framework, no innerHTML — everything shown here comes from
// pages and agents, so it is only ever set as text. Served as written, with no build: its types are
// JSDoc, checked by tsc (tsconfig.json here, part of `npm run typecheck`).

/** @import { ApprovalPrompt, CallOutcome, FolderPick, InspectorMessage, LogEntry, OpenTurn, OperatorMessage, SessionSummary } from './types.js' */
import { buildArgsForm, jsonToFields } from './args-form.js';
import { $, el, short } from './dom.js';
import { renderApprovals, renderFolderPicks, showPickError } from './prompts.js';
import { logRow } from './log-row.js';

/**
 * The session maps are keyed by session id, and looked up with `selected` too, which is null while no
 * session is selected (and then finds nothing).
 * @type {{
 *   sessions: Map<string | null, SessionSummary>, turns: Map<string | null, OpenTurn>,
 *   approvals: Map<string, ApprovalPrompt>, picks: Map<string, FolderPick>, log: LogEntry[],
 *   selected: string | null, nextCallId: number
 * }}
 */
const state = {
  sessions: new Map(), // sessionId → summary
  turns: new Map(), // sessionId → open operator turn
  approvals: new Map(), // id → prompt
  picks: new Map(), // id → folder pick
  log: [],
  selected: null,
  nextCallId: 1,
};
const MAX_LOG = 2000;
/** @type {WebSocket | null} */
let socket = null;

// ───────────────────────────── socket ─────────────────────────────

// The token arrives in the fragment, which is never sent to the server, and stays there: a reload
// keeps it. No storage holds it: the pages pedelec-dev serves share this origin, and a page opened
// later in this tab would read sessionStorage or localStorage (and the inspector cannot be framed).
const token = new URLSearchParams(location.hash.slice(1)).get('token');
// A new URL pasted into this tab (pedelec-dev restarted: a new token) changes only the fragment, which
// does not reload the page: start over with it.
addEventListener('hashchange', () => location.reload());

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
      state.picks = new Map((message.picks ?? []).map((p) => [p.id, p]));
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
      renderApprovals(state.approvals, send);
      break;
    case 'approval_resolved':
      state.approvals.delete(message.id);
      renderApprovals(state.approvals, send);
      break;
    case 'folder_pick_requested':
      state.picks.set(message.pick.id, message.pick);
      renderFolderPicks(state.picks, send);
      break;
    case 'folder_pick_resolved':
      state.picks.delete(message.id);
      renderFolderPicks(state.picks, send);
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
      if (message.for === 'pick_folder') showPickError(`${message.error.code}: ${message.error.message}`);
      else showCallResult({ ok: false, error: message.error });
      break;
  }
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
    ...(typeof s.workspaceId === 'string'
      ? [['Workspace', s.workspacePath ? `${s.workspacePath} (${s.workspaceId})` : `${s.workspaceId} (managed)`]]
      : []),
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
  buildArgsForm(selectedTool());
}

/** The tool chosen in the call form, of the selected session. */
function selectedTool() {
  const s = state.sessions.get(state.selected);
  return s && s.skills ? s.skills.tools.find((t) => t.name === $('call-tool').value) : null;
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

$('call-tool').addEventListener('change', () => buildArgsForm(selectedTool()));
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
  renderApprovals(state.approvals, send);
  renderFolderPicks(state.picks, send);
  renderSessions();
  renderDetail();
  renderLog();
}

connect();
