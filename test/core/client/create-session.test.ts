/**
 * createSession and resumeSession (docs/design/sdk-api.md "createSession", "resumeSession"): skills checked
 * first, provider and model from the input or the extension's settings, what create_session sends,
 * the handle it returns (the same one for the same id); resume_session and the low-level request().
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import { PEDELEC_PROTOCOL_VERSION } from '../../../src/core/index.js';
import { fake, client, legacyClient, openSession, startTurn, types, clientHooks } from './harness.js';
import { rejection, settled, track } from '../../support/promises.js';
import { nextTask } from '../../support/waits.js';

clientHooks();

describe('Pedelec client: createSession', () => {
  const tool = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    description: `The ${name} tool`,
    argsSchema: { type: 'object', properties: { n: { type: 'number' } } },
    ...extra,
  });

  for (const [label, skills, message] of [
    ['skills not an object', 'nope', 'skills must be an object'],
    ['guidance not a string', { guidance: 1, tools: [] }, 'skills.guidance must be a string'],
    ['an invalid tool name', { guidance: 'g', tools: [tool('1bad')] }, 'tool name is invalid'],
  ] as const) {
    it(`bad skills (${label}) reject INVALID_INPUT before anything is posted, as a rejected promise`, async () => {
      const c = client();
      let p!: Promise<unknown>;
      expect(() => (p = c.createSession({ provider: 'codex', model: 'gpt-5', skills } as any))).to.not.throw();
      const t = track(p);
      expect(fake.posted).to.have.length(0);
      await settled(t.promise);
      expect(t.state).to.equal('rejected');
      expect(t.error.code).to.equal('INVALID_INPUT');
      expect(t.error.message).to.equal(message);
      expect(fake.posted).to.have.length(0);
    });
  }

  it('normalizes skills before checking model without provider', async () => {
    const c = client();
    const e = await rejection(c.createSession({ model: 'gpt-5', skills: 'nope' } as any));
    expect(e.code).to.equal('INVALID_INPUT');
    expect(e.message).to.equal('skills must be an object');
  });

  it('model without provider → the default provider with that model (trimmed), no effort level', async () => {
    const c = client();
    const p = c.createSession({ model: '  gpt-5  ' });
    await fake.answer('get_settings', { defaultProvider: 'codex' });
    await fake.answer('list_providers', [{ name: 'Codex', code: 'codex', available: true, error: null }]);
    const create = await fake.request('create_session');
    expect(create.input).to.deep.include({
      provider: 'codex',
      model: 'gpt-5',
      effort: undefined,
      effortLevel: undefined,
    });
    fake.respond({ sessionId: 'm1' }, create);
    const session = await p;
    expect([session.provider, session.model, session.effortLevel]).to.deep.equal(['codex', 'gpt-5', undefined]);
  });

  it('provider and model → create_session posted at once with the six input keys; returns the session', async () => {
    const c = client();
    const p = c.createSession({ provider: 'codex', model: 'gpt-5' });
    expect(types()).to.deep.equal(['create_session']);
    const msg = fake.last();
    expect(msg).to.deep.equal({
      channelId: msg.channelId,
      type: 'create_session',
      requestId: msg.requestId,
      input: {
        provider: 'codex',
        model: 'gpt-5',
        effort: undefined,
        effortLevel: undefined,
        skills: undefined,
        autoEndOnDisconnect: true,
      },
      callerSdkVersion: PEDELEC_PROTOCOL_VERSION,
    });
    expect(Object.keys(msg.input)).to.deep.equal([
      'provider',
      'model',
      'effort',
      'effortLevel',
      'skills',
      'autoEndOnDisconnect',
    ]);
    expect('skills' in msg.input).to.equal(true);
    fake.respond({ sessionId: 'sess-1' });
    const session = await p;
    expect(session.sessionId).to.equal('sess-1');
    expect(session.provider).to.equal('codex');
    expect(session.model).to.equal('gpt-5');
  });

  it('provider only → create_session at once in profile mode: no model, effortLevel "default"', async () => {
    const c = client();
    const p = c.createSession({ provider: 'claude' });
    expect(types()).to.deep.equal(['create_session']);
    expect(fake.last().input).to.deep.include({ provider: 'claude', model: undefined, effortLevel: 'default' });
    fake.respond({ sessionId: 's2' });
    const session = await p;
    expect([session.provider, session.model, session.effortLevel]).to.deep.equal(['claude', undefined, 'default']);
  });

  it('0.1.x extension: provider only → get_settings, then create_session with defaultModels[provider]', async () => {
    const c = await legacyClient();
    const p = c.createSession({ provider: 'claude' });
    expect(types()).to.deep.equal(['get_settings']);
    fake.respond({ defaultProvider: 'codex', defaultModels: { codex: 'gpt-5', claude: 'sonnet' } });
    await fake.request('create_session');
    expect(types()).to.deep.equal(['get_settings', 'create_session']);
    expect(fake.last().input).to.deep.equal({
      provider: 'claude',
      model: 'sonnet',
      skills: undefined,
      autoEndOnDisconnect: true,
    });
    fake.respond({ sessionId: 's2' });
    const session = await p;
    expect([session.sessionId, session.provider, session.model]).to.deep.equal(['s2', 'claude', 'sonnet']);
  });

  it('0.1.x extension: provider only without a default model for it → model stays undefined, still an own key', async () => {
    const c = await legacyClient();
    const p = c.createSession({ provider: 'brand-new-provider' });
    fake.respond({ defaultProvider: null, defaultModels: { codex: 'gpt-5' } });
    await fake.request('create_session');
    expect(types()).to.deep.equal(['get_settings', 'create_session']);
    const input = fake.last().input;
    expect(Object.keys(input).sort()).to.deep.equal(['autoEndOnDisconnect', 'model', 'provider', 'skills']);
    expect('model' in input).to.equal(true);
    expect(input.model).to.equal(undefined);
    expect(input.provider).to.equal('brand-new-provider');
    fake.respond({ sessionId: 's3' });
    const session = await p;
    expect(session.provider).to.equal('brand-new-provider');
    expect(session.model).to.equal(undefined);
  });

  it('0.1.x extension: a provider code that Object.prototype has (constructor, toString) finds no default model through it', async () => {
    for (const provider of ['constructor', 'toString', '__proto__']) {
      const c = await legacyClient();
      const p = c.createSession({ provider });
      fake.respond({ defaultProvider: null, defaultModels: { codex: 'gpt-5' } });
      await fake.request('create_session', (m) => m.channelId === c.channelId);
      expect(fake.last().input.model, provider).to.equal(undefined);
      fake.respond({ sessionId: `s_${provider}` });
      await p;
    }
  });

  it('neither → get_settings, list_providers, then create_session with the default provider, profile mode', async () => {
    const c = client();
    const p = c.createSession();
    fake.respond({ defaultProvider: 'ollama' });
    await fake.request('list_providers');
    fake.respond([{ name: 'Ollama', code: 'ollama', available: true, error: null }]);
    await fake.request('create_session');
    expect(types()).to.deep.equal(['get_settings', 'list_providers', 'create_session']);
    expect(fake.last().input).to.deep.include({ provider: 'ollama', model: undefined, effortLevel: 'default' });
    fake.respond({ sessionId: 's4' });
    const session = await p;
    expect([session.sessionId, session.provider, session.effortLevel]).to.deep.equal(['s4', 'ollama', 'default']);
  });

  it('0.1.x extension: neither → get_settings, list_providers, then create_session with the default provider and its model', async () => {
    const c = await legacyClient();
    const p = c.createSession();
    expect(types()).to.deep.equal(['get_settings']);
    fake.respond({ defaultProvider: 'ollama', defaultModels: { ollama: 'llama3', codex: 'gpt-5' } });
    await fake.request('list_providers');
    expect(types()).to.deep.equal(['get_settings', 'list_providers']);
    fake.respond([
      { name: 'Codex', code: 'codex', available: false, error: 'not installed' },
      { name: 'Ollama', code: 'ollama', available: true, error: null },
    ]);
    await fake.request('create_session');
    expect(types()).to.deep.equal(['get_settings', 'list_providers', 'create_session']);
    expect(fake.last().input).to.deep.equal({
      provider: 'ollama',
      model: 'llama3',
      skills: undefined,
      autoEndOnDisconnect: true,
    });
    fake.respond({ sessionId: 's4' });
    const session = await p;
    expect([session.sessionId, session.provider, session.model]).to.deep.equal(['s4', 'ollama', 'llama3']);
  });

  it('neither, default provider without a default model → model undefined as an own key', async () => {
    const c = client();
    const p = track(c.createSession({}));
    fake.respond({ defaultProvider: 'codex', defaultModels: {} });
    await fake.request('list_providers');
    fake.respond([{ name: 'Codex', code: 'codex', available: true, error: null }]);
    await fake.request('create_session');
    const input = fake.last('create_session').input;
    expect('model' in input).to.equal(true);
    expect(input.model).to.equal(undefined);
    fake.respond({ sessionId: 's5' });
    await settled(p.promise);
    expect(p.state).to.equal('fulfilled');
  });

  it('neither, defaultProvider null → DEFAULT_PROVIDER_NOT_SET, nothing more posted', async () => {
    const c = client();
    const p = c.createSession();
    fake.respond({ defaultProvider: null, defaultModels: { codex: 'gpt-5' } });
    const e = await rejection(p);
    expect(e.code).to.equal('DEFAULT_PROVIDER_NOT_SET');
    expect(e.message).to.be.a('string');
    await nextTask();
    expect(types()).to.deep.equal(['get_settings']);
  });

  for (const [label, providers] of [
    ['missing from list_providers', [{ name: 'Codex', code: 'codex', available: true, error: null }]],
    ['available: false', [{ name: 'Claude', code: 'claude', available: false, error: 'CLI missing' }]],
  ] as const) {
    it(`neither, default provider ${label} → DEFAULT_PROVIDER_UNAVAILABLE with details {provider}`, async () => {
      const c = client();
      const p = c.createSession();
      fake.respond({ defaultProvider: 'claude', defaultModels: { claude: 'sonnet' } });
      await fake.request('list_providers');
      fake.respond(providers);
      const e = await rejection(p);
      expect(e.code).to.equal('DEFAULT_PROVIDER_UNAVAILABLE');
      expect(e.message).to.be.a('string');
      expect(e.details).to.deep.equal({ provider: 'claude' });
      await nextTask();
      expect(types()).to.deep.equal(['get_settings', 'list_providers']);
    });
  }

  it('rejects with the error of a failing step (get_settings, create_session)', async () => {
    const c = client();
    const p1 = c.createSession();
    fake.fail({ code: 'APPROVAL_REJECTED', message: 'The user said no.' });
    expect(await rejection(p1)).to.deep.equal({
      code: 'APPROVAL_REJECTED',
      message: 'The user said no.',
      details: undefined,
    });
    const p2 = c.createSession({ provider: 'codex', model: 'm' });
    fake.fail({ code: 'CREATE_SESSION_NOT_APPROVED', message: 'Not approved.' });
    expect(await rejection(p2)).to.deep.equal({
      code: 'CREATE_SESSION_NOT_APPROVED',
      message: 'Not approved.',
      details: undefined,
    });
  });

  for (const [given, sent] of [
    [undefined, true],
    [true, true],
    [false, false],
  ] as const) {
    it(`autoEndOnDisconnect ${String(given)} → ${sent} on the wire`, () => {
      const c = client();
      const input: Record<string, unknown> = { provider: 'codex', model: 'm' };
      if (given !== undefined) input.autoEndOnDisconnect = given;
      track(c.createSession(input as any));
      expect(fake.last().input.autoEndOnDisconnect).to.equal(sent);
    });
  }

  it('sends the skills manifest: guidance, and per tool name, description, argsSchema, timeoutMs only when given, never handler', () => {
    const c = client();
    const handler = () => 1;
    track(
      c.createSession({
        provider: 'codex',
        model: 'm',
        skills: {
          guidance: 'Use the tools.',
          tools: [tool('plain', { handler }), tool('slow', { timeoutMs: 5000 })] as any,
        },
      }),
    );
    const skills = fake.last('create_session').input.skills;
    expect(skills).to.deep.equal({
      guidance: 'Use the tools.',
      tools: [
        {
          name: 'plain',
          description: 'The plain tool',
          argsSchema: { type: 'object', properties: { n: { type: 'number' } } },
        },
        {
          name: 'slow',
          description: 'The slow tool',
          argsSchema: { type: 'object', properties: { n: { type: 'number' } } },
          timeoutMs: 5000,
        },
      ],
    });
    expect(skills.tools[0]).to.not.have.property('handler');
    expect(skills.tools[0]).to.not.have.property('timeoutMs');
  });

  for (const [label, result] of [
    ['{}', {}],
    ['no result', undefined],
  ] as const) {
    it(`create_session answered with ${label} → SDK_PROTOCOL_ERROR "create_session response did not include sessionId"`, async () => {
      const c = client();
      const p = c.createSession({ provider: 'codex', model: 'm' });
      fake.respond(result);
      const e = await rejection(p);
      expect(e.code).to.equal('SDK_PROTOCOL_ERROR');
      expect(e.message).to.equal('create_session response did not include sessionId');
    });
  }

  it('the same sessionId twice returns the same handle with its inline handlers replaced', async () => {
    const c = client();
    const calls: string[] = [];
    const first = await openSession(c, 'same', {
      provider: 'codex',
      model: 'm',
      skills: { guidance: 'g', tools: [tool('pick', { handler: () => (calls.push('first'), 'first') })] },
    });
    const second = await openSession(c, 'same', {
      provider: 'codex',
      model: 'm',
      skills: { guidance: 'g', tools: [tool('pick', { handler: () => (calls.push('second'), 'second') })] },
    });
    expect(second).to.equal(first);
    const turn = startTurn(second);
    fake.event('same', 'tool_call', { toolRequestId: 'tr1', tool: 'pick', args: { n: 1 } });
    await fake.request('submit_tool_result');
    expect(calls).to.deep.equal(['second']);
    const submit = fake.last('submit_tool_result');
    expect(submit.toolRequestId).to.equal('tr1');
    expect(submit.result).to.equal('second');
    fake.respond({}, submit);
    fake.event('same', 'done');
    await settled(turn.promise);
    expect(turn.state).to.equal('fulfilled');
  });
});

describe('Pedelec client: resumeSession and request', () => {
  for (const blank of ['', '   ']) {
    it(`resumeSession(${JSON.stringify(blank)}) rejects INVALID_INPUT without posting or throwing`, async () => {
      const c = client();
      let p!: Promise<unknown>;
      expect(() => (p = c.resumeSession(blank))).to.not.throw();
      const e = await rejection(p);
      expect(e.code).to.equal('INVALID_INPUT');
      expect(fake.posted).to.have.length(0);
    });
  }

  it('resumeSession posts resume_session {sessionId}; the handle has provider "" and model undefined, and gets its events', async () => {
    const c = client();
    const p = c.resumeSession('kept-1');
    const msg = fake.last();
    expect(msg).to.deep.equal({
      channelId: msg.channelId,
      type: 'resume_session',
      requestId: msg.requestId,
      sessionId: 'kept-1',
    });
    fake.respond({ sessionId: 'kept-1' });
    const session = await p;
    expect(session.sessionId).to.equal('kept-1');
    expect(session.provider).to.equal('');
    expect(session.model).to.equal(undefined);
    const statuses: string[] = [];
    session.onStatus((s) => statuses.push(s));
    fake.event('kept-1', 'status_changed', { status: 'running' });
    expect(statuses).to.deep.equal(['running']);
  });

  it('request() is the low-level request with the same rules', async () => {
    const c = client({ bridgeTimeoutMs: 20 });
    const ok = c.request<{ assets: unknown[] }>('list_assets', { sessionId: 's1' });
    expect(fake.last()).to.deep.include({ type: 'list_assets', sessionId: 's1' });
    fake.respond({ assets: [] });
    expect(await ok).to.deep.equal({ assets: [] });
    const failed = c.request('list_assets', { sessionId: 's1' });
    fake.fail({ code: 'THREAD_ACCESS_DENIED', message: 'denied' });
    expect(await rejection(failed)).to.deep.equal({
      code: 'THREAD_ACCESS_DENIED',
      message: 'denied',
      details: undefined,
    });
    expect((await rejection(c.request('list_assets', { sessionId: 's1' }))).code).to.equal('SDK_BRIDGE_TIMEOUT');
  });
});
