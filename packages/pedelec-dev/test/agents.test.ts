// Agents of pedelec-dev (dev-core.md "Agents"), found in review; each test failed before its fix: the openai
// agent keeps tool-call arguments in its history as JSON (endpoints that parse the history refuse
// anything else), splits whole calls sent together without index or id, and the scripted agent's
// example calls pass their tool's schema. A fake OpenAI-compatible endpoint on loopback; bounded waits.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ToolManifest } from '../src/agents/types.js';
import { BridgeClient, chatText, createSession, delay, startCore, type Message } from './helpers.js';

/** A request the fake endpoint got: its JSON body. */
type Recorded = { body: Message };
/** How the fake endpoint answers one request. */
type Handler = (req: IncomingMessage, res: ServerResponse, record: Recorded) => unknown;

const status =
  (code: number, body: unknown): Handler =>
  (_req, res) => {
    res.writeHead(code, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };
async function fakeEndpoint(t: TestContext) {
  const requests: Recorded[] = [];
  const queue: Handler[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const record: Recorded = { body: JSON.parse(Buffer.concat(chunks).toString()) };
      requests.push(record);
      const handler = queue.shift() ?? status(500, { error: { message: 'no reply scripted' } });
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
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests, reply: (...h: Handler[]) => queue.push(...h) };
}
const chunk = (delta: object, finish: string | null = null) => ({
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const sse =
  (events: object[]): Handler =>
  async (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    for (const e of events) {
      res.write(`data: ${JSON.stringify(e)}\n\n`);
      await delay(2);
    }
    res.end('data: [DONE]\n\n');
  };
const text = (s: string) => sse([chunk({ role: 'assistant', content: s }), chunk({}, 'stop')]);
const oneCall = (name: string, args: string, id: string) =>
  sse([
    chunk({ role: 'assistant', tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: args } }] }),
    chunk({}, 'tool_calls'),
  ]);
/** Like Ollama's and vLLM's /v1: a history tool call whose arguments are not JSON is a 400. */
const strictHistory =
  (handler: Handler): Handler =>
  (req, res, record) => {
    const bad = record.body.messages.some((m: Message) =>
      (m.tool_calls ?? []).some((c: Message) => {
        try {
          JSON.parse(c.function.arguments);
          return false;
        } catch {
          return true;
        }
      }),
    );
    return bad
      ? status(400, { error: { message: 'invalid tool call arguments' } })(req, res, record)
      : handler(req, res, record);
  };
async function setup(t: TestContext, { agent = 'openai', tools }: { agent?: string; tools?: ToolManifest[] } = {}) {
  const fake = await fakeEndpoint(t);
  const core = await startCore(t, {
    agent,
    env: { PEDELEC_DEV_BASE_URL: fake.baseUrl, PEDELEC_DEV_MODEL: 'test-model' },
  });
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page, { provider: agent, ...(tools && { skills: { guidance: 'g', tools } }) });
  return { fake, page, sessionId };
}
function autoAnswer(page: BridgeClient, result: (call: Message) => unknown) {
  const seen: Message[] = [];
  page.socket.on('message', (data) => {
    const m = JSON.parse(data.toString()) as Message;
    if (m.type !== 'tool_call') return;
    seen.push(m);
    page.sendRaw({
      channelId: page.channelId,
      type: 'submit_tool_result',
      requestId: `a_${m.toolRequestId}`,
      sessionId: m.sessionId,
      toolRequestId: m.toolRequestId,
      result: result(m),
    });
  });
  return seen;
}
async function turn(page: BridgeClient, sessionId: string, message: string) {
  const from = page.mark();
  await page.ok('send_text', { sessionId, text: message });
  return page.turnEnd(sessionId, from);
}

test('malformed tool-call arguments are not echoed verbatim into the history (Ollama/vLLM then answer 400)', async (t) => {
  const { fake, page, sessionId } = await setup(t);
  fake.reply(oneCall('update_counter', '{"delta": 2', 'bad1'), strictHistory(text('Sorry, fixed.')));
  const events = await turn(page, sessionId, 'go');
  assert.equal(events.at(-1)!.success, true, JSON.stringify(events.at(-1)));
  assert.match(chatText(events), /\(TOOL_ARGS_INVALID\)\n\nSorry, fixed\.$/);
});

test('a call sent with empty arguments ("") is stored in the history as JSON', async (t) => {
  const tools: ToolManifest[] = [
    { name: 'reset', description: 'Reset.', argsSchema: { type: 'object', properties: {} } },
  ];
  const { fake, page, sessionId } = await setup(t, { tools });
  autoAnswer(page, () => ({ done: true }));
  fake.reply(oneCall('reset', '', 'r1'), strictHistory(text('Reset.')));
  const events = await turn(page, sessionId, 'reset');
  assert.equal(events.at(-1)!.success, true, JSON.stringify(events.at(-1)));
  assert.equal(chatText(events), 'Reset.');
});

test('two whole calls in one chunk without index or id are two calls, not one merged call', async (t) => {
  const { fake, page, sessionId } = await setup(t);
  const seen = autoAnswer(page, (m) => ({ value: m.args.delta }));
  const whole = (delta: number) => ({
    type: 'function',
    function: { name: 'update_counter', arguments: JSON.stringify({ delta }) },
  });
  fake.reply(
    sse([chunk({ role: 'assistant', tool_calls: [whole(1), whole(2)] }), chunk({}, 'tool_calls')]),
    text('Both.'),
  );
  const events = await turn(page, sessionId, 'two');
  assert.deepEqual(
    seen.map((m) => m.args),
    [{ delta: 1 }, { delta: 2 }],
  );
  assert.equal(chatText(events), 'Both.');
});

test("scripted: the example call /tools shows for a tool passes that tool's schema", async (t) => {
  const tool: ToolManifest = {
    name: 'tag_items',
    description: 'Tag some items.',
    argsSchema: {
      type: 'object',
      properties: {
        code: { type: 'string', minLength: 6 },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
        level: { type: 'integer', minimum: -5, maximum: 0 },
      },
      required: ['code', 'tags', 'level'],
    },
  };
  const { page, sessionId } = await setup(t, { agent: 'scripted', tools: [tool] });
  const listing = chatText(await turn(page, sessionId, '/tools'));
  const example = /Example: (\/call .*)$/m.exec(listing)?.[1];
  assert.ok(example, listing);
  const seen = autoAnswer(page, () => ({ ok: true }));
  const reply = chatText(await turn(page, sessionId, example));
  assert.equal(seen.length, 1, `${example} → ${reply}`);
});
