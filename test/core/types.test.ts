/**
 * Type-level tests (docs/design/tools-api.md typing notes, sdk-api.md "createSession" typing and "Event
 * contexts"). Checked by `tsc --noEmit -p test/tsconfig.json`: every `@ts-expect-error` line must be an
 * error and everything else must compile under `strict`. Also run by node:test (npm run test:node), so
 * the type checks live in functions that never run, plus a few real runtime assertions.
 */
import { describe, it } from 'node:test';
import { expect } from '../support/expect.js';
import {
  Pedelec,
  defineTool,
  type ChatEventContext,
  type CreateSessionInput,
  type ErrorEventContext,
  type JsonValue,
  type PedelecEventContext,
  type PedelecSession,
  type ProviderInfo,
  type SerializableSkillsManifest,
  type SerializableToolManifest,
  type SkillsInput,
  type StatusEventContext,
  type ToolCallContext,
  type ToolDefinition,
  type ToolNameOf,
  type ToolSpecificHandler,
} from '../../src/core/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

// ───────────── The seed's examples, unchanged (only `counter` and `getCurrentPage`/`readPage` added) ─────────────

declare const counter: { add(delta: number): number };

const getCurrentPage = defineTool({
  name: 'get_current_page',
  description: 'Read the current page: its URL and title.',
  argsSchema: { type: 'object', properties: {} },
  handler: () => ({ url: location.href, title: document.title }),
});
const readPage = getCurrentPage;

const updateCounter = defineTool<{ delta: number }, { value: number }>({
  name: 'update_counter',
  description: 'Update the visible counter by delta.',
  argsSchema: {
    type: 'object',
    properties: {
      delta: { type: 'integer' },
    },
    required: ['delta'],
  },
  handler: ({ delta }) => ({ value: counter.add(delta) }),
});

const tools = [getCurrentPage, updateCounter] as const;

const skills = {
  guidance: 'Read current state before making changes.',
  tools,
} satisfies SkillsInput<typeof tools>;

function seedToolNameOfExample() {
  const tools = [readPage, updateCounter] as const;
  void tools;
  type AppToolName = ToolNameOf<typeof tools>;
  // With <TArgs, TResult> given explicitly TypeScript widens TName (no partial inference): the
  // spec documents this, so the union contains string; the literal still belongs to it.
  const name: AppToolName = 'get_current_page';
  const widened: Equal<typeof updateCounter.name, string> = true;
  return [name, widened];
}

// The seed's ToolSpecificHandler / ToolDefinition / manifest shapes.
const seedHandler: ToolSpecificHandler<{ delta: number }, { value: number }> = ({ delta }, ctx) => {
  // Optional in the type (a context built by hand has none); the kit always provides it.
  const signal: AbortSignal | undefined = ctx.signal;
  void signal;
  return { value: counter.add(delta) };
};
const asyncSeedHandler: ToolSpecificHandler<{ delta: number }, { value: number }> = async ({ delta }) => ({
  value: delta,
});
const manifest: SerializableSkillsManifest = {
  guidance: 'g',
  tools: [
    { name: 'update_counter', description: 'd', argsSchema: { type: 'object' } } satisfies SerializableToolManifest,
  ],
};

// A definition with specific TArgs is accepted wherever a ToolDefinition is expected (bivariant handler).
const asPlainDefinition: ToolDefinition = updateCounter;
const asDefinitionList: readonly ToolDefinition[] = tools;

// ───────────── Literal names ─────────────

const literalName = defineTool({
  name: 'get_current_page',
  description: 'Read the current page.',
  argsSchema: { type: 'object', properties: {} },
});
const n: 'get_current_page' = literalName.name;
const literalNameIsExact: Equal<typeof literalName.name, 'get_current_page'> = true;

// The README form: annotate the handler's parameter, keep the literal name.
const updateCounterReadme = defineTool({
  name: 'update_counter',
  description: 'Update the visible counter by delta.',
  argsSchema: { type: 'object', properties: { delta: { type: 'integer' } }, required: ['delta'] },
  handler: ({ delta }: { delta: number }) => ({ value: counter.add(delta) }),
});
const readmeName: 'update_counter' = updateCounterReadme.name;
const readmeTools = [getCurrentPage, updateCounterReadme] as const;
const readmeUnion: Equal<ToolNameOf<typeof readmeTools>, 'get_current_page' | 'update_counter'> = true;
const readmeSkills = { guidance: 'Read first.', tools: readmeTools } satisfies SkillsInput<typeof readmeTools>;

// A wrong handler return for declared TResult is an error.
defineTool<{ delta: number }, { value: number }>({
  name: 'update_counter',
  description: 'd',
  argsSchema: { type: 'object' },
  // @ts-expect-error value must be a number
  handler: ({ delta }) => ({ value: String(delta) }),
});

// The root of argsSchema must be an object node.
defineTool({
  name: 'x',
  description: 'd',
  // @ts-expect-error root must be type "object"
  argsSchema: { type: 'string' },
});

// ───────────── createSession typing ─────────────

async function sessionTyping(client: Pedelec) {
  const a = defineTool({ name: 'a_tool', description: 'A', argsSchema: { type: 'object' } });
  const b = defineTool({ name: 'b_tool', description: 'B', argsSchema: { type: 'object' } });
  const guidance = 'Use a_tool, then b_tool.';

  const session = await client.createSession({ provider: 'codex', skills: { guidance, tools: [a, b] as const } });
  const narrowed: Equal<typeof session, PedelecSession<'a_tool' | 'b_tool'>> = true;
  session.onTool('a_tool', (args, ctx) => ({ args, id: ctx.toolRequestId }));
  session.onTool<{ x: number }, { y: number }>('b_tool', ({ x }) => ({ y: x }));
  // @ts-expect-error "nope" is not a declared tool
  session.onTool('nope', () => null);
  session.onTool((tool, args, ctx) => {
    const name: 'a_tool' | 'b_tool' = tool;
    const toolCtx: ToolCallContext = ctx;
    return { name, args, toolCtx: toolCtx.tool };
  });

  // The const type parameter infers the tuple without `as const`, too.
  const inferred = await client.createSession({ provider: 'codex', skills: { guidance, tools: [a, b] } });
  const inferredNarrowed: Equal<typeof inferred, PedelecSession<'a_tool' | 'b_tool'>> = true;
  // @ts-expect-error "nope" is not a declared tool
  inferred.onTool('nope', () => null);

  // The seed's skills object works as is.
  const seeded = await client.createSession({ provider: 'codex', model: 'gpt-5', skills });
  seeded.onTool('update_counter', () => ({ value: 1 }));

  const readme = await client.createSession({ provider: 'codex', skills: readmeSkills });
  readme.onTool('update_counter', () => null);
  // @ts-expect-error not declared
  readme.onTool('update_countr', () => null);

  // No skills: any name.
  const plain = await client.createSession();
  const plainIsString: Equal<typeof plain, PedelecSession<string>> = true;
  plain.onTool('anything_goes', () => null);
  const withProvider = await client.createSession({ provider: 'some-future-provider', model: 'm' });
  withProvider.onTool('anything_goes', () => null);

  // A model without a provider is the default provider's (SDK 0.4.6).
  await client.createSession({ model: 'x' });
  // @ts-expect-error an effort level goes with profile mode, not with a model
  const badInput: CreateSessionInput = { model: 'x', effortLevel: 'high' };

  return [narrowed, inferredNarrowed, plainIsString, badInput];
}

// ───────────── Contexts: exact types, no index signatures ─────────────

function contextTyping(
  base: PedelecEventContext,
  chat: ChatEventContext,
  tool: ToolCallContext,
  status: StatusEventContext,
  error: ErrorEventContext,
  info: ProviderInfo,
  session: PedelecSession<string>,
) {
  // @ts-expect-error no seq on contexts
  base.seq;
  // @ts-expect-error no seq on contexts
  chat.seq;
  // @ts-expect-error no seq on contexts
  tool.seq;
  // @ts-expect-error no seq on contexts
  status.seq;
  // @ts-expect-error no seq on contexts
  error.seq;
  // @ts-expect-error no index signature on ProviderInfo
  info.path;

  session.onChat((_text, ctx) => {
    // @ts-expect-error no seq on contexts
    ctx.seq;
    const turnId: string = ctx.turnId;
    const receivedAt: number = ctx.eventReceivedAt;
    return [turnId, receivedAt];
  });
  session.onTool('t', (_args, ctx) => {
    // @ts-expect-error no seq on contexts
    ctx.seq;
  });

  // Required fields of the tool context.
  const type: 'tool_call' = tool.type;
  const toolRequestId: string = tool.toolRequestId;
  const toolName: string = tool.tool;
  const turnId: string = tool.turnId;
  const turnStartedAt: number = tool.turnStartedAt;
  const eventReceivedAt: number = tool.eventReceivedAt;
  // (ours) Always provided by the kit, optional in the type: a context built by hand has neither.
  const signal: AbortSignal | undefined = tool.signal;
  const deadline: number | undefined = tool.deadline;
  // Always present on every context.
  const always: [string, string, number, number, 'core' | 'sdk'] = [
    base.sessionId,
    base.provider,
    base.sessionCreatedAt,
    base.eventEmittedAt,
    base.source,
  ];
  // @ts-expect-error turnId is optional on the base context
  const baseTurn: string = base.turnId;
  const providerFields: [string, string, boolean, string | null] = [info.name, info.code, info.available, info.error];
  // A tool context is an event context (a helper that logs any context takes it).
  const asEventContext: PedelecEventContext = tool;
  // Turn kinds are the SDK's two (sdk-compat.md); a call made in the page says so by `ctx.via`.
  // @ts-expect-error 'local' is no turn kind
  const localKind: PedelecEventContext['turnKind'] = 'local';
  const localVia: ToolCallContext['via'] = 'local';
  // @ts-expect-error no other turn kinds
  const otherKind: PedelecEventContext['turnKind'] = 'agent';
  return [
    type,
    toolRequestId,
    toolName,
    turnId,
    turnStartedAt,
    eventReceivedAt,
    signal,
    deadline,
    always,
    baseTurn,
    providerFields,
    asEventContext,
    localKind,
    localVia,
    otherKind,
  ];
}

// ───────────── Runtime ─────────────

// ───────────── Found in review: inputs that may be absent, `as const` schemas, a run-time read type ─────────────

export async function reviewedTypes(
  client: Pedelec,
  maybe: { provider: string } | undefined,
  session: PedelecSession,
  kind: 'text' | 'json' | 'file',
) {
  // createSession(input?): an input that may be undefined is accepted.
  const s: PedelecSession<string> = await client.createSession(maybe);
  void s;
  // Schemas (and fragments) declared `as const` — readonly arrays — are no args schemas, as in the
  // public SDK, whose node types have mutable arrays (sdk-compat.md).
  const schema = {
    type: 'object',
    properties: { q: { type: 'string', enum: ['a', 'b'] } },
    required: ['q'],
    examples: [{ q: 'a' }],
  } as const;
  // @ts-expect-error readonly arrays
  defineTool({ name: 'q', description: 'd', argsSchema: schema });
  const choice = { oneOf: [{ type: 'string' }, { type: 'integer', enum: [1, 2] }] } as const;
  // @ts-expect-error readonly arrays
  defineTool({ name: 'c', description: 'd', argsSchema: { type: 'object', properties: { c: choice } } });
  // readAsset with the type known only at run time.
  const read = await session.readAsset('/x', kind);
  void read;
  const exact: Equal<typeof read, string | JsonValue | File> = true;
  void exact;
}

describe('types (compile-time suite; runtime sanity)', () => {
  it('defineTool returns its argument, keeping the literal name at run time too', () => {
    const def = { name: 'get_current_page' as const, description: 'd', argsSchema: { type: 'object' as const } };
    const returned = defineTool(def);
    expect(returned).to.equal(def);
    expect(updateCounterReadme.name).to.equal('update_counter');
    expect(n).to.equal('get_current_page');
    expect(readmeName).to.equal('update_counter');
  });

  it('the seed examples built the objects they describe', () => {
    expect(skills.tools).to.equal(tools);
    expect(skills.tools[1]).to.equal(updateCounter);
    expect(tools.map((t) => t.name)).to.deep.equal(['get_current_page', 'update_counter']);
    expect(asPlainDefinition).to.equal(updateCounter);
    expect(asDefinitionList).to.equal(tools);
    expect(manifest.tools[0]!.name).to.equal('update_counter');
    expect(readmeSkills.tools).to.equal(readmeTools);
    // The type-only checks exist (and are not run: they need a live session).
    expect([literalNameIsExact, readmeUnion]).to.deep.equal([true, true]);
    expect(
      [sessionTyping, contextTyping, seedToolNameOfExample, seedHandler, asyncSeedHandler].every(
        (f) => typeof f === 'function',
      ),
    ).to.equal(true);
  });
});
