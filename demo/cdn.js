// The CDN demo's page logic (demo/cdn.html): plain DOM, no build step, a module file rather than an
// inline script so the page runs under `script-src 'self'` and with Trusted Types enforced.
const session = document.querySelector('pedelec-session');
const tool = (name) => document.querySelector(`pedelec-tool[name="${name}"]`);
const $ = (id) => document.getElementById(id);

// Served by pedelec-dev: its bridge is on this host. `?bridge=extension` uses the Pedelec extension.
if (new URLSearchParams(location.search).get('bridge') !== 'extension') {
  session.bridge = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/bridge`;
}

let counter = 0;
function show(value) {
  counter = value;
  $('counter').value = String(value);
  return { value };
}

// A handler by property…
tool('update_counter').handler = ({ delta }) => show(counter + delta);
tool('reset_counter').handler = () => show(0);
// …and one by the pedelec-tool-call event.
tool('get_counter').addEventListener('pedelec-tool-call', (event) => event.respondWith({ value: counter }));

// Plain HTML's conditional tool: `disabled` leaves it out of the manifest and refuses its calls.
$('allow-reset').addEventListener('change', (event) => (tool('reset_counter').disabled = !event.target.checked));

session.addEventListener('pedelec-status', (event) => ($('status').value = event.detail.status));
// The tool set changed since the session started (the box): the agent gets it at the next restart.
session.addEventListener('pedelec-tools-changed', () => ($('stale').hidden = false));
session.addEventListener('pedelec-ready', () => ($('stale').hidden = true));
session.addEventListener('pedelec-chat-delta', (event) => ($('reply').textContent += event.detail.text));
session.addEventListener('pedelec-error', (event) => {
  $('reply').textContent += `\n[${event.detail.error.code}] ${event.detail.error.message}`;
});
$('ask').addEventListener('submit', (event) => {
  event.preventDefault();
  const text = $('message').value.trim();
  if (!text) return;
  $('reply').textContent = '';
  // sendText starts the session on first use; failures also arrive as pedelec-error (shown above).
  // On the user's send, a restart reconnects a bridge that went away (pedelec-dev restarted) and gives
  // the agent the tools as they are now (the box was ticked or unticked).
  const restart = session.client?.unavailableReason || session.toolsStale;
  const sent = restart ? session.restart().then(() => session.sendText(text)) : session.sendText(text);
  sent.catch(() => {});
  $('message').value = '';
});
