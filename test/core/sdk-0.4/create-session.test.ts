/**
 * SDK 0.4.6, creating sessions (docs/design/sdk-0.4.md "Creating sessions"): profile mode (`effortLevel`,
 * posted at once), explicit model mode (`model`, `effort`), the input's checks and the
 * `create_session` request they make, the reply's checks (`explicitModelConfigApplied`, `workspace`),
 * `session.workspace`, `session.effortLevel` and `ctx.effortLevel` — and the kit's own rules for a
 * 0.1.x extension. Each test is what a page written for 0.4.6 does, against a fake answering as
 * today's extension and Core do (a 0.1.x one where the test says so).
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import { PEDELEC_PROTOCOL_VERSION, PedelecWorkspace, type PedelecSession } from '../../../src/core/index.js';
import { rejection, track } from '../../support/promises.js';
import { nextTask } from '../../support/waits.js';
import {
  artifact,
  client,
  clientHooks,
  createReply,
  created,
  fake,
  legacyClient,
  posted,
  types,
  userTurn,
} from './harness.js';

clientHooks();

const INPUT_KEYS = ['provider', 'model', 'effort', 'effortLevel', 'skills', 'autoEndOnDisconnect'];
const MODEL_NOT_APPLIED =
  'The connected Pedelec Extension/Desktop does not support explicit model configuration. Update Pedelec components and try again.';
const providers = [{ name: 'Codex', code: 'codex', available: true, isDefault: true, error: null }];

/** Rejects INVALID_INPUT with `message`, having posted nothing. */
async function refused(input: unknown, message: string): Promise<void> {
  const c = client();
  const error = await rejection(c.createSession(input as never));
  expect(error).to.deep.include({ code: 'INVALID_INPUT', message });
  expect(fake.posted, 'nothing posted').to.deep.equal([]);
}

describe('SDK 0.4.6 createSession: profile mode', () => {
  it('createSession({ provider }) posts create_session at once — no get_settings — with effortLevel "default"', async () => {
    const c = client();
    const pending = c.createSession({ provider: 'codex' });
    expect(types(), 'posted synchronously, nothing asked first').to.deep.equal(['create_session']);
    expect(fake.last('create_session').input).to.deep.include({
      provider: 'codex',
      model: undefined,
      effort: undefined,
      effortLevel: 'default',
      skills: undefined,
      autoEndOnDisconnect: true,
    });
    fake.respond(createReply('s1'), fake.last('create_session'));
    const session = await pending;
    expect(session.effortLevel).to.equal('default');
  });

  for (const level of ['default', 'low', 'high'] as const) {
    it(`createSession({ provider, effortLevel: "${level}" }) sends that level, and session.effortLevel is "${level}"`, async () => {
      const c = client();
      const { session, request } = await created(c, { provider: 'ollama', effortLevel: level });
      expect(request.input).to.deep.include({ provider: 'ollama', effortLevel: level, model: undefined });
      expect(session.effortLevel).to.equal(level);
    });
  }

  it('createSession({ effortLevel }) without a provider: the default provider, the level as given', async () => {
    const c = client();
    const pending = c.createSession({ effortLevel: 'low' });
    await fake.answer('get_settings', { defaultProvider: 'codex' });
    await fake.answer('list_providers', providers);
    const request = await fake.answer('create_session', createReply('s1'));
    expect(request.input).to.deep.include({ provider: 'codex', model: undefined, effortLevel: 'low' });
    expect((await pending).effortLevel).to.equal('low');
  });

  it('ctx.effortLevel is on every context of a profile session', async () => {
    const c = client();
    const { session, core } = await created(c, { provider: 'codex', effortLevel: 'low' });
    const contexts: Array<{ type?: string; effortLevel?: string }> = [];
    const keep = (ctx: { type?: string; effortLevel?: string }) => contexts.push({ ...ctx });
    session.onStatus((_status, ctx) => keep(ctx));
    session.onChat((_text, ctx) => keep(ctx));
    session.onChatDelta((_text, ctx) => keep(ctx));
    session.onArtifact((_artifact, ctx) => keep(ctx));
    session.onUsage((_usage, ctx) => keep(ctx));
    session.onError((_error, ctx) => keep(ctx));
    session.onEnded((ctx) => keep(ctx));
    session.onTool('pick', (_args, ctx) => (keep(ctx), 'picked'));
    const { turn, operationId } = userTurn(session);
    core.event('chat_delta', { operationId, text: 'Hel' });
    core.event('chat_message', { operationId, text: 'Hello' });
    core.event('provider_artifact', { operationId, artifact: artifact() });
    core.event('tool_call', { operationId, toolRequestId: 'r1', tool: 'pick', args: {} });
    core.event('usage_updated', { totalTokens: 12 });
    core.event('error', { operationId, error: { code: 'PROVIDER_ERROR', message: 'slow' } });
    core.completed(operationId);
    await turn.promise;
    core.event('ended');
    expect(new Set(contexts.map((ctx) => ctx.type))).to.deep.equal(
      new Set([
        'sdk_status_changed',
        'status_changed',
        'chat_delta',
        'chat_message',
        'provider_artifact',
        'tool_call',
        'usage_updated',
        'error',
        'ended',
      ]),
    );
    expect(contexts.filter((ctx) => ctx.effortLevel !== 'low')).to.deep.equal([]);
  });

  it('(kit) session.model and ctx.model say the explicit model (a profile session has none)', async () => {
    const c = client();
    const explicit = await created(c, { provider: 'codex', model: ' gpt-5 ' }, 's1');
    const profile = await created(c, { provider: 'codex' }, 's2');
    expect([explicit.session.model, profile.session.model]).to.deep.equal(['gpt-5', undefined]);
    const models: Array<string | undefined> = [];
    explicit.session.onStatus((_status, ctx) => models.push(ctx.model));
    const { turn, operationId } = userTurn(explicit.session);
    explicit.core.completed(operationId);
    await turn.promise;
    expect(models).to.deep.equal(['gpt-5', 'gpt-5']);
  });

  it('an explicit-model session has no effortLevel: not on the session, not a key of its contexts', async () => {
    const c = client();
    const { session, core } = await created(c, { provider: 'codex', model: 'gpt-5' });
    expect(session.effortLevel).to.equal(undefined);
    const contexts: object[] = [];
    session.onStatus((_status, ctx) => contexts.push(ctx));
    session.onChat((_text, ctx) => contexts.push(ctx));
    const { turn, operationId } = userTurn(session);
    core.event('chat_message', { operationId, text: 'Hi' });
    core.completed(operationId);
    await turn.promise;
    expect(contexts).to.have.length(3);
    expect(contexts.filter((ctx) => 'effortLevel' in ctx)).to.deep.equal([]);
  });
});

describe('SDK 0.4.6 createSession: explicit model mode', () => {
  it('createSession({ provider, model, effort }) sends the model trimmed, the effort, effortLevel undefined; session.effortLevel is undefined', async () => {
    const c = client();
    const { session, request } = await created(c, { provider: 'codex', model: '  gpt-5  ', effort: 'max' });
    expect(request.input).to.deep.include({
      provider: 'codex',
      model: 'gpt-5',
      effort: 'max',
      effortLevel: undefined,
    });
    expect(session.effortLevel).to.equal(undefined);
  });

  it('every Effort value (low, medium, high, xhigh, max) is sent as given', async () => {
    const c = client();
    for (const effort of ['low', 'medium', 'high', 'xhigh', 'max'] as const) {
      track(c.createSession({ provider: 'codex', model: 'gpt-5', effort }));
      expect(fake.last('create_session').input).to.deep.include({ model: 'gpt-5', effort, effortLevel: undefined });
    }
  });

  it('a model without effort sends effort undefined (an own key)', async () => {
    const c = client();
    track(c.createSession({ provider: 'codex', model: 'gpt-5' }));
    const { input } = fake.last('create_session');
    expect(input).to.have.own.property('effort', undefined);
    expect(input).to.have.own.property('effortLevel', undefined);
  });

  for (const [label, model] of [
    ['""', ''],
    ['"   "', '   '],
    ['null', null],
    ['42', 42],
    ['an object', { id: 'gpt-5' }],
  ] as const) {
    it(`model ${label} → INVALID_INPUT "model must be a non-empty string when provided", nothing posted`, async () => {
      await refused({ provider: 'codex', model }, 'model must be a non-empty string when provided');
    });
  }

  for (const effortLevel of ['high', 'default', null]) {
    it(`model with effortLevel ${JSON.stringify(effortLevel)} → INVALID_INPUT "effortLevel cannot be combined with model", nothing posted`, async () => {
      await refused({ provider: 'codex', model: 'gpt-5', effortLevel }, 'effortLevel cannot be combined with model');
    });
  }

  it('model, effort and effortLevel together → INVALID_INPUT "effortLevel cannot be combined with model"', async () => {
    await refused({ model: 'gpt-5', effort: 'max', effortLevel: 'low' }, 'effortLevel cannot be combined with model');
  });

  for (const input of [
    { provider: 'codex', effort: 'high' },
    { effort: 'max' },
    { effort: 'low', effortLevel: 'low' },
  ]) {
    it(`effort without a model (${JSON.stringify(input)}) → INVALID_INPUT "effort requires model", nothing posted`, async () => {
      await refused(input, 'effort requires model');
    });
  }

  for (const effort of ['default', 'minimal', 'HIGH', 3, null]) {
    it(`effort ${JSON.stringify(effort)} → INVALID_INPUT "effort must be one of low, medium, high, xhigh, or max", nothing posted`, async () => {
      await refused(
        { provider: 'codex', model: 'gpt-5', effort },
        'effort must be one of low, medium, high, xhigh, or max',
      );
    });
  }

  for (const effortLevel of ['medium', 'max', 'HIGH', 1, null]) {
    it(`effortLevel ${JSON.stringify(effortLevel)} → INVALID_INPUT "effortLevel must be one of default, low, or high", nothing posted`, async () => {
      await refused({ provider: 'codex', effortLevel }, 'effortLevel must be one of default, low, or high');
    });
  }

  it('the model is checked first, then the mode, then the skills', async () => {
    await refused({ model: ' ', effortLevel: 'low', skills: 'nope' }, 'model must be a non-empty string when provided');
    await refused({ model: 'gpt-5', effortLevel: 'low', skills: 'nope' }, 'effortLevel cannot be combined with model');
    await refused({ effort: 'high', skills: 'nope' }, 'effort requires model');
    await refused({ effortLevel: 'medium', skills: 'nope' }, 'effortLevel must be one of default, low, or high');
  });

  it('a model without provider: the default provider, with the model trimmed and the effort given', async () => {
    const c = client();
    const pending = c.createSession({ model: ' gpt-5 ', effort: 'max' });
    expect(types(), 'the default provider is asked for first').to.deep.equal(['get_settings']);
    await fake.answer('get_settings', { defaultProvider: 'codex' });
    await fake.answer('list_providers', providers);
    const request = await fake.answer('create_session', createReply('s1', { explicitModelConfigApplied: true }));
    expect(request.input).to.deep.include({ provider: 'codex', model: 'gpt-5', effort: 'max', effortLevel: undefined });
    const session = await pending;
    expect([session.provider, session.effortLevel]).to.deep.equal(['codex', undefined]);
  });
});

describe('SDK 0.4.6 createSession: the create_session request', () => {
  it('the input has exactly provider, model, effort, effortLevel, skills, autoEndOnDisconnect, in that order, in both modes; callerSdkVersion beside it', () => {
    const c = client();
    track(c.createSession({ provider: 'codex' }));
    track(c.createSession({ provider: 'codex', model: 'gpt-5' }));
    const [profile, explicit] = posted('create_session');
    for (const request of [profile!, explicit!]) {
      expect(Object.keys(request.input)).to.deep.equal(INPUT_KEYS);
      expect(request.callerSdkVersion).to.equal(PEDELEC_PROTOCOL_VERSION);
    }
    expect(PEDELEC_PROTOCOL_VERSION).to.equal('0.4.6');
  });

  it('input keys the SDK no longer has (sandbox, workspace) are not forwarded', () => {
    const c = client();
    track(c.createSession({ provider: 'codex', sandbox: { path: '/tmp/x' }, workspace: { path: '/tmp/y' } } as never));
    const request = fake.last('create_session');
    expect(Object.keys(request.input)).to.deep.equal(INPUT_KEYS);
    expect(request).to.not.have.property('workspace');
    expect(c).to.not.have.property('sandboxFolderPicker');
    expect(c).to.not.have.property('workspaceFolderPicker');
  });

  it('workspace.createSession(input) sends the workspace id (input.workspaceId, before autoEndOnDisconnect); the new session works in that same workspace object', async () => {
    const c = client();
    const first = (await created(c, { provider: 'codex' }, 's1')).session;
    const { workspace } = first;
    const pending = workspace.createSession({ provider: 'claude', effortLevel: 'high' });
    const request = await fake.answer(
      'create_session',
      createReply('s2', { workspace: { workspaceId: 'ws-s1', path: null } }),
    );
    expect(Object.keys(request.input)).to.deep.equal([
      'provider',
      'model',
      'effort',
      'effortLevel',
      'skills',
      'workspaceId',
      'autoEndOnDisconnect',
    ]);
    expect(request.input.workspaceId).to.equal('ws-s1');
    const second = await pending;
    expect(second.sessionId).to.equal('s2');
    expect(second.workspace).to.equal(workspace);
  });

  it('workspace.createSession: a reply naming another workspace → SDK_PROTOCOL_ERROR "create_session response returned a different Workspace"', async () => {
    const c = client();
    const { workspace } = (await created(c, { provider: 'codex' }, 's1')).session;
    const pending = workspace.createSession({ provider: 'codex' });
    await fake.answer('create_session', createReply('s2', { workspace: { workspaceId: 'ws-other', path: null } }));
    expect(await rejection(pending)).to.deep.equal({
      code: 'SDK_PROTOCOL_ERROR',
      message: 'create_session response returned a different Workspace',
      details: { expectedWorkspaceId: 'ws-s1', actualWorkspaceId: 'ws-other' },
    });
  });
});

describe('SDK 0.4.6 createSession: reading the reply (explicitModelConfigApplied, workspace, sessionId)', () => {
  for (const [label, extra] of [
    ['flag missing', {}],
    ['flag false', { explicitModelConfigApplied: false }],
    ['only the legacy acknowledgment', { legacyModelAcknowledgment: true }],
  ] as const) {
    it(`a model Core did not apply (${label}) → abort_session_setup { sessionId }, awaited, then SDK_PROTOCOL_ERROR { feature: "explicitModelConfig" }; no handle`, async () => {
      const c = client();
      const pending = track(c.createSession({ provider: 'codex', model: 'gpt-5' }));
      await fake.answer('create_session', createReply('s1', extra));
      const abort = await fake.request('abort_session_setup');
      expect(abort).to.deep.include({ type: 'abort_session_setup', sessionId: 's1' });
      await nextTask();
      expect(pending.state, 'waits for abort_session_setup').to.equal('pending');
      fake.answered.add(abort);
      fake.respond({}, abort);
      const error = await rejection(pending.promise);
      expect(error).to.deep.equal({
        code: 'SDK_PROTOCOL_ERROR',
        message: MODEL_NOT_APPLIED,
        details: { feature: 'explicitModelConfig' },
      });
      // No handle was kept for s1: resuming it makes a fresh one (no provider known).
      const resuming = c.resumeSession('s1');
      await fake.answer('resume_session', {
        sessionId: 's1',
        workspace: { workspaceId: 'ws-s1', path: null },
        autoEndOnDisconnect: true,
      });
      expect((await resuming).provider).to.equal('');
    });
  }

  it('a failed abort_session_setup does not change the outcome: still SDK_PROTOCOL_ERROR { feature }', async () => {
    const c = client();
    const pending = c.createSession({ provider: 'codex', model: 'gpt-5' });
    await fake.answer('create_session', createReply('s1'));
    await fake.refuse('abort_session_setup', { code: 'THREAD_NOT_FOUND', message: 'gone' });
    expect(await rejection(pending)).to.deep.include({
      code: 'SDK_PROTOCOL_ERROR',
      details: { feature: 'explicitModelConfig' },
    });
  });

  it('explicitModelConfigApplied: true → the session, nothing aborted', async () => {
    const c = client();
    const { session } = await created(c, { provider: 'codex', model: 'gpt-5' });
    expect(session.sessionId).to.equal('s1');
    expect(types()).to.deep.equal(['create_session']);
  });

  it('profile mode never looks at the flag: a reply with explicitModelConfigApplied false is accepted', async () => {
    const c = client();
    const { session } = await created(
      c,
      { provider: 'codex' },
      's1',
      createReply('s1', { explicitModelConfigApplied: false }),
    );
    expect(session.sessionId).to.equal('s1');
    expect(types()).to.deep.equal(['create_session']);
  });

  for (const flag of ['yes', 1, null]) {
    it(`a flag that is not a boolean (${JSON.stringify(flag)}) → SDK_PROTOCOL_ERROR "create_session response had an invalid model configuration flag", nothing aborted`, async () => {
      const c = client();
      const pending = c.createSession({ provider: 'codex', model: 'gpt-5' });
      await fake.answer('create_session', createReply('s1', { explicitModelConfigApplied: flag }));
      expect(await rejection(pending)).to.deep.include({
        code: 'SDK_PROTOCOL_ERROR',
        message: 'create_session response had an invalid model configuration flag',
      });
      expect(types()).to.deep.equal(['create_session']);
    });
  }

  for (const [label, workspace] of [
    ['null', null],
    ['a string', 'ws-1'],
    ['no workspaceId', { path: null }],
    ['an empty workspaceId', { workspaceId: '', path: null }],
    ['a blank workspaceId', { workspaceId: '   ', path: null }],
    ['no path', { workspaceId: 'ws-1' }],
    ['an empty path', { workspaceId: 'ws-1', path: '' }],
    ['a numeric path', { workspaceId: 'ws-1', path: 7 }],
  ] as const) {
    it(`a 0.4-shaped reply whose workspace has ${label} → SDK_PROTOCOL_ERROR "create_session response had an invalid Workspace shape", nothing aborted`, async () => {
      const c = client();
      const pending = c.createSession({ provider: 'codex', model: 'gpt-5' });
      await fake.answer('create_session', { sessionId: 's1', workspace, explicitModelConfigApplied: true });
      expect(await rejection(pending)).to.deep.include({
        code: 'SDK_PROTOCOL_ERROR',
        message: 'create_session response had an invalid Workspace shape',
      });
      expect(types()).to.deep.equal(['create_session']);
    });
  }

  for (const [label, sessionId] of [
    ['no sessionId', undefined],
    ['an empty sessionId', ''],
    ['a blank sessionId', '   '],
    ['a numeric sessionId', 7],
  ] as const) {
    it(`a 0.4-shaped reply with ${label} → SDK_PROTOCOL_ERROR "create_session response had an invalid shape"`, async () => {
      const c = client();
      const pending = c.createSession({ provider: 'codex' });
      await fake.answer('create_session', { sessionId, workspace: { workspaceId: 'ws-1', path: null } });
      expect(await rejection(pending)).to.deep.include({
        code: 'SDK_PROTOCOL_ERROR',
        message: 'create_session response had an invalid shape',
      });
    });
  }

  it('(kit) a 0.1.x-shaped reply (no workspace) is accepted without the model flag', async () => {
    const c = client();
    const pending = c.createSession({ provider: 'codex', model: 'gpt-5' });
    await fake.answer('create_session', { sessionId: 's1' });
    const session = await pending;
    expect(session.sessionId).to.equal('s1');
    expect(types(), 'nothing aborted').to.deep.equal(['create_session']);
    expect(session.workspace.path).to.equal(null);
    expect(await rejection(session.workspace.listFiles())).to.deep.include({ code: 'WORKSPACE_UNAVAILABLE' });
  });
});

describe('SDK 0.4.6 createSession: session.workspace', () => {
  it('session.workspace is a PedelecWorkspace made from the reply: path null for a workspace Desktop manages', async () => {
    const c = client();
    const { session } = await created(c);
    expect(session.workspace).to.be.instanceOf(PedelecWorkspace);
    expect(session.workspace.path).to.equal(null);
  });

  it("a reply naming a folder gives the workspace that folder's path", async () => {
    const c = client();
    const { session } = await created(
      c,
      { provider: 'codex' },
      's1',
      createReply('s1', { workspace: { workspaceId: 'ws-9', path: '/Users/ada/project' } }),
    );
    expect(session.workspace.path).to.equal('/Users/ada/project');
  });

  it('the session keeps one workspace object: the same after a turn and after end()', async () => {
    const c = client();
    const { session, core } = await created(c);
    const { workspace } = session;
    const { turn, operationId } = userTurn(session);
    core.completed(operationId);
    await turn.promise;
    expect(session.workspace).to.equal(workspace);
    const ending = session.end();
    await fake.answer('end_session');
    await ending;
    expect(session.workspace).to.equal(workspace);
  });
});

describe('SDK 0.4.6 createSession: (kit) with a 0.1.x extension', () => {
  it('(kit) 0.1.x: profile mode asks get_settings and sends defaultModels[provider]; no effort keys, even with an effortLevel given', async () => {
    const c = await legacyClient();
    const pending = c.createSession({ provider: 'claude', effortLevel: 'high' });
    expect(types()).to.deep.equal(['get_settings']);
    await fake.answer('get_settings', {
      defaultProvider: 'codex',
      defaultModels: { codex: 'gpt-5', claude: 'sonnet' },
    });
    const request = await fake.answer('create_session', { sessionId: 's1' });
    expect(request.input).to.deep.equal({
      provider: 'claude',
      model: 'sonnet',
      skills: undefined,
      autoEndOnDisconnect: true,
    });
    expect(Object.keys(request.input)).to.deep.equal(['provider', 'model', 'skills', 'autoEndOnDisconnect']);
    expect((await pending).effortLevel).to.equal(undefined);
  });

  it('(kit) 0.1.x: explicit model mode asks nothing first and sends no effort key either', async () => {
    const c = await legacyClient();
    const pending = c.createSession({ provider: 'codex', model: 'gpt-5', effort: 'max' });
    expect(types()).to.deep.equal(['create_session']);
    const request = await fake.answer('create_session', { sessionId: 's1' });
    expect(Object.keys(request.input)).to.deep.equal(['provider', 'model', 'skills', 'autoEndOnDisconnect']);
    await pending;
  });

  it("(kit) 0.1.x: the session's workspace has path null and every method rejects WORKSPACE_UNAVAILABLE, posting nothing", async () => {
    const c = await legacyClient();
    const pending = c.createSession({ provider: 'codex', model: 'gpt-5' });
    await fake.answer('create_session', { sessionId: 's1' });
    const { workspace } = await pending;
    expect(workspace).to.be.instanceOf(PedelecWorkspace);
    expect(workspace.path).to.equal(null);
    const file = new File(['x'], 'x.txt');
    const calls: Array<Promise<unknown>> = [
      workspace.listFiles(),
      workspace.listFolders('src'),
      workspace.uploadFile(file),
      workspace.readFile('README.md', 'text'),
      workspace.run('console.log(1)'),
      workspace.createSession({ provider: 'codex' }),
    ];
    for (const call of calls) expect((await rejection(call)).code).to.equal('WORKSPACE_UNAVAILABLE');
    expect(types()).to.deep.equal(['create_session']);
  });
});

describe('SDK 0.4.6 createSession: the same session id again', () => {
  it('(kit) createSession naming the id of a session Core ended makes a new handle', async () => {
    const c = client();
    const { session: first, core } = await created(c, { provider: 'codex' }, 's1');
    core.event('ended');
    expect(first.getStatus()).to.equal('ended');
    const { session: second } = await created(c, { provider: 'claude' }, 's1');
    expect(second).to.not.equal(first);
    expect(second.getStatus()).to.equal('idle');
    expect(second.provider).to.equal('claude');
    expect(first.getStatus(), 'the old handle stays ended').to.equal('ended');
  });

  it('createSession naming the id of a live session returns that handle', async () => {
    const c = client();
    const { session: first } = await created(c, { provider: 'codex' }, 's1');
    const pending = c.createSession({ provider: 'codex' });
    await fake.answer('create_session', createReply('s1'));
    const again: PedelecSession = await pending;
    expect(again).to.equal(first);
  });
});
