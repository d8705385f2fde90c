// `pedelec-dev mcp`, the stdio relay, and consequential tools (agents-2026.md §3): a desktop client that
// starts the relay and shows forms is asked to approve, as over HTTP — the relay passes the server's
// question to it and its user's answer back — in both eras: the 1.x SDK client (2025 era: the question
// comes as `elicitation/create`) and the 2.x client pinned to 2026-07-28 (`input_required`). A client
// that shows none gets TOOL_APPROVAL_UNAVAILABLE, as over HTTP. The relay runs as a child process
// (its sources, through tsx); the server runs in this process, the page is a scripted socket.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import type { DevCore } from '../../src/index.js';
import { CLI_SOURCE, LinkPage, nodeTs, startCore, untilAnswer, type LinkTool, type Message } from '../helpers.js';

const PAY: LinkTool = {
  name: 'pay',
  description: 'Pays an amount',
  inputSchema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
  consequential: true,
};

type Answer = { action: 'accept' | 'decline'; content?: Record<string, string> };
type RelayClient = { callTool(args: Record<string, unknown>): Promise<CallToolResult>; listed(): Promise<unknown> };

/** A Core with a token file, and the command that starts its relay. */
async function coreWithRelay(t: TestContext) {
  const dir = await mkdtemp(join(tmpdir(), 'relay-approval-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const tokenFile = join(dir, 'token');
  const core = await startCore(t, { mcp: true, mcpTokenFile: tokenFile });
  const relay = nodeTs(CLI_SOURCE, ['mcp', '--port', String(core.port), '--mcp-token-file', tokenFile], {
    env: getDefaultEnvironment(),
  });
  return { core, relay: { ...relay, env: relay.env as Record<string, string>, stderr: 'pipe' as const } };
}

/** A client of `era` on the relay; with `user`, it shows forms and answers each with `user`'s answer. */
async function relayClient(
  t: TestContext,
  relay: Awaited<ReturnType<typeof coreWithRelay>>['relay'],
  era: 'modern' | 'legacy',
  user?: () => Answer,
): Promise<RelayClient> {
  const capabilities = user ? { elicitation: { form: {} } } : {};
  if (era === 'modern') {
    const client = new ModernClient(
      { name: 'relay-approval', version: '1.0.0' },
      { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    if (user) client.setRequestHandler('elicitation/create', () => user());
    await client.connect(new ModernStdioTransport(relay));
    t.after(() => client.close());
    return {
      callTool: async (args) => (await client.callTool({ name: 'pay', arguments: args })) as CallToolResult,
      listed: () => client.listTools(),
    };
  }
  const client = new Client({ name: 'relay-approval', version: '1.0.0' }, { capabilities });
  if (user) client.setRequestHandler(ElicitRequestSchema, () => user());
  await client.connect(new StdioClientTransport(relay));
  t.after(() => client.close());
  return {
    callTool: async (args) => (await client.callTool({ name: 'pay', arguments: args })) as CallToolResult,
    listed: () => client.listTools(),
  };
}

/** Resolves once `client` lists the page's `pay`. */
const payListed = (client: RelayClient) =>
  untilAnswer(
    async () => JSON.stringify(await client.listed()),
    (text) => text.includes('"pay"'),
    'the page’s tool listed through the relay',
    { timeoutMs: 10_000, everyMs: 50 },
  );

const callsTo = (page: LinkPage) =>
  page.frames.filter((f: Message) => f.type === 'call').map((f: Message) => [f.args, f.approvedBy]);

async function payingPage(t: TestContext, core: DevCore): Promise<LinkPage> {
  return LinkPage.open(t, core, { tools: [PAY], answer: (call) => ({ ok: true, result: { paid: call.args.amount } }) });
}

for (const era of ['modern', 'legacy'] as const) {
  test(`relay, ${era}: a client that shows forms approves or rejects a consequential call through the relay`, async (t) => {
    const { core, relay } = await coreWithRelay(t);
    const page = await payingPage(t, core);
    const answers: Answer[] = [
      { action: 'accept', content: { decision: 'reject', reason: 'Not today' } },
      { action: 'accept', content: { decision: 'approve' } },
    ];
    const client = await relayClient(t, relay, era, () => answers.shift()!);
    await payListed(client);
    const rejected = await client.callTool({ amount: 500 });
    assert.equal(rejected.isError, true);
    assert.match((rejected.content[0] as { text: string }).text, /^TOOL_APPROVAL_REJECTED: .*: Not today$/);
    assert.deepEqual((await client.callTool({ amount: 5 })).structuredContent, { paid: 5 });
    assert.deepEqual(callsTo(page), [[{ amount: 5 }, 'mcp-client']]);
  });
}

test('relay: a client that shows no forms gets TOOL_APPROVAL_UNAVAILABLE, and the page hears nothing', async (t) => {
  const { core, relay } = await coreWithRelay(t);
  const page = await payingPage(t, core);
  const client = await relayClient(t, relay, 'legacy');
  await payListed(client);
  const result = await client.callTool({ amount: 5 });
  assert.match((result.content[0] as { text: string }).text, /^TOOL_APPROVAL_UNAVAILABLE: /);
  // Had the server sent the call, it would have answered with the page's result, which the page sends
  // only once it has the call.
  assert.deepEqual(callsTo(page), []);
});
