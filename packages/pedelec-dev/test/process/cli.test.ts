// The `pedelec-dev` command as a child process (its source, src/cli.ts, through tsx): --port 0, a port
// in use, start-up errors, and a clean stop on SIGTERM/SIGINT. Every child is killed in teardown if it
// is still running.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { until } from '../../../../test/support/waits.js';
import { DevCoreError, parseCli, startDevCore } from '../../src/index.js';
import { BridgeClient, CLI_SOURCE, createSession, delay, nodeTs } from '../helpers.js';

/** Bounds every wait on the command; generous, since each start compiles the sources first (tsx). */
const LIMIT_MS = 10_000;

/** The environment without the openai agent's variables, so a developer's own settings do not change a test. */
const CLEAN_ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PEDELEC_DEV_')));

type Exit = { code: number | null; signal: NodeJS.Signals | null };

function run(t: TestContext, args: string[]) {
  const { command, args: nodeArgs, env } = nodeTs(CLI_SOURCE, args, { env: CLEAN_ENV });
  const child = spawn(command, nodeArgs, { stdio: ['ignore', 'pipe', 'pipe'], env });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (out.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out.stderr += d.toString()));
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  const bounded = <T>(promise: Promise<T>, what: string) =>
    Promise.race([
      promise,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`${what} took too long:\n${out.stdout}\n${out.stderr}`)), LIMIT_MS).unref(),
      ),
    ]);
  return {
    child,
    out,
    exit: () => bounded(exited, 'exit'),
    /** Resolves the printed URLs once the start banner is out. */
    started: () =>
      bounded(
        new Promise<{ bridgeUrl: string; inspectorUrl: string; pageUrl: string }>((resolve, reject) => {
          const check = () => {
            const bridge = /Bridge:\s+(ws:\/\/\S+)/.exec(out.stdout);
            const inspector = /Inspector:\s+(http:\/\/\S+)/.exec(out.stdout);
            const page = /Pages?:\s+(http:\/\/\S+)/.exec(out.stdout);
            if (bridge && inspector && page)
              resolve({ bridgeUrl: bridge[1]!, inspectorUrl: inspector[1]!, pageUrl: page[1]! });
          };
          child.stdout.on('data', check);
          child.once('exit', (code) => reject(new Error(`exited ${code}: ${out.stderr}`)));
          check();
        }),
        'start',
      ),
  };
}

test('--port 0 picks a free port and prints the page, bridge and inspector URLs; SIGTERM stops with exit 0', async (t) => {
  const cli = run(t, ['--port', '0']);
  const urls = await cli.started();
  const port = Number(new URL(urls.bridgeUrl).port);
  assert.ok(port > 0 && port !== 7717);
  assert.equal(urls.bridgeUrl, `ws://127.0.0.1:${port}/bridge`);
  assert.match(urls.inspectorUrl, new RegExp(`^http://127\\.0\\.0\\.1:${port}/_pedelec/inspector#token=[0-9a-f]{32}$`));
  assert.equal(urls.pageUrl, `http://127.0.0.1:${port}/`);

  const page = await BridgeClient.open(t, { bridgeUrl: urls.bridgeUrl });
  const sessionId = await createSession(page);
  const from = page.mark();
  cli.child.kill('SIGTERM');
  const { code } = await cli.exit();
  assert.equal(code, 0);
  assert.ok(
    page.since(from).some((m) => m.type === 'ended' && m.sessionId === sessionId),
    'open sessions are ended',
  );
  assert.equal((await page.closed).code, 1001);
});

test('--mcp prints the MCP endpoint with its token, and the page link; the token opens /mcp', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cli-mcp-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const tokenFile = join(dir, 'token');
  const cli = run(t, ['--port', '0', '--mcp', '--mcp-token-file', tokenFile]);
  const { bridgeUrl } = await cli.started();
  const base = new URL(bridgeUrl).host;
  const mcp = new RegExp(
    `MCP: +http://${base}/mcp {2}\\(header Authorization: Bearer ([0-9a-f]{32}); the token lasts until you delete ${tokenFile.replaceAll('/', '\\/')}\\)`,
  );
  const [, token] = mcp.exec(cli.out.stdout) ?? assert.fail(`no MCP line in:\n${cli.out.stdout}`);
  assert.match(
    cli.out.stdout,
    new RegExp(`Page link: ws://${base}/tools {2}\\(<pedelec-session mcp="ws://${base}/tools">\\)`),
  );
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cli-test', version: '1' } },
  };
  const post = (authorization: string) =>
    fetch(`http://${base}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Authorization: authorization,
      },
      body: JSON.stringify(initialize),
    });
  assert.equal((await post(`Bearer ${'0'.repeat(32)}`)).status, 401);
  const opened = await post(`Bearer ${token}`);
  assert.equal(opened.status, 200);
  await opened.body?.cancel();
  cli.child.kill('SIGTERM');
  assert.equal((await cli.exit()).code, 0);
});

test('SIGINT stops cleanly too', async (t) => {
  const cli = run(t, ['--port', '0', '--agent', 'operator', '--approval', 'prompt']);
  await cli.started();
  assert.match(cli.out.stdout, /agent: operator, approval: prompt/);
  cli.child.kill('SIGINT');
  assert.deepEqual(await cli.exit(), { code: 0, signal: null }, cli.out.stdout + cli.out.stderr);
});

test('a port in use is a clear error and exit code 1', async (t) => {
  // Another program, not an HTTP one: it hangs up on whoever asks what it is.
  const blocker = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => blocker.close(resolve)));
  const { port } = blocker.address() as AddressInfo;
  const cli = run(t, ['--port', String(port)]);
  const { code } = await cli.exit();
  assert.equal(code, 1, `${cli.out.stdout}\n${cli.out.stderr}`);
  assert.match(cli.out.stderr, new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is already in use by another program`));
  assert.match(cli.out.stderr, /--port 0/);
  assert.match(cli.out.stderr, /name that port in its bridge/);
});

test('a port another pedelec-dev holds: said so, with how to stop it or move, and what the page must then name', async (t) => {
  const other = await startDevCore({ port: 0 });
  t.after(() => other.close());
  const cli = run(t, ['--port', String(other.port)]);
  assert.deepEqual(await cli.exit(), { code: 1, signal: null });
  const lines = cli.out.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, cli.out.stderr);
  assert.match(
    lines[0]!,
    new RegExp(`Port ${other.port} on 127\\.0\\.0\\.1 is held by another pedelec-dev \\(npm start`),
  );
  assert.match(lines[0]!, /Ctrl\+C.*--port N.*ws:\/\/127\.0\.0\.1:N\/bridge/);
});

test('pedelec-dev mcp where no pedelec-dev --mcp runs: one line naming the flag, exit 1', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-no-mcp-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const tokenFile = join(dir, 'token');
  const core = await startDevCore({ port: 0 }); // MCP off
  t.after(() => core.close());
  const port = String(core.port);
  // No token file yet, then one left from an earlier --mcp run: the server on the port is not an MCP one.
  const missing = run(t, ['mcp', '--port', port, '--mcp-token-file', tokenFile]);
  assert.deepEqual(await missing.exit(), { code: 1, signal: null });
  await writeFile(tokenFile, `${'a'.repeat(32)}\n`, { mode: 0o600 });
  const stale = run(t, ['mcp', '--port', port, '--mcp-token-file', tokenFile]);
  assert.deepEqual(await stale.exit(), { code: 1, signal: null });
  for (const { out } of [missing, stale]) {
    assert.equal(out.stdout, '', 'stdout is the MCP channel: nothing but MCP goes there');
    const lines = out.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, out.stderr);
    assert.match(
      lines[0]!,
      new RegExp(
        `^pedelec-dev: no pedelec-dev --mcp on port ${port} \\(.+\\); start one first: pedelec-dev --mcp --port ${port}$`,
      ),
    );
  }
  assert.match(stale.out.stderr, /is not a pedelec-dev --mcp/);
});

test('start-up mistakes fail at once with exit code 1 and a message naming the problem', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'pedelec-dev-cli-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const badScript = join(dir, 'rules.json');
  await writeFile(badScript, JSON.stringify({ rules: [{ match: { regex: '[' }, steps: [{ say: 'x' }] }] }));
  const cases: [string[], RegExp][] = [
    [['--script', badScript], /rules\.json: rules\[0\]\.match\.regex: is not a valid regular expression/],
    [['--script', join(dir, 'missing.json')], /missing\.json: cannot be read/],
    [['--host', '0.0.0.0'], /--allow-remote/],
    [['--agent', 'openai'], /openai.*PEDELEC_DEV_BASE_URL/],
    [['--agent', 'gpt'], /--agent gpt: expected one of scripted, operator, openai/],
    [['--approval', 'maybe'], /--approval maybe/],
    [['--port', 'http'], /--port http/],
    [['--serve', join(dir, 'nope')], /--serve .*not a folder/],
    [['--allow-origin', 'localhost:5173'], /--allow-origin localhost:5173/],
    [['--frobnicate'], /Unknown option '--frobnicate'/],
    [['--protocol', '0.4'], /--protocol 0\.4: expected current or 0\.1/],
    [['--protocol'], /argument missing/],
    [['--protocol', '0.1', '--no-fragments'], /--no-fragments needs --protocol current/],
    [['--no-fragments', '--protocol', '0.1'], /--no-fragments needs --protocol current/],
    [['--protocol', '0.1', '--core-statuses'], /--core-statuses needs --protocol current/],
    [['--max-sessions', '0'], /--max-sessions 0: expected a whole number from 1 to 100000/],
    [['--max-sessions', 'many'], /--max-sessions many: expected a whole number/],
    [['--session-idle-ms', '0.5'], /--session-idle-ms 0\.5: expected a whole number/],
    [['--asset-quota-mb', '1.5'], /--asset-quota-mb 1\.5: expected a whole number/],
  ];
  // What each mistake says: checked where the command reads its flags and starts, in process.
  for (const [args, message] of cases) {
    const error = await startupError(['--port', '0', ...args]);
    assert.ok(error instanceof DevCoreError, `${args.join(' ')}: ${String(error)}`);
    assert.match(error.message, message, args.join(' '));
  }
  // How the command reports one (exit code 1, the message, no stack), for a mistake in the flags and
  // one found while starting: the same path serves every case above.
  for (const [args, message] of [cases[4]!, cases[0]!]) {
    // `--port 0` first, so a case's own --port (the last one wins) is the one checked.
    const cli = run(t, ['--port', '0', ...args]);
    const { code } = await cli.exit();
    assert.equal(code, 1, args.join(' '));
    assert.match(cli.out.stderr, new RegExp(`^pedelec-dev: .*${message.source}`, 'm'), args.join(' '));
    assert.doesNotMatch(cli.out.stderr, /\n\s+at /, 'no stack trace for a user mistake');
  }
});

/** The error `pedelec-dev ARGS` stops with at start-up (its flags read, its server started and closed), or null. */
async function startupError(args: string[]): Promise<unknown> {
  try {
    const command = parseCli(args);
    if (command.kind === 'start') await (await startDevCore(command.options)).close();
    return null;
  } catch (error) {
    return error;
  }
}

test('--agent openai names only the setting that is missing: --model given, the base URL alone', async (t) => {
  const cases: [string[], RegExp[], RegExp[]][] = [
    [['--agent', 'openai'], [/PEDELEC_DEV_BASE_URL \(or --base-url\)/, /PEDELEC_DEV_MODEL \(or --model\)/], []],
    [['--agent', 'openai', '--model', 'llama3.1'], [/PEDELEC_DEV_BASE_URL \(or --base-url\)/], [/MODEL|--model/]],
    [['--agent', 'openai', '--base-url', 'http://127.0.0.1:9/v1'], [/PEDELEC_DEV_MODEL \(or --model\)/], [/BASE_URL/]],
  ];
  await Promise.all(
    cases.map(async ([args, asked, notAsked]) => {
      const cli = run(t, ['--port', '0', ...args]);
      assert.equal((await cli.exit()).code, 1, args.join(' '));
      for (const pattern of asked) assert.match(cli.out.stderr, pattern, args.join(' '));
      for (const pattern of notAsked) assert.doesNotMatch(cli.out.stderr, pattern, args.join(' '));
    }),
  );
});

test('--serve DIR prints each page of the folder: its index, its other HTML files, its folders with an index', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'pedelec-dev-pages-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  for (const file of [
    'index.html',
    'about.html',
    '.hidden.html',
    'notes.txt',
    'shop/index.html',
    'empty/x.js',
    '.git/index.html',
  ])
    await mkdir(dirname(join(dir, file)), { recursive: true }).then(() => writeFile(join(dir, file), '<p>x</p>'));
  const cli = run(t, ['--port', '0', '--serve', dir]);
  const { pageUrl } = await cli.started();
  const base = pageUrl.replace(/\/$/, '');
  assert.match(
    cli.out.stdout,
    new RegExp(`^  Pages: {5}${base}/\n {13}${base}/about\\.html\n {13}${base}/shop/\n  Bridge:`, 'm'),
  );
  cli.child.kill('SIGTERM');
  await cli.exit();

  // A whole site is not listed page by page.
  for (let i = 0; i < 20; i++) await writeFile(join(dir, `page${String(i).padStart(2, '0')}.html`), '<p>x</p>');
  const many = run(t, ['--port', '0', '--serve', dir]);
  await many.started();
  const listed = many.out.stdout.slice(many.out.stdout.indexOf('Pages:'), many.out.stdout.indexOf('Bridge:'));
  assert.equal(listed.match(/http:\/\//g)?.length, 12);
  assert.match(listed, /… and 11 more in /);
  many.child.kill('SIGTERM');
  await many.exit();
});

test('--help prints the usage line and exits 0', async (t) => {
  const cli = run(t, ['--help']);
  assert.equal((await cli.exit()).code, 0);
  assert.match(cli.out.stdout, /^Usage: pedelec-dev \[--port N\]/);
  assert.match(
    cli.out.stdout,
    /^Usage: .*\[--protocol current\|0\.1\] \[--no-fragments\] \[--core-statuses\] \[--max-sessions N\] \[--session-idle-ms N\] \[--asset-quota-mb N\] \[--workspace-root DIR\] \[--workspace DIR\] \[--workspace-quota-mb N\] \[--deno FILE\] \[--mcp\] \[--mcp-approval auto\|prompt\] \[--mcp-open-links\] \[--mcp-token-file F\]$/m,
  );
  assert.match(
    cli.out.stdout,
    /^ {2}--max-sessions N +at most N live sessions in all, and a tenth of that \(rounded up\) per origin\s+\(default 200\)/m,
  );
  assert.match(cli.out.stdout, /^ {2}--protocol P +current: today's Pedelec protocol/m);
  assert.match(cli.out.stdout, /^ {2}--no-fragments +replies come as whole chat_message events only/m);
  assert.match(
    cli.out.stdout,
    /^ {2}--core-statuses +session_snapshot in today's Core's spelling: status waitingToolResult/m,
  );
});

test("--core-statuses: the banner says so, and a snapshot of a waiting call speaks Core's spelling", async (t) => {
  const cli = run(t, ['--port', '0', '--core-statuses', '--no-fragments']);
  const urls = await cli.started();
  assert.match(cli.out.stdout, /agent: scripted, approval: auto, protocol: current \(no fragments, Core statuses\)\n/);
  const owner = await BridgeClient.open(t, { bridgeUrl: urls.bridgeUrl });
  const sessionId = await createSession(owner, { autoEndOnDisconnect: false });
  const from = owner.mark();
  await owner.ok('send_text', { sessionId, text: '/call update_counter {"delta": 1}' });
  const call = await owner.until((m) => m.type === 'tool_call', { from });
  const other = await BridgeClient.open(t, { bridgeUrl: urls.bridgeUrl });
  await other.ok('resume_session', { sessionId });
  const { snapshot } = await other.until((m) => m.type === 'session_snapshot');
  assert.equal(snapshot.status, 'waitingToolResult');
  assert.equal(snapshot.pendingToolRequest.requestId, call.toolRequestId);
  await owner.close();
  await other.close();
  cli.child.kill('SIGTERM');
  assert.equal((await cli.exit()).code, 0);
});

test('the banner names the protocol; --protocol 0.1 speaks 0.1 and --no-fragments sends whole messages only', async (t) => {
  const cases: [string[], RegExp, (page: BridgeClient) => Promise<void>][] = [
    [
      [],
      /agent: scripted, approval: auto, protocol: current\n/,
      async (page) => assert.deepEqual(await page.ok('get_settings'), { defaultProvider: 'scripted' }),
    ],
    [
      ['--protocol', '0.1'],
      /agent: scripted, approval: auto, protocol: 0\.1\n/,
      async (page) =>
        assert.deepEqual(await page.ok('get_settings'), {
          defaultProvider: 'scripted',
          defaultModels: { scripted: 'scripted' },
        }),
    ],
    [
      ['--no-fragments', '--strict-providers'],
      /agent: scripted, approval: auto, protocol: current \(no fragments\), strict providers\n/,
      async (page) => {
        const sessionId = await createSession(page);
        const from = page.mark();
        await page.ok('send_text', { sessionId, text: 'hello' });
        const events = await page.turnEnd(sessionId, from);
        assert.ok(events.some((m) => m.type === 'chat_message') && !events.some((m) => m.type === 'chat_delta'));
      },
    ],
  ];
  for (const [args, banner, check] of cases) {
    const cli = run(t, ['--port', '0', ...args]);
    const urls = await cli.started();
    assert.match(cli.out.stdout, banner, args.join(' '));
    const page = await BridgeClient.open(t, { bridgeUrl: urls.bridgeUrl });
    await check(page);
    await page.close();
    cli.child.kill('SIGTERM');
    assert.equal((await cli.exit()).code, 0);
  }
});

// dev-core.md Running: a non-loopback --host is refused unless --allow-remote "is also given".
// With the default (loopback) host, --allow-remote exposes nothing, yet the banner warns
// "listening on undefined, reachable from other machines".
test('--allow-remote with the default loopback host prints no "reachable from other machines" warning naming undefined', async (t) => {
  const { command, args, env } = nodeTs(CLI_SOURCE, ['--port', '0', '--allow-remote']);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  await until(
    () => stdout.includes('Press Ctrl+C'),
    () => `the start banner; got: ${stdout}`,
    {
      timeoutMs: LIMIT_MS,
      everyMs: 5,
    },
  );
  child.kill('SIGTERM');
  await Promise.race([exited, delay(5000)]);
  assert.match(stdout, /Press Ctrl\+C/);
  assert.doesNotMatch(stdout, /undefined/);
  assert.doesNotMatch(stdout, /reachable from other machines/);
});
