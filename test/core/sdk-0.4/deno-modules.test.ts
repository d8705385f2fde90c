/**
 * SDK 0.4.6, Deno modules in a session (docs/design/sdk-0.4.md "Deno modules"): the session-setup
 * transaction after `create_session` — each module's artifact uploaded through its ticket, then
 * `complete_session_setup` — and its rollback: any failure sends `abort_session_setup` and rejects,
 * and the page never gets a half set-up session.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import { attachDenoModuleSources, defineDenoModule } from '../../../src/core/index.js';
import { fakeFetch, fakeFetchHooks, jsonResponse } from '../../support/fake-fetch.js';
import { rejection } from '../../support/promises.js';
import { client, clientHooks, createReply, fake, types } from './harness.js';

clientHooks();
fakeFetchHooks();

const module = (name: string) =>
  attachDenoModuleSources(
    defineDenoModule({ name, entry: `./${name}.ts`, description: `The ${name} helpers.`, usage: `import "${name}";` }),
    { runtimeSource: `export const id = ${JSON.stringify(name)};`, typesSource: 'export declare const id: string;' },
  );
const skills = { guidance: 'Use the modules.', tools: [], denoModules: [module('csv-tools'), module('@acme/charts')] };
const ticket = (moduleName: string) => ({
  uploadUrl: `http://127.0.0.1:9/deno/${moduleName}`,
  token: `t-${moduleName}`,
});

describe('SDK 0.4.6 Deno modules: the session-setup transaction', () => {
  it('after create_session: one ticket and one PUT per module, in order, then complete_session_setup; then the session', async () => {
    const bodies: Array<{ url: string; headers: unknown; body: unknown }> = [];
    fakeFetch.answer = async (url, init) => {
      bodies.push({ url, headers: init.headers, body: JSON.parse(await new Response(init.body as Blob).text()) });
      return jsonResponse({ ready: true });
    };
    const pending = client().createSession({ provider: 'codex', skills });
    await fake.answer('create_session', createReply('s1'));
    for (const name of ['csv-tools', '@acme/charts']) {
      const request = await fake.answer('create_deno_module_upload', ticket(name));
      expect(request).to.include({ sessionId: 's1', moduleName: name });
      expect(request.expectedSizeBytes).to.be.a('number').above(0);
    }
    await fake.answer('complete_session_setup', {});
    const session = await pending;
    expect(session.sessionId).to.equal('s1');
    expect(types()).to.deep.equal([
      'create_session',
      'create_deno_module_upload',
      'create_deno_module_upload',
      'complete_session_setup',
    ]);
    expect(bodies.map((b) => b.url)).to.deep.equal([ticket('csv-tools').uploadUrl, ticket('@acme/charts').uploadUrl]);
    expect(bodies[0].headers).to.deep.equal({
      Authorization: 'Bearer t-csv-tools',
      'Content-Type': 'application/json',
    });
    expect(bodies[0].body).to.deep.equal({
      version: 1,
      format: 'esm',
      runtimeSource: 'export const id = "csv-tools";',
      typesSource: 'export declare const id: string;',
    });
  });

  it('the ticket’s expectedSizeBytes is the size of the uploaded artifact', async () => {
    let uploaded = -1;
    fakeFetch.answer = (_url, init) => {
      uploaded = (init.body as Blob).size;
      return Promise.resolve(jsonResponse({ ready: true }));
    };
    const pending = client().createSession({ provider: 'codex', skills: { ...skills, denoModules: [module('one')] } });
    await fake.answer('create_session', createReply('s1'));
    const request = await fake.answer('create_deno_module_upload', ticket('one'));
    await fake.answer('complete_session_setup', {});
    await pending;
    expect(request.expectedSizeBytes).to.equal(uploaded);
  });

  it('an upload that fails → abort_session_setup, and the rejection carries the server’s error', async () => {
    fakeFetch.answer = () =>
      Promise.resolve(
        jsonResponse({ error: { code: 'DENO_MODULE_MATERIALIZATION_FAILED', message: 'disk full' } }, 500),
      );
    const pending = client().createSession({ provider: 'codex', skills });
    await fake.answer('create_session', createReply('s1'));
    await fake.answer('create_deno_module_upload', ticket('csv-tools'));
    const abort = await fake.answer('abort_session_setup', {});
    expect(abort.sessionId).to.equal('s1');
    expect(await rejection(pending)).to.deep.include({
      code: 'DENO_MODULE_MATERIALIZATION_FAILED',
      message: 'disk full',
    });
    expect(types()).to.not.include('complete_session_setup');
  });

  it('a network failure → DENO_MODULE_UPLOAD_FAILED naming the module, after the abort', async () => {
    fakeFetch.answer = () => Promise.reject(new TypeError('connection refused'));
    const pending = client().createSession({ provider: 'codex', skills });
    await fake.answer('create_session', createReply('s1'));
    await fake.answer('create_deno_module_upload', ticket('csv-tools'));
    await fake.answer('abort_session_setup', {});
    const error = await rejection(pending);
    expect(error.code).to.equal('DENO_MODULE_UPLOAD_FAILED');
  });

  it('an upload answered without { ready: true } → DENO_MODULE_SETUP_FAILED { moduleName }', async () => {
    fakeFetch.answer = () => Promise.resolve(jsonResponse({ stored: true }));
    const pending = client().createSession({ provider: 'codex', skills });
    await fake.answer('create_session', createReply('s1'));
    await fake.answer('create_deno_module_upload', ticket('csv-tools'));
    await fake.answer('abort_session_setup', {});
    expect(await rejection(pending)).to.deep.equal({
      code: 'DENO_MODULE_SETUP_FAILED',
      message: 'Deno Module "csv-tools" was not materialized',
      details: { moduleName: 'csv-tools' },
    });
  });

  it('an invalid ticket → SDK_PROTOCOL_ERROR "Deno Module upload ticket was invalid", after the abort', async () => {
    const pending = client().createSession({ provider: 'codex', skills });
    await fake.answer('create_session', createReply('s1'));
    await fake.answer('create_deno_module_upload', { uploadUrl: '', token: 't' });
    await fake.answer('abort_session_setup', {});
    expect(await rejection(pending)).to.deep.include({
      code: 'SDK_PROTOCOL_ERROR',
      message: 'Deno Module upload ticket was invalid',
    });
  });

  it('complete_session_setup refused → abort_session_setup, and its error; an abort that fails changes nothing', async () => {
    fakeFetch.answer = () => Promise.resolve(jsonResponse({ ready: true }));
    const pending = client().createSession({ provider: 'codex', skills: { ...skills, denoModules: [module('one')] } });
    await fake.answer('create_session', createReply('s1'));
    await fake.answer('create_deno_module_upload', ticket('one'));
    await fake.refuse('complete_session_setup', { code: 'DENO_MODULE_SETUP_INCOMPLETE', message: 'not all there' });
    await fake.refuse('abort_session_setup', { code: 'THREAD_NOT_FOUND', message: 'gone' });
    expect(await rejection(pending)).to.deep.include({
      code: 'DENO_MODULE_SETUP_INCOMPLETE',
      message: 'not all there',
    });
  });

  it('an explicit model Desktop did not apply aborts before any module is uploaded', async () => {
    const pending = client().createSession({ provider: 'codex', model: 'gpt-5', skills });
    await fake.answer('create_session', createReply('s1'));
    await fake.answer('abort_session_setup', {});
    expect((await rejection(pending)).code).to.equal('SDK_PROTOCOL_ERROR');
    expect(types()).to.not.include('create_deno_module_upload');
  });
});
