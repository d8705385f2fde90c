/**
 * Drop-in compatibility with the public Pedelec SDK (sdk-compat.md §1, "Types"): programs written
 * against `@kaoruisaac/pedelec` 0.1.23 compile against the kit. Each rule is a snippet checked by
 * `tsc --noEmit -p test/tsconfig.json` — in functions that never run, `@ts-expect-error` where the SDK
 * also refuses — and one named test, which runs what can run without a live session.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import {
  PEDELEC_EXTENSION_ID,
  Pedelec,
  defineTool,
  type JsonValue,
  type PedelecEventContext,
  type PedelecSession,
  type SandboxAssetPath,
  type ToolArgsArraySchema,
  type ToolArgsIntegerSchema,
  type ToolArgsObjectSchema,
  type ToolArgsOneOfSchema,
  type ToolArgsSchema,
  type ToolArgsSchemaMeta,
  type ToolArgsSchemaNode,
  type ToolArgsStringSchema,
  type ToolCallContext,
} from '../../../src/core/index.js';
import { installFakeChrome, uninstallFakeChrome } from '../../support/fake-chrome.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** The two tools an SDK user's page declares. */
const toolA = defineTool({
  name: 'tool_a',
  description: 'Read the counter.',
  argsSchema: { type: 'object', properties: {} },
  handler: () => ({ value: 1 }),
});
const toolB = defineTool({
  name: 'tool_b',
  description: 'Update the counter by delta.',
  argsSchema: { type: 'object', properties: { delta: { type: 'integer' } }, required: ['delta'] },
  handler: ({ delta }: { delta: number }, ctx: ToolCallContext) => ({ value: delta, aborted: ctx.signal?.aborted }),
});

async function uploadAssetResolvesThePath(session: PedelecSession, file: File) {
  const path: SandboxAssetPath = await session.uploadAsset(file);
  const exact: Equal<Awaited<ReturnType<PedelecSession['uploadAsset']>>, SandboxAssetPath> = true;
  // @ts-expect-error a path string, not a `{ path }` object
  const { path: notThere } = await session.uploadAsset(file, '/docs/notes.txt');
  return [path, exact, notThere];
}

async function readAssetIsGeneric(session: PedelecSession) {
  // The SDK's README example.
  const report = await session.readAsset<{ ok: boolean }>('/report.json', 'json');
  const ok: boolean = report.ok;
  const json = await session.readAsset('/data.json', 'json');
  const jsonByDefault: Equal<typeof json, JsonValue> = true;
  const text = await session.readAsset('/notes.txt', 'text');
  const file = await session.readAsset('/image.png', 'file');
  const exact: [Equal<typeof text, string>, Equal<typeof file, File>] = [true, true];
  return [ok, json, jsonByDefault, text, file, exact];
}

function schemaMetaIsGeneric() {
  const meta: ToolArgsSchemaMeta<number> = { description: 'How many', default: 3, examples: [1, 2] };
  const defaultMeta: Equal<ToolArgsSchemaMeta, ToolArgsSchemaMeta<JsonValue>> = true;
  const name: ToolArgsStringSchema = { type: 'string', default: 'Ada', examples: ['Grace'] };
  const count: ToolArgsIntegerSchema = { type: 'integer', default: 1, examples: [2, 3] };
  const tags: ToolArgsArraySchema = { type: 'array', items: { type: 'string' }, default: ['a'], examples: [[]] };
  const filter: ToolArgsObjectSchema = { type: 'object', default: { q: 'a' }, examples: [{ q: 'b' }] };
  // @ts-expect-error a string node's default is a string
  const badDefault: ToolArgsStringSchema = { type: 'string', default: 1 };
  // @ts-expect-error an integer node's examples are numbers
  const badExamples: ToolArgsIntegerSchema = { type: 'integer', examples: ['one'] };
  return [meta, defaultMeta, name, count, tags, filter, badDefault, badExamples];
}

function schemaNodesHaveMutableArrays() {
  const requiredOf = (s: ToolArgsObjectSchema): string[] | undefined => s.required;
  const choicesOf = (s: ToolArgsStringSchema): string[] | undefined => s.enum;
  const branchesOf = (s: ToolArgsOneOfSchema): ToolArgsSchemaNode[] => s.oneOf;
  // A schema built step by step, as SDK users write them.
  const schema: ToolArgsSchema = { type: 'object', properties: {}, required: [] };
  schema.properties!.q = { type: 'string', enum: [] };
  schema.required!.push('q');
  // A schema written `as const` is not supported, as in the SDK.
  const frozen = { type: 'object', required: ['q'] } as const;
  // @ts-expect-error readonly arrays are no args schema
  defineTool({ name: 'q', description: 'd', argsSchema: frozen });
  return [requiredOf, choicesOf, branchesOf];
}

async function asConstToolsNarrowTheSession(client: Pedelec) {
  const session = await client.createSession({
    provider: 'codex',
    model: 'gpt-5',
    skills: { guidance: 'Read, then update.', tools: [toolA, toolB] as const },
  });
  const narrowed: Equal<typeof session, PedelecSession<'tool_a' | 'tool_b'>> = true;
  session.onTool('tool_b', () => ({ value: 2 }));
  // @ts-expect-error not a declared tool
  session.onTool('tool_c', () => null);
  return narrowed;
}

/** A handler unit test, as SDK users write them: the context built by hand (the spec's literal). */
function handlerCalledWithAHandBuiltContext() {
  return toolB.handler!(
    { delta: 2 },
    {
      sessionId: 's',
      provider: 'codex',
      sessionCreatedAt: 1,
      eventEmittedAt: 1,
      source: 'core',
      type: 'tool_call',
      toolRequestId: 'r',
      tool: 't',
      turnId: 'x',
      turnStartedAt: 1,
      eventReceivedAt: 1,
    },
  );
}

function turnKindIsTheSdks() {
  const kinds: Equal<NonNullable<PedelecEventContext['turnKind']>, 'user' | 'prepare'> = true;
  // @ts-expect-error no other turn kind
  const local: PedelecEventContext['turnKind'] = 'local';
  return [kinds, local];
}

describe('SDK compatibility: types', () => {
  it('uploadAsset resolves to the path string (SandboxAssetPath)', () => {
    expect(uploadAssetResolvesThePath).to.be.a('function'); // checked by tsc
  });

  it('readAsset<T>(path, "json") is generic; "text" gives a string, "file" a File', () => {
    expect(readAssetIsGeneric).to.be.a('function'); // checked by tsc
  });

  it("ToolArgsSchemaMeta<T> is generic: default and examples are typed by the node's value type", () => {
    expect(schemaMetaIsGeneric).to.be.a('function'); // checked by tsc
  });

  it('schema node types use mutable arrays; a schema written `as const` is not an args schema', () => {
    expect(schemaNodesHaveMutableArrays).to.be.a('function'); // checked by tsc
  });

  it('[toolA, toolB] as const for skills.tools narrows the session to their names', async () => {
    const fake = installFakeChrome();
    const client = new Pedelec();
    try {
      const narrowed = asConstToolsNarrowTheSession(client);
      const request = fake.last('create_session');
      expect(request.input.skills.tools.map((t: { name: string }) => t.name)).to.deep.equal(['tool_a', 'tool_b']);
      fake.respond({ sessionId: 's1' }, request);
      expect(await narrowed).to.equal(true);
    } finally {
      client.disconnect();
      uninstallFakeChrome();
    }
  });

  it('a ToolCallContext built by hand type-checks where a handler is called with it', async () => {
    // signal and deadline are optional in the type: the handler reads `ctx.signal?.…`.
    expect(await handlerCalledWithAHandBuiltContext()).to.deep.equal({ value: 2, aborted: undefined });
  });

  it('turnKind stays "user" | "prepare"', () => {
    expect(turnKindIsTheSdks).to.be.a('function'); // checked by tsc
  });

  it('PEDELEC_EXTENSION_ID stays exported (an addition)', () => {
    const id: string = PEDELEC_EXTENSION_ID;
    expect(id).to.equal('ogccgaminlphbkeghldidiiimajfdpag');
  });
});
