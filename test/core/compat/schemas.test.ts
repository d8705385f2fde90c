/**
 * Drop-in compatibility with the public Pedelec SDK (sdk-compat.md §1, "Tool args schemas"): the SDK
 * checks only that a tool's args schema is an object node that survives a JSON clone, so
 * `createSession` never rejects a schema it accepts. What the kit can validate it validates; a node it
 * cannot accepts any value, and one `SCHEMA_NOT_VALIDATED` warning per tool lists every such path.
 * Each rule is one named test, written as an SDK user's program: a client on a transport (the fake
 * extension's port), `createSession` with the tool, then the agent's calls.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import { Pedelec, type PedelecError, type PedelecSession } from '../../../src/core/index.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../../support/fake-chrome.js';
import { rejection } from '../../support/promises.js';

let extension: FakePort;
let clients: Pedelec[] = [];
let seq = 0;

beforeEach(() => {
  extension = installFakeChrome();
  clients = [];
});
afterEach(() => {
  for (const client of clients) client.disconnect();
  uninstallFakeChrome();
});

/** A page's client, connected through a transport: the fake extension's port. */
function connect(warnings: PedelecError[] = []): Pedelec {
  const client = new Pedelec({
    transport: () => (globalThis as any).chrome.runtime.connect(),
    onWarning: (warning) => warnings.push(warning),
  });
  clients.push(client);
  return client;
}

/** What an SDK user passes as `skills`: one tool whose schema was read from JSON (an API description). */
const skillsWith = (argsSchema: unknown, handler = (args: unknown) => ({ got: args })) => ({
  guidance: 'Use the tool.',
  tools: [
    { name: 'lookup', description: 'Look something up.', argsSchema: JSON.parse(JSON.stringify(argsSchema)), handler },
  ],
});

/** Creates a session with the tool (the extension answers), and the warnings the client gave. */
async function createWith(argsSchema: unknown): Promise<{ session: PedelecSession; warnings: PedelecError[] }> {
  const warnings: PedelecError[] = [];
  const creating = connect(warnings).createSession({
    provider: 'codex',
    model: 'gpt-5',
    skills: skillsWith(argsSchema),
  });
  await extension.answer('create_session', { sessionId: 's1' });
  return { session: await creating, warnings };
}

/** The agent calls the tool once during a turn: what the page submits as its result. */
async function call(session: PedelecSession, args: unknown): Promise<any> {
  if (session.getStatus() === 'idle') {
    session.sendText('go').catch(() => {});
    await extension.answer('send_text');
  }
  const toolRequestId = `r${++seq}`;
  extension.event('s1', 'tool_call', { seq, toolRequestId, tool: 'lookup', args });
  return (await extension.request('submit_tool_result', (m) => m.toolRequestId === toolRequestId)).result;
}

/** An object schema with one property `x`. */
const withX = (x: unknown) => ({ type: 'object', properties: { x }, required: ['x'] });

/** The one SCHEMA_NOT_VALIDATED warning, checked to name exactly these paths. */
function expectNotValidated(warnings: PedelecError[], paths: string[]): void {
  const found = warnings.filter((w) => w.code === 'SCHEMA_NOT_VALIDATED');
  expect(found).to.have.length(1);
  const [warning] = found;
  expect(warning!.details).to.deep.equal({ tool: 'lookup', paths });
  for (const path of paths) expect(warning!.message).to.contain(path);
}

describe('SDK compatibility: tool args schemas', () => {
  it('enum: [] creates the session; the node accepts any value and its path is named', async () => {
    const { session, warnings } = await createWith(withX({ type: 'string', enum: [] }));
    expect(session.sessionId).to.equal('s1');
    expectNotValidated(warnings, ['argsSchema.properties.x.enum']);
    expect(await call(session, { x: 42 })).to.deep.equal({ got: { x: 42 } });
  });

  it('oneOf: [] creates the session; the node accepts any value and its path is named', async () => {
    const { session, warnings } = await createWith(withX({ oneOf: [] }));
    expectNotValidated(warnings, ['argsSchema.properties.x.oneOf']);
    expect(await call(session, { x: 'anything' })).to.deep.equal({ got: { x: 'anything' } });
  });

  it('a minimum above its maximum creates the session; the node accepts any value and its path is named', async () => {
    const { session, warnings } = await createWith(withX({ type: 'integer', minimum: 10, maximum: 1 }));
    expectNotValidated(warnings, ['argsSchema.properties.x.minimum']);
    expect(await call(session, { x: 5 })).to.deep.equal({ got: { x: 5 } });
  });

  it('a non-number bound creates the session; the node accepts any value and its path is named', async () => {
    const { session, warnings } = await createWith(withX({ type: 'number', maximum: '10' }));
    expectNotValidated(warnings, ['argsSchema.properties.x.maximum']);
    expect(await call(session, { x: 'eleven' })).to.deep.equal({ got: { x: 'eleven' } });
  });

  it('a pattern that compiles only without the u flag is compiled without it, and validated', async () => {
    // `\-` outside a class and a lone `{` are errors with `u` only.
    const { session, warnings } = await createWith(withX({ type: 'string', pattern: '^\\-a{$' }));
    expect(warnings).to.deep.equal([]);
    expect(await call(session, { x: '-a{' })).to.deep.equal({ got: { x: '-a{' } });
    const refused = await call(session, { x: 'a' });
    expect(refused.error.code).to.equal('TOOL_ARGS_INVALID');
    expect(refused.error.message).to.equal('x: must match pattern ^\\-a{$');
  });

  it('a pattern that compiles in neither mode creates the session; the node accepts any value and its path is named', async () => {
    const { session, warnings } = await createWith(withX({ type: 'string', pattern: '(' }));
    expectNotValidated(warnings, ['argsSchema.properties.x.pattern']);
    expect(await call(session, { x: 7 })).to.deep.equal({ got: { x: 7 } });
  });

  const outside: Array<[label: string, node: unknown, path: string, anyValue: unknown]> = [
    ['anyOf', { anyOf: [{ type: 'string' }, { type: 'number' }] }, 'argsSchema.properties.x.type', true],
    ['{}', {}, 'argsSchema.properties.x.type', ['any', 1]],
    ['type: ["string", "null"]', { type: ['string', 'null'] }, 'argsSchema.properties.x.type', 3],
    ['type: "null"', { type: 'null' }, 'argsSchema.properties.x.type', 'not null'],
    ['$ref', { $ref: '#/$defs/thing' }, 'argsSchema.properties.x.type', { any: 'thing' }],
    ['enum without type', { enum: ['a', 'b'] }, 'argsSchema.properties.x.type', 'c'],
  ];
  for (const [label, node, path, anyValue] of outside) {
    it(`a node outside the subset (${label}) creates the session; it accepts any value and its path is named`, async () => {
      const { session, warnings } = await createWith(withX(node));
      expectNotValidated(warnings, [path]);
      expect(await call(session, { x: anyValue })).to.deep.equal({ got: { x: anyValue } });
    });
  }

  it('an array without items creates the session; its items accept any value and their path is named', async () => {
    const { session, warnings } = await createWith(withX({ type: 'array', maxItems: 2 }));
    expectNotValidated(warnings, ['argsSchema.properties.x.items']);
    expect(await call(session, { x: [{ any: 1 }, 'thing'] })).to.deep.equal({ got: { x: [{ any: 1 }, 'thing'] } });
    // What the kit can validate of it, it does: an array, of at most 2 items.
    expect((await call(session, { x: 'not an array' })).error.message).to.equal('x: must be an array');
    expect((await call(session, { x: [1, 2, 3] })).error.message).to.equal('x: must have at most 2 items');
  });

  it('$defs at the root is passed through, and a $ref node beside validated ones leaves only itself open', async () => {
    const schema = {
      type: 'object',
      $defs: { thing: { type: 'string' } },
      properties: { thing: { $ref: '#/$defs/thing' }, count: { type: 'integer' } },
      required: ['count'],
    };
    const { session, warnings } = await createWith(schema);
    expect(extension.last('create_session').input.skills.tools[0].argsSchema).to.deep.equal(schema);
    expectNotValidated(warnings, ['argsSchema.properties.thing.type']);
    expect(await call(session, { thing: 1, count: 2 })).to.deep.equal({ got: { thing: 1, count: 2 } });
    expect((await call(session, { thing: 1 })).error.message).to.equal('count: is required');
  });

  it('what the kit can validate it still validates, beside the nodes it cannot', async () => {
    const { session } = await createWith({
      type: 'object',
      properties: {
        open: { anyOf: [{ type: 'string' }] },
        list: { type: 'array', items: { type: 'integer', minimum: 0 } },
        choice: { oneOf: [{ type: 'string' }, { type: 'number' }] },
      },
      required: ['open', 'list'],
    });
    expect(await call(session, { open: null, list: [1], choice: 'a' })).to.deep.equal({
      got: { open: null, list: [1], choice: 'a' },
    });
    const refused = await call(session, { list: [-1], choice: true });
    expect(refused.error.code).to.equal('TOOL_ARGS_INVALID');
    expect(refused.error.details.errors.map((e: { message: string }) => e.message)).to.deep.equal([
      'open: is required',
      'list[0]: must be ≥ 0',
      'choice: must match exactly one of 2 schemas (matched 0)',
    ]);
  });

  it('warnings come one per tool, listing every path in the message and in details.paths', async () => {
    const { warnings } = await createWith({
      type: 'object',
      properties: {
        a: { type: 'string', enum: [] },
        b: { type: 'integer', minimum: 3, maximum: 1 },
        c: { anyOf: [] },
        d: { type: 'array', items: { type: 'string', pattern: '(' } },
      },
    });
    expectNotValidated(warnings, [
      'argsSchema.properties.a.enum',
      'argsSchema.properties.b.minimum',
      'argsSchema.properties.c.type',
      'argsSchema.properties.d.items.pattern',
    ]);
    expect(warnings).to.have.length(1);
    expect(warnings[0]!.message).to.match(/^lookup: /);
  });

  it('only what the SDK itself rejects is rejected: a root that is not an object node, a schema JSON cannot clone', async () => {
    const client = connect();
    const create = (argsSchema: unknown) =>
      client.createSession({
        provider: 'codex',
        model: 'gpt-5',
        skills: { guidance: 'g', tools: [{ name: 'lookup', description: 'Look.', argsSchema }] },
      } as any);
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.self = cyclic;
    for (const [argsSchema, message] of [
      ['object', 'tool argsSchema must be an object'],
      [{ type: 'string' }, 'tool argsSchema must describe an object'],
      [{ type: 'object', default: 1n }, 'tool argsSchema must be serializable'],
      [cyclic, 'tool argsSchema must be serializable'],
    ] as const) {
      const error = await rejection(create(argsSchema));
      expect(error.code, message).to.equal('INVALID_INPUT');
      expect(error.message).to.equal(message);
    }
    expect(extension.posted).to.deep.equal([]);
    // Everything else the SDK sends on, whatever the kit can make of it.
    const creating = create({ type: 'object', properties: { x: { type: 'string', enum: [] } }, required: 5 });
    await extension.answer('create_session', { sessionId: 's1' });
    expect((await creating).sessionId).to.equal('s1');
  });
});
