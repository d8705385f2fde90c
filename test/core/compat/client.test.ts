/**
 * Drop-in compatibility with the public Pedelec SDK (sdk-compat.md §1): the `Pedelec` client —
 * how createSession reads its input, resumeSession's answer, unregisterSession, and the errors it
 * copies from the bridge. Each rule is one test, written as an SDK user's page calls the API, on
 * the fake Chrome port.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import { rejection, track } from '../../support/promises.js';
import { nextTask } from '../../support/waits.js';
import type { CreateSessionInput } from '../../../src/core/index.js';
import { fake, client, legacyClient, openSession, types, clientHooks } from '../client/harness.js';

clientHooks();

/** An input as a JavaScript page may pass it: the SDK reads values its types do not allow. */
const asPageWrote = (input: Record<string, unknown>) => input as CreateSessionInput;

/** The defaults of a 0.1.x extension (with `defaultModels`), or of today's (without). */
const SETTINGS_01 = { defaultProvider: 'codex', defaultModels: { codex: 'gpt-5', claude: 'sonnet' } };
const SETTINGS_TODAY = { defaultProvider: 'codex' };
const PROVIDERS = [
  { name: 'Codex', code: 'codex', available: true, error: null },
  { name: 'Claude', code: 'claude', available: true, error: null },
];

/** The `input` the page's create_session carried, once posted. */
async function createInput(): Promise<Record<string, unknown>> {
  return (await fake.answer('create_session', { sessionId: 's1' })).input;
}

describe('SDK compatibility: the Pedelec client', () => {
  it('createSession trims a string provider', async () => {
    const c = client();
    const created = c.createSession({ provider: '  claude ', model: 'sonnet' });
    expect((await createInput()).provider).to.equal('claude');
    expect((await created).provider).to.equal('claude');
  });

  it('createSession takes a blank or non-string provider for none: the default provider is used', async () => {
    for (const provider of ['', '   ', null, 7]) {
      const c = client();
      const created = track(c.createSession(asPageWrote({ provider })));
      await fake.answer('get_settings', SETTINGS_TODAY);
      await fake.answer('list_providers', PROVIDERS);
      const input = await createInput();
      expect(input, JSON.stringify(provider)).to.include({ provider: 'codex', effortLevel: 'default' });
      expect(input.model).to.equal(undefined);
      await created.promise;
    }
  });

  it('createSession: a model that is not a non-blank string (null, "", "   ", 42) → INVALID_INPUT, nothing posted', async () => {
    const c = client();
    for (const input of [{ model: null }, { model: '' }, { provider: 'codex', model: '   ' }, { model: 42 }]) {
      const error = await rejection(c.createSession(asPageWrote(input)));
      expect(error, JSON.stringify(input)).to.deep.include({
        code: 'INVALID_INPUT',
        message: 'model must be a non-empty string when provided',
      });
    }
    expect(fake.posted).to.deep.equal([]);
  });

  it('createSession sends the model trimmed, in explicit model mode (no effort level)', async () => {
    const c = client();
    const created = c.createSession({ provider: 'codex', model: '  gpt-5  ' });
    expect(types()).to.deep.equal(['create_session']);
    expect(await createInput()).to.include({ provider: 'codex', model: 'gpt-5', effortLevel: undefined });
    expect((await created).model).to.equal('gpt-5');
  });

  it("0.1.x extension: createSession with a provider and no model sends the provider's default model (get_settings)", async () => {
    const c = await legacyClient();
    const created = c.createSession({ provider: 'claude' });
    await fake.answer('get_settings', SETTINGS_01);
    expect(await createInput()).to.include({ provider: 'claude', model: 'sonnet' });
    expect((await created).model).to.equal('sonnet');
    expect(types()).to.deep.equal(['get_settings', 'create_session']);
  });

  it('resumeSession rejects SDK_PROTOCOL_ERROR when the response has no sessionId', async () => {
    const c = client();
    for (const result of [{}, { sessionId: '' }, { sessionId: 7 }, undefined]) {
      const resumed = c.resumeSession('kept-1');
      fake.respond(result, fake.last('resume_session'));
      expect(await rejection(resumed), JSON.stringify(result)).to.deep.include({
        code: 'SDK_PROTOCOL_ERROR',
        message: 'resume_session response did not include sessionId',
      });
    }
  });

  it("Pedelec.unregisterSession(sessionId) stops routing that session's events to its handle", async () => {
    const c = client();
    const session = await openSession(c, 's1');
    const chat: string[] = [];
    session.onChatDelta((text) => chat.push(text));
    const sent = track(session.sendText('hello'));
    fake.respond({}, fake.last('send_text'));
    fake.event('s1', 'chat_delta', { text: 'a' });
    const returned: void = c.unregisterSession('s1');
    expect(returned).to.equal(undefined);
    fake.event('s1', 'chat_delta', { text: 'b' });
    fake.event('s1', 'done');
    expect(chat).to.deep.equal(['a']);
    expect(sent.state).to.equal('pending');
    // Unknown ids are no error.
    expect(() => c.unregisterSession('nobody')).not.to.throw();
  });

  it('every PedelecError copied from a {code, message} value has an own details key (undefined when none)', async () => {
    const c = client();
    const session = await openSession(c, 's1');
    const errors: unknown[] = [];
    session.onError((error) => errors.push(error));
    const copied = (error: unknown) => {
      expect(error).to.have.own.property('details', undefined);
      expect(Object.keys(error as object)).to.deep.equal(['code', 'message', 'details']);
    };

    // A refused request.
    const refused = c.getSettings();
    fake.fail({ code: 'APPROVAL_REJECTED', message: 'The user said no.' });
    copied(await rejection(refused));
    // An error event, and a transport-wide one.
    fake.event('s1', 'error', { error: { code: 'PROVIDER_DOWN', message: 'down' } });
    fake.emit({ type: 'error', error: { code: 'NATIVE_HOST_UNAVAILABLE', message: 'gone' } });
    expect(errors).to.have.length(2);
    errors.forEach(copied);
    // A thrown handler object, as the agent gets it.
    session.onTool('locked', () => {
      throw { code: 'COUNTER_LOCKED', message: 'Locked by admin' };
    });
    track(session.sendText('go'));
    fake.event('s1', 'tool_call', { toolRequestId: 'r1', tool: 'locked', args: {} });
    copied((await fake.request('submit_tool_result')).result.error);
    // A disconnect whose lastError is a {code, message}.
    const pending = c.getSettings();
    fake.disconnect({ code: 'PORT_CLOSED', message: 'The port closed.' });
    copied(await rejection(pending));
    await nextTask();
  });
});
