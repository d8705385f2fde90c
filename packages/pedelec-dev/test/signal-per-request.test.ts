// fetchWithSignalPerRequest (src/mcp/signal-per-request.ts), the fetch the stdio relay gives the MCP
// SDK's transport: a long-lived signal passed to every request holds a listener only while a request
// runs, and aborting it still aborts a request in flight, its body included. Against a loopback server.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchWithSignalPerRequest } from '../src/mcp/signal-per-request.js';

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

/** `/text` answers `hello`; `/hold` sends a first chunk and never ends; `/none` 204; `/moved` → `/text`. */
async function startServer(t: TestContext) {
  const server = createServer((req, res) => {
    if (req.url === '/hold') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('first');
    } else if (req.url === '/none') {
      res.writeHead(204).end();
    } else if (req.url === '/moved') {
      res.writeHead(302, { Location: '/text' }).end();
    } else {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Kind': 'text' }).end('hello');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('300 requests with one long-lived signal: it holds a listener only while each runs', async (t) => {
  const base = await startServer(t);
  const fetchOwn = fetchWithSignalPerRequest();
  const { signal } = new AbortController();
  for (let i = 0; i < 300; i++) {
    const response = await fetchOwn(`${base}/text`, { signal });
    assert.equal(listeners(signal), 1, 'one listener while the body is unread');
    assert.equal(await response.text(), 'hello');
    assert.equal(listeners(signal), 0, `no listener once request ${i} ended`);
  }
});

test('aborting the long-lived signal aborts a body being read, with its reason', async (t) => {
  const base = await startServer(t);
  const controller = new AbortController();
  const response = await fetchWithSignalPerRequest()(`${base}/hold`, { signal: controller.signal });
  const reader = response.body!.getReader();
  assert.equal(new TextDecoder().decode((await reader.read()).value), 'first');
  const reason = new Error('closing');
  controller.abort(reason);
  await assert.rejects(reader.read(), (error) => error === reason);
  assert.equal(listeners(controller.signal), 0);
});

test('a cancelled body, a failed request, a 204 and an aborted signal leave no listener', async (t) => {
  const base = await startServer(t);
  const fetchOwn = fetchWithSignalPerRequest();
  const { signal } = new AbortController();

  const held = await fetchOwn(`${base}/hold`, { signal });
  await held.body!.cancel();
  assert.equal(listeners(signal), 0, 'cancelled');

  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  await assert.rejects(fetchOwn(`http://127.0.0.1:${port}/`, { signal }), TypeError, 'nothing listens there now');
  assert.equal(listeners(signal), 0, 'failed');

  const none = await fetchOwn(`${base}/none`, { signal });
  assert.equal(none.status, 204);
  assert.equal(listeners(signal), 0, 'no body');

  const aborted = AbortSignal.abort(new Error('gone'));
  await assert.rejects(fetchOwn(`${base}/text`, { signal: aborted }), /gone/);
});

test('the response keeps its status, headers, URL and redirect; without a signal, fetch is called as it is', async (t) => {
  const base = await startServer(t);
  const { signal } = new AbortController();
  const moved = await fetchWithSignalPerRequest()(`${base}/moved`, { signal });
  assert.deepEqual(
    [moved.status, moved.headers.get('x-kind'), moved.url, moved.redirected],
    [200, 'text', `${base}/text`, true],
  );
  assert.equal(await moved.text(), 'hello');
  const manual = await fetchWithSignalPerRequest()(`${base}/moved`, { signal, redirect: 'manual' });
  assert.deepEqual([manual.status, manual.headers.get('location')], [302, '/text']);
  await manual.body?.cancel();

  const answer = new Response('as is');
  const calls: [string | URL | Request, RequestInit | undefined][] = [];
  const base2 = async (url: string | URL | Request, init?: RequestInit) => {
    calls.push([url, init]);
    return answer;
  };
  const init = { method: 'POST' };
  assert.equal(await fetchWithSignalPerRequest(base2)(`${base}/text`, init), answer);
  assert.deepEqual(calls, [[`${base}/text`, init]]);
});
