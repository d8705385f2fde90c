// Workspaces and Deno modules (sdk-0.4.md "Workspaces", "Deno modules"), as a real development Core
// answers them on its bridge: opening folders (inside --workspace-root, or the --workspace pick), listing,
// file tickets and their HTTP transfers, runs of scripts in a real Deno, and module uploads — one test per
// request type and per refusal. Tests that need Deno skip with the reason where none is installed,
// except under REQUIRE_DENO=1 (CI), where its absence fails them.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { WebSocket } from 'ws';
import { join } from 'node:path';
import { FolderPicks, MAX_OPEN_PICKS } from '../src/inspector/folder-picks.js';
import { findDeno } from '../src/workspaces/deno-runtime.js';
import { BridgeClient, chatText, startCore, untilAnswer, type Message } from './helpers.js';
import type { DevCore, DevCoreOptions } from '../src/index.js';

const DENO = findDeno();

/** Skips a test that needs Deno when there is none, unless REQUIRE_DENO=1 says it must be there. */
function needsDeno(t: TestContext): boolean {
  if (DENO) return true;
  if (process.env.REQUIRE_DENO === '1')
    assert.fail('REQUIRE_DENO=1 but no Deno was found (the optional "deno" package did not install)');
  t.skip('no Deno here: the optional "deno" package did not install and none is on PATH');
  return false;
}

async function tempFolder(t: TestContext, name: string): Promise<string> {
  const folder = await realpath(await mkdtemp(join(tmpdir(), `pedelec-dev-${name}-`)));
  t.after(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

/** A Core whose pages may open folders under a fresh root; a page connected to it. */
async function setUp(t: TestContext, options: DevCoreOptions = {}) {
  const root = await tempFolder(t, 'root');
  const core = await startCore(t, { workspaceRoot: root, ...options });
  const page = await BridgeClient.open(t, core);
  return { root, core, page };
}

/** Opens `folder` (under the root) and returns its workspace id. */
async function opened(page: BridgeClient, folder: string): Promise<string> {
  const { workspace } = await page.ok('open_workspace', { path: folder, callerSdkVersion: '0.4.6' });
  return workspace.workspaceId;
}

/** The inspector's socket, once it said hello. */
async function openInspector(t: TestContext, core: DevCore): Promise<BridgeClient> {
  const url = `ws://127.0.0.1:${core.port}/_pedelec/inspector/socket?token=${core.inspectorToken}`;
  const inspector = new BridgeClient(new WebSocket(url, { origin: core.url }), null);
  t.after(() => inspector.close());
  await inspector.until((m) => m.type === 'hello');
  return inspector;
}

async function refused(page: BridgeClient, type: string, payload: Message): Promise<{ code: string; message: string }> {
  const response = await page.request(type, payload);
  assert.equal(response.ok, false, `${type} should be refused: ${JSON.stringify(response.result)}`);
  return response.error;
}

/** Uploads `content` through a create_workspace_file_upload ticket; resolves the HTTP status and body. */
async function upload(page: BridgeClient, workspaceId: string, content: string, extra: Message = {}) {
  const bytes = Buffer.from(content);
  const ticket = await page.ok('create_workspace_file_upload', {
    workspaceId,
    filename: 'note.txt',
    sizeBytes: bytes.length,
    mimeType: 'text/plain',
    ...extra,
  });
  const response = await fetch(ticket.uploadUrl, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${ticket.token}`, 'Content-Type': 'text/plain' },
    body: bytes,
  });
  return { status: response.status, body: (await response.json()) as Message };
}

async function run(page: BridgeClient, workspaceId: string, script: string, extra: Message = {}): Promise<Message> {
  return page.request('workspace_run', { workspaceId, script, ...extra });
}

// ───────────────────────────── open_workspace ─────────────────────────────

test('open_workspace with a path inside the root: made when missing, the same id when opened again', async (t) => {
  const { root, page } = await setUp(t);
  const folder = join(root, 'projects', 'a');
  const first = await page.ok('open_workspace', { path: folder });
  assert.deepEqual(first.workspace, { workspaceId: first.workspace.workspaceId, path: folder });
  assert.match(first.workspace.workspaceId, /^ws_[0-9a-f]{32}$/);
  const again = await page.ok('open_workspace', { path: `${folder}/` });
  assert.equal(again.workspace.workspaceId, first.workspace.workspaceId);
  assert.equal((await page.ok('open_workspace', { path: root })).workspace.path, root, 'the root itself may be opened');
});

test('open_workspace refuses a path outside the root, a relative one, and one that leaves through a link: WORKSPACE_PATH_INVALID', async (t) => {
  const { root, page } = await setUp(t);
  const elsewhere = await tempFolder(t, 'elsewhere');
  await symlink(elsewhere, join(root, 'link'));
  for (const path of [elsewhere, join(root, '..', 'x'), 'relative/folder', join(root, 'link')]) {
    const error = await refused(page, 'open_workspace', { path });
    assert.equal(error.code, 'WORKSPACE_PATH_INVALID', path);
  }
});

test('open_workspace without a path: the --workspace folder is the pick; without one, the inspector asks the operator', async (t) => {
  const picked = await tempFolder(t, 'picked');
  const { page } = await setUp(t, { workspace: picked });
  assert.equal((await page.ok('open_workspace', {})).workspace.path, picked);
  const other = await setUp(t);
  const inspector = await openInspector(t, other.core);
  const pending = other.page.request('open_workspace', {});
  const { pick } = await inspector.until((m) => m.type === 'folder_pick_requested');
  inspector.sendRaw({ type: 'pick_folder', id: pick.id, path: 'not/absolute' });
  const refusal = await inspector.until((m) => m.type === 'error');
  assert.equal(refusal.error.code, 'WORKSPACE_PATH_INVALID');
  inspector.sendRaw({ type: 'pick_folder', id: pick.id, path: picked });
  assert.equal((await pending).result.workspace.path, picked);
  const cancelled = other.page.request('open_workspace', {});
  const from = inspector.mark();
  const next = await inspector.until((m) => m.type === 'folder_pick_requested', { from });
  inspector.sendRaw({ type: 'pick_folder', id: next.pick.id, path: null });
  assert.deepEqual((await cancelled).result, { workspace: null });
});

test('a workspace id is good only for the origins that opened it: WORKSPACE_ACCESS_DENIED; an unknown id: WORKSPACE_NOT_FOUND', async (t) => {
  const { root, core, page } = await setUp(t);
  const workspaceId = await opened(page, join(root, 'mine'));
  const stranger = await BridgeClient.open(t, core, { origin: 'http://127.0.0.1:9999' });
  assert.equal((await refused(stranger, 'workspace_list_files', { workspaceId })).code, 'WORKSPACE_ACCESS_DENIED');
  assert.equal((await refused(page, 'workspace_list_files', { workspaceId: 'ws_nope' })).code, 'WORKSPACE_NOT_FOUND');
});

// ───────────────────────────── listing ─────────────────────────────

test('workspace_list_files and _folders: recursive, from the root, sorted, dot files in, links neither followed nor listed', async (t) => {
  const { root, page } = await setUp(t);
  const folder = join(root, 'w');
  const workspaceId = await opened(page, folder);
  await mkdir(join(folder, 'src', 'deep'), { recursive: true });
  await writeFile(join(folder, 'b.txt'), 'b');
  await writeFile(join(folder, '.env'), 'x');
  await writeFile(join(folder, 'src', 'deep', 'a.ts'), 'a');
  const outside = await tempFolder(t, 'outside');
  await writeFile(join(outside, 'secret.txt'), 's');
  await symlink(outside, join(folder, 'escape'));
  assert.deepEqual((await page.ok('workspace_list_files', { workspaceId })).paths, ['.env', 'b.txt', 'src/deep/a.ts']);
  assert.deepEqual((await page.ok('workspace_list_folders', { workspaceId })).paths, ['src', 'src/deep']);
  assert.deepEqual((await page.ok('workspace_list_files', { workspaceId, path: 'src' })).paths, ['src/deep/a.ts']);
  for (const path of ['../', 'escape', '/etc', 'b.txt'])
    assert.equal(
      (await refused(page, 'workspace_list_files', { workspaceId, path })).code,
      'WORKSPACE_PATH_INVALID',
      path,
    );
});

// ───────────────────────────── files ─────────────────────────────

test('upload then read: the ticket PUT stores the file at its path (folders made), the download ticket GETs it back', async (t) => {
  const { root, page } = await setUp(t);
  const folder = join(root, 'w');
  const workspaceId = await opened(page, folder);
  const stored = await upload(page, workspaceId, 'hello, agent', { targetPath: 'in/note.txt' });
  assert.equal(stored.status, 201);
  assert.equal(stored.body.path, 'in/note.txt');
  assert.equal(await readFile(join(folder, 'in', 'note.txt'), 'utf8'), 'hello, agent');
  const ticket = await page.ok('create_workspace_file_download', { workspaceId, path: 'in/note.txt' });
  assert.deepEqual(
    { path: ticket.path, name: ticket.name, mimeType: ticket.mimeType, sizeBytes: ticket.sizeBytes },
    { path: 'in/note.txt', name: 'note.txt', mimeType: 'text/plain', sizeBytes: 12 },
  );
  assert.equal(typeof ticket.modifiedAt, 'number');
  const response = await fetch(ticket.downloadUrl, { headers: { Authorization: `Bearer ${ticket.token}` } });
  assert.equal(await response.text(), 'hello, agent');
  const again = await fetch(ticket.downloadUrl, { headers: { Authorization: `Bearer ${ticket.token}` } });
  assert.equal(again.status, 401, 'a ticket is good once');
});

test('file paths stay inside: "..", absolute, and a link on the way are WORKSPACE_PATH_INVALID; the file outside is untouched', async (t) => {
  const { root, page } = await setUp(t);
  const folder = join(root, 'w');
  const workspaceId = await opened(page, folder);
  const outside = await tempFolder(t, 'outside');
  await writeFile(join(outside, 'victim.txt'), 'original');
  await symlink(outside, join(folder, 'out'));
  for (const targetPath of ['../victim.txt', '/tmp/x.txt', 'out/victim.txt', 'C:/x.txt']) {
    const error = await refused(page, 'create_workspace_file_upload', {
      workspaceId,
      filename: 'victim.txt',
      sizeBytes: 1,
      targetPath,
    });
    assert.equal(error.code, 'WORKSPACE_PATH_INVALID', targetPath);
  }
  for (const path of ['../victim.txt', 'out/victim.txt'])
    assert.equal(
      (await refused(page, 'create_workspace_file_download', { workspaceId, path })).code,
      'WORKSPACE_PATH_INVALID',
    );
  assert.equal(await readFile(join(outside, 'victim.txt'), 'utf8'), 'original');
});

test('a missing file is WORKSPACE_FILE_NOT_FOUND, a folder WORKSPACE_FILE_NOT_REGULAR; over 100 MiB is WORKSPACE_FILE_TOO_LARGE', async (t) => {
  const { root, page } = await setUp(t);
  const folder = join(root, 'w');
  const workspaceId = await opened(page, folder);
  await mkdir(join(folder, 'dir'));
  assert.equal(
    (await refused(page, 'create_workspace_file_download', { workspaceId, path: 'no.txt' })).code,
    'WORKSPACE_FILE_NOT_FOUND',
  );
  assert.equal(
    (await refused(page, 'create_workspace_file_download', { workspaceId, path: 'dir' })).code,
    'WORKSPACE_FILE_NOT_REGULAR',
  );
  const tooLarge = { workspaceId, filename: 'big.bin', sizeBytes: 100 * 1024 * 1024 + 1 };
  assert.equal((await refused(page, 'create_workspace_file_upload', tooLarge)).code, 'WORKSPACE_FILE_TOO_LARGE');
});

test('uploads count against the workspace quota: past it, WORKSPACE_QUOTA_EXCEEDED naming --workspace-quota-mb', async (t) => {
  const { root, page } = await setUp(t, { workspaceQuotaBytes: 64 * 1024 });
  const workspaceId = await opened(page, join(root, 'w'));
  assert.equal((await upload(page, workspaceId, 'x'.repeat(40 * 1024), { targetPath: 'a.txt' })).status, 201);
  const error = await refused(page, 'create_workspace_file_upload', {
    workspaceId,
    filename: 'b.txt',
    sizeBytes: 40 * 1024,
  });
  assert.equal(error.code, 'WORKSPACE_QUOTA_EXCEEDED');
  assert.match(error.message, /--workspace-quota-mb/);
});

// ───────────────────────────── sessions ─────────────────────────────

test("a session's managed workspace is a real folder (path null), used like any; it goes once the session is over", async (t) => {
  const { page } = await setUp(t, { sessionIdleMs: 50 });
  const created = await page.ok('create_session', { input: { provider: 'scripted' } });
  const { workspaceId, path } = created.workspace;
  assert.equal(path, null);
  assert.equal((await upload(page, workspaceId, 'managed')).status, 201);
  const listed = (await page.ok('workspace_list_files', { workspaceId })).paths;
  assert.deepEqual(
    listed.filter((p: string) => !p.startsWith('.pedelec-runtime/')),
    ['note.txt'],
  );
  await page.ok('end_session', { sessionId: created.sessionId });
  // Kept for reactivation for --session-idle-ms, then over for good, and its folder with it.
  await untilAnswer(
    () => page.request('workspace_list_files', { workspaceId }),
    (response) => response.error?.code === 'WORKSPACE_NOT_FOUND',
    'the managed workspace to go',
  );
});

test('workspace.createSession: a session in an opened workspace replies with that workspace; the inspector shows its folder', async (t) => {
  const { root, core, page } = await setUp(t);
  const folder = join(root, 'w');
  const workspaceId = await opened(page, folder);
  const created = await page.ok('create_session', { input: { provider: 'scripted', workspaceId } });
  assert.deepEqual(created.workspace, { workspaceId, path: folder });
  const inspector = await openInspector(t, core);
  const hello = await inspector.until((m) => m.type === 'hello');
  const summary = hello.sessions.find((s: Message) => s.sessionId === created.sessionId);
  assert.deepEqual([summary.workspaceId, summary.workspacePath], [workspaceId, folder]);
});

// ───────────────────────────── runs ─────────────────────────────

test('workspace_run runs a real Deno in the workspace folder: Deno.version, files it reads and writes, the exit code', async (t) => {
  if (!needsDeno(t)) return;
  const { root, page } = await setUp(t);
  const folder = join(root, 'w');
  const workspaceId = await opened(page, folder);
  await writeFile(join(folder, 'in.txt'), 'twenty');
  const script = [
    'console.log(JSON.stringify(Deno.version));',
    'const text = await Deno.readTextFile("in.txt");',
    'await Deno.writeTextFile("out.txt", text.toUpperCase());',
    'console.error("to stderr");',
    'Deno.exit(3);',
  ].join('\n');
  const response = await run(page, workspaceId, script);
  assert.equal(response.ok, true, JSON.stringify(response.error));
  const result = response.result;
  assert.equal(result.exitCode, 3);
  assert.match(result.stdout, /"deno":"\d+\.\d+\.\d+"/);
  assert.equal(result.stderr.trim(), 'to stderr');
  assert.deepEqual([result.stdoutTruncated, result.stderrTruncated], [false, false]);
  assert.equal(await readFile(join(folder, 'out.txt'), 'utf8'), 'TWENTY');
});

test('a run cannot reach a loopback server, write or import outside the workspace, read the environment or start a process', async (t) => {
  if (!needsDeno(t)) return;
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits++;
    res.end('reached');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  const { root, page } = await setUp(t);
  const workspaceId = await opened(page, join(root, 'w'));
  const outside = await tempFolder(t, 'outside');
  await writeFile(join(outside, 'secret.txt'), 'secret');
  const attempts: Array<[string, string]> = [
    ['network', `await fetch("http://127.0.0.1:${port}/");`],
    ['write', `await Deno.writeTextFile(${JSON.stringify(join(outside, 'planted.txt'))}, "x");`],
    ['read', `await Deno.readTextFile(${JSON.stringify(join(outside, 'secret.txt'))});`],
    ['import', `import s from ${JSON.stringify(join(outside, 'secret.txt'))} with { type: "text" }; console.log(s);`],
    ['env', 'Deno.env.get("HOME");'],
    ['process', 'await new Deno.Command("true").output();'],
  ];
  for (const [what, script] of attempts) {
    const { result } = await run(page, workspaceId, script);
    assert.notEqual(result.exitCode, 0, `${what}: ${result.stdout}`);
    assert.match(result.stderr, /NotCapable|Requires .* access|PermissionDenied|NotFound/, `${what}: ${result.stderr}`);
    assert.doesNotMatch(result.stdout, /secret/, what);
  }
  assert.equal(hits, 0, 'the server was never reached');
  await assert.rejects(readFile(join(outside, 'planted.txt')), 'nothing was written outside');
});

test('a run that never ends is stopped at its timeoutMs: DENO_EXECUTION_TIMEOUT with what it printed', async (t) => {
  if (!needsDeno(t)) return;
  const { root, page } = await setUp(t);
  const workspaceId = await opened(page, join(root, 'w'));
  const response = await run(page, workspaceId, 'console.log("started"); while (true) {}', { timeoutMs: 1500 });
  assert.equal(response.ok, false);
  assert.equal(response.error.code, 'DENO_EXECUTION_TIMEOUT');
  assert.equal(response.error.details.timeoutMs, 1500);
  assert.match(response.error.details.stdout, /started/);
});

test('each stream keeps 1 MiB (the rest cut and flagged); a reply over 1 MiB is WORKSPACE_RUN_OUTPUT_TOO_LARGE, as Desktop says', async (t) => {
  if (!needsDeno(t)) return;
  const { root, page } = await setUp(t);
  const workspaceId = await opened(page, join(root, 'w'));
  const print =
    'const line = new TextEncoder().encode("x".repeat(1023) + "\\n"); for (let i = 0; i < 1100; i++) await Deno.stdout.write(line);';
  const tooLarge = await run(page, workspaceId, print);
  assert.equal(tooLarge.error?.code, 'WORKSPACE_RUN_OUTPUT_TOO_LARGE');
  const stopped = await run(page, workspaceId, `${print} while (true) {}`, { timeoutMs: 1500 });
  assert.equal(stopped.error.code, 'DENO_EXECUTION_TIMEOUT');
  assert.equal(stopped.error.details.stdoutTruncated, true);
  assert.equal(Buffer.byteLength(stopped.error.details.stdout), 1024 * 1024);
});

test('without Deno a run is refused DENO_UNAVAILABLE, saying how to get one', async (t) => {
  const { root, page } = await setUp(t, { deno: join(tmpdir(), 'no-such-deno') });
  const workspaceId = await opened(page, join(root, 'w'));
  const response = await run(page, workspaceId, '1');
  assert.equal(response.error.code, 'DENO_UNAVAILABLE');
  assert.match(response.error.message, /--deno|optional/);
});

// ───────────────────────────── Deno modules ─────────────────────────────

/** A module artifact as the page's SDK uploads it. */
const artifact = (runtimeSource: string) =>
  JSON.stringify({ version: 1, format: 'esm', runtimeSource, typesSource: 'export declare const value: string;' });

/**
 * Uploads `body` as a Deno module's artifact: the ticket (`type`, with `fields` and the body's size),
 * then the PUT; resolves the HTTP status and answer.
 */
async function uploadModule(
  page: BridgeClient,
  type: 'create_workspace_deno_module_upload' | 'create_deno_module_upload',
  fields: Message,
  body: string,
): Promise<{ status: number; body: Message }> {
  const ticket = await page.ok(type, { ...fields, expectedSizeBytes: Buffer.byteLength(body) });
  const response = await fetch(ticket.uploadUrl, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${ticket.token}`, 'Content-Type': 'application/json' },
    body,
  });
  return { status: response.status, body: (await response.json()) as Message };
}

/** A session's skills with one Deno module, `greet`. */
const GREET_SKILLS = {
  guidance: 'Use the module.',
  tools: [],
  denoModules: [{ name: 'greet', description: 'Greets.', usage: 'import { value } from "greet";' }],
};

test('workspace run modules: prepare lists the missing, the upload makes them ready, the run imports them by name; later runs need no upload', async (t) => {
  if (!needsDeno(t)) return;
  const { root, page } = await setUp(t);
  const workspaceId = await opened(page, join(root, 'w'));
  const prepared = await page.ok('prepare_workspace_deno_modules', { workspaceId, moduleNames: ['@acme/greet'] });
  assert.deepEqual(prepared, { missingModuleNames: ['@acme/greet'] });
  const body = artifact('export const value = "hello from a module";');
  const fields = { workspaceId, moduleName: '@acme/greet' };
  assert.deepEqual(await uploadModule(page, 'create_workspace_deno_module_upload', fields, body), {
    status: 201,
    body: { moduleName: '@acme/greet', ready: true },
  });
  const script = 'import { value } from "@acme/greet"; console.log(value);';
  const { result } = await run(page, workspaceId, script, { denoModules: ['@acme/greet'] });
  assert.equal(result.stdout.trim(), 'hello from a module', result.stderr);
  assert.deepEqual(await page.ok('prepare_workspace_deno_modules', { workspaceId, moduleNames: ['@acme/greet'] }), {
    missingModuleNames: [],
  });
});

test('a run naming a module that is not ready is DENO_MODULE_SETUP_INCOMPLETE; a bad artifact is DENO_MODULE_ARTIFACT_INVALID', async (t) => {
  const { root, page } = await setUp(t);
  const workspaceId = await opened(page, join(root, 'w'));
  const missing = await run(page, workspaceId, 'import "nope";', { denoModules: ['nope'] });
  assert.equal(missing.error.code, 'DENO_MODULE_SETUP_INCOMPLETE');
  await page.ok('prepare_workspace_deno_modules', { workspaceId, moduleNames: ['broken'] });
  const body = JSON.stringify({ version: 2, format: 'esm', runtimeSource: 'x', typesSource: 'y' });
  const put = await uploadModule(
    page,
    'create_workspace_deno_module_upload',
    { workspaceId, moduleName: 'broken' },
    body,
  );
  assert.equal(put.status, 422);
  assert.equal(put.body.error.code, 'DENO_MODULE_ARTIFACT_INVALID');
  const undeclared = await refused(page, 'create_workspace_deno_module_upload', {
    workspaceId,
    moduleName: 'other',
    expectedSizeBytes: 10,
  });
  assert.equal(undeclared.code, 'DENO_MODULE_NOT_FOUND');
});

test("a session's Deno modules: turns wait for complete_session_setup (DENO_MODULE_SETUP_INCOMPLETE before), which needs every module uploaded", async (t) => {
  const { page } = await setUp(t);
  const { sessionId } = await page.ok('create_session', { input: { provider: 'scripted', skills: GREET_SKILLS } });
  assert.equal((await refused(page, 'send_text', { sessionId, text: 'hi' })).code, 'DENO_MODULE_SETUP_INCOMPLETE');
  assert.equal((await refused(page, 'complete_session_setup', { sessionId })).code, 'DENO_MODULE_SETUP_INCOMPLETE');
  const body = artifact('export const value = "hi";');
  assert.equal(
    (await uploadModule(page, 'create_deno_module_upload', { sessionId, moduleName: 'greet' }, body)).status,
    201,
  );
  await page.ok('complete_session_setup', { sessionId });
  await page.ok('send_text', { sessionId, text: 'hi' });
});

// ───────────────────────────── the agent in the workspace ─────────────────────────────

/** Sends `text` to the session and resolves the reply's text once the turn is over. */
async function say(page: BridgeClient, sessionId: string, text: string): Promise<string> {
  const from = page.mark();
  await page.ok('send_text', { sessionId, text });
  return chatText(await page.turnEnd(sessionId, from));
}

test('the scripted agent works in the session’s workspace: /write, /files, /read, and refusals said with their code', async (t) => {
  const { root, page } = await setUp(t);
  const folder = join(root, 'w');
  const workspaceId = await opened(page, folder);
  const { sessionId } = await page.ok('create_session', { input: { provider: 'scripted', workspaceId } });
  assert.equal(await say(page, sessionId, '/write out/answer.txt forty-two'), 'Wrote 9 bytes to out/answer.txt.');
  assert.equal(await readFile(join(folder, 'out', 'answer.txt'), 'utf8'), 'forty-two');
  assert.equal(await say(page, sessionId, '/files'), 'Files in the workspace:\n- out/answer.txt');
  assert.equal(await say(page, sessionId, '/read out/answer.txt'), 'out/answer.txt:\nforty-two');
  assert.match(
    await say(page, sessionId, '/read ../etc/passwd'),
    /^I could not read \.\.\/etc\/passwd: WORKSPACE_PATH_INVALID — /,
  );
  assert.match(await say(page, sessionId, '/read missing.txt'), /WORKSPACE_FILE_NOT_FOUND/);
});

test('the agent’s /run imports the session’s Deno module by name, once its setup completed', async (t) => {
  if (!needsDeno(t)) return;
  const { page } = await setUp(t);
  const { sessionId } = await page.ok('create_session', { input: { provider: 'scripted', skills: GREET_SKILLS } });
  const body = artifact('export const value = "hi from greet";');
  assert.equal(
    (await uploadModule(page, 'create_deno_module_upload', { sessionId, moduleName: 'greet' }, body)).status,
    201,
  );
  await page.ok('complete_session_setup', { sessionId });
  const reply = await say(page, sessionId, '/run import { value } from "greet"; console.log(value);');
  assert.equal(reply, 'Exit code 0.\nstdout:\nhi from greet\n');
});

test('folder picks are bounded: 16 wait at once, one more is DIRECTORY_PICKER_FAILED; stopping fails those still open', async () => {
  const picks = new FolderPicks(null);
  const waiting = Array.from({ length: MAX_OPEN_PICKS }, (_, i) => picks.ask(`http://localhost:${5000 + i}`));
  await assert.rejects(picks.ask('http://localhost:1'), { code: 'DIRECTORY_PICKER_FAILED' });
  assert.equal(picks.pending().length, MAX_OPEN_PICKS);
  picks.dispose();
  for (const pick of waiting) await assert.rejects(pick, { code: 'DIRECTORY_PICKER_FAILED' });
  assert.deepEqual(picks.pending(), []);
});
