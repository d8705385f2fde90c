// The inspector page in Chromium, for what it shows: the Core's facts and its socket's state (the
// token it needs, a refusal, a restart), the live sessions with the selected one's details, and the
// bridge messages both ways with their filters. What the operator does from it:
// inspector-page-actions.test.ts; the tool call form's fields: inspector-page.test.ts.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Page } from 'puppeteer-core';
import { WebSocket } from 'ws';
import { skipBrowser } from '../../../../scripts/browsers.mjs';
import type { ToolManifest } from '../../src/agents/types.js';
import type { DevCore } from '../../src/index.js';
import { BridgeClient, PAGE_ORIGIN, createSession, skills, startCore, type Message } from '../helpers.js';
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
} from './inspector-tab.js';

const chromium = sharedChromium();
const options = { skip: skipBrowser('chromium'), timeout: 30_000 };
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const socketState = (page: Page) => page.$eval('#socket-state', (node) => (node as HTMLOutputElement).value);

test(
  'the header: the Core’s facts and the open socket; the token stays in the fragment, in no storage a served page reads',
  options,
  async (t) => {
    const core = await startCore(t, {
      agent: 'operator',
      approval: 'prompt',
      strictProviders: true,
      fragments: false,
      coreStatuses: true,
    });
    const { page, problems } = await openInspector(t, await chromium(), core);
    assert.equal(
      await textOf(page, '#server-info'),
      `pedelec-dev ${VERSION} · agent operator · approval prompt · protocol current (no fragments, Core statuses)` +
        ` · strict providers · bridge ${core.bridgeUrl}`,
    );
    assert.equal(await socketState(page), 'connected');
    assert.equal(await isHidden(page, '#no-token'), true);

    const withToken = `${core.url}/_pedelec/inspector#token=${core.inspectorToken}`;
    assert.equal(page.url(), withToken);
    // Pages the Core serves share this origin: a page opened later in this tab reads what is stored here.
    const stored = () =>
      page.evaluate(() => JSON.stringify([Object.entries(sessionStorage), Object.entries(localStorage)]));
    assert.equal(await stored(), '[[],[]]', 'nothing stored');
    // A reload keeps the fragment, and so the token.
    await page.reload();
    await waitForHello(page);
    assert.equal(page.url(), withToken);
    assert.equal(await stored(), '[[],[]]');
    assert.deepEqual(problems, []);
  },
);

test(
  'without a token the page says where to find one; a refused token is said; a new one in the fragment reloads with it',
  options,
  async (t) => {
    const core = await startCore(t);
    const bare = `${core.url}/_pedelec/inspector`;
    const { page, sent } = await openInspector(t, await chromium(), core, { url: bare, connected: false });
    await waitInPage(page, 'the page to give up for want of a token', () => {
      return (document.getElementById('socket-state') as HTMLOutputElement).value === 'no token';
    });
    assert.equal(await isHidden(page, '#no-token'), false);
    assert.equal(await textOf(page, '#server-info'), 'connecting…');

    // Pasting the printed URL into the tab changes only the fragment: the page reloads itself with it.
    const pasteToken = (token: string) =>
      Promise.all([
        page.waitForNavigation(),
        page.evaluate((fragment) => void (location.hash = fragment), `#token=${token}`),
      ]);
    await pasteToken('not-the-token');
    await waitInPage(page, 'the Core to refuse the token', () =>
      (document.getElementById('socket-state') as HTMLOutputElement).value.startsWith('refused'),
    );
    assert.equal(await socketState(page), 'refused: inspector: missing or wrong token');

    await pasteToken(core.inspectorToken);
    await waitForHello(page);
    assert.equal(await isHidden(page, '#no-token'), true);
    assert.deepEqual(sent, [], 'the page asked nothing of the Core');
  },
);

test(
  'a Core that restarts: the page says its socket closed, connects again by itself and shows the new Core',
  options,
  async (t) => {
    const inspectorToken = 'restart-token-0123456789abcdef';
    const first = await startCore(t, { inspectorToken });
    const { page } = await openInspector(t, await chromium(), first);
    assert.equal(
      await textOf(page, '#server-info'),
      `pedelec-dev ${VERSION} · agent scripted · approval auto · protocol current · bridge ${first.bridgeUrl}`,
    );

    await first.close();
    await waitInPage(page, 'the socket to close', () =>
      (document.getElementById('socket-state') as HTMLOutputElement).value.startsWith('closed'),
    );
    assert.equal(await socketState(page), 'closed (1001: pedelec-dev is stopping) — retrying in 2 s');

    // The same port, and the same token (`inspectorToken`): a new one would take the new URL, as above.
    const second = await startCore(t, { port: first.port, inspectorToken, agent: 'operator' });
    const client = await BridgeClient.open(t, second);
    const sessionId = await createSession(client);
    await waitInPage(page, 'the new Core’s hello', () =>
      document.getElementById('server-info')!.textContent!.includes('agent operator'),
    );
    await waitInPage(
      page,
      'the new Core’s session',
      (id) => document.getElementById('sessions')!.textContent!.includes(id),
      shortId(sessionId),
    );
    assert.equal(await socketState(page), 'connected');
  },
);

/** Each listed session: its text and whether it is the selected one. */
const sessionsOf = (page: Page) =>
  page.$$eval('#sessions li', (items) =>
    items.map((item) => ({ text: item.textContent, selected: item.classList.contains('selected') })),
  );

/** The selected session's facts, as the page lists them: label → value. */
const factsOf = async (page: Page) =>
  Object.fromEntries(
    await page.$$eval('#detail-facts dt', (terms) =>
      terms.map((term) => [term.textContent, term.nextElementSibling!.textContent]),
    ),
  ) as Record<string, string>;

const TIMED: ToolManifest = {
  name: 'slow_search',
  description: 'Search slowly.',
  timeoutMs: 5000,
  argsSchema: { type: 'object', properties: { query: { type: 'string' } } },
};

test(
  'sessions: listed as pages create them, the first selected and described; a click, updates and ends show',
  options,
  async (t) => {
    const core = await startCore(t, { agent: 'operator', allowNoOrigin: true });
    const { page, problems } = await openInspector(t, await chromium(), core);
    assert.deepEqual(await sessionsOf(page), []);
    assert.equal(await isHidden(page, '#no-sessions'), false);
    assert.equal(await isHidden(page, '#detail-empty'), false);
    assert.equal(await isHidden(page, '#detail-body'), true);

    const pageA = await BridgeClient.open(t, core);
    const a = await createSession(pageA, { provider: 'codex', effortLevel: 'low', skills: skills(TIMED) });
    await waitInPage(page, 'the first session', () => document.querySelectorAll('#sessions li').length === 1);
    assert.deepEqual(await sessionsOf(page), [
      { text: `${shortId(a)} ${PAGE_ORIGIN} · codex → operator · idle`, selected: true },
    ]);
    assert.equal(await isHidden(page, '#no-sessions'), true);
    assert.equal(await isHidden(page, '#detail-empty'), true);
    assert.equal(await isHidden(page, '#detail-body'), false);
    const { Created: created, Workspace: workspace, ...facts } = await factsOf(page);
    assert.deepEqual(facts, {
      Session: a,
      Origin: PAGE_ORIGIN,
      'Provider asked': 'codex',
      'Served by': 'operator',
      Model: 'operator (the agent’s default: profile mode)',
      'Effort level': 'low',
      Status: 'idle',
      Connections: '1',
      'Ends on disconnect': 'yes',
    });
    assert.match(workspace ?? '', / \(managed\)$/);
    assert.ok(!Number.isNaN(Date.parse(created ?? '')), `Created: ${created}`);
    assert.equal(await textOf(page, '#detail-guidance'), 'A counter page.');
    const tools = await page.$$eval('#detail-tools > li', (items) =>
      items.map((item) => ({
        line: item.querySelector('code')!.textContent + item.childNodes[1]!.textContent!,
        schema: JSON.parse(item.querySelector('details pre')!.textContent!) as unknown,
      })),
    );
    assert.deepEqual(tools, [
      { line: 'update_counter — Change the counter by delta.', schema: skills().tools[0]!.argsSchema },
      { line: 'slow_search — Search slowly. (timeout 5000 ms)', schema: TIMED.argsSchema },
    ]);

    // A client without Origin, in explicit mode, without tools: listed after the first, which stays selected.
    const pageB = await BridgeClient.open(t, core, { origin: null });
    const b = await createSession(pageB, {
      provider: 'operator',
      model: 'my-model',
      effort: 'high',
      skills: undefined,
    });
    await waitInPage(page, 'the second session', () => document.querySelectorAll('#sessions li').length === 2);
    assert.deepEqual(await sessionsOf(page), [
      { text: `${shortId(a)} ${PAGE_ORIGIN} · codex → operator · idle`, selected: true },
      { text: `${shortId(b)} (no origin) · operator · idle`, selected: false },
    ]);

    await pickSession(page, b);
    await waitInPage(
      page,
      'the second session’s details',
      (id) => document.querySelector('#detail-facts dd')!.textContent === id,
      b,
    );
    assert.deepEqual(
      (await sessionsOf(page)).map((s) => s.selected),
      [false, true],
    );
    const picked = await factsOf(page);
    assert.deepEqual(
      [picked.Origin, picked['Provider asked'], picked.Model, picked.Effort, picked['Effort level']],
      ['(none: a non-browser client)', 'operator', 'my-model', 'high', undefined],
    );
    assert.equal(await textOf(page, '#detail-guidance'), '(no skills manifest)');
    assert.deepEqual(await textsOf(page, '#detail-tools li'), ['No tools.']);

    // A message opens an operator turn: the session runs, and waits for the operator.
    await pageB.ok('send_text', { sessionId: b, text: 'hello' });
    await waitInPage(page, 'the second session to await the operator', () =>
      document.querySelector('#sessions li:nth-child(2) .badge'),
    );
    assert.equal((await sessionsOf(page))[1]!.text, `${shortId(b)} (no origin) · operator · running awaiting operator`);
    assert.equal((await factsOf(page)).Status, 'running');

    // The selected session ends: its details go; then the other one (its page leaves).
    await pageB.ok('end_session', { sessionId: b });
    await waitInPage(page, 'the second session to go', () => document.querySelectorAll('#sessions li').length === 1);
    assert.deepEqual(await sessionsOf(page), [
      { text: `${shortId(a)} ${PAGE_ORIGIN} · codex → operator · idle`, selected: false },
    ]);
    assert.equal(await isHidden(page, '#detail-empty'), false);
    assert.equal(await isHidden(page, '#detail-body'), true);
    // With none selected, the next session to come is.
    const c = await createSession(pageB, { provider: 'operator' });
    await waitInPage(page, 'the third session', () => document.querySelectorAll('#sessions li').length === 2);
    assert.deepEqual(
      (await sessionsOf(page)).map((s) => s.selected),
      [false, true],
    );
    assert.equal((await factsOf(page)).Session, c);

    // With none selected, a session whose turn opens is: the operator sees what awaits an answer.
    await pageB.ok('end_session', { sessionId: c });
    await waitInPage(page, 'the third session to go', () => document.querySelectorAll('#sessions li').length === 1);
    assert.equal(await isHidden(page, '#detail-body'), true);
    await pageA.ok('send_text', { sessionId: a, text: 'anyone there?' });
    await waitInPage(page, 'the first session’s turn', () => !document.getElementById('operator-turn')!.hidden);
    assert.deepEqual(await sessionsOf(page), [
      { text: `${shortId(a)} ${PAGE_ORIGIN} · codex → operator · running awaiting operator`, selected: true },
    ]);
    assert.equal(await textOf(page, '#operator-text'), 'anyone there?');
    await pageB.close();
    await pageA.close();
    await waitInPage(page, 'no session to be left', () => document.querySelectorAll('#sessions li').length === 0);
    assert.equal(await isHidden(page, '#no-sessions'), false);
    assert.deepEqual(problems, []);
  },
);

/** The log's rows, newest first, cell by cell. */
const rowsOf = (page: Page) =>
  page.$$eval('#log tr', (rows) =>
    rows.map((row) => {
      const [at, dir, connection, type, session, message] = [...row.cells].map((cell) => cell.textContent!);
      return { className: row.className, origin: row.title, at, dir, connection, type, session, message };
    }),
  );

/** The Core's inspector socket, read from Node: what the page is sent, every field of it. */
async function inspectorSocket(t: TestContext, core: DevCore): Promise<BridgeClient> {
  const url = `${core.url.replace(/^http/, 'ws')}/_pedelec/inspector/socket?token=${core.inspectorToken}`;
  const client = new BridgeClient(new WebSocket(url, { origin: core.url }), null);
  t.after(() => client.close());
  await client.until((m) => m.type === 'hello');
  return client;
}

/** Resolves once the log shows a row of request or event `type`. */
const rowOfType = (page: Page, type: string) =>
  waitInPage(
    page,
    `a ${type} row`,
    (wanted) => [...document.querySelectorAll('#log tr')].some((row) => row.children[3]!.textContent === wanted),
    type,
  );

/** Resolves once `count` sessions are listed. */
const sessionCount = (page: Page, count: number) =>
  waitInPage(page, `${count} listed sessions`, (n) => document.querySelectorAll('#sessions li').length === n, count);

/**
 * Replaces what the filter box holds with `text`, as a person pastes it: one input event (each one
 * redraws the log, up to 500 rows).
 */
async function typeFilter(page: Page, text: string): Promise<void> {
  await page.$eval('#filter-text', (input) => (input as HTMLInputElement).select());
  await page.keyboard.press('Backspace');
  if (text) await page.keyboard.sendCharacter(text);
}

test(
  'the log: frames both ways and connections, from before the page opened and live; a row opens; filters, pause, clear',
  options,
  async (t) => {
    const core = await startCore(t);
    const pageA = await BridgeClient.open(t, core);
    const a = await createSession(pageA);
    const { page, problems } = await openInspector(t, await chromium(), core);
    const entries = (await inspectorSocket(t, core)).messages[0]!.log as Message[];

    // What happened before the page opened came with the hello: a row per entry, newest first.
    const backlog = await rowsOf(page);
    assert.deepEqual(
      backlog.map((row) => [row.connection, row.type]),
      entries.toReversed().map((entry) => [entry.connectionId, entry.type ?? '']),
    );
    const opened = backlog.at(-1)!;
    assert.deepEqual(opened, {
      className: 'dir-info',
      origin: PAGE_ORIGIN,
      at: opened.at,
      dir: '•',
      connection: opened.connection,
      type: '',
      session: '',
      message: `connected from ${PAGE_ORIGIN}`,
    });
    // The local time of day, to the millisecond.
    assert.deepEqual(
      backlog.map((row) => row.at),
      await page.evaluate(
        (times) =>
          times.map((at) => {
            const date = new Date(at);
            return `${date.toLocaleTimeString([], { hour12: false })}.${String(date.getMilliseconds()).padStart(3, '0')}`;
          }),
        entries.toReversed().map((entry) => entry.at as number),
      ),
    );
    const request = backlog.find((row) => row.type === 'create_session')!;
    assert.deepEqual([request.className, request.dir, request.connection], ['dir-in', '→ Core', opened.connection]);
    // The preview leaves out what has a column of its own.
    assert.match(request.message, /^\{"requestId":"sdk_[^"]+","input":\{"provider":"scripted"/);
    const response = backlog.find((row) => row.type === 'response')!;
    assert.deepEqual([response.className, response.dir], ['dir-out', '← Core']);
    assert.ok(response.message.includes(`"sessionId":"${a}"`), response.message);
    assert.ok(backlog.indexOf(response) < backlog.indexOf(request), 'newest first');

    // Live frames go on top, with their session.
    await pageA.ok('send_text', { sessionId: a, text: 'hello log' });
    await rowOfType(page, 'send_text');
    const sendText = (await rowsOf(page)).find((row) => row.type === 'send_text')!;
    assert.deepEqual([sendText.dir, sendText.session], ['→ Core', shortId(a)]);
    assert.match(sendText.message, /^\{"requestId":"sdk_[^"]+","text":"hello log"\}$/);

    // A click shows the whole frame, pretty; another, the preview again.
    const row = await page.evaluateHandle(() =>
      [...document.querySelectorAll('#log tr')].find((tr) => tr.children[3]!.textContent === 'send_text')!,
    );
    await row.click();
    const whole = await row.evaluate((tr) => tr.querySelector('td.message pre')?.textContent ?? '');
    assert.ok(whole.includes('\n  "channelId": '), `pretty: ${whole}`);
    assert.deepEqual(
      { ...JSON.parse(whole), requestId: null },
      { channelId: pageA.channelId, type: 'send_text', requestId: null, sessionId: a, text: 'hello log' },
    );
    await row.click();
    assert.deepEqual(
      await row.evaluate((tr) => [tr.querySelector('td.message pre'), tr.querySelector('td.message')!.textContent]),
      [null, sendText.message],
    );

    // The text filter looks at whole frames (and type, session, origin, connection).
    const all = (await rowsOf(page)).length;
    await typeFilter(page, 'hello log');
    // Enter in the box submits nothing (the page's CSP would refuse it, and say so in the console).
    await page.keyboard.press('Enter');
    const found = await rowsOf(page);
    assert.ok(found.length > 0 && found.length < all, `${found.length} of ${all} rows`);
    assert.deepEqual(
      found.filter((r) => !r.message.includes('hello log')),
      [],
    );
    assert.ok(found.some((r) => r.type === 'send_text'));
    await typeFilter(page, '');

    // One direction at a time; a frame that arrives meanwhile shows only if it is of that direction.
    for (const [dir, className] of [
      ['in', 'dir-in'],
      ['info', 'dir-info'],
      ['out', 'dir-out'],
    ] as const) {
      await page.select('#filter-dir', dir);
      const shown = await rowsOf(page);
      assert.ok(shown.length > 0, dir);
      assert.deepEqual(
        shown.filter((r) => r.className !== className),
        [],
        dir,
      );
    }
    // Listed sessions come after the frames that created them: once B's is listed, its request was seen.
    const pageB = await BridgeClient.open(t, core);
    const b = await createSession(pageB);
    await sessionCount(page, 2);
    assert.deepEqual(
      (await rowsOf(page)).filter((r) => r.className !== 'dir-out'),
      [],
    );
    await page.select('#filter-dir', '');
    assert.equal((await rowsOf(page)).filter((r) => r.type === 'create_session').length, 2);

    // The selected session's frames only: A's (selected first), then B's once B is picked.
    await page.click('#filter-session');
    for (const id of [a, b]) {
      if (id === b) await pickSession(page, b);
      const shown = await rowsOf(page);
      assert.ok(shown.length > 0, id);
      assert.deepEqual(
        shown.filter((r) => r.session !== shortId(id)),
        [],
      );
    }
    await page.click('#filter-session');

    // Paused, the log shows nothing new; resumed, it shows what came meanwhile.
    const before = await rowsOf(page);
    await page.click('#log-pause');
    const pageC = await BridgeClient.open(t, core);
    await createSession(pageC);
    await sessionCount(page, 3);
    assert.deepEqual(await rowsOf(page), before);
    await page.click('#log-pause');
    assert.equal((await rowsOf(page)).filter((r) => r.type === 'create_session').length, 3);

    // Cleared, it starts again from the next frame.
    await page.click('#log-clear');
    assert.deepEqual(await rowsOf(page), []);
    await pageA.ok('send_text', { sessionId: a, text: 'after clearing' });
    await rowOfType(page, 'send_text');
    const after = await rowsOf(page);
    assert.deepEqual(
      after.filter((r) => r.type === 'create_session' || r.message.includes('hello log')),
      [],
    );
    assert.deepEqual(problems, []);
  },
);

test('a long log: the page keeps the newest 2000 frames, and shows at most 500 rows', options, async (t) => {
  const core = await startCore(t);
  const { page, problems } = await openInspector(t, await chromium(), core);
  // The page is open first: it gets every entry as it comes, while the Core keeps only its newest 1000.
  const client = await BridgeClient.open(t, core);
  const requests = 1100; // each one frame in, its response out
  for (let i = 1; i <= requests; i++) {
    client.sendRaw({ channelId: client.channelId, type: 'get_approval_status', requestId: `flood_${i}` });
  }
  await client.until((m) => m.type === 'response' && m.requestId === `flood_${requests}`, { timeout: 15_000 });
  await waitInPage(
    page,
    'the last response on top',
    (last) => document.querySelector('#log tr td.message')?.textContent?.includes(`"requestId":"${last}"`),
    `flood_${requests}`,
  );
  assert.equal((await rowsOf(page)).length, 500);

  // 2201 entries (the connection, then 1100 requests and responses): the oldest 201 are gone, which
  // ends about flood_100 (where exactly depends on how requests and responses interleave).
  for (const gone of ['connected from', '"flood_1"', '"flood_50"']) {
    await typeFilter(page, gone);
    assert.deepEqual(await rowsOf(page), [], gone);
  }
  await typeFilter(page, '"flood_150"');
  assert.deepEqual(
    (await rowsOf(page)).map((row) => row.type),
    ['response', 'get_approval_status'],
  );
  assert.deepEqual(problems, []);
});
