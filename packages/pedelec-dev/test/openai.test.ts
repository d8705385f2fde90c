// The `openai` agent against a fake OpenAI-compatible endpoint started by each test on loopback
// (node:http, scripted per request): streaming, tool calls assembled from fragments, name mapping,
// malformed arguments, the loop limit, endpoint failures, the API key kept on the server, and
// end_session aborting the upstream request. Never the network; every server is closed in teardown.
// (That the SSE reader and the name mapping stay linear is measured in perf/openai.test.ts.)
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyRedactor } from '../src/agents/openai-errors.js';
import { SseParser } from '../src/agents/sse.js';
import { ToolNameMap, WIRE_TOOL_NAME } from '../src/agents/tool-names.js';
import { DevCoreError, parseCli } from '../src/index.js';
import { BridgeClient, chatText, createSession, delay, skills, startCore, type Message } from './helpers.js';

const KEY = 'sk-test-9f8e7d6c5b4a3210SECRETKEY';
const WAIT_MS = 5000;

// ───────────────────────────── the fake endpoint ─────────────────────────────

/**
 * A fake Chat Completions server. `reply(...handlers)` queues one handler per request; `always(h)`
 * answers every request after the queue. Each request is recorded with its parsed body and a
 * promise `aborted` that resolves when the client closes the connection before the response ended.
 */
/** A Chat Completions request body, as far as these tests read it (its messages are untyped JSON). */
type ChatRequest = {
  model: string;
  stream: boolean;
  messages: Message[];
  tools?: { type: string; function: { name: string; description: string; parameters: object } }[];
};
/** A request the fake endpoint got, its body parsed (the agent only sends JSON). */
type Recorded = {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: ChatRequest;
  /** Resolves true if the client closed the connection before the response ended. */
  aborted: Promise<boolean>;
};
/** How the fake endpoint answers one request. */
type Handler = (req: IncomingMessage, res: ServerResponse, record: Recorded) => unknown;

async function fakeEndpoint(t: TestContext) {
  const requests: Recorded[] = [];
  const queue: Handler[] = [];
  let fallback: Handler = (req, res, record) =>
    status(500, { error: { message: 'no reply scripted' } })(req, res, record);
  const waiters = new Set<() => boolean>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      const record: Recorded = {
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: body as ChatRequest,
        aborted: new Promise((resolve) => res.on('close', () => (res.writableFinished ? undefined : resolve(true)))),
      };
      requests.push(record);
      for (const w of [...waiters]) w();
      const handler = queue.shift() ?? fallback;
      Promise.resolve(handler(req, res, record)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    reply: (...handlers: Handler[]) => queue.push(...handlers),
    always: (handler: Handler) => (fallback = handler),
    /** Resolves the n-th recorded request (1-based), bounded. */
    request: (n: number) =>
      new Promise<Recorded>((resolve, reject) => {
        const check = () => {
          if (requests.length >= n) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(requests[n - 1]!);
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the fake endpoint got ${requests.length} requests, waited for ${n}`));
        }, WAIT_MS);
        if (!check()) waiters.add(check);
      }),
  };
}

const chunk = (delta: object, finish: string | null = null) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

/** Streams `events` (objects, or raw strings written as is) as SSE, with a short pause between them, then [DONE]. */
function sse(events: (object | string)[], { done = true } = {}): Handler {
  return async (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    for (const event of events) {
      res.write(typeof event === 'string' ? event : `data: ${JSON.stringify(event)}\n\n`);
      await delay(2);
    }
    if (done) res.write('data: [DONE]\n\n');
    res.end();
  };
}

/** A streamed text answer in the given pieces. */
const text = (...pieces: string[]) =>
  sse([chunk({ role: 'assistant', content: '' }), ...pieces.map((p) => chunk({ content: p })), chunk({}, 'stop')]);

/** A tool call as {@link calls} takes it: name, arguments (as the model sent them), id. */
type WholeCall = [name: string, args: string, id?: string];

/** One chunk carrying whole tool calls ([name, argsString, id?]…). */
const calls = (...list: WholeCall[]) => sse(calls.pieces(...list));
/** The stream events of {@link calls}, to follow text of the same answer. */
calls.pieces = (...list: WholeCall[]) => [
  chunk({
    role: 'assistant',
    tool_calls: list.map(([name, args, id], index) => ({
      index,
      id: id ?? `call_${index}`,
      type: 'function',
      function: { name, arguments: args },
    })),
  }),
  chunk({}, 'tool_calls'),
];

const status =
  (code: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(code, { 'Content-Type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

// ───────────────────────────── the page side ─────────────────────────────

// These tests are about the agent and assert the event sequences of the 0.1 protocol; the agent under
// today's protocol (chat_message, operation_completed) is covered in protocol.test.ts.
async function setup(
  t: TestContext,
  { env = {}, sessionInput = {} }: { env?: Record<string, string>; sessionInput?: Message } = {},
) {
  const fake = await fakeEndpoint(t);
  const core = await startCore(t, {
    protocol: '0.1',
    agent: 'openai',
    env: { PEDELEC_DEV_BASE_URL: fake.baseUrl, PEDELEC_DEV_MODEL: 'test-model', PEDELEC_DEV_API_KEY: KEY, ...env },
  });
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page, { provider: 'openai', ...sessionInput });
  return { fake, core, page, sessionId };
}

/** Answers every tool_call of the page's sessions with `result(call)`; returns the calls seen. */
function autoAnswer(page: BridgeClient, result: (call: Message) => unknown = () => ({ ok: true })) {
  const seen: Message[] = [];
  page.socket.on('message', (data) => {
    const m = JSON.parse(data.toString()) as Message;
    if (m.type !== 'tool_call') return;
    seen.push(m);
    page.sendRaw({
      channelId: page.channelId,
      type: 'submit_tool_result',
      requestId: `auto_${m.toolRequestId}`,
      sessionId: m.sessionId,
      toolRequestId: m.toolRequestId,
      result: result(m),
    });
  });
  return seen;
}

/** `promise`'s value, or `false` after `ms` (the timer does not outlive the race). */
function within<T>(promise: Promise<T>, ms = WAIT_MS): Promise<T | false> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]).finally(() => clearTimeout(timer));
}

const lastEvent = (events: Message[]): Message => events.filter((m) => m.type !== 'response').at(-1)!;

async function turn(page: BridgeClient, sessionId: string, message: string) {
  const from = page.mark();
  await page.ok('send_text', { sessionId, text: message });
  return page.turnEnd(sessionId, from);
}

// ───────────────────────────── units ─────────────────────────────

test('tool names outside ^[a-zA-Z0-9_-]{1,64}$ are mapped reversibly; valid names keep themselves', () => {
  const long = `a${'b'.repeat(69)}`; // 70 characters
  const long2 = `${long.slice(0, 69)}c`;
  const names = ['page.read', 'page_read', 'page-read', long, long2, 'x.y.z', 'x_y_z'];
  const map = new ToolNameMap(names);
  const wire = names.map((n) => map.toWire(n));
  for (const w of wire) assert.match(w, WIRE_TOOL_NAME);
  assert.equal(new Set(wire).size, names.length, 'no two tools share a wire name');
  assert.equal(map.toWire('page_read'), 'page_read');
  assert.equal(map.toWire('x_y_z'), 'x_y_z');
  assert.equal(map.toWire('page.read'), 'page_read_1');
  assert.equal(map.toWire('x.y.z'), 'x_y_z_1');
  assert.equal(map.toWire(long).length, 64);
  assert.match(map.toWire(long), /_1$/);
  assert.match(map.toWire(long2), /_2$/);
  for (const n of names) assert.equal(map.toOriginal(map.toWire(n)), n);
  assert.equal(map.toOriginal('not_a_tool'), 'not_a_tool');
});

test('the SSE reader handles split lines, CRLF, comments, multi-line data and a missing final blank line', () => {
  const parser = new SseParser();
  const events = [
    ...parser.push(': keep-alive\r\n\r\nda'),
    ...parser.push('ta: {"a":1}\r'),
    ...parser.push('\n\r\nevent: x\ndata:{"b":\ndata: 2}\n\n'),
    ...parser.push('data: [DONE]'),
    ...parser.end(),
  ];
  assert.deepEqual(
    events.map((e) => e.lines),
    [['{"a":1}'], ['{"b":', '2}'], ['[DONE]']],
  );
});

test('the SSE reader drops an event whose data is empty (a keep-alive), and stays linear on a long line in pieces', () => {
  const parser = new SseParser();
  const events = [...parser.push('data: {"a":1}\n\ndata:\n\ndata: \n\ndata:\ndata:\n\n'), ...parser.end()];
  // A lone empty `data:` is not an event (WHATWG SSE); two empty lines are a "\n" of data, which is.
  assert.deepEqual(
    events.map((e) => e.lines),
    [['{"a":1}'], ['', '']],
  );
  // 8 MiB in 16 KiB pieces: one line, whole (how its cost grows: perf/openai.test.ts).
  const long = new SseParser();
  const piece = 'x'.repeat(16 * 1024);
  for (let i = 0; i < 512; i++) assert.deepEqual(long.push(i === 0 ? `data: ${piece}` : piece), []);
  const [event] = long.push('\r');
  assert.equal(event, undefined, 'a \r at the end of a piece waits for what follows');
  const [done] = long.push('\n\n');
  assert.equal(done!.lines[0]!.length, 512 * piece.length);
});

test('tool-name mapping stays linear when thousands of long names share their first 62 characters', () => {
  const stem = 'n'.repeat(62);
  // Distinct, valid and reversible wire names (how the mapping's cost grows: perf/openai.test.ts).
  const names = Array.from({ length: 4000 }, (_, i) => `${stem}${String(i).padStart(8, '0')}`);
  const map = new ToolNameMap(names);
  const wire = names.map((n) => map.toWire(n));
  for (const w of wire) assert.match(w, WIRE_TOOL_NAME);
  assert.equal(new Set(wire).size, names.length);
  for (const n of names) assert.equal(map.toOriginal(map.toWire(n)), n);
});

test('the key redactor removes the key and masked echoes of it', () => {
  const redact = keyRedactor(KEY);
  const out = redact(`Incorrect API key provided: ${KEY}. Also sk-te************CRETKEY and ${KEY.slice(0, 12)}…`);
  assert.ok(!out.includes(KEY));
  assert.ok(!out.includes('CRETKEY'));
  assert.ok(!out.includes('sk-te'));
  assert.match(out, /Incorrect API key provided/);
  assert.equal(keyRedactor(undefined)('as is'), 'as is');
});

test('--base-url and --model set the agent environment; there is no flag for the key', () => {
  const command = parseCli(['--agent', 'openai', '--base-url', 'http://127.0.0.1:11434/v1', '--model', 'llama3.1']);
  assert.ok(command.kind === 'start');
  assert.equal(command.options.agent, 'openai');
  assert.equal(command.options.env?.PEDELEC_DEV_BASE_URL, 'http://127.0.0.1:11434/v1');
  assert.equal(command.options.env?.PEDELEC_DEV_MODEL, 'llama3.1');
  const plain = parseCli(['--port', '0']);
  assert.ok(plain.kind === 'start');
  assert.equal(plain.options.env, undefined);
  assert.throws(() => parseCli(['--base-url', 'ftp://x']), /--base-url: expected an http/);
  assert.throws(
    () => parseCli(['--base-url', 'http://user:pw@127.0.0.1/v1']),
    /must not contain a user name or password/,
  );
  assert.throws(() => parseCli(['--model', ' ']), /--model needs/);
  assert.throws(() => parseCli(['--api-key', 'x']), /Unknown option/);
});

// ───────────────────────────── configuration ─────────────────────────────

test('list_providers: openai is available with a base URL and a model; otherwise it says what to set, never the key', async (t) => {
  const fake = await fakeEndpoint(t);
  let core = await startCore(t, {
    protocol: '0.1',
    env: { PEDELEC_DEV_BASE_URL: fake.baseUrl, PEDELEC_DEV_MODEL: 'm1', PEDELEC_DEV_API_KEY: KEY },
  });
  let page = await BridgeClient.open(t, core);
  let openai = (await page.ok('list_providers')).find((p: Message) => p.code === 'openai');
  assert.deepEqual(openai, { name: 'OpenAI-compatible endpoint', code: 'openai', available: true, error: null });

  core = await startCore(t, { env: { PEDELEC_DEV_API_KEY: KEY } });
  page = await BridgeClient.open(t, core);
  openai = (await page.ok('list_providers')).find((p: Message) => p.code === 'openai');
  assert.equal(openai.available, false);
  assert.match(openai.error, /PEDELEC_DEV_BASE_URL/);

  core = await startCore(t, { env: { PEDELEC_DEV_BASE_URL: fake.baseUrl, PEDELEC_DEV_API_KEY: KEY } });
  page = await BridgeClient.open(t, core);
  openai = (await page.ok('list_providers')).find((p: Message) => p.code === 'openai');
  assert.equal(openai.available, false);
  assert.match(openai.error, /PEDELEC_DEV_MODEL/);
  assert.ok(!JSON.stringify(page.messages).includes(KEY));

  await assert.rejects(startCore(t, { agent: 'openai', env: { PEDELEC_DEV_API_KEY: KEY } }), (error) => {
    assert.ok(error instanceof DevCoreError);
    assert.equal(error.code, 'AGENT_UNAVAILABLE');
    assert.match(error.message, /PEDELEC_DEV_BASE_URL/);
    assert.ok(!error.message.includes(KEY));
    return true;
  });
  assert.equal(fake.requests.length, 0, 'nothing is sent to the endpoint before a turn');
});

// ───────────────────────────── turns ─────────────────────────────

test('streamed text arrives as several chat_delta events; guidance is the system message; history is kept', async (t) => {
  const { fake, page, sessionId } = await setup(t);
  assert.deepEqual(await page.ok('get_settings'), {
    defaultProvider: 'openai',
    defaultModels: { openai: 'test-model' },
  });
  fake.reply(text('Hel', 'lo, ', 'I am ', 'a model.'), text('Again.'));

  let events = await turn(page, sessionId, 'Hi there');
  const deltas = events.filter((m) => m.type === 'chat_delta');
  assert.deepEqual(
    deltas.map((m) => m.text),
    ['Hel', 'lo, ', 'I am ', 'a model.'],
  );
  assert.deepEqual(
    events.filter((m) => m.type === 'status_changed').map((m) => m.status),
    ['running', 'idle'],
  );
  assert.deepEqual(lastEvent(events), { ...lastEvent(events), type: 'status_changed', status: 'idle' });

  const first = await fake.request(1);
  assert.equal(first.method, 'POST');
  assert.equal(first.url, '/v1/chat/completions');
  assert.equal(first.headers.authorization, `Bearer ${KEY}`);
  assert.equal(first.body.model, 'test-model');
  assert.equal(first.body.stream, true);
  assert.deepEqual(first.body.messages, [
    { role: 'system', content: 'A counter page.' },
    { role: 'user', content: 'Hi there' },
  ]);
  assert.deepEqual(first.body.tools, [
    {
      type: 'function',
      function: {
        name: 'update_counter',
        description: 'Change the counter by delta.',
        parameters: skills().tools[0].argsSchema,
      },
    },
  ]);

  events = await turn(page, sessionId, 'And again?');
  assert.equal(chatText(events), 'Again.');
  const second = await fake.request(2);
  assert.deepEqual(second.body.messages, [
    { role: 'system', content: 'A counter page.' },
    { role: 'user', content: 'Hi there' },
    { role: 'assistant', content: 'Hel' + 'lo, I am a model.' },
    { role: 'user', content: 'And again?' },
  ]);
});

test('a production provider code uses the configured model; provider openai may name its own', async (t) => {
  const fake = await fakeEndpoint(t);
  const core = await startCore(t, {
    agent: 'openai',
    env: { PEDELEC_DEV_BASE_URL: fake.baseUrl, PEDELEC_DEV_MODEL: 'test-model' },
  });
  const page = await BridgeClient.open(t, core);
  fake.reply(text('a'), text('b'));
  const codex = await createSession(page, { provider: 'codex', model: 'gpt-5-codex', skills: undefined });
  await turn(page, codex, 'x');
  const own = await createSession(page, { provider: 'openai', model: 'other-model', skills: undefined });
  await turn(page, own, 'y');
  assert.equal((await fake.request(1)).body.model, 'test-model');
  assert.equal((await fake.request(2)).body.model, 'other-model');
  // No page tools: only the session's workspace tools (every session has a workspace today).
  assert.deepEqual(
    (await fake.request(1)).body.tools!.map((tool) => tool.function.name),
    ['workspace_list_files', 'workspace_read_file', 'workspace_write_file', 'workspace_run_deno'],
  );
  assert.equal((await fake.request(1)).headers.authorization, undefined, 'no key → no Authorization header');
});

test('a tool call streamed in fragments reaches the page; its result goes back to the model; the final answer ends the turn', async (t) => {
  const { fake, page, sessionId } = await setup(t);
  fake.reply(
    sse([
      chunk({ role: 'assistant', content: 'Let me ' }),
      chunk({ content: 'count. ' }),
      chunk({
        tool_calls: [{ index: 0, id: 'call_abc', type: 'function', function: { name: 'update_', arguments: '' } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'counter' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"del' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'ta": ' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '2}' } }] }),
      chunk({}, 'tool_calls'),
    ]),
    text('The counter ', 'is now 3.'),
  );

  const from = page.mark();
  await page.ok('send_text', { sessionId, text: 'Add two' });
  const call = await page.until((m) => m.type === 'tool_call', { from });
  assert.equal(call.tool, 'update_counter');
  assert.deepEqual(call.args, { delta: 2 });
  await page.ok('submit_tool_result', { sessionId, toolRequestId: call.toolRequestId, result: { value: 3 } });
  const events = await page.turnEnd(sessionId, from);

  // Each model request's text is a paragraph of its own.
  assert.equal(chatText(events), 'Let me count. \n\nThe counter is now 3.');
  assert.deepEqual(
    events.filter((m) => m.type === 'status_changed').map((m) => m.status),
    ['running', 'waiting_tool_result', 'running', 'idle'],
  );
  const types = events.map((m) => m.type);
  assert.ok(
    types.lastIndexOf('chat_delta') < types.length - 1 && lastEvent(events).status === 'idle',
    'the final answer, then idle',
  );
  assert.ok(types.indexOf('tool_call') < types.lastIndexOf('chat_delta'));

  const second = await fake.request(2);
  const messages = second.body.messages;
  assert.deepEqual(messages.at(-2), {
    role: 'assistant',
    content: 'Let me count. ',
    // The arguments as JSON (re-serialized: endpoints that parse the history need valid JSON there).
    tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'update_counter', arguments: '{"delta":2}' } }],
  });
  assert.deepEqual(messages.at(-1), { role: 'tool', tool_call_id: 'call_abc', content: '{"value":3}' });
});

test('whole-chunk parallel calls reach the page one at a time, in order, and all results go back', async (t) => {
  const { fake, page, sessionId } = await setup(t);
  fake.reply(calls(['update_counter', '{"delta":1}', 'c1'], ['update_counter', '{"delta":-4}', 'c2']), text('Done.'));
  const from = page.mark();
  await page.ok('send_text', { sessionId, text: 'go' });
  const first = await page.until((m) => m.type === 'tool_call', { from });
  assert.deepEqual(first.args, { delta: 1 });
  await delay(50);
  assert.equal(
    page.since(from).filter((m) => m.type === 'tool_call').length,
    1,
    'the second call waits for the first result',
  );
  const afterFirst = page.mark();
  await page.ok('submit_tool_result', { sessionId, toolRequestId: first.toolRequestId, result: { value: 1 } });
  const second = await page.until((m) => m.type === 'tool_call', { from: afterFirst });
  assert.deepEqual(second.args, { delta: -4 });
  await page.ok('submit_tool_result', { sessionId, toolRequestId: second.toolRequestId, result: { value: -3 } });
  const events = await page.turnEnd(sessionId, from);
  assert.equal(chatText(events), 'Done.');
  const messages = (await fake.request(2)).body.messages;
  assert.deepEqual(messages.slice(-2), [
    { role: 'tool', tool_call_id: 'c1', content: '{"value":1}' },
    { role: 'tool', tool_call_id: 'c2', content: '{"value":-3}' },
  ]);
});

test("tool names are mapped for the endpoint and the model's calls are mapped back", async (t) => {
  const long = `read_${'x'.repeat(65)}`; // 70 characters
  const tools = [
    { name: 'page.read', description: 'Read the page.', argsSchema: { type: 'object', properties: {} } },
    { name: 'page_read', description: 'Another tool.', argsSchema: { type: 'object', properties: {} } },
    { name: long, description: 'A long name.', argsSchema: { type: 'object', properties: { n: { type: 'integer' } } } },
  ];
  const { fake, page, sessionId } = await setup(t, { sessionInput: { skills: { guidance: 'g', tools } } });
  const seen = autoAnswer(page, (m) => ({ tool: m.tool }));
  fake.reply((req, res, record) => {
    const wire = record.body.tools!.map((tool) => tool.function.name);
    return calls([wire[0]!, '{}', 'a'], [wire[2]!, '{"n":1}', 'b'], [wire[1]!, '', 'c'])(req, res, record);
  }, text('ok'));
  const events = await turn(page, sessionId, 'read');
  assert.equal(lastEvent(events).status, 'idle');
  const wire = (await fake.request(1)).body.tools!.map((tool) => tool.function.name);
  for (const name of wire) assert.match(name, /^[a-zA-Z0-9_-]{1,64}$/);
  assert.equal(new Set(wire).size, 3);
  assert.equal(wire[1], 'page_read');
  assert.deepEqual(
    seen.map((m) => [m.tool, m.args]),
    [
      ['page.read', {}],
      [long, { n: 1 }],
      ['page_read', {}],
    ],
  );
  const results = (await fake.request(2)).body.messages.filter((m) => m.role === 'tool');
  assert.deepEqual(
    results.map((m) => JSON.parse(m.content).tool),
    ['page.read', long, 'page_read'],
  );
});

test('malformed JSON arguments go back to the model as a tool error and never reach the page', async (t) => {
  const { fake, page, sessionId } = await setup(t);
  fake.reply(calls(['update_counter', '{"delta": 2', 'bad1']), text('Sorry, ', 'fixed.'));
  const events = await turn(page, sessionId, 'go');
  assert.ok(!events.some((m) => m.type === 'tool_call'));
  // The page never saw the call: the reply says it was not run.
  assert.match(
    chatText(events),
    /^Tool call refused — update_counter: the model's arguments are not valid JSON: .+ \(TOOL_ARGS_INVALID\)\n\nSorry, fixed\.$/,
  );
  assert.equal(lastEvent(events).status, 'idle');
  const tool = (await fake.request(2)).body.messages.at(-1)!;
  assert.equal(tool.role, 'tool');
  assert.equal(tool.tool_call_id, 'bad1');
  const content = JSON.parse(tool.content);
  assert.equal(content.error.code, 'TOOL_ARGS_INVALID');
  assert.match(content.error.message, /not valid JSON/);
});

test('unknown tools and schema mismatches are answered by Core to the model, not the page', async (t) => {
  const { fake, page, sessionId } = await setup(t);
  fake.reply(calls(['no_such_tool', '{}', 'u'], ['update_counter', '{"delta":"x"}', 'v']), text('ok'));
  const events = await turn(page, sessionId, 'go');
  assert.ok(!events.some((m) => m.type === 'tool_call'));
  const results = (await fake.request(2)).body.messages
    .filter((m) => m.role === 'tool')
    .map((m) => JSON.parse(m.content).error.code);
  assert.deepEqual(results, ['TOOL_NOT_FOUND', 'TOOL_ARGS_INVALID']);
});

test('a call the Core refuses shows in the reply as a line of its own; model rounds are paragraphs', async (t) => {
  const { fake, page, sessionId } = await setup(t);
  const seen = autoAnswer(page, () => ({ value: 3 }));
  fake.reply(
    sse([chunk({ role: 'assistant', content: 'Sure, let me do that.' }), ...calls.pieces(['no_such_tool', '{}', 'u'])]),
    calls(['update_counter', '{"delta":"x"}', 'v']),
    calls(['update_counter', '{"delta":3}', 'w']),
    text('Done.'),
  );
  const events = await turn(page, sessionId, 'count to three');
  assert.equal(lastEvent(events).status, 'idle');
  // The page saw only the call it ran; the refused ones are told in the reply, each on a line of its own.
  assert.deepEqual(
    seen.map((m) => m.tool),
    ['update_counter'],
  );
  assert.equal(
    chatText(events),
    [
      'Sure, let me do that.',
      'Tool call refused — no_such_tool: Tool "no_such_tool" is not in this session\'s manifest (TOOL_NOT_FOUND)',
      `Tool call refused — update_counter: ${JSON.parse((await fake.request(3)).body.messages.at(-1)!.content).error.message} (TOOL_ARGS_INVALID)`,
      'Done.',
    ].join('\n\n'),
  );
  // No new kind of event: text only, as chat_delta.
  assert.deepEqual([...new Set(events.map((m) => m.type))].sort(), ['chat_delta', 'status_changed', 'tool_call']);
  // The model's history holds what the model said, not the lines the agent added for the person.
  const assistant = (await fake.request(4)).body.messages.filter((m) => m.role === 'assistant');
  assert.deepEqual(
    assistant.map((m) => m.content),
    ['Sure, let me do that.', null, null],
  );
});

test('a model that never stops calling tools ends the turn with AGENT_LOOP_LIMIT after 16 requests', async (t) => {
  const { fake, page, sessionId } = await setup(t);
  const seen = autoAnswer(page, () => ({ value: 0 }));
  let n = 0;
  fake.always((req, res, record) => calls(['update_counter', '{"delta":1}', `loop_${++n}`])(req, res, record));
  const from = page.mark();
  await page.ok('send_text', { sessionId, text: 'loop' });
  await page.until((m) => m.type === 'error', { from, timeout: 10_000 });
  const events = page.since(from).filter((m) => m.type !== 'response');
  const error = lastEvent(events);
  assert.equal(error.type, 'error');
  assert.equal(error.error.code, 'AGENT_LOOP_LIMIT');
  assert.equal(fake.requests.length, 16);
  assert.equal(seen.length, 15, 'the calls of the last answer are not run');
  assert.ok(!events.some((m) => m.type === 'status_changed' && m.status === 'idle'), 'no idle after the error');

  // The session stays usable, and its history stays valid (every call answered).
  fake.always(text('Finally.'));
  const next = await turn(page, sessionId, 'stop');
  assert.equal(chatText(next), 'Finally.');
  const messages = fake.requests.at(-1)!.body.messages;
  const lastCall = messages.findLast((m) => m.role === 'assistant' && m.tool_calls)!;
  const answer = messages.find((m) => m.role === 'tool' && m.tool_call_id === lastCall.tool_calls[0].id)!;
  assert.equal(JSON.parse(answer.content).error.code, 'AGENT_LOOP_LIMIT');
});

test('endpoint failures end the turn with their code and source "provider"', async (t) => {
  const { fake, page, sessionId } = await setup(t, { env: { PEDELEC_DEV_TIMEOUT_MS: '300' } });
  const cases: [label: string, handler: Handler, code: string, message: RegExp][] = [
    [
      '401',
      status(401, { error: { message: 'Invalid token', type: 'invalid_request_error' } }),
      'PROVIDER_AUTH_FAILED',
      /Invalid token/,
    ],
    ['403', status(403, 'Forbidden'), 'PROVIDER_AUTH_FAILED', /403/],
    [
      '404',
      status(404, { error: { message: 'model "test-model" not found, try pulling it first' } }),
      'PROVIDER_MODEL_NOT_FOUND',
      /not found/,
    ],
    [
      '429',
      status(429, { error: { message: 'Slow down' } }, { 'Retry-After': '7' }),
      'PROVIDER_RATE_LIMITED',
      /Slow down/,
    ],
    ['500', status(500, { error: { message: 'boom' } }), 'PROVIDER_UNAVAILABLE', /HTTP 500/],
    ['503', status(503, '<html>busy</html>'), 'PROVIDER_UNAVAILABLE', /503/],
    [
      'garbage then connection close',
      async (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify(chunk({ content: 'Half' }))}\n\n`);
        await delay(5);
        res.write('<<garbage, not an event stream>>\n%%%');
        await delay(5);
        res.socket!.destroy();
      },
      'PROVIDER_PROTOCOL_ERROR',
      /broke off/,
    ],
    [
      'data that is not JSON',
      sse(['data: {"choices": [oops\n\n'], { done: false }),
      'PROVIDER_PROTOCOL_ERROR',
      /not JSON/,
    ],
    [
      'a stream that ends without [DONE]',
      sse([chunk({ content: 'Hal' })], { done: false }),
      'PROVIDER_PROTOCOL_ERROR',
      /end marker/,
    ],
    [
      'an error inside the stream',
      sse([{ error: { message: 'overloaded' } }], { done: false }),
      'PROVIDER_UNAVAILABLE',
      /overloaded/,
    ],
    ['silence past the timeout', () => {}, 'PROVIDER_UNAVAILABLE', /did not answer within/],
  ];
  for (const [label, handler, code, message] of cases) {
    fake.reply(handler);
    const events = await turn(page, sessionId, label);
    const error = lastEvent(events);
    assert.equal(error.type, 'error', label);
    assert.equal(error.error.code, code, label);
    assert.match(error.error.message, message, label);
    assert.equal(error.source, 'provider', label);
    assert.equal(error.provider, 'openai', label);
    assert.ok(!events.some((m) => m.type === 'status_changed' && m.status === 'idle'), label);
  }
  assert.equal(fake.requests.length, cases.length);
  assert.equal(await within(fake.requests.at(-1)!.aborted), true, 'the silent request was given up');

  // An endpoint that cannot be reached at all: a loopback port nobody listens on any more.
  const port = await new Promise<number>((resolve) => {
    const server = http.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
  const core = await startCore(t, {
    protocol: '0.1',
    agent: 'openai',
    env: { PEDELEC_DEV_BASE_URL: `http://127.0.0.1:${port}/v1`, PEDELEC_DEV_MODEL: 'm' },
  });
  const page2 = await BridgeClient.open(t, core);
  const session2 = await createSession(page2, { provider: 'openai' });
  const events = await turn(page2, session2, 'hello');
  const error = lastEvent(events);
  assert.equal(error.error.code, 'PROVIDER_UNAVAILABLE');
  assert.match(error.error.message, /Cannot reach the endpoint at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  assert.equal(error.source, 'provider');
});

test('the API key never appears in anything the page receives, even when the endpoint echoes it', async (t) => {
  const { fake, page, sessionId } = await setup(t);
  const masked = `${KEY.slice(0, 5)}************${KEY.slice(-4)}`;
  fake.reply(
    status(401, { error: { message: `Incorrect API key provided: ${masked}. You passed ${KEY}.` } }),
    sse([{ error: { message: `key ${KEY} is over quota`, code: 429 } }], { done: false }),
    text('fine'),
  );
  let events = await turn(page, sessionId, 'one');
  assert.equal(lastEvent(events).error.code, 'PROVIDER_AUTH_FAILED');
  assert.match(lastEvent(events).error.message, /Incorrect API key provided/);
  events = await turn(page, sessionId, 'two');
  assert.equal(lastEvent(events).error.code, 'PROVIDER_RATE_LIMITED');
  await turn(page, sessionId, 'three');
  await page.ok('get_settings');
  await page.ok('list_providers');

  const everything = JSON.stringify(page.messages);
  assert.ok(!everything.includes(KEY), 'the key itself');
  assert.ok(!everything.includes(masked), 'a masked echo');
  assert.ok(!everything.includes(KEY.slice(-8)), 'its tail');
  assert.ok(!everything.includes(KEY.slice(0, 12)), 'its head');
  // …while the endpoint did get it, as a bearer token only.
  for (const request of fake.requests) {
    assert.equal(request.headers.authorization, `Bearer ${KEY}`);
    assert.ok(!JSON.stringify(request.body).includes(KEY));
  }
});

test('end_session aborts the upstream request', async (t) => {
  const { fake, page, sessionId } = await setup(t);
  fake.reply(async (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify(chunk({ role: 'assistant', content: 'Thinking' }))}\n\n`);
    // …and never finishes.
  });
  const from = page.mark();
  await page.ok('send_text', { sessionId, text: 'think hard' });
  await page.until((m) => m.type === 'chat_delta', { from });
  const request = await fake.request(1);
  const ended = page.mark();
  await page.ok('end_session', { sessionId });
  const aborted = await within(request.aborted);
  assert.equal(aborted, true, 'the fake endpoint saw the connection close');
  await delay(50);
  assert.deepEqual(
    page.since(ended).filter((m) => m.type !== 'response'),
    [],
    'no events after end_session',
  );

  // Ending before the response headers also aborts.
  const s2 = await createSession(page, { provider: 'openai' });
  fake.reply(() => {}); // never answers
  await page.ok('send_text', { sessionId: s2, text: 'wait' });
  const request2 = await fake.request(2);
  await page.ok('end_session', { sessionId: s2 });
  assert.equal(await within(request2.aborted), true);
});

test('a turn that failed before any answer leaves no trace in the history sent next', async (t) => {
  const { fake, page, sessionId } = await setup(t);
  fake.reply(status(500, { error: { message: 'boom' } }), text('Hello.'));
  const failed = await turn(page, sessionId, 'first try');
  assert.equal(lastEvent(failed).type, 'error');
  const events = await turn(page, sessionId, 'second try');
  assert.equal(chatText(events), 'Hello.');
  const users = (await fake.request(2)).body.messages.filter((m) => m.role === 'user').map((m) => m.content);
  assert.deepEqual(users, ['second try']);
});

test('two calls streamed at the same index with different ids are two calls', async (t) => {
  const { fake, page, sessionId } = await setup(t);
  const piece = (id: string, args: string) =>
    chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name: 'update_counter', arguments: args } }] });
  fake.reply(
    sse([chunk({ role: 'assistant' }), piece('a', '{"delta":1}'), piece('b', '{"delta":2}'), chunk({}, 'tool_calls')]),
    text('Both.'),
  );
  const seen = autoAnswer(page, (m) => ({ value: m.args.delta }));
  const events = await turn(page, sessionId, 'two');
  assert.deepEqual(
    seen.map((m) => m.args),
    [{ delta: 1 }, { delta: 2 }],
  );
  assert.equal(chatText(events), 'Both.');
  const tools = (await fake.request(2)).body.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
  assert.deepEqual(tools, ['a', 'b']);
});

test('a whole JSON answer that keeps arriving is not cut off: the timeout is a silence limit', async (t) => {
  const { fake, page, sessionId } = await setup(t, { env: { PEDELEC_DEV_TIMEOUT_MS: '300' } });
  const body = JSON.stringify({
    choices: [{ index: 0, message: { role: 'assistant', content: 'Slow but steady.' }, finish_reason: 'stop' }],
  });
  fake.reply(async (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    // Six pieces 120 ms apart: 720 ms in all, never 300 ms of silence.
    const size = Math.ceil(body.length / 6);
    for (let i = 0; i < body.length; i += size) {
      res.write(body.slice(i, i + size));
      await delay(120);
    }
    res.end();
  });
  const events = await turn(page, sessionId, 'slow');
  assert.equal(chatText(events), 'Slow but steady.');
  assert.equal(lastEvent(events).status, 'idle');
});

test('a server that ignores stream:true and answers one JSON object still works', async (t) => {
  const { fake, page, sessionId } = await setup(t);
  fake.reply(
    status(200, {
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'w1', type: 'function', function: { name: 'update_counter', arguments: '{"delta":5}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
    }),
    status(200, { choices: [{ index: 0, message: { role: 'assistant', content: 'Five.' }, finish_reason: 'stop' }] }),
  );
  const seen = autoAnswer(page, () => ({ value: 5 }));
  const events = await turn(page, sessionId, 'five');
  assert.deepEqual(
    seen.map((m) => m.args),
    [{ delta: 5 }],
  );
  assert.equal(chatText(events), 'Five.');
  assert.equal(lastEvent(events).status, 'idle');
});

test('current: a reactivated session continues its conversation: the next request carries the turns from before the end', async (t) => {
  const fake = await fakeEndpoint(t);
  const core = await startCore(t, {
    agent: 'openai',
    env: { PEDELEC_DEV_BASE_URL: fake.baseUrl, PEDELEC_DEV_MODEL: 'test-model', PEDELEC_DEV_API_KEY: KEY },
  });
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page, { provider: 'openai', autoEndOnDisconnect: false });
  fake.reply(text('First answer.'), text('Second answer.'));
  let from = page.mark();
  await page.ok('send_text', { sessionId, text: 'First question' });
  await page.turnEnd(sessionId, from);
  await page.ok('end_session', { sessionId });
  await page.ok('reactivate_session', { sessionId, autoEndOnDisconnect: false });

  from = page.mark();
  await page.ok('send_text', { sessionId, text: 'Second question' });
  await page.turnEnd(sessionId, from);
  assert.deepEqual((await fake.request(2)).body.messages, [
    { role: 'system', content: 'A counter page.' },
    { role: 'user', content: 'First question' },
    { role: 'assistant', content: 'First answer.' },
    { role: 'user', content: 'Second question' },
  ]);
});

test("current: a session with a workspace gives the model the workspace's tools; their calls run there, not on the page", async (t) => {
  const fake = await fakeEndpoint(t);
  const root = await mkdtemp(join(tmpdir(), 'pedelec-dev-openai-ws-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const core = await startCore(t, {
    agent: 'openai',
    workspaceRoot: root,
    env: { PEDELEC_DEV_BASE_URL: fake.baseUrl, PEDELEC_DEV_MODEL: 'test-model', PEDELEC_DEV_API_KEY: KEY },
  });
  const page = await BridgeClient.open(t, core);
  const { workspace } = await page.ok('open_workspace', { path: root });
  const { sessionId } = await page.ok('create_session', {
    input: { provider: 'openai', workspaceId: workspace.workspaceId, skills: skills() },
  });
  fake.reply(
    calls(['workspace_write_file', '{"path":"out/plan.md","text":"1. buy milk"}', 'w1']),
    calls(['workspace_read_file', '{"path":"out/plan.md"}', 'r1'], ['workspace_read_file', '{"path":"../x"}', 'r2']),
    text('Written and checked.'),
  );
  const events = await turn(page, sessionId, 'Write the plan.');
  assert.equal(events.filter((m) => m.type === 'tool_call').length, 0, 'no workspace call reached the page');
  assert.equal(await readFile(join(root, 'out', 'plan.md'), 'utf8'), '1. buy milk');
  const offered = (await fake.request(1)).body.tools!.map((tool) => tool.function.name);
  assert.ok(
    ['workspace_list_files', 'workspace_read_file', 'workspace_write_file', 'workspace_run_deno'].every((name) =>
      offered.includes(name),
    ),
    JSON.stringify(offered),
  );
  const results = (await fake.request(3)).body.messages.filter((m: Message) => m.role === 'tool');
  const answers = results.map((m: Message) => JSON.parse(m.content));
  assert.deepEqual(answers.slice(0, 2), [{ bytes: 11 }, { text: '1. buy milk' }]);
  assert.equal(answers[2].error.code, 'WORKSPACE_PATH_INVALID');
});
