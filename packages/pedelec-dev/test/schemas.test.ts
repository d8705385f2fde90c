// pedelec-dev takes any object schema a page sends, as the SDK and Desktop's Core (full JSON Schema)
// do: what the kit's validator leaves unvalidated (`anyOf`, `$ref`, a type array, a keyword it cannot
// use, nodes past its depth) accepts any value there, and the rest of the args is still checked
// before a call reaches the page. Pages importing the browser's WebMCP tools send such schemas.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BridgeClient, chatText, createSession, endsTurn, startCore, type Message } from './helpers.js';

/** `levels` nested objects, each with one property `a`, the innermost holding a string with a pattern. */
function deepSchema(levels: number): object {
  let node: object = { type: 'string', pattern: '^x+$' };
  for (let i = 0; i < levels; i++) node = { type: 'object', properties: { a: node } };
  return node;
}

// Wire JSON, not the kit's ToolManifest type: these schemas are outside what that type describes.
const TOOLS: Message[] = [
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
async function call(
  page: BridgeClient,
  sessionId: string,
  text: string,
): Promise<{ args?: Message; refused?: string }> {
  const from = page.mark();
  await page.ok('send_text', { sessionId, text });
  // The call reaches the page, or the turn ends without it: whichever comes first says which.
  const first = await page.until((m) => m.sessionId === sessionId && (m.type === 'tool_call' || endsTurn(m)), { from });
  if (first.type === 'tool_call') {
    await page.ok('submit_tool_result', { sessionId, toolRequestId: first.toolRequestId, result: { ok: true } });
    await page.turnEnd(sessionId, from);
    return { args: first.args };
  }
  return { refused: chatText(await page.turnEnd(sessionId, from)) };
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
    (await call(page, sessionId, '/call pick {"color": "red"}')).refused ?? '',
    /TOOL_ARGS_INVALID — n: is required/,
  );
  assert.match(
    (await call(page, sessionId, '/call pick {"n": 0}')).refused ?? '',
    /TOOL_ARGS_INVALID — n: must be ≥ 1/,
  );

  assert.deepEqual(await call(page, sessionId, '/call odd {"x": 1, "y": [], "z": "q"}'), {
    args: { x: 1, y: [], z: 'q' },
  });
  assert.match(
    (await call(page, sessionId, '/call odd {"k": "yes"}')).refused ?? '',
    /TOOL_ARGS_INVALID — k: must be a boolean/,
  );

  // Nested past the validator's depth: accepted, checked as deep as it validates, never a crash.
  let args = 'true';
  for (let i = 0; i < 100; i++) args = `{"a": ${args}}`;
  assert.ok((await call(page, sessionId, `/call deep ${args}`)).args);
  assert.match(
    (await call(page, sessionId, '/call deep {"a": 1}')).refused ?? '',
    /TOOL_ARGS_INVALID — a: must be an object/,
  );
});
