// pedelec-dev --mcp: a consequential page tool runs only once a person approved the call, on a surface
// the calling agent does not drive (agents-2026.md §3): the MCP client's user through elicitation
// (2025 era) or input_required (2026-07-28), else the operator (--mcp-approval prompt), else nobody
// (TOOL_APPROVAL_UNAVAILABLE). Each rule is tested with the 2.x SDK client pinned to 2026-07-28 and with
// the 1.x SDK client (2025 era); the page is a scripted socket (helpers.ts), so what it hears is exact.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { WebSocket, type RawData } from 'ws';
import type { DevCore, DevCoreOptions } from '../src/index.js';
import { CLIENT_QUESTION_TTL_MS, ClientQuestions, MAX_CLIENT_QUESTIONS } from '../src/mcp/call-approval.js';
import { ADD, LinkPage, PAGE_ORIGIN, rawHttp, startCore, untilAnswer, type LinkTool, type Message } from './helpers.js';

const TOKEN = 'test-token-0123456789abcdef';
const MODERN = '2026-07-28';
const ERAS = ['modern', 'legacy'] as const;
type Era = (typeof ERAS)[number];

/** A tool a person must approve. */
const PAY: LinkTool = {
  name: 'pay',
  description: 'Pays an amount',
  inputSchema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
  consequential: true,
};

/** The page's answer: what it was asked to pay and who approved it, or the sum. */
const answerOf = (call: Message): Message =>
  call.tool === 'pay'
    ? { ok: true, result: { paid: call.args.amount } }
    : { ok: true, result: { sum: call.args.a + call.args.b } };

/** The user's answer to an approval question, as the client's elicitation handler returns it. */
type UserAnswer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string> };

type ApprovalTestClient = {
  listTools(): Promise<Tool[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** The elicitation requests' params the client got, in order. */
  asked: Message[];
};

/**
 * A client of `era`; with `user`, it declares form elicitation and answers each question with what
 * `user` returns for it; without, it declares none.
 */
async function approvalClient(
  t: TestContext,
  core: DevCore,
  era: Era,
  user?: (params: Message) => UserAnswer,
): Promise<ApprovalTestClient> {
  const url = new URL(core.mcpUrl!);
  const requestInit = { headers: { Authorization: `Bearer ${TOKEN}` } };
  const capabilities = user ? { elicitation: { form: {} } } : {};
  const asked: Message[] = [];
  const answer = (params: Message) => {
    asked.push(params);
    return user!(params);
  };
  if (era === 'modern') {
    const client = new ModernClient(
      { name: 'approval-test', version: '1.0.0' },
      { capabilities, versionNegotiation: { mode: { pin: MODERN } } },
    );
    if (user) client.setRequestHandler('elicitation/create', (request) => answer(request.params as Message));
    await client.connect(new ModernTransport(url, { requestInit }));
    t.after(() => client.close());
    return {
      listTools: async () => (await client.listTools()).tools as unknown as Tool[],
      callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
      asked,
    };
  }
  const client = new Client({ name: 'approval-test', version: '1.0.0' }, { capabilities });
  if (user) client.setRequestHandler(ElicitRequestSchema, (request) => answer(request.params as Message));
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  t.after(() => client.close());
  return {
    listTools: async () => (await client.listTools()).tools,
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    asked,
  };
}

const mcpCore = (t: TestContext, options: DevCoreOptions = {}) =>
  startCore(t, { mcp: true, mcpToken: TOKEN, ...options });

/** A page offering `pay` (consequential) and `add`, and a client that has listed them. */
async function payingPage(t: TestContext, core: DevCore, era: Era, user?: (params: Message) => UserAnswer) {
  const page = await LinkPage.open(t, core, { title: 'Shop', tools: [ADD, PAY], answer: answerOf });
  const client = await approvalClient(t, core, era, user);
  await untilAnswer(
    () => client.listTools(),
    (tools) => tools.length === 3,
    (tools) => `the page's tools; listed: ${JSON.stringify(tools?.map((tool) => tool.name))}`,
    { timeoutMs: 5000, everyMs: 20 },
  );
  return { page, client };
}

/** The calls a page was sent, as [tool, args, approvedBy]. */
const callsTo = (page: LinkPage) =>
  page.frames.filter((f) => f.type === 'call').map((f) => [f.tool, f.args, f.approvedBy]);

/**
 * A call of `add` the page answers, after `refused`: the page hears frames in the order they were sent,
 * so once it has answered this one, any frame of the refused calls would have come before it.
 */
async function pageHeardOnlyAdd(page: LinkPage, client: ApprovalTestClient): Promise<void> {
  assert.deepEqual((await client.callTool('add', { a: 1, b: 1 })).structuredContent, { sum: 2 });
  assert.deepEqual(callsTo(page), [['add', { a: 1, b: 1 }, undefined]]);
}

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const errorOf = (result: CallToolResult) => result.structuredContent?.error as Message;

/** The inspector's approval prompts, each awaited as it comes, and the operator's answers to them. */
async function operatorOf(t: TestContext, core: DevCore) {
  const socket = new WebSocket(
    `${core.url.replace(/^http/, 'ws')}/_pedelec/inspector/socket?token=${core.inspectorToken}`,
    { origin: core.url },
  );
  t.after(() => socket.close());
  const prompts: Message[] = [];
  let prompted: (() => void) | undefined;
  socket.on('message', (data: RawData) => {
    const message = JSON.parse(data.toString()) as Message;
    if (message.type !== 'approval_requested') return;
    prompts.push(message.prompt);
    prompted?.();
  });
  await new Promise((resolve) => socket.once('open', resolve));
  return {
    prompts,
    /** Resolves with the `count`th prompt, once it has come. */
    prompt: (count: number) =>
      new Promise<Message>((resolve) => {
        prompted = () => prompts[count - 1] && resolve(prompts[count - 1]!);
        prompted();
      }),
    answer: (id: string, approved: boolean) => socket.send(JSON.stringify({ type: 'approve', id, approved })),
  };
}

for (const era of ERAS) {
  test(`${era}: a consequential tool is listed with destructiveHint, never readOnlyHint; a non-boolean flag leaves it out`, async (t) => {
    const core = await mcpCore(t);
    const tools: LinkTool[] = [
      ADD,
      { ...PAY, readOnly: true },
      { ...PAY, name: 'unclear', consequential: 'yes' as unknown as boolean },
    ];
    await LinkPage.open(t, core, { tools });
    const client = await approvalClient(t, core, era);
    const listed = await untilAnswer(
      () => client.listTools(),
      (list) => list.length === 3,
      (list) => `two page tools; listed: ${JSON.stringify(list?.map((tool) => tool.name))}`,
      { timeoutMs: 5000, everyMs: 20 },
    );
    const annotations = Object.fromEntries(listed.map((tool) => [tool.name, tool.annotations]));
    assert.deepEqual(annotations, {
      add: { readOnlyHint: true },
      pay: { destructiveHint: true },
      pedelec_pages: { readOnlyHint: true },
    });
  });
}

for (const era of ERAS) {
  test(`${era}: a client with elicitation asks its user; an approval runs that call, approvedBy mcp-client`, async (t) => {
    const core = await mcpCore(t);
    const { page, client } = await payingPage(t, core, era, () => ({
      action: 'accept',
      content: { decision: 'approve' },
    }));
    const result = await client.callTool('pay', { amount: 5 });
    assert.deepEqual(result.structuredContent, { paid: 5 });
    assert.deepEqual(callsTo(page), [['pay', { amount: 5 }, 'mcp-client']]);
    // The user was shown the tool, the page it runs in and the arguments, in a form.
    assert.equal(client.asked.length, 1);
    const [question] = client.asked;
    assert.equal(question!.mode, 'form');
    assert.match(question!.message, /\bpay\b/);
    assert.ok(question!.message.includes(`${PAGE_ORIGIN} “Shop”`), question!.message);
    assert.ok(question!.message.includes('{"amount":5}'), question!.message);
    assert.deepEqual(question!.requestedSchema.properties.decision.enum, ['approve', 'reject']);
    assert.deepEqual(question!.requestedSchema.required, ['decision']);
    // Each call is asked on its own.
    assert.deepEqual((await client.callTool('pay', { amount: 7 })).structuredContent, { paid: 7 });
    assert.equal(client.asked.length, 2);
  });
}

for (const era of ERAS) {
  test(`${era}: the client's user rejects with a reason, declines or dismisses: TOOL_APPROVAL_REJECTED, and the page hears no call`, async (t) => {
    const core = await mcpCore(t);
    const answers: UserAnswer[] = [
      { action: 'accept', content: { decision: 'reject', reason: 'Too much' } },
      { action: 'decline' },
      { action: 'cancel' },
    ];
    const { page, client } = await payingPage(t, core, era, () => answers.shift()!);
    const rejected = await client.callTool('pay', { amount: 500 });
    assert.equal(rejected.isError, true);
    assert.equal(
      textOf(rejected),
      "TOOL_APPROVAL_REJECTED: The MCP client's user did not approve this call (rejected): Too much",
    );
    assert.deepEqual(errorOf(rejected).details, { reason: 'Too much' });
    assert.equal(errorOf(rejected).source, 'pedelec-dev');
    const declined = await client.callTool('pay', { amount: 500 });
    assert.equal(
      textOf(declined),
      "TOOL_APPROVAL_REJECTED: The MCP client's user did not approve this call (declined)",
    );
    const dismissed = await client.callTool('pay', { amount: 500 });
    assert.match(textOf(dismissed), /^TOOL_APPROVAL_REJECTED: .*\(dismissed the question\)$/);
    assert.equal(client.asked.length, 3);
    await pageHeardOnlyAdd(page, client);
  });
}

for (const era of ERAS) {
  test(`${era}: a client without elicitation falls back to the operator under --mcp-approval prompt: approvedBy operator, a refusal TOOL_APPROVAL_REJECTED`, async (t) => {
    const core = await mcpCore(t, { mcpApproval: 'prompt' });
    const operator = await operatorOf(t, core);
    const { page, client } = await payingPage(t, core, era);
    const refused = client.callTool('pay', { amount: 500 });
    const first = await operator.prompt(1);
    assert.deepEqual([first.call.tool, first.call.args], ['pay', '{"amount":500}']);
    operator.answer(first.id, false);
    const result = await refused;
    assert.equal(result.isError, true);
    assert.equal(textOf(result), 'TOOL_APPROVAL_REJECTED: The operator did not approve this call');
    const approved = client.callTool('pay', { amount: 5 });
    operator.answer((await operator.prompt(2)).id, true);
    assert.deepEqual((await approved).structuredContent, { paid: 5 });
    // A tool that is not consequential is approved by the operator as before, and carries no approver.
    const added = client.callTool('add', { a: 1, b: 1 });
    operator.answer((await operator.prompt(3)).id, true);
    assert.deepEqual((await added).structuredContent, { sum: 2 });
    assert.deepEqual(callsTo(page), [
      ['pay', { amount: 5 }, 'operator'],
      ['add', { a: 1, b: 1 }, undefined],
    ]);
  });
}

for (const era of ERAS) {
  test(`${era}: a client without elicitation, and no --mcp-approval prompt: TOOL_APPROVAL_UNAVAILABLE at once, and the page hears nothing`, async (t) => {
    const core = await mcpCore(t);
    const { page, client } = await payingPage(t, core, era);
    const result = await client.callTool('pay', { amount: 5 });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /^TOOL_APPROVAL_UNAVAILABLE: pay needs a person's approval for each call/);
    assert.match(textOf(result), /an MCP client that supports elicitation/);
    assert.match(textOf(result), /--mcp-approval prompt/);
    assert.equal(errorOf(result).source, 'pedelec-dev');
    await pageHeardOnlyAdd(page, client);
  });
}

for (const era of ERAS) {
  test(`${era}: under --mcp-approval prompt, the approval of a client with elicitation is enough: the operator is not asked again`, async (t) => {
    const core = await mcpCore(t, { mcpApproval: 'prompt' });
    const operator = await operatorOf(t, core);
    const { page, client } = await payingPage(t, core, era, () => ({
      action: 'accept',
      content: { decision: 'approve' },
    }));
    assert.deepEqual((await client.callTool('pay', { amount: 5 })).structuredContent, { paid: 5 });
    assert.deepEqual(operator.prompts, []);
    // Other tools still wait for the operator, and the client's user is not asked about them.
    const added = client.callTool('add', { a: 2, b: 2 });
    operator.answer((await operator.prompt(1)).id, true);
    assert.deepEqual((await added).structuredContent, { sum: 4 });
    assert.equal(client.asked.length, 1);
    assert.deepEqual(callsTo(page), [
      ['pay', { amount: 5 }, 'mcp-client'],
      ['add', { a: 2, b: 2 }, undefined],
    ]);
  });
}

/** A 2026-07-28 `tools/call` as raw HTTP, from a client that declares form elicitation. */
async function rawCall(core: DevCore, args: Message, retry?: { requestState: string; decision: string }) {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  };
  const answer = retry && {
    requestState: retry.requestState,
    inputResponses: { approval: { action: 'accept', content: { decision: retry.decision } } },
  };
  const params = { name: 'pay', arguments: args, ...answer, _meta };
  const response = await rawHttp(core, '/mcp', {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${TOKEN}`,
      'MCP-Protocol-Version': MODERN,
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'pay',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
  });
  return JSON.parse(response.body) as Message;
}

test('modern: an answer runs only the call it was asked about, once: other arguments, a replay or a made-up state run nothing', async (t) => {
  const core = await mcpCore(t);
  const { page } = await payingPage(t, core, 'modern');
  const asked = await rawCall(core, { amount: 5 });
  assert.equal(asked.result.resultType, 'input_required');
  assert.equal(asked.result.inputRequests.approval.method, 'elicitation/create');
  const { requestState } = asked.result as { requestState: string };
  const invalid = { code: -32602, message: 'Invalid or expired requestState' };
  const other = await rawCall(core, { amount: 500 }, { requestState, decision: 'approve' });
  assert.deepEqual([other.error?.code, other.error?.message], [invalid.code, invalid.message]);
  // The question was taken by that retry: its answer cannot run the call it was about either.
  const late = await rawCall(core, { amount: 5 }, { requestState, decision: 'approve' });
  assert.equal(late.error?.code, invalid.code);
  const madeUp = await rawCall(core, { amount: 5 }, { requestState: 'x'.repeat(32), decision: 'approve' });
  assert.equal(madeUp.error?.code, invalid.code);

  const again = (await rawCall(core, { amount: 5 })).result as { requestState: string };
  const ran = await rawCall(core, { amount: 5 }, { requestState: again.requestState, decision: 'approve' });
  assert.deepEqual(ran.result.structuredContent, { paid: 5 });
  const replay = await rawCall(core, { amount: 5 }, { requestState: again.requestState, decision: 'approve' });
  assert.equal(replay.error?.code, invalid.code);
  assert.deepEqual(callsTo(page), [['pay', { amount: 5 }, 'mcp-client']]);
});

test('a question to a client’s user is answered once, expires, and the oldest makes room past the bound', async () => {
  let now = 0;
  const questions = new ClientQuestions(() => now);
  const call = { client: 'c', name: 'pay', target: null as never, args: {} };
  const answered = questions.ask(call);
  assert.equal((await questions.verify(answered)).name, 'pay');
  await assert.rejects(questions.verify(answered), /names no open question/);
  const expiring = questions.ask(call);
  now += CLIENT_QUESTION_TTL_MS;
  assert.equal(questions.take(expiring), undefined);
  const states = Array.from({ length: MAX_CLIENT_QUESTIONS + 1 }, () => questions.ask(call));
  assert.equal(questions.take(states[0]!), undefined);
  assert.equal(questions.take(states[1]!)?.name, 'pay');
});
