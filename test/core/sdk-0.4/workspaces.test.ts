/**
 * SDK 0.4.6, workspaces (docs/design/sdk-0.4.md "Workspaces"): `openWorkspace` with a path and with
 * the user's pick, and a workspace's `listFiles`, `listFolders`, `uploadFile`, `readFile` and `run` —
 * each request's shape, the checks made before it, the reply's checks, the file transfer through a
 * fake fetch, and a run's Deno modules. Each test is what a page written for 0.4.6 does, against a
 * fake answering as today's extension and Desktop do.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import {
  attachDenoModuleSources,
  defineDenoModule,
  PEDELEC_PROTOCOL_VERSION,
  PedelecWorkspace,
  type Pedelec,
} from '../../../src/core/index.js';
import { fakeFetch, fakeFetchHooks, jsonResponse } from '../../support/fake-fetch.js';
import { rejection } from '../../support/promises.js';
import { client, clientHooks, created, fake, legacyClient } from './harness.js';

clientHooks();
fakeFetchHooks();

const MiB = 1024 * 1024;
const folder = { workspaceId: 'ws-docs', path: '/home/ada/docs' };

/** `openWorkspace(path)` answered with the folder above. */
async function opened(c: Pedelec = client()): Promise<PedelecWorkspace> {
  const pending = c.openWorkspace(folder.path);
  await fake.answer('open_workspace', { workspace: folder });
  return pending;
}

/** A module a run may import, prepared with the kit's own helper. */
const prepared = (name: string) =>
  attachDenoModuleSources(defineDenoModule({ name, entry: `./${name}.ts` }), {
    runtimeSource: `export const name = ${JSON.stringify(name)};`,
    typesSource: 'export declare const name: string;',
  });

describe('SDK 0.4.6 workspaces: openWorkspace', () => {
  it('openWorkspace(path) posts open_workspace { path, callerSdkVersion } and resolves a PedelecWorkspace at that path', async () => {
    const c = client();
    const pending = c.openWorkspace(folder.path);
    const request = await fake.answer('open_workspace', { workspace: folder });
    expect(request).to.include({ path: folder.path, callerSdkVersion: PEDELEC_PROTOCOL_VERSION });
    const workspace = await pending;
    expect(workspace).to.be.instanceOf(PedelecWorkspace);
    expect(workspace.path).to.equal(folder.path);
    expect(workspace.workspaceId).to.equal('ws-docs');
  });

  it('openWorkspace() asks for the user’s pick without a path, and waits past the bridge timeout', async () => {
    const c = client({ bridgeTimeoutMs: 20 });
    const pending = c.openWorkspace();
    const request = await fake.request('open_workspace');
    expect(request).to.not.have.property('path');
    await new Promise((resolve) => setTimeout(resolve, 60));
    fake.respond({ workspace: folder }, request);
    expect((await pending)?.path).to.equal(folder.path);
  });

  it('a cancelled pick resolves null: { workspace: null } or null', async () => {
    const c = client();
    for (const reply of [{ workspace: null }, null]) {
      const pending = c.openWorkspace();
      await fake.answer('open_workspace', reply);
      expect(await pending).to.equal(null);
    }
  });

  it('a blank or non-string path → INVALID_INPUT "path must be a non-empty string when provided", nothing posted', async () => {
    const c = client();
    for (const path of ['', '   ', 42]) {
      expect(await rejection(c.openWorkspace(path as string))).to.deep.include({
        code: 'INVALID_INPUT',
        message: 'path must be a non-empty string when provided',
      });
    }
    expect(fake.posted.filter((m) => m.type === 'open_workspace')).to.deep.equal([]);
  });

  it('a reply without workspace, or with a malformed one → SDK_PROTOCOL_ERROR', async () => {
    const c = client();
    const cases: Array<[unknown, string]> = [
      [{}, 'open_workspace response had an invalid shape'],
      ['folder', 'open_workspace response had an invalid shape'],
      [{ workspace: { workspaceId: '', path: null } }, 'open_workspace response had an invalid Workspace shape'],
      [{ workspace: { workspaceId: 'w', path: '' } }, 'open_workspace response had an invalid Workspace shape'],
    ];
    for (const [reply, message] of cases) {
      const pending = c.openWorkspace('/x');
      await fake.answer('open_workspace', reply);
      expect(await rejection(pending), JSON.stringify(reply)).to.deep.include({ code: 'SDK_PROTOCOL_ERROR', message });
    }
  });

  it('Desktop’s refusal reaches the page with its code (WORKSPACE_OPEN_FAILED)', async () => {
    const c = client();
    const pending = c.openWorkspace('/nowhere');
    await fake.refuse('open_workspace', { code: 'WORKSPACE_OPEN_FAILED', message: 'No such folder' });
    expect(await rejection(pending)).to.deep.include({ code: 'WORKSPACE_OPEN_FAILED', message: 'No such folder' });
  });
});

describe('SDK 0.4.6 workspaces: listFiles and listFolders', () => {
  it('listFiles() posts workspace_list_files { workspaceId } and resolves the paths', async () => {
    const workspace = await opened();
    const pending = workspace.listFiles();
    const request = await fake.answer('workspace_list_files', { paths: ['a.txt', 'notes/b.md'] });
    expect(request.workspaceId).to.equal('ws-docs');
    expect(request).to.not.have.property('path');
    expect(await pending).to.deep.equal(['a.txt', 'notes/b.md']);
  });

  it('listFolders(path) posts workspace_list_folders { workspaceId, path }; a bare array is accepted too', async () => {
    const workspace = await opened();
    const pending = workspace.listFolders('notes');
    const request = await fake.answer('workspace_list_folders', ['notes/drafts']);
    expect(request).to.include({ workspaceId: 'ws-docs', path: 'notes' });
    expect(await pending).to.deep.equal(['notes/drafts']);
  });

  it('a path that is not a string, or blank → INVALID_INPUT, nothing posted', async () => {
    const workspace = await opened();
    expect(await rejection(workspace.listFiles(7 as never))).to.deep.include({
      code: 'INVALID_INPUT',
      message: 'path must be a string when provided',
    });
    expect(await rejection(workspace.listFolders(' '))).to.deep.include({
      code: 'INVALID_INPUT',
      message: 'path must not be empty when provided',
    });
    expect(fake.posted.map((m) => m.type)).to.not.include('workspace_list_files');
  });

  it('a list with a non-string entry → SDK_PROTOCOL_ERROR "workspace list response had an invalid shape"', async () => {
    const workspace = await opened();
    const pending = workspace.listFiles();
    await fake.answer('workspace_list_files', { paths: ['a', 3] });
    expect(await rejection(pending)).to.deep.include({
      code: 'SDK_PROTOCOL_ERROR',
      message: 'workspace list response had an invalid shape',
    });
  });
});

describe('SDK 0.4.6 workspaces: uploadFile', () => {
  const ticket = { uploadId: 'u1', uploadUrl: 'http://127.0.0.1:9/up/u1', token: 'tok' };

  it('posts create_workspace_file_upload, PUTs the file with the bearer token and no credentials, and resolves the path', async () => {
    const workspace = await opened();
    fakeFetch.answer = () => Promise.resolve(jsonResponse({ path: 'in/data.csv' }, 201));
    const file = new File(['a,b\n1,2\n'], 'data.csv', { type: 'text/csv' });
    const pending = workspace.uploadFile(file, 'in/data.csv');
    const request = await fake.answer('create_workspace_file_upload', ticket);
    expect(request).to.include({
      workspaceId: 'ws-docs',
      filename: 'data.csv',
      sizeBytes: 8,
      mimeType: 'text/csv',
      targetPath: 'in/data.csv',
    });
    expect(await pending).to.equal('in/data.csv');
    const [{ url, init }] = fakeFetch.calls;
    expect(url).to.equal(ticket.uploadUrl);
    expect(init).to.include({ method: 'PUT', credentials: 'omit', body: file });
    expect(init.headers).to.deep.equal({ Authorization: 'Bearer tok', 'Content-Type': 'text/csv' });
  });

  it('without a target path the file keeps its own name; the answer must name that path', async () => {
    const workspace = await opened();
    fakeFetch.answer = () => Promise.resolve(jsonResponse({ path: 'elsewhere.txt' }, 201));
    const pending = workspace.uploadFile(new File(['x'], 'note.txt'));
    const request = await fake.answer('create_workspace_file_upload', ticket);
    expect(request).to.not.have.property('targetPath');
    expect(await rejection(pending)).to.deep.include({
      code: 'SDK_PROTOCOL_ERROR',
      message: 'file upload response path did not match target path',
    });
  });

  it('refused before any request: not a File → INVALID_INPUT; over 100 MiB → WORKSPACE_FILE_TOO_LARGE; a bad path → WORKSPACE_PATH_INVALID', async () => {
    const workspace = await opened();
    const big = Object.defineProperty(new File(['x'], 'big.bin'), 'size', { value: 100 * MiB + 1 });
    const cases: Array<[Promise<unknown>, string, string]> = [
      [workspace.uploadFile('text' as never), 'INVALID_INPUT', 'uploadFile requires a browser File with a filename'],
      [workspace.uploadFile(big), 'WORKSPACE_FILE_TOO_LARGE', 'workspace file exceeds the 100 MiB limit'],
      [
        workspace.uploadFile(new File(['x'], 'a.txt'), '../a.txt'),
        'WORKSPACE_PATH_INVALID',
        'workspace target path is invalid',
      ],
      [
        workspace.uploadFile(new File(['x'], 'a.txt'), '/etc/a.txt'),
        'WORKSPACE_PATH_INVALID',
        'workspace target path is invalid',
      ],
      [
        workspace.uploadFile(new File(['x'], 'a.txt'), 'C:/a.txt'),
        'WORKSPACE_PATH_INVALID',
        'workspace target path is invalid',
      ],
      [workspace.uploadFile(new File(['x'], '..')), 'WORKSPACE_PATH_INVALID', 'workspace filename is invalid'],
    ];
    for (const [pending, code, message] of cases) expect(await rejection(pending)).to.deep.include({ code, message });
    expect(fake.posted.map((m) => m.type)).to.not.include('create_workspace_file_upload');
  });

  it('an HTTP failure → the server’s own error, else WORKSPACE_FILE_UPLOAD_FAILED', async () => {
    const workspace = await opened();
    fakeFetch.answer = () =>
      Promise.resolve(jsonResponse({ error: { code: 'WORKSPACE_QUOTA_EXCEEDED', message: 'full' } }, 413));
    const first = workspace.uploadFile(new File(['x'], 'a.txt'));
    await fake.answer('create_workspace_file_upload', ticket);
    expect(await rejection(first)).to.deep.include({ code: 'WORKSPACE_QUOTA_EXCEEDED', message: 'full' });
    fakeFetch.answer = () => Promise.reject(new TypeError('network down'));
    const second = workspace.uploadFile(new File(['x'], 'a.txt'));
    await fake.answer('create_workspace_file_upload', ticket);
    expect((await rejection(second)).code).to.equal('WORKSPACE_FILE_UPLOAD_FAILED');
  });
});

describe('SDK 0.4.6 workspaces: readFile', () => {
  const ticket = (path: string) => ({
    downloadUrl: 'http://127.0.0.1:9/down/d1',
    token: 'tok',
    name: path.split('/').pop(),
    mimeType: 'application/json',
    modifiedAt: 1_700_000_000_000,
    path,
  });

  it('posts create_workspace_file_download { workspaceId, path }, GETs with the bearer token, and reads text, JSON or a File', async () => {
    const workspace = await opened();
    for (const [type, expected] of [
      ['text', '{"ok":true}'],
      ['json', { ok: true }],
    ] as const) {
      fakeFetch.answer = () => Promise.resolve(new Response('{"ok":true}'));
      const pending = workspace.readFile('out/result.json', type as 'text');
      const request = await fake.answer('create_workspace_file_download', ticket('out/result.json'));
      expect(request).to.include({ workspaceId: 'ws-docs', path: 'out/result.json' });
      expect(await pending).to.deep.equal(expected);
    }
    fakeFetch.answer = () => Promise.resolve(new Response('{"ok":true}'));
    const pending = workspace.readFile('out/result.json', 'file');
    await fake.answer('create_workspace_file_download', ticket('out/result.json'));
    const file = await pending;
    expect(file).to.be.instanceOf(File);
    expect(file.name).to.equal('result.json');
    expect(await file.text()).to.equal('{"ok":true}');
    expect(fakeFetch.calls[0].init).to.deep.include({ credentials: 'omit', headers: { Authorization: 'Bearer tok' } });
  });

  it('a bad path or read type → WORKSPACE_PATH_INVALID "workspace path or read type is invalid", nothing posted', async () => {
    const workspace = await opened();
    for (const [path, type] of [
      ['../secret', 'text'],
      ['/abs', 'text'],
      ['a//b', 'text'],
      ['a.txt', 'bytes'],
    ]) {
      expect(await rejection(workspace.readFile(path, type as 'text'))).to.deep.include({
        code: 'WORKSPACE_PATH_INVALID',
        message: 'workspace path or read type is invalid',
      });
    }
    expect(fake.posted.map((m) => m.type)).to.not.include('create_workspace_file_download');
  });

  it('not UTF-8 → WORKSPACE_FILE_TEXT_DECODE_FAILED; not JSON → WORKSPACE_FILE_INVALID_JSON; missing → the server’s error', async () => {
    const workspace = await opened();
    const cases: Array<[Response, 'text' | 'json', string]> = [
      [new Response(new Uint8Array([0xff, 0xfe])), 'text', 'WORKSPACE_FILE_TEXT_DECODE_FAILED'],
      [new Response('{nope'), 'json', 'WORKSPACE_FILE_INVALID_JSON'],
      [
        jsonResponse({ error: { code: 'WORKSPACE_FILE_NOT_FOUND', message: 'gone' } }, 404),
        'text',
        'WORKSPACE_FILE_NOT_FOUND',
      ],
    ];
    for (const [response, type, code] of cases) {
      fakeFetch.answer = () => Promise.resolve(response);
      const pending = workspace.readFile('a.txt', type as 'text');
      await fake.answer('create_workspace_file_download', ticket('a.txt'));
      expect((await rejection(pending)).code).to.equal(code);
    }
  });
});

describe('SDK 0.4.6 workspaces: run', () => {
  const result = { exitCode: 0, stdout: 'hi\n', stderr: '', stdoutTruncated: false, stderrTruncated: false };

  it('posts workspace_run { workspaceId, script, timeoutMs } and resolves what the script printed', async () => {
    const workspace = await opened();
    const pending = workspace.run('console.log("hi")', { timeoutMs: 5000 });
    const request = await fake.answer('workspace_run', result);
    expect(request).to.include({ workspaceId: 'ws-docs', script: 'console.log("hi")', timeoutMs: 5000 });
    expect(request).to.not.have.property('denoModules');
    expect(await pending).to.deep.equal(result);
  });

  it('a run waits past the bridge timeout (Desktop bounds it); a non-zero exit code still resolves', async () => {
    const workspace = await opened(client({ bridgeTimeoutMs: 20 }));
    const pending = workspace.run('Deno.exit(3)');
    const request = await fake.request('workspace_run');
    await new Promise((resolve) => setTimeout(resolve, 60));
    fake.respond({ ...result, exitCode: 3 }, request);
    expect((await pending).exitCode).to.equal(3);
  });

  it('refused before any request: a script that is not a string, options that are not an object, a bad timeoutMs', async () => {
    const workspace = await opened();
    const cases: Array<[Promise<unknown>, string]> = [
      [workspace.run(42 as never), 'script must be a string'],
      [workspace.run('', [] as never), 'options must be an object'],
      [workspace.run('', { timeoutMs: 0 }), 'timeoutMs must be a positive integer'],
      [workspace.run('', { timeoutMs: 1.5 }), 'timeoutMs must be a positive integer'],
      [workspace.run('', { denoModules: {} as never }), 'options.denoModules must be an array'],
    ];
    for (const [pending, message] of cases)
      expect(await rejection(pending)).to.deep.include({ code: 'INVALID_INPUT', message });
    expect(fake.posted.map((m) => m.type)).to.not.include('workspace_run');
  });

  it('a malformed result → SDK_PROTOCOL_ERROR "workspace_run response had an invalid shape"', async () => {
    const workspace = await opened();
    const pending = workspace.run('1');
    await fake.answer('workspace_run', { ...result, stdoutTruncated: 'no' });
    expect(await rejection(pending)).to.deep.include({
      code: 'SDK_PROTOCOL_ERROR',
      message: 'workspace_run response had an invalid shape',
    });
  });

  it('with Deno modules: prepare_workspace_deno_modules, then only the missing ones uploaded, then the run names them all', async () => {
    const workspace = await opened();
    const puts: unknown[] = [];
    fakeFetch.answer = async (_url, init) => {
      puts.push(JSON.parse(await new Response(init.body as Blob).text()));
      return jsonResponse({ ready: true });
    };
    const pending = workspace.run('import { name } from "csv-tools";', {
      denoModules: [prepared('csv-tools'), prepared('@acme/charts')],
    });
    const prepare = await fake.answer('prepare_workspace_deno_modules', { missingModuleNames: ['@acme/charts'] });
    expect(prepare).to.deep.include({ workspaceId: 'ws-docs', moduleNames: ['csv-tools', '@acme/charts'] });
    const upload = await fake.answer('create_workspace_deno_module_upload', {
      uploadUrl: 'http://127.0.0.1:9/m',
      token: 't',
    });
    expect(upload).to.include({ workspaceId: 'ws-docs', moduleName: '@acme/charts' });
    expect(upload.expectedSizeBytes).to.be.a('number').above(0);
    const run = await fake.answer('workspace_run', result);
    expect(run.denoModules).to.deep.equal(['csv-tools', '@acme/charts']);
    await pending;
    expect(puts).to.deep.equal([
      {
        version: 1,
        format: 'esm',
        runtimeSource: 'export const name = "@acme/charts";',
        typesSource: 'export declare const name: string;',
      },
    ]);
  });

  it('a run module that was not prepared → INVALID_INPUT naming attachDenoModuleSources, nothing posted', async () => {
    const workspace = await opened();
    const error = await rejection(
      workspace.run('', { denoModules: [defineDenoModule({ name: 'raw', entry: './raw.ts' })] }),
    );
    expect(error.code).to.equal('INVALID_INPUT');
    expect(error.message).to.contain('attachDenoModuleSources');
    expect(error.details).to.deep.equal({ moduleName: 'raw' });
    expect(fake.posted.map((m) => m.type)).to.not.include('prepare_workspace_deno_modules');
  });

  it('a prepare reply naming a module the run did not give → SDK_PROTOCOL_ERROR, and no run', async () => {
    const workspace = await opened();
    const pending = workspace.run('', { denoModules: [prepared('csv-tools')] });
    await fake.answer('prepare_workspace_deno_modules', { missingModuleNames: ['other'] });
    expect(await rejection(pending)).to.deep.include({
      code: 'SDK_PROTOCOL_ERROR',
      message: 'prepare_workspace_deno_modules response had unknown or duplicate modules',
    });
    expect(fake.posted.map((m) => m.type)).to.not.include('workspace_run');
  });
});

describe('SDK 0.4.6 workspaces: a session’s workspace', () => {
  it('session.workspace works on the workspace Desktop manages for it (its id on every request)', async () => {
    const { session } = await created(client(), { provider: 'codex' }, 's1');
    const pending = session.workspace.listFiles();
    expect((await fake.answer('workspace_list_files', { paths: [] })).workspaceId).to.equal('ws-s1');
    expect(await pending).to.deep.equal([]);
  });

  it('with a 0.1.x extension every workspace method rejects WORKSPACE_UNAVAILABLE, posting nothing', async () => {
    const c = await legacyClient();
    const pending = c.createSession({ provider: 'codex', model: 'm' });
    fake.respond({ sessionId: 's1' }, await fake.request('create_session'));
    const { workspace } = await pending;
    expect(workspace.path).to.equal(null);
    const before = fake.posted.length;
    for (const call of [
      workspace.listFiles(),
      workspace.listFolders(),
      workspace.uploadFile(new File(['x'], 'a.txt')),
      workspace.readFile('a.txt', 'text'),
      workspace.run('1'),
      workspace.createSession(),
    ])
      expect((await rejection(call)).code).to.equal('WORKSPACE_UNAVAILABLE');
    expect(fake.posted.length).to.equal(before);
  });
});
