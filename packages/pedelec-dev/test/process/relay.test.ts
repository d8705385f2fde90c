// `pedelec-dev mcp`, the stdio relay, when the server it relays to goes away (agents-2026 §4): a call
// in flight fails at once instead of waiting out its ten minutes, and once a server runs again on the
// port the relay connects to it by itself, tells its client the tools changed, and relays calls again.
// The server and the relay are child processes (their sources, through tsx); the client is the 1.x SDK
// client over stdio, as a desktop client starts the relay.
import { test } from 'node:test';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { writeFile } from 'node:fs/promises';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI_SOURCE, LinkPage, nodeTs, startCoreChild, untilAnswer } from '../helpers.js';

/** How long a call may take to fail once its server is gone: far below the relay's ten-minute limit. */
const PROMPTLY_MS = 3000;

test('the relay: a call in flight fails promptly when the server dies; a restarted server is found again', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const tokenFile = join(dir, 'token');
  const first = await startCoreChild(t, { mcp: true, mcpTokenFile: tokenFile });
  await LinkPage.open(t, first, { answer: () => undefined }); // never answers
  const { command, args, env } = nodeTs(
    CLI_SOURCE,
    ['mcp', '--port', String(first.port), '--mcp-token-file', tokenFile],
    {
      env: getDefaultEnvironment(),
    },
  );
  const client = new Client({ name: 'relay-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, env: env as Record<string, string>, stderr: 'pipe' }));
  t.after(() => client.close());
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
  await untilAnswer(
    () => client.listTools(),
    ({ tools }) => tools.some((tool) => tool.name === 'add'),
    'the page’s tool listed',
    { timeoutMs: 10_000, everyMs: 50 },
  );

  const call = client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }).then(
    (result) => ({ result: result as CallToolResult, at: Date.now() }),
    (error: Error) => ({ error, at: Date.now() }),
  );
  await new Promise((resolve) => setTimeout(resolve, 200)); // the call reaches the page
  const killedAt = Date.now();
  first.kill('SIGKILL');
  const settled = await call;
  assert.ok(settled.at - killedAt < PROMPTLY_MS, `the call settled ${settled.at - killedAt} ms after the kill`);
  assert.ok('error' in settled || settled.result.isError, 'the call failed');

  // A server on the same port again (the token file gives it the same token), with the page linked.
  const changesBefore = changes;
  const second = await startCoreChild(t, { mcp: true, mcpTokenFile: tokenFile, port: first.port });
  await LinkPage.open(t, second);
  await untilAnswer(
    async () => changes,
    (seen) => seen > changesBefore,
    'the relay to tell the client the tools changed',
    { timeoutMs: 15_000, everyMs: 50 },
  );
  await untilAnswer(
    () => client.listTools(),
    ({ tools }) => tools.some((tool) => tool.name === 'add'),
    'the page’s tool listed again',
    { timeoutMs: 10_000, everyMs: 50 },
  );
  const again = (await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })) as CallToolResult;
  assert.deepEqual(again.structuredContent, { sum: 5 });
});

test('the relay sends its token only to a server that proves it holds it: a process squatting the port learns nothing', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-squat-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const tokenFile = join(dir, 'token');
  await writeFile(tokenFile, `${'e'.repeat(32)}\n`, { mode: 0o600 });
  // Answers every request, as a server that wanted the token would, and notes what it was sent.
  const seen: (string | undefined)[] = [];
  const squatter = createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ proof: '0'.repeat(64) }));
  });
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => squatter.close(resolve)));
  const port = (squatter.address() as { port: number }).port;
  const { command, args, env } = nodeTs(CLI_SOURCE, ['mcp', '--port', String(port), '--mcp-token-file', tokenFile]);
  const result = await new Promise<{ code: number; stderr: string }>((resolve) =>
    execFile(command, args, { env, timeout: 20_000 }, (error, _stdout, stderr) =>
      resolve({ code: typeof error?.code === 'number' ? error.code : 0, stderr }),
    ),
  );
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /^pedelec-dev: the server on port \d+ does not prove it holds the token in .+, so the token was not sent to it/,
  );
  assert.ok(seen.length > 0, 'the relay asked for a proof');
  assert.deepEqual(
    seen.filter((authorization) => authorization !== undefined),
    [],
    'no token was sent',
  );
});
