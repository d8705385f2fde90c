// pedelec-dev takes any object schema a page sends, as the SDK and Desktop's Core (full JSON Schema)
// do: what the kit's validator leaves unvalidated (`anyOf`, `$ref`, a type array, a keyword it cannot
// use, nodes past its depth) accepts any value there, and the rest of the args is still checked
// before a call reaches the page. Pages importing the browser's WebMCP tools send such schemas.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BridgeClient, chatText, createSession, startCore } from './helpers.mjs';

/** `levels` nested objects, each with one property `a`, the innermost holding a string with a pattern. */
function deepSchema(levels) {
  let node = { type: 'string', pattern: '^x+$' };
  for (let i = 0; i < levels; i++) node = { type: 'object', properties: { a: node } };
  return node;
}

const TOOLS = [
  {
    name: 'pick',
    description: 'A form as the browser describes it.',
    argsSchema: {
      type: 'object',
      properties: {
        color: {
          anyOf: [
            { const: 'red', title: 'Red' },
            { const: 'blue', title: 'Blue' },
          ],
        },
        year: { type: 'number', multipleOf: 1 },
        when: { type: 'string', format: 'date' },
        n: { type: 'integer', minimum: 1 },
      },
      required: ['n'],
    },
  },
  {
    name: 'odd',
    description: 'Keywords the kit cannot use.',
    argsSchema: {
      type: 'object',
      $defs: { y: { type: 'string' } },
      properties: {
        x: { type: ['string', 'null'] },
        y: { $ref: '#/$defs/y' },
        z: { type: 'integer', minimum: '3' },
        k: { type: 'boolean' },
      },
    },
  },
  { name: 'deep', description: 'Nested past the validated depth.', argsSchema: deepSchema(100) },
];

/** Sends `/call`, and resolves with the call the page got (answered `{ ok: true }`) or the refusal the agent read. */
async function call(page, sessionId, text) {
  const from = page.mark();
  await page.ok('send_text', { sessionId, text });
  const reached = page
    .until((m) => m.type === 'tool_call' && m.sessionId === sessionId, { from })
    .then(
      async (m) => {
        await page.ok('submit_tool_result', { sessionId, toolRequestId: m.toolRequestId, result: { ok: true } });
        return { args: m.args };
      },
      () => null,
    );
  const reply = chatText(await page.turnEnd(sessionId, from));
  return (await reached) ?? { refused: reply };
}

test('schemas outside the validated subset are accepted; what can be validated still is', async (t) => {
  const core = await startCore(t);
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page, { skills: { guidance: '', tools: TOOLS } });

  // Unvalidated nodes accept any value; validated siblings are checked.
  assert.deepEqual(await call(page, sessionId, '/call pick {"color": 42, "year": 1.5, "n": 2}'), {
    args: { color: 42, year: 1.5, n: 2 },
  });
  assert.match(
    (await call(page, sessionId, '/call pick {"color": "red"}')).refused,
    /TOOL_ARGS_INVALID — n: is required/,
  );
  assert.match((await call(page, sessionId, '/call pick {"n": 0}')).refused, /TOOL_ARGS_INVALID — n: must be ≥ 1/);

  assert.deepEqual(await call(page, sessionId, '/call odd {"x": 1, "y": [], "z": "q"}'), {
    args: { x: 1, y: [], z: 'q' },
  });
  assert.match(
    (await call(page, sessionId, '/call odd {"k": "yes"}')).refused,
    /TOOL_ARGS_INVALID — k: must be a boolean/,
  );

  // Nested past the validator's depth: accepted, checked as deep as it validates, never a crash.
  let args = 'true';
  for (let i = 0; i < 100; i++) args = `{"a": ${args}}`;
  assert.ok((await call(page, sessionId, `/call deep ${args}`)).args);
  assert.match(
    (await call(page, sessionId, '/call deep {"a": 1}')).refused,
    /TOOL_ARGS_INVALID — a: must be an object/,
  );
});
