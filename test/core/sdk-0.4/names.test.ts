/**
 * SDK 0.4.6, names (docs/design/sdk-0.4.md "Types and codes", "Deno modules"): every value and type 0.4.6
 * exports is exported by `pedelec-elements/core` (the type names are checked by `tsc`, which compiles
 * this file: `npx tsc --noEmit -p test/tsconfig.json`); the members it added; the deprecated aliases;
 * the error codes it raises, named in `PedelecErrorCode` and docs/errors.md; Deno modules in
 * `skills.denoModules`, checked in 0.4.6's order and words — and then, by the kit's rule for this
 * version, refused; `defineDenoModule`.
 */
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import { track } from '../../support/promises.js';
import * as core from '../../../src/core/index.js';
import {
  attachDenoModuleSources,
  defineDenoModule,
  type ApprovalStatus,
  type ArtifactEventContext,
  type Asset,
  type AssetPath,
  type ChatDeltaEventContext,
  type ChatEventContext,
  type ChatMessageEventContext,
  type CreateSessionInput,
  type DenoModuleDefinition,
  type Effort,
  type EffortLevel,
  type EndedEventContext,
  type ErrorEventContext,
  type JsonPrimitive,
  type JsonValue,
  type PedelecAvailability,
  type PedelecError,
  type PedelecEventContext,
  type PedelecOptions,
  type PedelecSessionStatus,
  type PedelecSessionUsage,
  type PedelecSettings,
  type ProviderArtifact,
  type ProviderArtifactEventContext,
  type ProviderArtifactHandler,
  type ProviderArtifactKind,
  type ProviderArtifactSource,
  type ProviderCode,
  type ProviderInfo,
  type ReadAssetType,
  type ReadFileType,
  type SandboxAsset,
  type SandboxAssetPath,
  type SerializableSkillsManifest,
  type SerializableToolManifest,
  type SkillsInput,
  type StatusEventContext,
  type ToolArgsArraySchema,
  type ToolArgsBooleanSchema,
  type ToolArgsIntegerSchema,
  type ToolArgsNumberSchema,
  type ToolArgsObjectSchema,
  type ToolArgsOneOfSchema,
  type ToolArgsSchema,
  type ToolArgsSchemaMeta,
  type ToolArgsSchemaNode,
  type ToolArgsStringSchema,
  type ToolCallContext,
  type ToolDefinition,
  type ToolNameOf,
  type ToolSpecificHandler,
  type UsageInfo,
  type WorkspaceRunOptions,
  type WorkspaceRunResult,
} from '../../../src/core/index.js';
import { client, clientHooks, fake } from './harness.js';

clientHooks();

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Every type name SDK 0.4.6 exports, each resolved against the kit's core (a missing one fails tsc). */
type TypeExportsOf046 = {
  PedelecOptions: PedelecOptions;
  ProviderCode: ProviderCode;
  EffortLevel: EffortLevel;
  Effort: Effort;
  ProviderInfo: ProviderInfo;
  PedelecSettings: PedelecSettings;
  ApprovalStatus: ApprovalStatus;
  PedelecAvailability: PedelecAvailability;
  PedelecError: PedelecError;
  JsonPrimitive: JsonPrimitive;
  JsonValue: JsonValue;
  AssetPath: AssetPath;
  ReadFileType: ReadFileType;
  ReadAssetType: ReadAssetType;
  Asset: Asset;
  ProviderArtifactKind: ProviderArtifactKind;
  ProviderArtifactSource: ProviderArtifactSource;
  ProviderArtifact: ProviderArtifact;
  ProviderArtifactHandler: ProviderArtifactHandler;
  DenoModuleDefinition: DenoModuleDefinition;
  WorkspaceRunOptions: WorkspaceRunOptions;
  WorkspaceRunResult: WorkspaceRunResult;
  ToolArgsSchemaMeta: ToolArgsSchemaMeta;
  ToolArgsStringSchema: ToolArgsStringSchema;
  ToolArgsNumberSchema: ToolArgsNumberSchema;
  ToolArgsIntegerSchema: ToolArgsIntegerSchema;
  ToolArgsBooleanSchema: ToolArgsBooleanSchema;
  ToolArgsArraySchema: ToolArgsArraySchema;
  ToolArgsObjectSchema: ToolArgsObjectSchema;
  ToolArgsOneOfSchema: ToolArgsOneOfSchema;
  ToolArgsSchemaNode: ToolArgsSchemaNode;
  ToolArgsSchema: ToolArgsSchema;
  ToolSpecificHandler: ToolSpecificHandler;
  ToolDefinition: ToolDefinition;
  SkillsInput: SkillsInput;
  ToolNameOf: ToolNameOf<readonly ToolDefinition[]>;
  SerializableToolManifest: SerializableToolManifest;
  SerializableSkillsManifest: SerializableSkillsManifest;
  CreateSessionInput: CreateSessionInput;
  PedelecSessionStatus: PedelecSessionStatus;
  PedelecSessionUsage: PedelecSessionUsage;
  PedelecEventContext: PedelecEventContext;
  ChatEventContext: ChatEventContext;
  ChatDeltaEventContext: ChatDeltaEventContext;
  ProviderArtifactEventContext: ProviderArtifactEventContext;
  ToolCallContext: ToolCallContext;
  StatusEventContext: StatusEventContext;
  ErrorEventContext: ErrorEventContext;
  EndedEventContext: EndedEventContext;
};

/** The same names at run time; the type below proves the two lists are one. */
const TYPE_NAMES = [
  'PedelecOptions',
  'ProviderCode',
  'EffortLevel',
  'Effort',
  'ProviderInfo',
  'PedelecSettings',
  'ApprovalStatus',
  'PedelecAvailability',
  'PedelecError',
  'JsonPrimitive',
  'JsonValue',
  'AssetPath',
  'ReadFileType',
  'ReadAssetType',
  'Asset',
  'ProviderArtifactKind',
  'ProviderArtifactSource',
  'ProviderArtifact',
  'ProviderArtifactHandler',
  'DenoModuleDefinition',
  'WorkspaceRunOptions',
  'WorkspaceRunResult',
  'ToolArgsSchemaMeta',
  'ToolArgsStringSchema',
  'ToolArgsNumberSchema',
  'ToolArgsIntegerSchema',
  'ToolArgsBooleanSchema',
  'ToolArgsArraySchema',
  'ToolArgsObjectSchema',
  'ToolArgsOneOfSchema',
  'ToolArgsSchemaNode',
  'ToolArgsSchema',
  'ToolSpecificHandler',
  'ToolDefinition',
  'SkillsInput',
  'ToolNameOf',
  'SerializableToolManifest',
  'SerializableSkillsManifest',
  'CreateSessionInput',
  'PedelecSessionStatus',
  'PedelecSessionUsage',
  'PedelecEventContext',
  'ChatEventContext',
  'ChatDeltaEventContext',
  'ProviderArtifactEventContext',
  'ToolCallContext',
  'StatusEventContext',
  'ErrorEventContext',
  'EndedEventContext',
] as const;
const typeNamesAreTheList: Equal<keyof TypeExportsOf046, (typeof TYPE_NAMES)[number]> = true;

/** The deprecated aliases are the new names, exactly. */
const aliases: [
  Equal<ChatMessageEventContext, ChatEventContext>,
  Equal<ArtifactEventContext, ProviderArtifactEventContext>,
  Equal<UsageInfo, PedelecSessionUsage>,
  Equal<SandboxAsset, Asset>,
  Equal<SandboxAssetPath, AssetPath>,
  Equal<ReadAssetType, ReadFileType>,
] = [true, true, true, true, true, true];

/**
 * Every code SDK 0.4.6 raises itself, and the Core codes it treats specially; plus the kit's workspace
 * code. Not here: `SDK_LIFECYCLE_SYNC_ERROR`, which the kit never raises (a snapshot that does not know
 * the page's running turn is older than it: docs/sdk-compatibility.md).
 */
const CODES = [
  'EXTENSION_UNAVAILABLE',
  'EXTENSION_DISCONNECTED',
  'SDK_BRIDGE_TIMEOUT',
  'SDK_TRANSPORT_ERROR',
  'SDK_PROTOCOL_ERROR',
  'INVALID_INPUT',
  'DEFAULT_PROVIDER_NOT_SET',
  'DEFAULT_PROVIDER_UNAVAILABLE',
  'SESSION_ENDED',
  'SESSION_BUSY',
  'SESSION_ERROR',
  'SEND_TEXT_FAILED',
  'PREPARE_FAILED',
  'END_SESSION_FAILED',
  'SESSION_RESUME_FAILED',
  'SUBMIT_TOOL_RESULT_FAILED',
  'TOOL_HANDLER_NOT_FOUND',
  'TOOL_HANDLER_ERROR',
  'ASSET_TOO_LARGE',
  'ASSET_PATH_INVALID',
  'ASSET_UPLOAD_FAILED',
  'ASSET_READ_FAILED',
  'ASSET_TEXT_DECODE_FAILED',
  'ASSET_INVALID_JSON',
  'WORKSPACE_OPEN_FAILED',
  'DENO_MODULE_SETUP_FAILED',
  'DENO_MODULE_SETUP_INCOMPLETE',
  'DENO_MODULE_MATERIALIZATION_FAILED',
  'DENO_IMPORT_MAP_INVALID',
  'THREAD_BUSY',
  'THREAD_ENDED',
  'THREAD_ACCESS_DENIED',
  'THREAD_NOT_FOUND',
  'PROVIDER_COMMAND_FAILED',
  'WORKSPACE_UNAVAILABLE',
  'WORKSPACE_PATH_INVALID',
  'WORKSPACE_FILE_TOO_LARGE',
  'WORKSPACE_FILE_UPLOAD_FAILED',
  'WORKSPACE_FILE_READ_FAILED',
  'WORKSPACE_FILE_TEXT_DECODE_FAILED',
  'WORKSPACE_FILE_INVALID_JSON',
  'DENO_MODULE_UPLOAD_FAILED',
  'DENO_MODULE_ARTIFACT_TOO_LARGE',
];

const skills = (denoModules: unknown, tools: unknown[] = []) => ({ guidance: 'Use the modules.', tools, denoModules });
/** A module the agent may use, as a page defines it (not prepared). */
const agentModule = (extra: Record<string, unknown> = {}) => ({
  name: 'sprite-tools',
  description: 'Draws sprites.',
  entry: './sprite-tools.ts',
  usage: 'import { draw } from "sprite-tools";',
  ...extra,
});
/** A module as the public SDK's build plugin leaves it: its artifact attached, `entry` undefined. */
function pluginPrepared(name = 'sprite-tools'): Record<string, unknown> {
  const module: Record<string, unknown> = { ...agentModule({ name }), entry: undefined };
  Object.defineProperty(module, '__pedelecArtifact', {
    value: Object.freeze({
      format: 'esm',
      runtimeSource: 'export const draw = () => 1;',
      typesSource: 'export declare const draw: () => number;',
      contentHash: 'abc',
    }),
    enumerable: false,
    writable: false,
  });
  return module;
}

/** createSession({ provider, skills }) rejects INVALID_INPUT with `message` (and `details`), posting nothing. */
async function refusedSkills(value: Record<string, unknown>, message: string, details?: unknown): Promise<void> {
  const c = client();
  let error: PedelecError | undefined;
  try {
    await c.createSession({ provider: 'codex', skills: value } as never);
  } catch (caught) {
    error = caught as PedelecError;
  }
  expect(error, 'createSession rejects').to.not.equal(undefined);
  expect(error).to.deep.include({ code: 'INVALID_INPUT', message });
  if (details !== undefined) expect(error!.details).to.deep.equal(details);
  expect(fake.posted, 'nothing posted').to.deep.equal([]);
}

/** createSession({ provider, skills }) passes every check: create_session goes out (its request returned). */
async function acceptedSkills(value: Record<string, unknown>): Promise<Record<string, any>> {
  track(client().createSession({ provider: 'codex', skills: value } as never));
  return fake.request('create_session');
}

describe('SDK 0.4.6 names: exports', () => {
  it('the values 0.4.6 exports exist: the classes Pedelec, PedelecSession, PedelecWorkspace and the functions defineTool, defineDenoModule', () => {
    for (const name of ['Pedelec', 'PedelecSession', 'PedelecWorkspace', 'defineTool', 'defineDenoModule'] as const)
      expect(typeof core[name], name).to.equal('function');
  });

  it('every type name 0.4.6 exports exists — 49 of them (resolved by tsc in this file)', () => {
    expect(typeNamesAreTheList).to.equal(true);
    expect(new Set(TYPE_NAMES).size).to.equal(49);
  });

  it('the members 0.4.6 added exist; the pickers it removed do not', () => {
    const session = core.PedelecSession.prototype as unknown as Record<string, unknown>;
    for (const name of ['resume', 'onChat', 'onChatDelta', 'onArtifact', 'onTool', 'end', 'getStatus', 'handleEvent'])
      expect(typeof session[name], `PedelecSession.${name}`).to.equal('function');
    const workspace = core.PedelecWorkspace.prototype as unknown as Record<string, unknown>;
    for (const name of ['createSession', 'listFiles', 'listFolders', 'uploadFile', 'readFile', 'run'])
      expect(typeof workspace[name], `PedelecWorkspace.${name}`).to.equal('function');
    expect(Object.getOwnPropertyDescriptor(core.PedelecWorkspace.prototype, 'path')?.get).to.be.a('function');
    const pedelec = core.Pedelec.prototype as unknown as Record<string, unknown>;
    for (const name of [
      'createSession',
      'resumeSession',
      'getSettings',
      'listProviders',
      'getApprovalStatus',
      'checkAvailability',
      'request',
      'unregisterSession',
    ])
      expect(typeof pedelec[name], `Pedelec.${name}`).to.equal('function');
    for (const name of ['sandboxFolderPicker', 'workspaceFolderPicker', 'directoryPicker'])
      expect(pedelec[name], `Pedelec.${name} is gone`).to.equal(undefined);
  });

  it('the deprecated names are aliases of the new ones: onChatMessage of onChat, and the types (checked by tsc)', () => {
    expect(aliases).to.deep.equal([true, true, true, true, true, true]);
    expect(typeof core.PedelecSession.prototype.onChatMessage).to.equal('function');
  });

  it('every error code 0.4.6 raises (and the Core codes it handles) is named in PedelecErrorCode and in docs/errors.md', () => {
    const source = readFileSync(new URL('../../../src/core/errors.ts', import.meta.url), 'utf8');
    const docs = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
    const missing = CODES.filter((code) => !source.includes(`| '${code}'`)).map((code) => `errors.ts ${code}`);
    missing.push(...CODES.filter((code) => !docs.includes(`\`${code}\``)).map((code) => `errors.md ${code}`));
    expect(missing).to.deep.equal([]);
  });
});

describe('SDK 0.4.6 names: Deno modules in skills', () => {
  it('skills.denoModules that is not an array → "skills.denoModules must be an array"', async () => {
    await refusedSkills(skills({ name: 'sprite-tools' }), 'skills.denoModules must be an array');
  });

  for (const [label, entry] of [
    ['null', null],
    ['a string', 'sprite-tools'],
    ['an array', ['sprite-tools']],
  ] as const) {
    it(`an entry that is ${label} → "skills.denoModules entries must be objects" { index }`, async () => {
      await refusedSkills(skills([pluginPrepared(), entry]), 'skills.denoModules entries must be objects', {
        index: 1,
      });
    });
  }

  for (const name of [
    '',
    ' tools',
    'tools ',
    '.',
    '..',
    'a/b',
    '/tools',
    'tools/',
    'a\\b',
    'a:b',
    '-tools',
    '_x',
    '@scope',
    '@/tools',
    '@scope/',
    'a\0b',
    42,
  ]) {
    it(`the name ${JSON.stringify(name)} → "Deno Module name is invalid" { index, moduleName }`, async () => {
      await refusedSkills(skills([agentModule({ name })]), 'Deno Module name is invalid', {
        index: 0,
        moduleName: name,
      });
    });
  }

  for (const name of ['sprite-tools', 'a.b_c-1', 'Tools2', '@acme/sprite-tools']) {
    it(`the name "${name}" passes the name check`, async () => {
      await acceptedSkills(skills([pluginPrepared(name)]));
    });
  }

  it('a name used twice → "duplicate Deno Module name" { moduleName }', async () => {
    await refusedSkills(skills([pluginPrepared(), pluginPrepared()]), 'duplicate Deno Module name', {
      moduleName: 'sprite-tools',
    });
  });

  for (const description of [undefined, '', '   ', 7]) {
    it(`a description ${JSON.stringify(description) ?? 'missing'} → "Deno Module description must be a non-empty string" { moduleName }`, async () => {
      await refusedSkills(
        skills([agentModule({ description })]),
        'Deno Module description must be a non-empty string',
        { moduleName: 'sprite-tools' },
      );
    });
  }

  for (const usage of [undefined, '', '   ', ['import']]) {
    it(`a usage ${JSON.stringify(usage) ?? 'missing'} → "Deno Module usage must be a non-empty string" { moduleName }`, async () => {
      await refusedSkills(skills([agentModule({ usage })]), 'Deno Module usage must be a non-empty string', {
        moduleName: 'sprite-tools',
      });
    });
  }

  for (const entry of ['', '  ', 42, null]) {
    it(`an entry ${JSON.stringify(entry)} (defined, not a non-blank string) → "Deno Module entry must be a non-empty string"`, async () => {
      await refusedSkills(skills([agentModule({ entry })]), 'Deno Module entry must be a non-empty string', {
        moduleName: 'sprite-tools',
      });
    });
  }

  for (const preferStdinExecution of ['true', 1, null]) {
    it(`preferStdinExecution ${JSON.stringify(preferStdinExecution)} → "Deno Module preferStdinExecution must be a boolean"`, async () => {
      await refusedSkills(
        skills([agentModule({ preferStdinExecution })]),
        'Deno Module preferStdinExecution must be a boolean',
        { moduleName: 'sprite-tools' },
      );
    });
  }

  it('the checks run in 0.4.6 order: name, duplicate, description, usage, entry, preferStdinExecution, preparation', async () => {
    const bad = { description: ' ', usage: ' ', entry: ' ', preferStdinExecution: 'yes' };
    await refusedSkills(skills([agentModule({ ...bad, name: '..' })]), 'Deno Module name is invalid');
    await refusedSkills(skills([pluginPrepared(), agentModule(bad)]), 'duplicate Deno Module name');
    await refusedSkills(skills([agentModule(bad)]), 'Deno Module description must be a non-empty string');
    const { description: _d, ...afterDescription } = bad;
    await refusedSkills(skills([agentModule(afterDescription)]), 'Deno Module usage must be a non-empty string');
    const { usage: _u, ...afterUsage } = afterDescription;
    await refusedSkills(skills([agentModule(afterUsage)]), 'Deno Module entry must be a non-empty string');
    await refusedSkills(
      skills([agentModule({ preferStdinExecution: 'yes' })]),
      'Deno Module preferStdinExecution must be a boolean',
    );
  });

  it('the tools are checked before the modules', async () => {
    const badTool = { name: '1bad', description: 'A tool.', argsSchema: { type: 'object' } };
    await refusedSkills(skills([agentModule({ name: '..' })], [badTool]), 'tool name is invalid');
  });

  it('(kit) a module that carries no prepared artifact → INVALID_INPUT naming attachDenoModuleSources { moduleName }', async () => {
    const c = client();
    let error: PedelecError | undefined;
    try {
      await c.createSession({ provider: 'codex', skills: skills([agentModule()]) } as never);
    } catch (caught) {
      error = caught as PedelecError;
    }
    expect(error?.code).to.equal('INVALID_INPUT');
    expect(error?.message).to.contain('sprite-tools').and.contain('attachDenoModuleSources');
    expect(error?.details).to.deep.equal({ moduleName: 'sprite-tools' });
    expect(fake.posted).to.deep.equal([]);
  });

  it("a module prepared as the public SDK's build plugin leaves it (a frozen, non-enumerable artifact; entry undefined) passes every check", async () => {
    await acceptedSkills(skills([pluginPrepared()]));
  });

  it('(kit) a module prepared with attachDenoModuleSources passes every check', async () => {
    const module = attachDenoModuleSources(defineDenoModule(agentModule()), {
      runtimeSource: 'export const draw = () => 1;',
      typesSource: 'export declare const draw: () => number;',
    });
    expect(Object.keys(module), 'the artifact is not enumerable').to.not.include('__pedelecArtifact');
    await acceptedSkills(skills([module]));
  });

  it('the manifest tells Core of each module: name, description, usage, and preferStdinExecution only when true', async () => {
    const stdin = Object.assign(pluginPrepared('@acme/scene'), { preferStdinExecution: true });
    const plain = Object.assign(pluginPrepared('sprite-tools'), { preferStdinExecution: false });
    const request = await acceptedSkills(skills([plain, stdin]));
    expect(request.input.skills.denoModules).to.deep.equal([
      { name: 'sprite-tools', description: 'Draws sprites.', usage: 'import { draw } from "sprite-tools";' },
      {
        name: '@acme/scene',
        description: 'Draws sprites.',
        usage: 'import { draw } from "sprite-tools";',
        preferStdinExecution: true,
      },
    ]);
  });

  it('an empty denoModules list is no module: create_session goes out, its manifest without denoModules', async () => {
    const c = client();
    const pending = c.createSession({ provider: 'codex', skills: { guidance: 'g', tools: [], denoModules: [] } });
    const request = await fake.request('create_session');
    expect(request.input.skills).to.deep.equal({ guidance: 'g', tools: [] });
    fake.respond({ sessionId: 's1', workspace: { workspaceId: 'ws-s1', path: null } }, request);
    await pending;
  });
});

describe('SDK 0.4.6 names: defineDenoModule', () => {
  it('defineDenoModule returns the very module it was given', () => {
    const module = { name: 'workspace-tools', entry: './workspace-tools.ts' };
    const defined = defineDenoModule(module);
    expect(defined).to.equal(module);
    expect(defined.name).to.equal('workspace-tools');
  });

  it('(kit) attachDenoModuleSources refuses blank sources: INVALID_INPUT { moduleName }', () => {
    const module = defineDenoModule(agentModule());
    expect(() => attachDenoModuleSources(module, { runtimeSource: ' ', typesSource: 'x' }))
      .to.throw()
      .that.deep.includes({
        code: 'INVALID_INPUT',
        details: { moduleName: 'sprite-tools' },
      });
  });
});
