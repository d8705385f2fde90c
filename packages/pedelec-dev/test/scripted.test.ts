// The scripted agent's rules file and replies: clear errors for bad files, templating, streaming.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DevCoreError, loadScriptFile, parseScript, pieces } from '../src/index.js';
import { BridgeClient, chatText, createSession, skills, startCore, startCoreChild } from './helpers.js';

test('a bad rules document is refused with the path of the problem', () => {
  const cases: [unknown, RegExp][] = [
    [[], /must be a JSON object/],
    [{}, /rules: must be an array/],
    [{ rules: [{ steps: [{ say: 'x' }] }] }, /rules\[0\]\.match: must be \{"regex"/],
    [
      { rules: [{ match: { regex: '(' }, steps: [{ say: 'x' }] }] },
      /rules\[0\]\.match\.regex: is not a valid regular expression/,
    ],
    [{ rules: [{ match: { regex: 'a' }, steps: [] }] }, /rules\[0\]\.steps: must be a non-empty array/],
    [
      { rules: [{ match: { regex: 'a' }, steps: [{ say: 'x', call: 'y' }] }] },
      /rules\[0\]\.steps\[0\]: must have exactly one of/,
    ],
    [
      { rules: [{ match: { regex: 'a' }, steps: [{ call: 'y', args: [1] }] }] },
      /rules\[0\]\.steps\[0\]\.args: must be an object/,
    ],
    [{ rules: [{ match: { regex: 'a' }, steps: [{ say: 3 }] }] }, /steps\[0\]\.say: must be a string/],
  ];
  for (const [doc, message] of cases) {
    assert.throws(
      () => parseScript(doc, 'rules.json'),
      (error) =>
        error instanceof DevCoreError &&
        error.code === 'SCRIPT_INVALID' &&
        message.test(error.message) &&
        error.message.startsWith('rules.json'),
    );
  }
});

test('loadScriptFile names the file for unreadable or non-JSON files', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'pedelec-dev-script-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const broken = join(dir, 'broken.json');
  await writeFile(broken, '{"rules": [');
  assert.throws(() => loadScriptFile(broken), /broken\.json: is not valid JSON/);
  assert.throws(() => loadScriptFile(join(dir, 'missing.json')), /missing\.json: cannot be read \(ENOENT\)/);
  const good = join(dir, 'good.json');
  await writeFile(good, JSON.stringify({ rules: [{ match: { regex: 'hi' }, steps: [{ say: 'hello' }] }] }));
  assert.equal(loadScriptFile(good).rules.length, 1);
});

test('replies are split into several pieces that join back exactly', () => {
  const text = "I'm the scripted development agent: I follow commands,  not conversation.\nSecond line.";
  const parts = pieces(text);
  assert.ok(parts.length >= 4);
  assert.equal(parts.join(''), text);
  assert.deepEqual(pieces(''), []);
  assert.deepEqual(pieces('one'), ['one']);
});

test('the spec example rule runs, with {{result.value}}, and whole-template args keep their JSON type', async (t) => {
  const script = parseScript({
    rules: [
      {
        match: { regex: 'count' },
        steps: [{ say: 'Counting…' }, { call: 'update_counter', args: { delta: 1 } }, { say: ' Now {{result.value}}' }],
      },
      {
        match: { regex: 'add (\\w+)' },
        steps: [
          { call: 'add_todo', args: { text: '{{match.1}}', tags: ['from {{text}}'] } },
          { call: 'echo', args: { item: '{{result}}', missing: '{{nothing.here}}' } },
          { say: 'Added #{{results.0.id}}; echo saw {{result.item.text}}; missing={{nothing}}.' },
        ],
      },
    ],
  });
  const core = await startCore(t, { script });
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page, {
    skills: skills(
      {
        name: 'add_todo',
        description: 'Add.',
        argsSchema: {
          type: 'object',
          properties: { text: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
          required: ['text'],
        },
      },
      { name: 'echo', description: 'Echo.', argsSchema: { type: 'object' } },
    ),
  });

  let from = page.mark();
  await page.ok('send_text', { sessionId, text: 'count please' });
  let call = await page.until((m) => m.type === 'tool_call', { from });
  await page.ok('submit_tool_result', { sessionId, toolRequestId: call.toolRequestId, result: { value: 7 } });
  let events = await page.turnEnd(sessionId, from);
  assert.equal(chatText(events), 'Counting… Now 7');

  from = page.mark();
  await page.ok('send_text', { sessionId, text: 'add milk' });
  call = await page.until((m) => m.type === 'tool_call' && m.tool === 'add_todo', { from });
  assert.deepEqual(call.args, { text: 'milk', tags: ['from add milk'] });
  await page.ok('submit_tool_result', {
    sessionId,
    toolRequestId: call.toolRequestId,
    result: { id: 3, text: 'milk' },
  });
  call = await page.until((m) => m.type === 'tool_call' && m.tool === 'echo', { from });
  assert.deepEqual(call.args, { item: { id: 3, text: 'milk' }, missing: null });
  await page.ok('submit_tool_result', { sessionId, toolRequestId: call.toolRequestId, result: call.args });
  events = await page.turnEnd(sessionId, from);
  assert.equal(chatText(events), 'Added #3; echo saw milk; missing=.');
});

test('a rule with the g or y flag matches every message, not every other one', async (t) => {
  const script = parseScript({
    rules: [
      { match: { regex: 'count', flags: 'gi' }, steps: [{ say: 'RULE' }] },
      { match: { regex: 'x', flags: 'y' }, steps: [{ say: 'STICKY' }] },
    ],
  });
  const core = await startCore(t, { script });
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);
  for (const [message, reply] of [
    ['count', 'RULE'],
    ['count', 'RULE'],
    ['Count', 'RULE'],
    ['x', 'STICKY'],
    ['x', 'STICKY'],
  ]) {
    const from = page.mark();
    await page.ok('send_text', { sessionId, text: message });
    assert.equal(chatText(await page.turnEnd(sessionId, from)), reply, message);
  }
});

test('the default reply names the tools and shows a /call that would pass validation; bad /call JSON is explained', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);
  let from = page.mark();
  await page.ok('send_text', { sessionId, text: 'what can you do?' });
  let events = await page.turnEnd(sessionId, from);
  assert.ok(events.filter((m) => m.type === 'chat_delta').length > 3, 'streamed in several deltas');
  const reply = chatText(events);
  assert.match(reply, /update_counter/);
  assert.match(reply, /\/tools/);
  assert.match(reply, /\/call update_counter \{"delta":1\}/);

  from = page.mark();
  await page.ok('send_text', { sessionId, text: '/call update_counter {delta: 1}' });
  events = await page.turnEnd(sessionId, from);
  assert.match(chatText(events), /could not read the arguments as JSON/);
  assert.ok(!events.some((m) => m.type === 'tool_call'));
});

/** Five arrays nested, each asking for at least 100 items: 271 bytes that ask for 100⁵ sample items. */
const NESTED_MIN_ITEMS = (() => {
  const nest = (levels: number): object =>
    levels === 0 ? { type: 'string' } : { type: 'array', minItems: 100, items: nest(levels - 1) };
  return { type: 'object', properties: { a: nest(5) }, required: ['a'] };
})();

test('finding 1: help for a 271-byte schema of nested minItems arrays stays short; the Core keeps answering', async (t) => {
  assert.equal(JSON.stringify(NESTED_MIN_ITEMS).length, 271);
  // In a process of its own with a 64 MiB heap: before the bound, "hello" took it down (out of memory).
  const core = await startCoreChild(t);
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page, {
    skills: {
      guidance: '',
      tools: [
        { name: 'nested', description: 'Nested arrays.', argsSchema: NESTED_MIN_ITEMS },
        {
          name: 'long_text',
          description: 'A long string.',
          argsSchema: {
            type: 'object',
            properties: { text: { type: 'string', minLength: 1_000_000_000 } },
            required: ['text'],
          },
        },
      ],
    },
  });
  for (const text of ['hello', '/tools']) {
    const from = page.mark();
    await page.ok('send_text', { sessionId, text });
    const reply = chatText(await page.turnEnd(sessionId, from));
    assert.ok(reply.length < 6000, `${text}: ${reply.length} characters`);
    assert.match(reply, /\/call nested \{"a":\[\[\[\[\["text"/, text);
    assert.match(reply, /example shortened/, text);
  }
  const other = await BridgeClient.open(t, core);
  assert.equal((await other.ok('get_approval_status')).approved, true);
  assert.equal(core.exit, null, 'the Core is still running');
});

/** `/session`'s answer in a session created with `input` (over the helper's), read back as the object it prints. */
async function sessionSettingsOf(page: BridgeClient, input: Record<string, unknown>) {
  const { sessionId } = await page.ok('create_session', { callerSdkVersion: '0.4.6', input });
  const from = page.mark();
  await page.ok('send_text', { sessionId, text: '/session' });
  const reply = chatText(await page.turnEnd(sessionId, from));
  assert.match(reply, /^Session settings: \{/);
  return JSON.parse(reply.slice('Session settings: '.length)) as Record<string, unknown>;
}

test('/session answers the settings the session was made with: provider, model or "profile", effortLevel and effort (null when not set)', async (t) => {
  const page = await BridgeClient.open(t, await startCore(t));
  const cases: [Record<string, unknown>, Record<string, unknown>][] = [
    [{ provider: 'codex' }, { provider: 'codex', model: 'profile', effortLevel: 'default', effort: null }],
    [
      { provider: 'claude', effortLevel: 'high' },
      { provider: 'claude', model: 'profile', effortLevel: 'high', effort: null },
    ],
    [
      { provider: 'codex', model: ' gpt-5 ', effort: 'xhigh' },
      { provider: 'codex', model: 'gpt-5', effortLevel: null, effort: 'xhigh' },
    ],
    [{ model: 'llama3' }, { provider: 'scripted', model: 'llama3', effortLevel: null, effort: null }],
  ];
  for (const [input, expected] of cases) {
    assert.deepEqual(
      await sessionSettingsOf(page, { autoEndOnDisconnect: true, ...input }),
      expected,
      JSON.stringify(input),
    );
  }
});

test('0.1: /session shows the model and effort level as the page passed them', async (t) => {
  const page = await BridgeClient.open(t, await startCore(t, { protocol: '0.1' }));
  assert.deepEqual(await sessionSettingsOf(page, { provider: 'codex', model: 'gpt-5', effortLevel: 'high' }), {
    provider: 'codex',
    model: 'gpt-5',
    effortLevel: 'high',
    effort: null,
  });
  assert.deepEqual(await sessionSettingsOf(page, { provider: 'codex' }), {
    provider: 'codex',
    model: 'profile',
    effortLevel: null,
    effort: null,
  });
});

test("the scripted agent's help mentions /session", async (t) => {
  const page = await BridgeClient.open(t, await startCore(t));
  const sessionId = await createSession(page);
  const from = page.mark();
  await page.ok('send_text', { sessionId, text: 'hello?' });
  assert.match(
    chatText(await page.turnEnd(sessionId, from)),
    /\/session to see the settings this session was created with/,
  );
});
