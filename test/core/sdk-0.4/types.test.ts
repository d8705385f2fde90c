/**
 * SDK 0.4.6, types (the rules of 0.4.6's own type tests, sdk/src/index.type-test.ts; see
 * docs/design/sdk-0.4.md): a program written against 0.4.6 compiles against `pedelec-elements/core`,
 * and what 0.4.6 refuses to compile the kit refuses too. Checked by `npx tsc --noEmit -p test/tsconfig.json`: everything compiles under
 * `strict`, and the line after each `// @ts-expect-error` must be an error (an unused directive is an
 * error itself). The snippets are functions that never run; the `it`s below run what can run
 * without a live session. Not here: `pedelec.openWorkspace()` (not in the kit yet), and `session.model`,
 * which 0.4.6 refuses but the kit keeps as an addition.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import {
  Pedelec,
  PedelecWorkspace,
  defineDenoModule,
  defineTool,
  type ApprovalStatus,
  type Asset,
  type AssetPath,
  type ChatDeltaEventContext,
  type ChatEventContext,
  type DenoModuleDefinition,
  type Effort,
  type EndedEventContext,
  type ErrorEventContext,
  type PedelecAvailability,
  type PedelecEventContext,
  type PedelecSession,
  type ProviderArtifact,
  type ProviderArtifactEventContext,
  type ProviderInfo,
  type StatusEventContext,
  type ToolCallContext,
  type WorkspaceRunResult,
} from '../../../src/core/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

// ───────────── Deno modules ─────────────

/** A module the agent may use: it says what it is for and how to call it. */
const spriteTools = defineDenoModule({
  name: 'sprite-tools',
  description: 'Draws and moves sprites on the game canvas.',
  entry: './deno/sprite-tools.ts',
  usage: `import { draw } from "sprite-tools";
await draw({ sprite: "hero", x: 4, y: 2 });`,
  preferStdinExecution: true,
});

/** A module for workspace runs only: a name and an entry. */
const workspaceTools = defineDenoModule({ name: 'workspace-tools', entry: './deno/workspace-tools.ts' });

const descriptionOnly = defineDenoModule({
  name: 'described',
  entry: './deno/described.ts',
  description: 'Says what.',
});
const usageOnly = defineDenoModule({ name: 'used', entry: './deno/used.ts', usage: 'import "used";' });

/** defineDenoModule keeps the literal types of what it is given. */
const spriteName: 'sprite-tools' = spriteTools.name;
const spriteDefinition: DenoModuleDefinition<'sprite-tools'> = spriteTools;
const workspaceName: 'workspace-tools' = workspaceTools.name;
const keepsTrue: Equal<typeof spriteTools.preferStdinExecution, true> = true;

function denoModulesNeedAnEntryWhenWritten() {
  // @ts-expect-error `entry` is required where a module is defined
  defineDenoModule({ name: 'no-entry', description: 'Nothing to build.', usage: 'import "no-entry";' });
  defineDenoModule({
    name: 'numeric-entry',
    // @ts-expect-error `entry` is a path, not a number
    entry: 42,
  });
}

// ───────────── A session with typed tools ─────────────

const getSelection = defineTool({
  name: 'get_selection',
  description: 'Read the selected text.',
  argsSchema: { type: 'object', properties: {}, required: [] },
});
const replaceText = defineTool({
  name: 'replace_text',
  description: 'Replace the selected text.',
  argsSchema: { type: 'object', properties: {}, required: [] },
});

async function toolNamesComeFromCreateSession(pedelec: Pedelec) {
  const session = await pedelec.createSession({
    provider: 'codex',
    skills: { guidance: 'Read before you write.', tools: [getSelection, replaceText], denoModules: [spriteTools] },
  });
  const narrowed: Equal<typeof session, PedelecSession<'get_selection' | 'replace_text'>> = true;
  session.onTool((name, args, ctx) => {
    const declared: 'get_selection' | 'replace_text' = name;
    const unknownArgs: Equal<typeof args, unknown> = true;
    const context: ToolCallContext = ctx;
    // @ts-expect-error the generic handler's name is a declared tool's, not any string
    const other: 'not_exists' = name;
    // @ts-expect-error contexts carry no seq
    const seq = ctx.seq;
    return [declared, unknownArgs, context, other, seq];
  });
  session.onTool('get_selection', async (args, ctx) => {
    const unknownArgs: Equal<typeof args, unknown> = true;
    const tool: string = ctx.tool;
    const turnId: string = ctx.turnId;
    return { unknownArgs, tool, turnId };
  });
  session.onTool('replace_text', async () => ({ ok: true }));
  // @ts-expect-error a named handler is for a declared tool
  session.onTool('not_exists', async () => ({ ok: true }));
  session.onChat((_text, ctx) => {
    const context: ChatEventContext = ctx;
    const type: 'chat_message' = ctx.type;
    const receivedAt: number = ctx.eventReceivedAt;
    // @ts-expect-error contexts carry no seq
    const seq = ctx.seq;
    return [context, type, receivedAt, seq];
  });
  session.onChatDelta((_text, ctx) => {
    const context: ChatDeltaEventContext = ctx;
    const type: 'chat_delta' = ctx.type;
    const receivedAt: number = ctx.eventReceivedAt;
    return [context, type, receivedAt];
  });
  session.onArtifact((artifact, ctx) => {
    const value: ProviderArtifact = artifact;
    const context: ProviderArtifactEventContext = ctx;
    const turnKind: 'user' = ctx.turnKind;
    const source: 'core' = ctx.source;
    const file: Promise<File> = session.readAsset(artifact.path, 'file');
    return [value, context, turnKind, source, file];
  });
  session.onStatus((_status, ctx) => {
    const context: StatusEventContext = ctx;
    return [context, ctx.previousStatus];
  });
  session.onError((_error, ctx) => {
    const context: ErrorEventContext = ctx;
    return context;
  });
  session.onEnded((ctx) => {
    const context: EndedEventContext = ctx;
    return context;
  });
  const resumed: Promise<void> = session.resume();
  await resumed;
  return narrowed;
}

async function resumedSessionsNameToolsByString(pedelec: Pedelec) {
  const session = await pedelec.resumeSession('thread_1');
  const wide: Equal<typeof session, PedelecSession<string>> = true;
  session.onTool((name) => {
    const any: string = name;
    return any;
  });
  session.onTool('runtime_tool_name', () => null);
  return wide;
}

async function sessionsWithoutSkillsNameToolsByString(pedelec: Pedelec) {
  const session = await pedelec.createSession({ provider: 'codex' });
  const wide: Equal<typeof session, PedelecSession<string>> = true;
  const workspace: PedelecWorkspace = session.workspace;
  // A workspace run takes any module, for the agent or not.
  await workspace.run('import "workspace-tools";', { denoModules: [workspaceTools] });
  await workspace.run('import "sprite-tools";', { denoModules: [spriteTools] });
  session.onTool((name) => {
    const any: string = name;
    return any;
  });
  session.onTool('runtime_tool_name', () => null);
  return wide;
}

async function sessionModulesNeedDescriptionAndUsage(pedelec: Pedelec) {
  await pedelec.createSession({
    provider: 'codex',
    skills: {
      guidance: 'g',
      tools: [],
      // @ts-expect-error a session module says what it is for and how to call it
      denoModules: [workspaceTools],
    },
  });
  await pedelec.createSession({
    provider: 'codex',
    skills: {
      guidance: 'g',
      tools: [],
      // @ts-expect-error a description alone is not enough
      denoModules: [descriptionOnly],
    },
  });
  await pedelec.createSession({
    provider: 'codex',
    skills: {
      guidance: 'g',
      tools: [],
      // @ts-expect-error a usage alone is not enough
      denoModules: [usageOnly],
    },
  });
}

// ───────────── Profile mode and explicit model mode ─────────────

async function effortLevelAndEffort(pedelec: Pedelec) {
  await pedelec.createSession({ effortLevel: 'high' });
  await pedelec.createSession({ provider: 'codex', effortLevel: 'low' });
  await pedelec.createSession({ model: 'gpt-5' });
  await pedelec.createSession({ provider: 'codex', model: 'gpt-5', effort: 'max' });
  const effort: Effort = 'xhigh';
  await pedelec.createSession({ provider: 'codex', model: 'gpt-5', effort });
  // @ts-expect-error the sandbox input is gone
  await pedelec.createSession({ provider: 'codex', sandbox: { path: '/Users/ada/project' } });
  // @ts-expect-error the sandbox picker is gone
  pedelec.sandboxFolderPicker();
  // @ts-expect-error an effort level is for profile mode, not with a model
  await pedelec.createSession({ provider: 'codex', model: 'gpt-5', effortLevel: 'high' });
  // @ts-expect-error an effort needs a model
  await pedelec.createSession({ provider: 'codex', effort: 'high' });
  // @ts-expect-error not all three together
  await pedelec.createSession({ model: 'gpt-5', effort: 'max', effortLevel: 'low' });
  // @ts-expect-error "default" is an effort level, not an effort
  await pedelec.createSession({ model: 'gpt-5', effort: 'default' });
  // @ts-expect-error "medium" is an effort, not an effort level
  await pedelec.createSession({ effortLevel: 'medium' });
  // 0.4.6 refuses `session.model` here (`@ts-expect-error`); the kit keeps `session.model` as an
  // addition (docs/design/sdk-0.4.md, docs/sdk-compatibility.md), so it compiles.
  const session = await pedelec.createSession({ provider: 'codex', model: 'gpt-5' });
  const model: string | undefined = session.model;
  return model;
}

// ───────────── Assets, availability, security types ─────────────

async function assetsHavePublicTypes(pedelec: Pedelec, file: File) {
  const session = await pedelec.resumeSession('thread_1');
  const assets = await session.listAssets();
  assets satisfies Asset[];
  const path: AssetPath = assets[0]!.path;
  path satisfies `/${string}`;
  (await session.uploadAsset(file)) satisfies AssetPath;
  (await session.uploadAsset(file, '/img/image.txt')) satisfies AssetPath;
  const rooted: AssetPath = '/assets/image.txt';
  // @ts-expect-error an asset path starts at the root
  const missingSlash: AssetPath = 'assets/image.txt';
  return [path, rooted, missingSlash];
}

async function availabilityHasAPublicType(pedelec: Pedelec) {
  const pending: Promise<PedelecAvailability> = pedelec.checkAvailability();
  const availability: PedelecAvailability = await pending;
  return availability;
}

function securityTypesAreRestricted() {
  const status: ApprovalStatus = { installed: true, approved: true, origin: 'https://app.example', appConnected: true };
  const provider = {} as ProviderInfo;
  const isDefault: boolean = provider.isDefault;
  // @ts-expect-error executable paths are never exposed
  const path = provider.path;
  return [status, isDefault, path];
}

// ───────────── Workspaces ─────────────

async function workspaceTypes(pedelec: Pedelec, file: File) {
  const session = await pedelec.createSession({ provider: 'codex' });
  const workspace = session.workspace;
  workspace satisfies PedelecWorkspace;
  const folder: string | null = workspace.path;
  const files: Promise<string[]> = workspace.listFiles();
  const folders: Promise<string[]> = workspace.listFolders('src');
  const run: Promise<WorkspaceRunResult> = workspace.run('console.log(1)', { timeoutMs: 1000 });
  const inWorkspace = await workspace.createSession({
    skills: {
      guidance: 'Work in the folder.',
      tools: [defineTool({ name: 'workspace_tool', description: 'Tool', argsSchema: { type: 'object' } })],
    },
  });
  inWorkspace.workspace satisfies PedelecWorkspace;
  const generated: string = await workspace.uploadFile(file);
  const nested: string = await workspace.uploadFile(file, 'references/photo.png');
  const text: string = await workspace.readFile('README.md', 'text');
  const parsed: { ok: boolean } = await workspace.readFile('result.json', 'json');
  const downloaded: File = await workspace.readFile(generated, 'file');
  // @ts-expect-error the workspace input is gone: workspace.createSession() is the way
  await pedelec.createSession({ provider: 'codex', workspace: { path: '/Users/ada/project' } });
  // @ts-expect-error the workspace picker is gone
  pedelec.workspaceFolderPicker();
  // @ts-expect-error the directory picker is gone
  pedelec.directoryPicker();
  return [folder, files, folders, run, nested, text, parsed, downloaded];
}

// ───────────── A context built by hand ─────────────

const baseContext: PedelecEventContext = {
  sessionId: 'thread_1',
  provider: 'codex',
  sessionCreatedAt: Date.now(),
  eventEmittedAt: Date.now(),
  source: 'sdk',
};

const snippets = [
  denoModulesNeedAnEntryWhenWritten,
  toolNamesComeFromCreateSession,
  resumedSessionsNameToolsByString,
  sessionsWithoutSkillsNameToolsByString,
  sessionModulesNeedDescriptionAndUsage,
  effortLevelAndEffort,
  assetsHavePublicTypes,
  availabilityHasAPublicType,
  securityTypesAreRestricted,
  workspaceTypes,
];

describe('SDK 0.4.6 types (compiled by tsc; runtime sanity)', () => {
  it('defineDenoModule keeps the module as written: literal name and fields (types checked by tsc)', () => {
    expect([spriteName, workspaceName]).to.deep.equal(['sprite-tools', 'workspace-tools']);
    expect(spriteDefinition).to.equal(spriteTools);
    expect(keepsTrue).to.equal(true);
    expect(spriteTools.preferStdinExecution).to.equal(true);
    expect(Object.keys(workspaceTools)).to.deep.equal(['name', 'entry']);
    expect([descriptionOnly.description, usageOnly.usage]).to.deep.equal(['Says what.', 'import "used";']);
  });

  it('a PedelecEventContext built by hand needs only the base fields', () => {
    expect(Object.keys(baseContext).sort()).to.deep.equal(
      ['eventEmittedAt', 'provider', 'sessionCreatedAt', 'sessionId', 'source'].sort(),
    );
  });

  it('the type-only snippets are functions that never run', () => {
    expect(snippets.every((snippet) => typeof snippet === 'function')).to.equal(true);
    expect(snippets).to.have.length(10);
  });
});
