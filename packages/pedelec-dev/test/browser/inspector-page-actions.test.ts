// The inspector page in Chromium, for what the operator does from it: reply to a page and end its turn
// as the operator agent, read what a tool call returned, and answer approval prompts (a page's origin
// under `approval: 'prompt'`, an MCP client's call under `mcpApproval: 'prompt'`) — each checked on
// the waiting side: the page's turn, the held request, the MCP client's call.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Page } from 'puppeteer-core';
import { skipBrowser } from '../../../../scripts/browsers.mjs';
import type { DevCore } from '../../src/index.js';
import {
  BridgeClient,
  LinkPage,
  PAGE_ORIGIN,
  chatText,
  createSession,
  startCore,
  untilAnswer,
  type Message,
} from '../helpers.js';
import {
  isHidden,
  openInspector,
  pickSession,
  sharedChromium,
  shortId,
  textOf,
  textsOf,
  waitForHello,
  waitInPage,
  type InspectorTab,
} from './inspector-tab.js';

const chromium = sharedChromium();
const options = { skip: skipBrowser('chromium'), timeout: 30_000 };

/** Resolves with the first message the page sent on its socket that `match` takes (already sent or later). */
const sentBy = (tab: InspectorTab, match: (message: Message) => boolean, what: string) =>
  untilAnswer(
    async () => tab.sent.find(match),
    (found) => found !== undefined,
    `the page to send ${what}`,
    { timeoutMs: 10_000, everyMs: 10 },
  ) as Promise<Message>;

const sayText = (page: Page) => page.$eval('#say-text', (input) => (input as HTMLInputElement).value);

test(
  'the operator replies as the agent and ends the turn; an empty reply is not sent, a draft stays with its session',
  options,
  async (t) => {
    const core = await startCore(t, { agent: 'operator' });
    const pageA = await BridgeClient.open(t, core);
    const a = await createSession(pageA, { provider: 'operator' });
    const pageB = await BridgeClient.open(t, core);
    const b = await createSession(pageB, { provider: 'operator' });
    const tab = await openInspector(t, await chromium(), core);
    const { page } = tab;
    assert.equal(await isHidden(page, '#operator-idle'), false);
    assert.equal(await isHidden(page, '#operator-turn'), true);

    const from = pageA.mark();
    await pageA.ok('send_text', { sessionId: a, text: 'What is on the list?' });
    await waitInPage(page, 'the open turn', () => !document.getElementById('operator-turn')!.hidden);
    assert.equal(await textOf(page, '#operator-text'), 'What is on the list?');
    assert.equal(await isHidden(page, '#operator-idle'), true);
    assert.deepEqual(await textsOf(page, '#sessions .badge'), [' awaiting operator']);

    // Send with nothing typed does nothing; a reply goes to the page as the agent's words.
    await page.click('#say-form button');
    await page.type('#say-text', 'Milk and bread.');
    await page.keyboard.press('Enter');
    const delta = await pageA.until((m) => m.type === 'chat_delta', { from });
    assert.equal(delta.text, 'Milk and bread.');
    assert.equal(await sayText(page), '', 'the box empties once sent');
    await sentBy(tab, (m) => m.type === 'operator_say', 'the reply');
    assert.deepEqual(
      tab.sent.filter((m) => m.type === 'operator_say'),
      [{ type: 'operator_say', sessionId: a, text: 'Milk and bread.' }],
    );

    // A reply typed for one session is dropped when another is picked: it never goes to the wrong page.
    await page.type('#say-text', 'a draft for A');
    await pickSession(page, b);
    assert.equal(await sayText(page), '');
    assert.equal(await isHidden(page, '#operator-turn'), true, 'B has no open turn');
    await pickSession(page, a);
    assert.equal(await isHidden(page, '#operator-turn'), false);
    assert.equal(await sayText(page), '');

    await page.click('#end-turn');
    const events = await pageA.turnEnd(a, from);
    assert.equal(chatText(events), 'Milk and bread.');
    assert.equal(events.at(-1)!.success, true);
    await waitInPage(page, 'the turn to close', () => document.getElementById('operator-turn')!.hidden);
    assert.equal(await isHidden(page, '#operator-idle'), false);
    assert.deepEqual(await textsOf(page, '#sessions .badge'), []);
    assert.deepEqual(
      tab.sent.filter((m) => m.type === 'operator_end_turn'),
      [{ type: 'operator_end_turn', sessionId: a }],
    );
    assert.deepEqual(tab.problems, []);
  },
);

/** Types `json` into the "Arguments as JSON" box as a person does: the whole text replaced. */
async function typeArgs(page: Page, json: string): Promise<void> {
  await page.$eval('#call-args', (area) => (area as HTMLTextAreaElement).select());
  await page.keyboard.press('Backspace');
  await page.type('#call-args', json);
}

/** The call result box: its first line's class and text, and the JSON below it (if any). */
const callResult = (page: Page) =>
  page.$eval('#call-result', (box) => ({
    className: box.querySelector('p')?.className ?? null,
    line: box.querySelector('p')?.textContent ?? null,
    json: box.querySelector('pre') ? (JSON.parse(box.querySelector('pre')!.textContent!) as Message) : null,
  }));

/** Resolves once the call result box shows a result (`ok` or `failed`), no longer "waiting". */
const resultShown = (page: Page) =>
  waitInPage(page, 'a call result', () => document.querySelector('#call-result p:is(.ok, .failed)'));

test(
  'a tool call from the page: "waiting", then the result or the failure the agent got; JSON that does not parse is not sent',
  options,
  async (t) => {
    const core = await startCore(t, { agent: 'operator' });
    const client = await BridgeClient.open(t, core);
    const sessionId = await createSession(client, { provider: 'operator' });
    await client.ok('send_text', { sessionId, text: 'count up' });
    // The turn opened before the page did: it comes with the hello.
    const tab = await openInspector(t, await chromium(), core);
    const { page } = tab;
    await page.waitForSelector('#operator-turn:not([hidden]) #call-tool option[value="update_counter"]');
    assert.equal(await textOf(page, '#operator-text'), 'count up');

    const from = client.mark();
    await typeArgs(page, '{"delta": 2}');
    await page.click('#call-form button');
    // The page has not answered yet: nothing but "waiting" can show.
    assert.deepEqual(await callResult(page), { className: 'muted', line: 'Waiting for the page…', json: null });
    const call = await client.until((m) => m.type === 'tool_call', { from });
    await client.ok('submit_tool_result', { sessionId, toolRequestId: call.toolRequestId, result: { value: 2 } });
    await resultShown(page);
    const ok = await callResult(page);
    assert.equal(ok.className, 'ok');
    assert.match(ok.line!, /^Result in \d+\.\d ms:$/);
    assert.deepEqual(ok.json, { value: 2 });

    // Args the schema refuses: the agent gets an error result, shown as a failure.
    await typeArgs(page, '{"delta": "x"}');
    await page.click('#call-form button');
    await resultShown(page);
    const refused = await callResult(page);
    assert.equal(refused.className, 'failed');
    assert.match(refused.line!, /^Failed in \d+\.\d ms: TOOL_ARGS_INVALID: \S/);
    assert.equal(refused.json!.error.code, 'TOOL_ARGS_INVALID');

    // Not JSON: said at once, and nothing goes to the Core.
    await typeArgs(page, '{"delta": ');
    await page.click('#call-form button');
    const invalid = await callResult(page);
    assert.equal(invalid.className, 'failed');
    assert.match(invalid.line!, /^INVALID_JSON: \S/);
    await typeArgs(page, '{"delta": 3}');
    await page.click('#call-form button');
    await sentBy(tab, (m) => m.type === 'operator_call' && m.args.delta === 3, 'the last call');
    assert.deepEqual(
      tab.sent.filter((m) => m.type === 'operator_call').map((m) => [m.callId, m.sessionId, m.tool, m.args]),
      [
        [1, sessionId, 'update_counter', { delta: 2 }],
        [2, sessionId, 'update_counter', { delta: 'x' }],
        [3, sessionId, 'update_counter', { delta: 3 }],
      ],
    );
    assert.deepEqual(tab.problems, []);
  },
);

/** The open prompts as listed: their text, Approve and Reject included. */
const promptsOf = (page: Page) => textsOf(page, '#approval-list li');

/** Clicks `answer` on the listed prompt whose text starts with `about`. */
async function answerPrompt(page: Page, about: string, answer: 'Approve' | 'Reject'): Promise<void> {
  const listed = await promptsOf(page);
  const index = listed.findIndex((text) => text.startsWith(about));
  if (index < 0) throw new Error(`no prompt about ${about}: ${JSON.stringify(listed)}`);
  const button = `#approval-list li:nth-child(${index + 1}) button:nth-of-type(${answer === 'Approve' ? 1 : 2})`;
  assert.equal(await textOf(page, button), answer);
  await page.click(button);
}

const promptCount = (page: Page, count: number) =>
  waitInPage(page, `${count} open prompts`, (n) => document.querySelectorAll('#approval-list li').length === n, count);

test(
  'origin approval prompts: each held request waits for its answer; Approve lets it through, Reject refuses it',
  options,
  async (t) => {
    const core = await startCore(t, { approval: 'prompt', allowNoOrigin: true });
    const tab = await openInspector(t, await chromium(), core);
    const { page } = tab;
    assert.equal(await isHidden(page, '#approvals'), true);

    const pageA = await BridgeClient.open(t, core);
    const heldA = pageA.request('create_session', { input: { provider: 'scripted' } });
    await promptCount(page, 1);
    const pageB = await BridgeClient.open(t, core, { origin: null });
    const heldB = pageB.request('create_session', { input: { provider: 'scripted' } });
    await promptCount(page, 2);
    assert.equal(await isHidden(page, '#approvals'), false);
    // A page opened now gets the open prompts with its hello.
    await page.reload();
    await waitForHello(page);
    assert.deepEqual(await promptsOf(page), [
      `${PAGE_ORIGIN} asks to use Pedelec Approve Reject`,
      '(no origin) asks to use Pedelec Approve Reject',
    ]);

    await answerPrompt(page, '(no origin)', 'Reject');
    const rejected = await heldB;
    assert.equal(rejected.ok, false);
    assert.equal(rejected.error.code, 'APPROVAL_REJECTED');
    await promptCount(page, 1);
    assert.deepEqual(await promptsOf(page), [`${PAGE_ORIGIN} asks to use Pedelec Approve Reject`]);

    await answerPrompt(page, PAGE_ORIGIN, 'Approve');
    const approved = await heldA;
    assert.equal(approved.ok, true, JSON.stringify(approved.error));
    await promptCount(page, 0);
    assert.equal(await isHidden(page, '#approvals'), true);
    await waitInPage(
      page,
      'the approved page’s session',
      (short) => document.getElementById('sessions')!.textContent!.includes(short),
      shortId(approved.result.sessionId),
    );
    assert.deepEqual(tab.problems, []);
  },
);

const MCP_TOKEN = 'mcp-token-0123456789abcdef';

/** An MCP client of `core`, named `name`, closed in teardown. */
async function mcpClient(t: TestContext, core: DevCore, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(core.mcpUrl!), {
      requestInit: { headers: { Authorization: `Bearer ${MCP_TOKEN}` } },
    }),
  );
  t.after(() => client.close());
  return client;
}

test(
  'MCP call approval prompts: each call waits for its own answer; Approve runs it, Reject refuses it',
  options,
  async (t) => {
    const core = await startCore(t, { mcp: true, mcpToken: MCP_TOKEN, mcpApproval: 'prompt' });
    await LinkPage.open(t, core, { title: 'Shop' });
    const client = await mcpClient(t, core, 'approval-test');
    // Pages link their tools asynchronously: wait until the client is offered the page's.
    await untilAnswer(
      async () => (await client.listTools()).tools,
      (tools) => tools.some((tool) => tool.name === 'add'),
      'the linked page’s tool',
      { timeoutMs: 5000, everyMs: 20 },
    );
    const { page, problems } = await openInspector(t, await chromium(), core);
    const call = () => client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }) as Promise<CallToolResult>;
    const prompt =
      /^approval-test \(MCP\) calls add in Shop \(p[0-9a-f]{8}\) — origin http:\/\/localhost:5173, page http:\/\/localhost:5173\/shop\/ — with \{"a":1,"b":2\} Approve Reject$/;

    const approved = call();
    await promptCount(page, 1);
    assert.match((await promptsOf(page))[0]!, prompt);
    await answerPrompt(page, 'approval-test', 'Approve');
    assert.deepEqual((await approved).structuredContent, { sum: 3 });
    await promptCount(page, 0);
    assert.equal(await isHidden(page, '#approvals'), true);

    // An answer holds for one call only: the next asks again.
    const refused = call();
    await promptCount(page, 1);
    assert.match((await promptsOf(page))[0]!, prompt);
    await answerPrompt(page, 'approval-test', 'Reject');
    const result = await refused;
    assert.equal(result.isError, true);
    assert.deepEqual(result.content, [
      { type: 'text', text: 'TOOL_APPROVAL_REJECTED: The operator did not approve this call' },
    ]);
    await promptCount(page, 0);
    assert.deepEqual(problems, []);
  },
);

test(
  "folder picks: a page's openWorkspace() without a path waits for the operator's folder; a bad one is refused in place, Cancel resolves null",
  options,
  async (t) => {
    const root = await mkdtemp(join(tmpdir(), 'pedelec-dev-picks-'));
    t.after(() => rm(root, { recursive: true, force: true }));
    const core = await startCore(t, { workspaceRoot: root });
    const tab = await openInspector(t, await chromium(), core);
    const { page } = tab;
    assert.equal(await isHidden(page, '#picks'), true);
    const pageA = await BridgeClient.open(t, core);
    const first = pageA.request('open_workspace', {});
    await waitInPage(page, 'one pick', () => document.querySelectorAll('#pick-list li').length === 1);
    assert.equal(await isHidden(page, '#picks'), false);
    assert.match(await textOf(page, '#pick-list li span'), new RegExp(`^${PAGE_ORIGIN} asks for a folder`));

    await page.type('#pick-list input', 'relative/folder');
    await page.click('#pick-list form button:not([type])');
    await waitInPage(page, 'the refusal', () => document.getElementById('pick-error')!.textContent !== '');
    assert.match(await textOf(page, '#pick-error'), /^WORKSPACE_PATH_INVALID: /);
    await page.$eval('#pick-list input', (input) => ((input as HTMLInputElement).value = ''));
    await page.type('#pick-list input', root);
    await page.click('#pick-list form button:not([type])');
    const picked = await first;
    assert.equal(picked.result.workspace.path, root);
    await waitInPage(page, 'no pick', () => document.querySelectorAll('#pick-list li').length === 0);

    const second = pageA.request('open_workspace', {});
    await waitInPage(page, 'one pick', () => document.querySelectorAll('#pick-list li').length === 1);
    await page.click('#pick-list button[type="button"]');
    assert.deepEqual((await second).result, { workspace: null });
    await waitInPage(page, 'the picks hidden', () => document.getElementById('picks')!.hidden);
    assert.deepEqual(tab.problems, []);
  },
);
