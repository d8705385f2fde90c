// The 2025 era's sessions on /mcp (src/mcp/legacy-sessions.ts) are bounded: at the limit a new
// client is refused unless a session has been idle long enough to make room, and then the least
// recently used one goes. Driven with web-standard requests and a clock of the test's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Server } from '@modelcontextprotocol/server';
import { IDLE_SESSION_MS, LegacySessions, MAX_MCP_SESSIONS } from '../src/mcp/legacy-sessions.js';

const HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

function newServer(): Server {
  const server = new Server({ name: 'test', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () => ({ tools: [] }));
  return server;
}

const initialize = () =>
  new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    }),
  });

const listTools = (session: string) =>
  new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { ...HEADERS, 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
  });

async function open(sessions: LegacySessions): Promise<Response> {
  const response = await sessions.handle(initialize());
  await response.body?.cancel();
  return response;
}

test('at the limit a new client is refused (503) until a session has been idle long enough; then the oldest goes', async (t) => {
  let now = 0;
  const sessions = new LegacySessions(newServer, () => now);
  t.after(() => sessions.close());
  const ids: string[] = [];
  for (let i = 0; i < MAX_MCP_SESSIONS; i++) {
    const opened = await open(sessions);
    assert.equal(opened.status, 200);
    ids.push(opened.headers.get('mcp-session-id')!);
    now += 1;
  }
  const refused = await open(sessions);
  assert.equal(refused.status, 503);
  assert.equal(sessions.size, MAX_MCP_SESSIONS);

  // The first session is used again: the second becomes the least recently used.
  now += IDLE_SESSION_MS;
  const used = await sessions.handle(listTools(ids[0]));
  assert.equal(used.status, 200);
  await used.body?.cancel();
  const admitted = await open(sessions);
  assert.equal(admitted.status, 200);
  assert.equal(sessions.size, MAX_MCP_SESSIONS);
  const gone = await sessions.handle(listTools(ids[1]));
  assert.equal(gone.status, 404);
  const kept = await sessions.handle(listTools(ids[0]));
  assert.equal(kept.status, 200);
  await kept.body?.cancel();
});

test('an unknown session is 404; a request without one that is not initialize is told to initialize (400)', async (t) => {
  const sessions = new LegacySessions(newServer);
  t.after(() => sessions.close());
  const answer = await sessions.handle(listTools('no-such-session'));
  assert.equal(answer.status, 404);
  const bare = new Request('http://127.0.0.1/mcp', { method: 'GET' });
  const told = await sessions.handle(bare);
  assert.equal(told.status, 400);
  assert.match(((await told.json()) as { error: { message: string } }).error.message, /initialize first/);
});
