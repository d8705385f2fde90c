/**
 * Behaviour tests for tools in the core SDK: spec/tools-api.md (all of it), the tool-related parts of
 * spec/sdk-api.md, and reliability.md rows "Bad results from handlers" and "Handler faults".
 * Everything runs against the fake Chrome port (test/support/fake-chrome.ts).
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import { runInNewContext } from 'node:vm';
import { expect } from '../support/expect.js';
import {
  Pedelec,
  defineTool,
  type ErrorEventContext,
  type PedelecError,
  type PedelecOptions,
  type PedelecSession,
  type StatusEventContext,
  type ToolCallContext,
} from '../../src/core/index.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort, type Posted } from '../support/fake-chrome.js';
import { rejection as rejectionOf } from '../support/promises.js';
import { watchUnhandled } from '../support/unhandled.js';
import { nextTask } from '../support/waits.js';

// ───────────────────────────── helpers ─────────────────────────────

let fake: FakePort;
let clients: Pedelec[] = [];
let seq = 0;

beforeEach(() => {
  fake = installFakeChrome();
  clients = [];
  seq = 0;
});

afterEach(() => {
  // Release what each test left pending (bridge timers, running handlers) before the next test.
  clients.forEach((c) => c.disconnect());
  uninstallFakeChrome();
});

function newClient(options: PedelecOptions = {}): Pedelec {
  const client = new Pedelec(options);
  clients.push(client);
  return client;
}

type AnySession = PedelecSession<string>;

/** createSession with provider + model (posts create_session at once), answered with `s1`. */
async function open(skills?: unknown, options: PedelecOptions = {}): Promise<{ client: Pedelec; session: AnySession }> {
  const client = newClient(options);
  const pending = client.createSession({ provider: 'codex', model: 'gpt-test', skills } as any) as Promise<AnySession>;
  fake.respond({ sessionId: 's1' }, fake.last('create_session'));
  const session = await pending;
  return { client, session };
}

/** Starts a user turn; its eventual rejection (session end, disconnect) is expected and swallowed. */
function startTurn(session: AnySession): Promise<void> {
  const turn = session.sendText('hi');
  turn.catch(() => {});
  return turn;
}

/** Emits a tool_call for session s1 with a fresh seq. */
function toolCall(toolRequestId: string, tool: string, args: unknown = {}): void {
  fake.event('s1', 'tool_call', { seq: ++seq, toolRequestId, tool, args });
}

function submits(toolRequestId?: string): Posted[] {
  return fake.posted.filter(
    (m) => m.type === 'submit_tool_result' && (toolRequestId === undefined || m.toolRequestId === toolRequestId),
  );
}

/** The result of the one submit_tool_result posted for that request. */
function resultOf(toolRequestId: string): any {
  const list = submits(toolRequestId);
  expect(list, `submit_tool_result for ${toolRequestId}`).to.have.length(1);
  return list[0]!.result;
}

/** The submit_tool_result for that request, once the page posts it (an async handler's outcome). */
const submitted = (toolRequestId: string): Promise<Posted> =>
  fake.request('submit_tool_result', (m) => m.toolRequestId === toolRequestId);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function thrownBy(fn: () => unknown): any {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw, but it returned');
}

/** Resolves when the signal aborts; fails after `ms`. */
function aborted(signal: AbortSignal, ms = 3000): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`signal not aborted within ${ms} ms`)), ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function collectErrors(session: AnySession): Array<{ error: PedelecError; ctx: ErrorEventContext }> {
  const errors: Array<{ error: PedelecError; ctx: ErrorEventContext }> = [];
  session.onError((error, ctx) => errors.push({ error, ctx }));
  return errors;
}

const counterSchema = () => ({
  type: 'object',
  properties: { delta: { type: 'integer' } },
  required: ['delta'],
});

const counterTool = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'update_counter',
  description: 'Update the visible counter by delta.',
  argsSchema: counterSchema(),
  ...over,
});

const pageTool = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'get_current_page',
  description: 'Read the current page.',
  argsSchema: { type: 'object', properties: {} },
  ...over,
});

const skillsOf = (...tools: unknown[]) => ({ guidance: 'Read current state before making changes.', tools });

// ───────────────────────────── defineTool ─────────────────────────────

describe('defineTool', () => {
  it('returns the very object it was given, and validates nothing', () => {
    const def = { name: 'update_counter', description: 'd', argsSchema: { type: 'object' as const } };
    expect(defineTool(def)).to.equal(def);
    // Invalid definitions are not its business: session creation validates.
    const bad = { name: '1 bad', description: '', argsSchema: { type: 'object' as const }, timeoutMs: -1 };
    expect(defineTool(bad)).to.equal(bad);
    expect(bad).to.deep.equal({ name: '1 bad', description: '', argsSchema: { type: 'object' }, timeoutMs: -1 });
  });
});

// ───────────────────────────── normalization ─────────────────────────────

describe('createSession skills normalization (tools-api.md steps 1–6)', () => {
  /** createSession must reject (not throw) INVALID_INPUT with this message, and post nothing. */
  async function expectInvalid(skills: unknown, message: string, details?: unknown): Promise<PedelecError> {
    const client = newClient();
    let pending!: Promise<unknown>;
    expect(() => {
      pending = client.createSession({ provider: 'codex', model: 'gpt-test', skills } as any);
    }).not.to.throw();
    const error = await rejectionOf(pending);
    expect(error).not.to.be.instanceOf(Error);
    expect(error.code).to.equal('INVALID_INPUT');
    expect(error.message).to.equal(message);
    if (details !== undefined) expect(error.details).to.deep.equal(details);
    expect(fake.posted, 'nothing posted').to.deep.equal([]);
    return error;
  }

  describe('step 2: the skills object', () => {
    it('rejects skills that are not a plain object', async () => {
      await expectInvalid([], 'skills must be an object');
      await expectInvalid('tools', 'skills must be an object');
      await expectInvalid(42, 'skills must be an object');
      await expectInvalid(new Map(), 'skills must be an object');
    });

    it('rejects a guidance that is not a string (before looking at tools)', async () => {
      await expectInvalid({ tools: [] }, 'skills.guidance must be a string');
      await expectInvalid({ guidance: 1, tools: 'not an array' }, 'skills.guidance must be a string');
    });

    it('rejects tools that are not an array', async () => {
      await expectInvalid({ guidance: 'g' }, 'skills.tools must be an array');
      await expectInvalid({ guidance: 'g', tools: { 0: pageTool() } }, 'skills.tools must be an array');
    });

    it('checks skills before model-without-provider', async () => {
      const client = newClient();
      const error = await rejectionOf(client.createSession({ model: 'x', skills: { guidance: 1, tools: [] } } as any));
      expect(error).to.deep.equal({ code: 'INVALID_INPUT', message: 'skills.guidance must be a string' });
      expect(fake.posted).to.deep.equal([]);
    });
  });

  describe('step 3: each entry, in order', () => {
    it('rejects an entry that is not a plain object, with details { index }', async () => {
      await expectInvalid(skillsOf(pageTool(), null), 'skills.tools entries must be objects', { index: 1 });
      await expectInvalid(skillsOf([]), 'skills.tools entries must be objects', { index: 0 });
      await expectInvalid(
        skillsOf(pageTool(), counterTool(), 'get_current_page'),
        'skills.tools entries must be objects',
        { index: 2 },
      );
    });

    it('rejects a hole in the tools array as an entry, with its index (not sent as null)', async () => {
      // eslint-disable-next-line no-sparse-arrays
      const tools = [pageTool(), , counterTool()];
      expect(1 in tools).to.equal(false);
      await expectInvalid({ guidance: '', tools }, 'skills.tools entries must be objects', { index: 1 });
      expect(fake.posted.filter((m) => m.type === 'create_session')).to.deep.equal([]);
    });

    it('rejects invalid names, with details { index, toolName }', async () => {
      for (const name of ['1counter', '_counter', 'update counter', ' update_counter', '', 'über', 'a/b']) {
        await expectInvalid(skillsOf(pageTool(), counterTool({ name })), 'tool name is invalid', {
          index: 1,
          toolName: name,
        });
      }
      await expectInvalid(skillsOf(counterTool({ name: 42 })), 'tool name is invalid', { index: 0, toolName: 42 });
    });

    it('accepts names with letters, digits, _ . - after a leading letter', async () => {
      const { session } = await open(skillsOf(counterTool({ name: 'a.B-c_9' }), pageTool({ name: 'Z' })));
      expect(session.sessionId).to.equal('s1');
      expect(fake.last('create_session').input.skills.tools.map((t: any) => t.name)).to.deep.equal(['a.B-c_9', 'Z']);
    });

    it('rejects a duplicate name, with details { toolName }, right after the name check', async () => {
      await expectInvalid(skillsOf(counterTool(), pageTool(), counterTool()), 'duplicate tool name', {
        toolName: 'update_counter',
      });
      // The duplicate is reported before the repeated entry's other faults.
      await expectInvalid(skillsOf(counterTool(), counterTool({ description: '' })), 'duplicate tool name', {
        toolName: 'update_counter',
      });
    });

    it('rejects an empty or whitespace description', async () => {
      for (const description of ['', '   ', '\n\t', undefined, 7]) {
        await expectInvalid(skillsOf(counterTool({ description })), 'tool description must be a non-empty string');
      }
    });

    it('rejects a timeoutMs that is not a positive integer', async () => {
      for (const timeoutMs of [0, -1, 1.5, '5', NaN, Infinity]) {
        await expectInvalid(skillsOf(counterTool({ timeoutMs })), 'tool timeoutMs must be a positive integer');
      }
    });

    it('rejects a handler that is not a function', async () => {
      for (const handler of ['() => 1', {}, 1]) {
        await expectInvalid(skillsOf(counterTool({ handler })), 'tool handler must be a function');
      }
    });

    it('rejects the legacy input shorthand, even next to an argsSchema', async () => {
      await expectInvalid(
        skillsOf(counterTool({ input: { delta: 'integer' } })),
        'tool input is no longer supported; use argsSchema',
      );
      const legacy = { name: 'update_counter', description: 'd', input: { delta: 'integer' } };
      await expectInvalid(skillsOf(legacy), 'tool input is no longer supported; use argsSchema');
    });

    it('rejects an argsSchema that is not a plain object', async () => {
      for (const argsSchema of [undefined, null, [], 'object', 3]) {
        await expectInvalid(skillsOf(counterTool({ argsSchema })), 'tool argsSchema must be an object');
      }
    });

    it('rejects an argsSchema whose type is not "object"', async () => {
      for (const argsSchema of [
        {},
        { type: 'string' },
        { type: 'array', items: { type: 'string' } },
        { properties: {} },
        { type: ['object'] },
      ]) {
        await expectInvalid(skillsOf(counterTool({ argsSchema })), 'tool argsSchema must describe an object');
      }
    });

    it('rejects an argsSchema whose JSON clone (what is sent) is not an object node (toJSON, getters)', async () => {
      const viaToJson = { type: 'object', properties: {}, toJSON: () => ({ type: 'string' }) };
      let reads = 0;
      const viaGetter = {
        get type() {
          return reads++ === 0 ? 'object' : 'string';
        },
        properties: {},
      };
      for (const argsSchema of [viaToJson, viaGetter, { type: 'object', toJSON: () => 'object' }]) {
        await expectInvalid(skillsOf(counterTool({ argsSchema })), 'tool argsSchema must describe an object');
      }
    });

    it('rejects an argsSchema that JSON cannot clone (BigInt, cycle)', async () => {
      await expectInvalid(
        skillsOf(counterTool({ argsSchema: { type: 'object', default: { n: 10n } } })),
        'tool argsSchema must be serializable',
      );
      const cyclic: Record<string, unknown> = { type: 'object', properties: {} };
      (cyclic.properties as Record<string, unknown>).self = cyclic;
      await expectInvalid(skillsOf(counterTool({ argsSchema: cyclic })), 'tool argsSchema must be serializable');
    });

    it('checks in the exact order of the spec, one fault at a time', async () => {
      // Every fault at once; fixing them one by one must reveal the next message in spec order.
      const entry: Record<string, unknown> = {
        name: '9lives',
        description: '  ',
        timeoutMs: 0,
        handler: 'not a function',
        input: { delta: 'integer' },
        argsSchema: 'not an object',
      };
      const steps: Array<[string, () => void]> = [
        ['tool name is invalid', () => (entry.name = 'update_counter')],
        ['tool description must be a non-empty string', () => (entry.description = 'Update the counter.')],
        ['tool timeoutMs must be a positive integer', () => (entry.timeoutMs = 5000)],
        ['tool handler must be a function', () => (entry.handler = () => null)],
        ['tool input is no longer supported; use argsSchema', () => delete entry.input],
        ['tool argsSchema must be an object', () => (entry.argsSchema = { type: 'string', default: 1n })],
        [
          'tool argsSchema must describe an object',
          () =>
            (entry.argsSchema = {
              type: 'object',
              default: 1n,
              properties: { delta: { type: 'integer', minimum: '3' } },
            }),
        ],
        ['tool argsSchema must be serializable', () => delete (entry.argsSchema as Record<string, unknown>).default],
      ];
      for (const [message, fix] of steps) {
        await expectInvalid(skillsOf(entry), message);
        fix();
      }
      // Step 6 only now: the malformed keyword, named by its JSON path.
      const error = await rejectionOf(
        newClient().createSession({ provider: 'codex', model: 'm', skills: skillsOf(entry) } as any),
      );
      expect(error.code).to.equal('INVALID_INPUT');
      expect(error.message).to.contain('argsSchema.properties.delta.minimum');
      expect(fake.posted).to.deep.equal([]);
      (entry.argsSchema as any).properties.delta.minimum = 3;
      const { session } = await open(skillsOf(entry));
      expect(session.sessionId).to.equal('s1');
    });

    it('reports entries in order: the first faulty entry wins', async () => {
      await expectInvalid(
        skillsOf(counterTool({ description: '' }), pageTool({ name: '1bad' })),
        'tool description must be a non-empty string',
      );
      await expectInvalid(
        skillsOf(pageTool(), counterTool({ timeoutMs: 0 }), null),
        'tool timeoutMs must be a positive integer',
      );
    });

    it('runs every step-3 check, on every entry, before the step-6 well-formedness check', async () => {
      // "Only after every check of step 3 has passed (their exact messages are part of the contract)":
      // the public SDK would report entry 1's bad name / duplicate, whatever entry 0's keyword values.
      const malformed = counterTool({
        argsSchema: { type: 'object', properties: { delta: { type: 'integer', minimum: '3' } } },
      });
      await expectInvalid(skillsOf(malformed, pageTool({ name: '1bad' })), 'tool name is invalid', {
        index: 1,
        toolName: '1bad',
      });
      await expectInvalid(skillsOf(malformed, counterTool()), 'duplicate tool name', { toolName: 'update_counter' });
    });
  });

  describe('steps 1, 4, 5: what is sent', () => {
    it('sends skills: undefined (an own key) when skills are absent', async () => {
      await open();
      const input = fake.last('create_session').input;
      expect(Object.keys(input).sort()).to.deep.equal(['autoEndOnDisconnect', 'model', 'provider', 'skills']);
      expect('skills' in input).to.equal(true);
      expect(input.skills).to.equal(undefined);
    });

    it("sends a JSON clone of the schema: later mutation of the caller's object changes nothing sent", async () => {
      const argsSchema = {
        type: 'object',
        properties: { delta: { type: 'integer', description: 'how much' } },
        required: ['delta'],
      };
      const snapshot = JSON.parse(JSON.stringify(argsSchema));
      const client = newClient();
      const pending = client.createSession({
        provider: 'codex',
        model: 'm',
        skills: skillsOf(counterTool({ argsSchema })),
      } as any);
      const posted = fake.last('create_session');
      const sent = posted.input.skills.tools[0].argsSchema;
      expect(sent).not.to.equal(argsSchema);
      expect(sent.properties).not.to.equal(argsSchema.properties);
      expect(sent.properties.delta).not.to.equal(argsSchema.properties.delta);
      expect(sent.required).not.to.equal(argsSchema.required);
      // Mutate everything the caller owns.
      (argsSchema.properties.delta as any).type = 'string';
      argsSchema.required.push('other');
      (argsSchema as any).properties.extra = { type: 'boolean' };
      expect(sent).to.deep.equal(snapshot);
      fake.respond({ sessionId: 's1' }, posted);
      await pending;
      expect(fake.last('create_session').input.skills.tools[0].argsSchema).to.deep.equal(snapshot);
    });

    it('validates args against the schema as it was at createSession', async () => {
      const argsSchema = counterSchema();
      const calls: unknown[] = [];
      const { session } = await open(
        skillsOf(counterTool({ argsSchema, handler: (args: unknown) => (calls.push(args), { ok: true }) })),
      );
      (argsSchema.properties.delta as any).type = 'string';
      startTurn(session);
      toolCall('r1', 'update_counter', { delta: 2 });
      await submitted('r1');
      expect(calls).to.deep.equal([{ delta: 2 }]);
      expect(resultOf('r1')).to.deep.equal({ ok: true });
    });

    it('sends exactly name, description, argsSchema (and timeoutMs only when given) — never handler', async () => {
      const withAll = counterTool({ timeoutMs: 5000, handler: () => null, extra: 'dropped', title: 'x' });
      const without = pageTool({ handler: () => null });
      await open(skillsOf(withAll, without));
      const input = fake.last('create_session').input;
      expect(input).to.deep.equal({
        provider: 'codex',
        model: 'gpt-test',
        autoEndOnDisconnect: true,
        skills: {
          guidance: 'Read current state before making changes.',
          tools: [
            {
              name: 'update_counter',
              description: 'Update the visible counter by delta.',
              argsSchema: counterSchema(),
              timeoutMs: 5000,
            },
            {
              name: 'get_current_page',
              description: 'Read the current page.',
              argsSchema: { type: 'object', properties: {} },
            },
          ],
        },
      });
      expect(Object.keys(input.skills.tools[0]).sort()).to.deep.equal([
        'argsSchema',
        'description',
        'name',
        'timeoutMs',
      ]);
      expect(Object.keys(input.skills.tools[1]).sort()).to.deep.equal(['argsSchema', 'description', 'name']);
      expect(Object.keys(input.skills).sort()).to.deep.equal(['guidance', 'tools']);
    });
  });

  describe('step 6 (ours): well-formedness against the subset', () => {
    it('rejects a known keyword with a wrong value, naming its JSON path', async () => {
      const cases: Array<[unknown, string]> = [
        [
          { type: 'object', properties: { delta: { type: 'integer', minimum: '3' } } },
          'argsSchema.properties.delta.minimum',
        ],
        [{ type: 'object', properties: { list: { type: 'array' } } }, 'argsSchema.properties.list.items'],
        [{ type: 'object', properties: { q: { type: 'string', pattern: '(' } } }, 'argsSchema.properties.q.pattern'],
        [{ type: 'object', required: 'delta' }, 'argsSchema.required'],
      ];
      for (const [argsSchema, path] of cases) {
        const client = newClient();
        const error = await rejectionOf(
          client.createSession({ provider: 'codex', model: 'm', skills: skillsOf(counterTool({ argsSchema })) } as any),
        );
        expect(error.code, path).to.equal('INVALID_INPUT');
        expect(error.message, path).to.contain(path);
        expect(fake.posted, path).to.deep.equal([]);
      }
    });

    describe('unknown keywords and required names missing from properties', () => {
      const foreignSchema = () => ({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        additionalProperties: false,
        properties: { url: { type: 'string', format: 'uri' } },
        required: ['url', 'ghost'],
      });

      let consoleCalls: unknown[][];
      const originals: Partial<Record<'log' | 'warn' | 'error' | 'info' | 'debug', (...a: unknown[]) => void>> = {};
      beforeEach(() => {
        consoleCalls = [];
        for (const m of ['log', 'warn', 'error', 'info', 'debug'] as const) {
          originals[m] = console[m];
          console[m] = (...args: unknown[]) => void consoleCalls.push([m, ...args]);
        }
      });
      afterEach(() => {
        for (const m of ['log', 'warn', 'error', 'info', 'debug'] as const) console[m] = originals[m]!;
      });

      it('are passed through untouched and reported once through onWarning, not rejected, not logged', async () => {
        const warnings: PedelecError[] = [];
        const argsSchema = foreignSchema();
        const { client, session } = await open(skillsOf(counterTool({ argsSchema })), {
          onWarning: (w) => warnings.push(w),
        });
        expect(session.sessionId).to.equal('s1');
        expect(fake.last('create_session').input.skills.tools[0].argsSchema).to.deep.equal(foreignSchema());
        expect(warnings.length).to.be.greaterThan(0);
        for (const w of warnings) {
          expect(w.code).to.be.a('string').and.not.equal('');
          expect(w.message).to.be.a('string').and.not.equal('');
        }
        const text = warnings.map((w) => `${w.message} ${JSON.stringify(w.details ?? null)}`).join('\n');
        for (const word of ['$schema', 'additionalProperties', 'format', 'ghost']) expect(text).to.contain(word);
        // Each finding once: no duplicates now, and none repeated for the same schema later.
        const keys = warnings.map((w) => `${w.code}:${w.message}`);
        expect(new Set(keys).size).to.equal(keys.length);
        const count = warnings.length;
        const again = client.createSession({
          provider: 'codex',
          model: 'm',
          skills: skillsOf(counterTool({ argsSchema: foreignSchema() })),
        } as any);
        fake.respond({ sessionId: 's2' }, fake.last('create_session'));
        await again;
        expect(warnings).to.have.length(count);
        expect(consoleCalls, 'nothing written to the console').to.deep.equal([]);
      });

      it('validate args while ignoring the unknown keywords', async () => {
        const calls: unknown[] = [];
        const { session } = await open(
          skillsOf(pageTool({ name: 'open_url', argsSchema: { ...foreignSchema(), required: ['url'] } })),
        );
        session.onTool('open_url', (args) => (calls.push(args), 'ok'));
        startTurn(session);
        // additionalProperties: false and format: uri are outside the subset: both ignored by validation.
        toolCall('r1', 'open_url', { url: 'not a uri', extra: true });
        expect(calls).to.deep.equal([{ url: 'not a uri', extra: true }]);
        expect(resultOf('r1')).to.equal('ok');
      });

      it('go to the console only when debug is on', async () => {
        await open(skillsOf(counterTool({ argsSchema: foreignSchema() })), { debug: true });
        expect(consoleCalls.length).to.be.greaterThan(0);
      });

      it('are reported by resumeSession({ skills }) too', async () => {
        const warnings: PedelecError[] = [];
        const client = newClient({ onWarning: (w) => warnings.push(w) });
        const resuming = client.resumeSession('s7', {
          skills: skillsOf(counterTool({ argsSchema: foreignSchema() })),
        } as any);
        fake.respond({ sessionId: 's7' }, fake.last('resume_session'));
        await resuming;
        expect(warnings.map((w) => w.message).join('\n')).to.contain('additionalProperties');
      });
    });
  });
});

// ───────────────────────────── onTool ─────────────────────────────

describe('session.onTool', () => {
  it('throws INVALID_INPUT synchronously for an invalid name', async () => {
    const { session } = await open();
    for (const name of ['1bad', '_bad', 'has space', '', 42 as unknown as string]) {
      const error = thrownBy(() => session.onTool(name, () => null));
      expect(error.code, String(name)).to.equal('INVALID_INPUT');
      expect(error.message).to.be.a('string');
    }
    expect(fake.posted.filter((m) => m.type !== 'create_session')).to.deep.equal([]);
  });

  it('throws INVALID_INPUT synchronously when a named handler is not a function', async () => {
    const { session } = await open();
    for (const handler of [undefined, null, 'h', {}]) {
      const error = thrownBy(() => session.onTool('update_counter', handler as any));
      expect(error.code).to.equal('INVALID_INPUT');
    }
  });

  it('accepts any valid name, declared or not, and returns an unsubscribe function', async () => {
    const { session } = await open();
    const off = session.onTool('some.other-tool_2', () => null);
    expect(off).to.be.a('function');
  });

  it('keeps one named handler per name: the latest wins', async () => {
    const { session } = await open(skillsOf(counterTool()));
    const seen: string[] = [];
    session.onTool('update_counter', () => (seen.push('first'), 1));
    session.onTool('update_counter', () => (seen.push('second'), 2));
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    expect(seen).to.deep.equal(['second']);
    expect(resultOf('r1')).to.equal(2);
  });

  it('unsubscribes a named handler only if it is still the registered one', async () => {
    const { session } = await open(skillsOf(counterTool()));
    const offFirst = session.onTool('update_counter', () => 'first');
    const offSecond = session.onTool('update_counter', () => 'second');
    startTurn(session);
    offFirst(); // no longer registered: must not remove the second
    toolCall('r1', 'update_counter', { delta: 1 });
    expect(resultOf('r1')).to.equal('second');
    offSecond();
    toolCall('r2', 'update_counter', { delta: 1 });
    expect(resultOf('r2').error.code).to.equal('TOOL_HANDLER_NOT_FOUND');
    offSecond(); // idempotent
    const offThird = session.onTool('update_counter', () => 'third');
    offSecond(); // stale unsubscribe must not remove a newer handler
    toolCall('r3', 'update_counter', { delta: 1 });
    expect(resultOf('r3')).to.equal('third');
    offThird();
  });

  it('keeps one generic fallback: the latest wins, and a stale unsubscribe does not remove it', async () => {
    const { session } = await open();
    const offFirst = session.onTool(() => 'first');
    session.onTool(() => 'second');
    startTurn(session);
    offFirst();
    toolCall('r1', 'anything');
    expect(resultOf('r1')).to.equal('second');
  });

  it('unsubscribing the generic fallback removes it', async () => {
    const { session } = await open();
    const off = session.onTool(() => 'generic');
    startTurn(session);
    toolCall('r1', 'anything');
    expect(resultOf('r1')).to.equal('generic');
    off();
    toolCall('r2', 'anything');
    expect(resultOf('r2').error.code).to.equal('TOOL_HANDLER_NOT_FOUND');
  });

  it('unregistering never cancels a handler already running', async () => {
    const { session } = await open(skillsOf(counterTool()));
    let finish!: (v: unknown) => void;
    let signal: AbortSignal | undefined;
    const off = session.onTool('update_counter', (_args, ctx) => {
      signal = ctx.signal;
      return new Promise((resolve) => (finish = resolve));
    });
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    off();
    await nextTask();
    expect(signal!.aborted).to.equal(false);
    finish({ value: 1 });
    await submitted('r1');
    expect(resultOf('r1')).to.deep.equal({ value: 1 });
  });
});

// ───────────────────────────── resolution ─────────────────────────────

describe('handler resolution', () => {
  it('goes named → inline → generic → TOOL_HANDLER_NOT_FOUND', async () => {
    const calls: string[] = [];
    const { session } = await open(
      skillsOf(counterTool({ handler: () => (calls.push('inline'), 'inline') }), pageTool()),
    );
    const offGeneric = session.onTool((tool) => (calls.push(`generic:${tool}`), 'generic'));
    const offNamed = session.onTool('update_counter', () => (calls.push('named'), 'named'));
    startTurn(session);

    toolCall('r1', 'update_counter', { delta: 1 });
    expect(resultOf('r1')).to.equal('named');
    offNamed();
    toolCall('r2', 'update_counter', { delta: 1 });
    expect(resultOf('r2')).to.equal('inline');
    toolCall('r3', 'get_current_page'); // declared, no inline handler
    expect(resultOf('r3')).to.equal('generic');
    offGeneric();
    toolCall('r4', 'get_current_page');
    expect(calls).to.deep.equal(['named', 'inline', 'generic:get_current_page']);
    expect(resultOf('r4')).to.deep.equal({
      error: {
        code: 'TOOL_HANDLER_NOT_FOUND',
        message: 'No tool handler registered for get_current_page',
        details: { tool: 'get_current_page' },
      },
    });
    toolCall('r5', 'not_declared');
    expect(resultOf('r5')).to.deep.equal({
      error: {
        code: 'TOOL_HANDLER_NOT_FOUND',
        message: 'No tool handler registered for not_declared',
        details: { tool: 'not_declared' },
      },
    });
  });

  it('passes (args, ctx) to named and inline handlers and (tool, args, ctx) to the generic one', async () => {
    const seen: unknown[][] = [];
    const { session } = await open(
      skillsOf(
        counterTool({
          handler: (args: unknown, ctx: ToolCallContext) => (seen.push(['inline', args, ctx.tool]), null),
        }),
      ),
    );
    session.onTool((tool, args, ctx) => (seen.push(['generic', tool, args, ctx.toolRequestId]), null));
    session.onTool('named_tool', (args, ctx) => (seen.push(['named', args, ctx.toolRequestId]), null));
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 4 });
    toolCall('r2', 'other_tool', { x: 1 });
    toolCall('r3', 'named_tool', { y: 2 });
    expect(seen).to.deep.equal([
      ['inline', { delta: 4 }, 'update_counter'],
      ['generic', 'other_tool', { x: 1 }, 'r2'],
      ['named', { y: 2 }, 'r3'],
    ]);
  });

  it('posts submit_tool_result { sessionId, toolRequestId, result }', async () => {
    const { session } = await open(skillsOf(counterTool()));
    session.onTool('update_counter', (args: any) => ({ value: 10 + args.delta }));
    startTurn(session);
    toolCall('req-42', 'update_counter', { delta: 2 });
    const [message] = submits();
    expect(message).to.include({ type: 'submit_tool_result', sessionId: 's1', toolRequestId: 'req-42' });
    expect(message!.result).to.deep.equal({ value: 12 });
    expect(Object.keys(message!).sort()).to.deep.equal([
      'channelId',
      'requestId',
      'result',
      'sessionId',
      'toolRequestId',
      'type',
    ]);
    expect(message!.channelId).to.equal(fake.last('create_session').channelId);
  });

  it('sends null when the handler returns nothing (sync or async)', async () => {
    const { session } = await open();
    session.onTool('sync_void', () => undefined);
    session.onTool('async_void', async () => {});
    startTurn(session);
    toolCall('r1', 'sync_void');
    toolCall('r2', 'async_void');
    await Promise.all([submitted('r1'), submitted('r2')]);
    const [r1, r2] = [submits('r1')[0]!, submits('r2')[0]!];
    expect('result' in r1 && r1.result === null).to.equal(true);
    expect('result' in r2 && r2.result === null).to.equal(true);
  });

  describe('a handler that fails', () => {
    const cases: Array<[string, () => unknown, PedelecError]> = [
      [
        'throws an Error',
        () => {
          throw new Error('counter is locked');
        },
        { code: 'TOOL_HANDLER_ERROR', message: 'counter is locked' },
      ],
      [
        'rejects with an Error',
        () => Promise.reject(new Error('later failure')),
        { code: 'TOOL_HANDLER_ERROR', message: 'later failure' },
      ],
      [
        'async-throws a TypeError',
        async () => {
          throw new TypeError('bad type');
        },
        { code: 'TOOL_HANDLER_ERROR', message: 'bad type' },
      ],
      [
        'throws an Error without a message',
        () => {
          throw new Error('');
        },
        { code: 'TOOL_HANDLER_ERROR', message: 'Tool handler failed' },
      ],
      [
        'throws a string',
        () => {
          throw 'no counter here';
        },
        { code: 'TOOL_HANDLER_ERROR', message: 'no counter here' },
      ],
      ['rejects with a string', () => Promise.reject('nope'), { code: 'TOOL_HANDLER_ERROR', message: 'nope' }],
      [
        'throws { code, message }',
        () => {
          throw { code: 'COUNTER_LOCKED', message: 'Locked by admin' };
        },
        { code: 'COUNTER_LOCKED', message: 'Locked by admin' },
      ],
      [
        'throws { code, message, details }',
        () => {
          throw { code: 'COUNTER_LOCKED', message: 'Locked', details: { by: 'admin' } };
        },
        { code: 'COUNTER_LOCKED', message: 'Locked', details: { by: 'admin' } },
      ],
      [
        'throws null',
        () => {
          throw null;
        },
        { code: 'TOOL_HANDLER_ERROR', message: 'Tool handler failed' },
      ],
      [
        'throws undefined',
        () => {
          throw undefined;
        },
        { code: 'TOOL_HANDLER_ERROR', message: 'Tool handler failed' },
      ],
      [
        'rejects with undefined',
        () => Promise.reject(undefined),
        { code: 'TOOL_HANDLER_ERROR', message: 'Tool handler failed' },
      ],
      [
        'throws a plain object without code',
        () => {
          throw { reason: 'busy' };
        },
        { code: 'TOOL_HANDLER_ERROR', message: 'Tool handler failed', details: { reason: 'busy' } },
      ],
      [
        'throws a number',
        () => {
          throw 42;
        },
        { code: 'TOOL_HANDLER_ERROR', message: 'Tool handler failed', details: 42 },
      ],
    ];
    for (const [label, handler, expected] of cases) {
      it(`${label} → error result ${expected.code}`, async () => {
        const { session } = await open();
        session.onTool('risky', handler);
        startTurn(session);
        toolCall('r1', 'risky');
        await submitted('r1');
        const result = resultOf('r1');
        expect(result).to.deep.equal({ error: expected });
        expect(Object.keys(result)).to.deep.equal(['error']);
        if (!('details' in expected)) expect('details' in result.error, 'no details key').to.equal(false);
      });
    }

    const cyclic = (): Record<string, unknown> => {
      const o: Record<string, unknown> = { name: 'loop' };
      o.self = o;
      return o;
    };
    const unsendable: Array<[string, () => unknown]> = [
      ['a BigInt', () => ({ used: 10n })],
      ['a cycle', cyclic],
      ['a Map', () => new Map([['a', 1]])],
      ['a function', () => ({ retry: () => {} })],
    ];
    for (const [label, details] of unsendable) {
      it(`throws { code, message, details } whose details hold ${label} → the error result without details, still sent`, async () => {
        const { session } = await open();
        const errors = collectErrors(session);
        session.onTool('risky', () => {
          throw { code: 'QUOTA', message: 'Quota used up', details: details() };
        });
        startTurn(session);
        toolCall('r1', 'risky');
        await submitted('r1');
        const result = resultOf('r1');
        expect(result).to.deep.equal({ error: { code: 'QUOTA', message: 'Quota used up' } });
        expect(JSON.parse(JSON.stringify(result))).to.deep.equal(result);
        expect(errors).to.deep.equal([]);
      });
    }

    it('throws details holding a Date → sent converted, as a result would be', async () => {
      const { session } = await open();
      session.onTool('risky', () =>
        Promise.reject({ code: 'LATE', message: 'Too late', details: { at: new Date(Date.UTC(2026, 0, 1)) } }),
      );
      startTurn(session);
      toolCall('r1', 'risky');
      await submitted('r1');
      expect(resultOf('r1')).to.deep.equal({
        error: { code: 'LATE', message: 'Too late', details: { at: '2026-01-01T00:00:00.000Z' } },
      });
    });

    it('does not stop later calls: the session keeps answering', async () => {
      const { session } = await open();
      let n = 0;
      session.onTool('flaky', () => {
        if (n++ === 0) throw new Error('first fails');
        return 'second works';
      });
      startTurn(session);
      toolCall('r1', 'flaky');
      toolCall('r2', 'flaky');
      expect(resultOf('r1').error.message).to.equal('first fails');
      expect(resultOf('r2')).to.equal('second works');
    });
  });

  describe('delivery failure → SUBMIT_TOOL_RESULT_FAILED', () => {
    let unhandled: ReturnType<typeof watchUnhandled>;
    beforeEach(() => (unhandled = watchUnhandled()));
    afterEach(() => unhandled.stop());

    it('(control) the watcher does see a deliberate unhandled rejection', async () => {
      void Promise.reject({ code: 'DELIBERATE', message: 'control: an expected unhandled rejection (tools.test.ts)' });
      await nextTask();
      expect(unhandled.events).to.deep.equal([
        { code: 'DELIBERATE', message: 'control: an expected unhandled rejection (tools.test.ts)' },
      ]);
    });

    it('when the submit response is ok:false: onError with the cause, never retried, no unhandled rejection', async () => {
      const { session } = await open(skillsOf(counterTool()));
      const errors = collectErrors(session);
      session.onTool('update_counter', () => ({ value: 1 }));
      startTurn(session);
      toolCall('r1', 'update_counter', { delta: 1 });
      const cause = {
        code: 'TOOL_TIMEOUT',
        message: 'Core stopped waiting for update_counter',
        details: { waitedMs: 60000 },
      };
      fake.fail(cause, submits('r1')[0]);
      await nextTask();
      const failures = errors.filter((e) => e.error.code === 'SUBMIT_TOOL_RESULT_FAILED');
      expect(failures).to.have.length(1);
      expect(failures[0]!.error).to.deep.equal({
        code: 'SUBMIT_TOOL_RESULT_FAILED',
        message: 'Core stopped waiting for update_counter',
        details: { tool: 'update_counter', toolRequestId: 'r1', cause },
      });
      expect(failures[0]!.ctx.type).to.equal('sdk_error');
      expect(failures[0]!.ctx.source).to.equal('sdk');
      expect(submits('r1'), 'never retried').to.have.length(1);
      expect(unhandled.events).to.deep.equal([]);
    });

    it('when the bridge disconnected while the handler ran: cause EXTENSION_DISCONNECTED', async () => {
      const { session } = await open(skillsOf(counterTool()));
      const errors = collectErrors(session);
      let finish!: (v: unknown) => void;
      session.onTool('update_counter', () => new Promise((resolve) => (finish = resolve)));
      startTurn(session);
      toolCall('r1', 'update_counter', { delta: 1 });
      fake.disconnect();
      finish({ value: 1 });
      await nextTask();
      const failures = errors.filter((e) => e.error.code === 'SUBMIT_TOOL_RESULT_FAILED');
      expect(failures).to.have.length(1);
      const { error } = failures[0]!;
      const details = error.details as { tool: string; toolRequestId: string; cause: PedelecError };
      expect(details.tool).to.equal('update_counter');
      expect(details.toolRequestId).to.equal('r1');
      expect(details.cause.code).to.equal('EXTENSION_DISCONNECTED');
      expect(error.message).to.equal(details.cause.message);
      expect(Object.keys(details).sort()).to.deep.equal(['cause', 'tool', 'toolRequestId']);
      expect(submits(), 'nothing posted on a dead port, never retried').to.have.length(0);
      expect(unhandled.events).to.deep.equal([]);
    });

    it('when postMessage throws: cause EXTENSION_DISCONNECTED (or the thrown {code,message})', async () => {
      const { session } = await open();
      const errors = collectErrors(session);
      session.onTool('a_tool', () => 'result');
      session.onTool('b_tool', () => 'result');
      startTurn(session);
      fake.throwOnPost = new Error('Attempting to use a disconnected port object');
      expect(() => toolCall('r1', 'a_tool')).not.to.throw();
      fake.throwOnPost = { code: 'PORT_CLOSED', message: 'The port is closed.' };
      expect(() => toolCall('r2', 'b_tool')).not.to.throw();
      fake.throwOnPost = undefined;
      await nextTask();
      const failures = errors.filter((e) => e.error.code === 'SUBMIT_TOOL_RESULT_FAILED').map((e) => e.error);
      expect(failures).to.have.length(2);
      const [first, second] = failures as [PedelecError, PedelecError];
      const d1 = first.details as any;
      expect(d1.tool).to.equal('a_tool');
      expect(d1.toolRequestId).to.equal('r1');
      expect(d1.cause.code).to.equal('EXTENSION_DISCONNECTED');
      expect(first.message).to.equal(d1.cause.message);
      expect(second).to.deep.equal({
        code: 'SUBMIT_TOOL_RESULT_FAILED',
        message: 'The port is closed.',
        details: {
          tool: 'b_tool',
          toolRequestId: 'r2',
          cause: { code: 'PORT_CLOSED', message: 'The port is closed.' },
        },
      });
      expect(submits(), 'never retried').to.have.length(0);
      expect(unhandled.events).to.deep.equal([]);
    });
  });
});

// ───────────────────────────── argument validation ─────────────────────────────

describe('argument validation (ours)', () => {
  it('is on by default: invalid args never reach the handler, the agent gets TOOL_ARGS_INVALID', async () => {
    const calls: unknown[] = [];
    const { session } = await open(skillsOf(counterTool({ handler: (a: unknown) => (calls.push(a), 'inline') })));
    session.onTool((tool, a) => (calls.push([tool, a]), 'generic'));
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 'two' });
    toolCall('r2', 'update_counter', {});
    toolCall('r3', 'update_counter', { delta: 1.5 });
    toolCall('r4', 'update_counter', null);
    expect(calls).to.deep.equal([]);
    for (const [id, path] of [
      ['r1', 'delta'],
      ['r2', 'delta'],
      ['r3', 'delta'],
      ['r4', ''],
    ] as const) {
      const result = resultOf(id);
      expect(Object.keys(result)).to.deep.equal(['error']);
      expect(result.error.code, id).to.equal('TOOL_ARGS_INVALID');
      expect(Object.keys(result.error).sort()).to.deep.equal(['code', 'details', 'message']);
      const { errors } = result.error.details;
      expect(Object.keys(result.error.details)).to.deep.equal(['errors']);
      expect(errors).to.be.an('array').that.is.not.empty;
      for (const e of errors) expect(Object.keys(e).sort()).to.deep.equal(['message', 'path']);
      expect(errors[0].path, id).to.equal(path);
      expect(result.error.message, 'the first problem').to.equal(errors[0].message);
    }
    expect(resultOf('r1').error.details.errors[0].message).to.match(/^delta: .*integer/);
    expect(resultOf('r2').error.details.errors[0].message).to.equal('delta: is required');
  });

  it('also guards a named handler for a declared tool', async () => {
    const calls: unknown[] = [];
    const { session } = await open(skillsOf(counterTool()));
    session.onTool('update_counter', (a) => (calls.push(a), 'named'));
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: '1' });
    toolCall('r2', 'update_counter', { delta: 1, extra: 'allowed' });
    expect(calls).to.deep.equal([{ delta: 1, extra: 'allowed' }]);
    expect(resultOf('r1').error.code).to.equal('TOOL_ARGS_INVALID');
    expect(resultOf('r2')).to.equal('named');
  });

  it('is off with new Pedelec({ validateArgs: false })', async () => {
    const calls: unknown[] = [];
    const { session } = await open(skillsOf(counterTool({ handler: (a: unknown) => (calls.push(a), 'inline') })), {
      validateArgs: false,
    });
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 'two' });
    toolCall('r2', 'update_counter', 'not even an object');
    expect(calls).to.deep.equal([{ delta: 'two' }, 'not even an object']);
    expect(resultOf('r1')).to.equal('inline');
    expect(resultOf('r2')).to.equal('inline');
  });

  it('never validates tools the manifest does not declare, whichever handler answers', async () => {
    const calls: unknown[] = [];
    const { session } = await open(skillsOf(counterTool()));
    session.onTool('core_tool', (a) => (calls.push(a), 'named'));
    session.onTool((tool, a) => (calls.push([tool, a]), 'generic'));
    startTurn(session);
    toolCall('r1', 'core_tool', { delta: 'anything', n: [1, 2] });
    toolCall('r2', 'core_tool', 'a string');
    toolCall('r3', 'elsewhere', null);
    expect(calls).to.deep.equal([{ delta: 'anything', n: [1, 2] }, 'a string', ['elsewhere', null]]);
    expect(resultOf('r1')).to.equal('named');
    expect(resultOf('r2')).to.equal('named');
    expect(resultOf('r3')).to.equal('generic');
  });
});

// ───────────────────────────── result check ─────────────────────────────

describe('result check (ours)', () => {
  async function resultFor(
    value: () => unknown,
  ): Promise<{ result: any; errors: Array<{ error: PedelecError; ctx: ErrorEventContext }> }> {
    const { session } = await open();
    const errors = collectErrors(session);
    session.onTool('produce', () => value());
    startTurn(session);
    toolCall('r1', 'produce');
    await submitted('r1');
    return { result: resultOf('r1'), errors };
  }

  it('passes plain JSON through unchanged', async () => {
    const value = { a: [1, 'two', true, null, { b: -0.5 }], c: '' };
    const { result, errors } = await resultFor(() => value);
    expect(result).to.deep.equal({ a: [1, 'two', true, null, { b: -0.5 }], c: '' });
    expect(errors).to.deep.equal([]);
  });

  it('converts Date (and any toJSON) the way JSON.stringify would', async () => {
    const date = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6));
    const custom = { toJSON: () => ({ kind: 'custom' }) };
    const { result, errors } = await resultFor(() => ({ at: date, list: [date], custom }));
    expect(result).to.deep.equal({
      at: '2024-01-02T03:04:05.006Z',
      list: ['2024-01-02T03:04:05.006Z'],
      custom: { kind: 'custom' },
    });
    expect(errors).to.deep.equal([]);
  });

  it('calls toJSON once, with its key, as JSON.stringify does: undefined drops the property (null in an array)', async () => {
    const keys: string[] = [];
    const keyed = { toJSON: (key: string) => (keys.push(key), `at ${key}`) };
    const gone = { toJSON: () => undefined };
    const value = { keep: 1, secret: gone, list: [1, gone, keyed], when: keyed };
    const { result, errors } = await resultFor(() => value);
    expect(result).to.deep.equal({ keep: 1, list: [1, null, 'at 2'], when: 'at when' });
    expect(keys).to.deep.equal(['2', 'when']);
    expect(result).to.deep.equal(JSON.parse(JSON.stringify(value)));
    expect(errors).to.deep.equal([]);
  });

  it('a toJSON that returns its own object is called once, not forever', async () => {
    const value = {
      id: 7,
      toJSON() {
        return this;
      },
    };
    const { result } = await resultFor(() => ({ value }));
    // What toJSON returned is converted as it is: its own `toJSON` is then a function property —
    // refused with its path, like any function in a result (never a stack overflow).
    expect(result.error.code).to.equal('TOOL_RESULT_INVALID');
    expect(result.error.details).to.deep.equal({ path: 'result.value.toJSON' });
  });

  it('a top-level toJSON that gives undefined sends null', async () => {
    const { result } = await resultFor(() => ({ toJSON: () => undefined }));
    expect(result).to.equal(null);
  });

  it('a BigInt with a toJSON is converted by it', async () => {
    const proto = BigInt.prototype as unknown as { toJSON?: () => string };
    proto.toJSON = function (this: bigint) {
      return `${this}n`;
    };
    try {
      const { result, errors } = await resultFor(() => ({ big: 12n }));
      expect(result).to.deep.equal({ big: '12n' });
      expect(errors).to.deep.equal([]);
    } finally {
      delete proto.toJSON;
    }
  });

  it('accepts plain objects and arrays from another realm (a vm context, as a same-origin iframe is)', async () => {
    const other = runInNewContext('({ count: 3, tags: ["a"], nested: { ok: true } })');
    expect(Object.getPrototypeOf(other)).not.to.equal(Object.prototype);
    const { result, errors } = await resultFor(() => other);
    expect(result).to.deep.equal({ count: 3, tags: ['a'], nested: { ok: true } });
    expect(errors).to.deep.equal([]);
  });

  const throwingToJson = () => ({
    when: {
      toJSON() {
        throw new Error('clock broke');
      },
    },
  });
  for (const [kind, handler] of [
    ['sync', throwingToJson],
    ['async', async () => throwingToJson()],
  ] as const) {
    it(`refuses a result whose toJSON throws, with the path (${kind} handler)`, async () => {
      const { result, errors } = await resultFor(handler);
      expect(result).to.deep.equal({
        error: {
          code: 'TOOL_RESULT_INVALID',
          message: 'result.when: could not be converted (clock broke)',
          details: { path: 'result.when' },
        },
      });
      expect(errors.map((e) => e.error.code)).to.deep.equal(['TOOL_RESULT_INVALID']);
    });
  }

  it("answers TOOL_HANDLER_ERROR when reading the result's `then` throws", async () => {
    const { result } = await resultFor(() => ({
      get then() {
        throw new Error('no then here');
      },
    }));
    expect(result).to.deep.equal({ error: { code: 'TOOL_HANDLER_ERROR', message: 'no then here' } });
  });

  it('copes with an Error whose message getter throws, thrown by a handler', async () => {
    const secretive = () => {
      const error = new Error();
      Object.defineProperty(error, 'message', {
        get() {
          throw new Error('no message');
        },
      });
      return error;
    };
    const fromHandler = await resultFor(() => {
      throw secretive();
    });
    expect(fromHandler.result).to.deep.equal({ error: { code: 'TOOL_HANDLER_ERROR', message: 'Tool handler failed' } });
  });

  it('copes with an Error whose message getter throws, thrown by a toJSON', async () => {
    const error = new Error();
    Object.defineProperty(error, 'message', {
      get() {
        throw new Error('no message');
      },
    });
    const { result } = await resultFor(() => ({
      x: {
        toJSON() {
          throw error;
        },
      },
    }));
    expect(result.error.message).to.equal('result.x: could not be converted (it threw)');
  });

  it('refuses a result with a getter that throws, with the path', async () => {
    const value = {
      list: [
        1,
        {
          get secret() {
            throw 'not readable';
          },
        },
      ],
    };
    const { result, errors } = await resultFor(() => value);
    expect(result.error.message).to.equal('result.list[1].secret: could not be converted (not readable)');
    expect(errors).to.have.length(1);
  });

  it('converts a top-level Date (async handler)', async () => {
    const { result, errors } = await resultFor(() => Promise.resolve(new Date(0)));
    expect(result).to.equal('1970-01-01T00:00:00.000Z');
    expect(errors).to.deep.equal([]);
  });

  it('drops undefined object properties', async () => {
    const { result, errors } = await resultFor(() => ({
      kept: 1,
      dropped: undefined,
      nested: { gone: undefined, here: 'x' },
    }));
    expect(result).to.deep.equal({ kept: 1, nested: { here: 'x' } });
    expect('dropped' in result).to.equal(false);
    expect('gone' in result.nested).to.equal(false);
    expect(errors).to.deep.equal([]);
  });

  it('refuses a BigInt with the exact error to the agent and an sdk_error to the page', async () => {
    const { result, errors } = await resultFor(() => ({ items: [1, 2, 3n] }));
    expect(result).to.deep.equal({
      error: {
        code: 'TOOL_RESULT_INVALID',
        message: 'result.items[2]: BigInt is not JSON',
        details: { path: 'result.items[2]' },
      },
    });
    expect(errors).to.have.length(1);
    expect(errors[0]!.error.code).to.equal('TOOL_RESULT_INVALID');
    expect(errors[0]!.ctx.type).to.equal('sdk_error');
  });

  class Point {
    constructor(
      public x = 1,
      public y = 2,
    ) {}
  }
  const nonJson: Array<[string, () => unknown, string]> = [
    ['a function', () => ({ items: [0, () => 1] }), 'result.items[1]'],
    ['a symbol', () => ({ tag: Symbol('t') }), 'result.tag'],
    ['a top-level BigInt', () => 10n, 'result'],
    ['NaN', () => ({ n: NaN }), 'result.n'],
    ['Infinity', () => ({ list: [1, -Infinity] }), 'result.list[1]'],
    [
      'a cycle',
      () => {
        const node: Record<string, unknown> = { name: 'root' };
        node.self = node;
        return { node };
      },
      'result.node.self',
    ],
    ['a Map', () => ({ m: new Map([['a', 1]]) }), 'result.m'],
    ['a Set', () => ({ s: new Set([1]) }), 'result.s'],
    // A DOM node's kind: a platform object (no DOM in Node; every DOM node is an EventTarget).
    ['a platform object (EventTarget)', () => ({ el: new EventTarget() }), 'result.el'],
    ['a class instance', () => ({ p: new Point() }), 'result.p'],
    ['a function (async handler)', () => Promise.resolve({ deep: { fn() {} } }), 'result.deep.fn'],
  ];
  for (const [label, value, path] of nonJson) {
    it(`refuses ${label} → TOOL_RESULT_INVALID at ${path}`, async () => {
      const { result, errors } = await resultFor(value);
      expect(Object.keys(result)).to.deep.equal(['error']);
      expect(result.error.code).to.equal('TOOL_RESULT_INVALID');
      expect(result.error.details).to.deep.equal({ path });
      expect(result.error.message.startsWith(`${path}: `), result.error.message).to.equal(true);
      expect(JSON.parse(JSON.stringify(result))).to.deep.equal(result); // what is posted is itself JSON
      const pageErrors = errors.filter((e) => e.error.code === 'TOOL_RESULT_INVALID');
      expect(pageErrors).to.have.length(1);
      expect(pageErrors[0]!.ctx.type).to.equal('sdk_error');
    });
  }
});

// ───────────────────────────── deadlines and cancellation ─────────────────────────────

describe('deadline and cancellation (ours)', () => {
  it('ctx.deadline is the call arrival + timeoutMs, or + 60 000 ms', async () => {
    const contexts: Record<string, ToolCallContext> = {};
    const { session } = await open(skillsOf(counterTool({ timeoutMs: 30 }), pageTool()));
    session.onTool((tool, _args, ctx) => void (contexts[tool] = ctx));
    startTurn(session);
    const before = Date.now();
    toolCall('r1', 'update_counter', { delta: 1 });
    toolCall('r2', 'get_current_page');
    toolCall('r3', 'not_declared');
    const after = Date.now();
    for (const ctx of Object.values(contexts)) {
      expect(ctx.eventReceivedAt).to.be.within(before, after);
    }
    expect(contexts.update_counter!.deadline).to.equal(contexts.update_counter!.eventReceivedAt + 30);
    expect(contexts.get_current_page!.deadline).to.equal(contexts.get_current_page!.eventReceivedAt + 60_000);
    expect(contexts.not_declared!.deadline).to.equal(contexts.not_declared!.eventReceivedAt + 60_000);
  });

  it('aborts ctx.signal at the deadline but does not answer: the late result is submitted once, its refusal an error event', async () => {
    const unhandled = watchUnhandled();
    try {
      const { session } = await open(skillsOf(counterTool({ timeoutMs: 30 })));
      const errors = collectErrors(session);
      let ctx!: ToolCallContext;
      let finish!: (v: unknown) => void;
      session.onTool('update_counter', (_args, c) => {
        ctx = c;
        void c.signal; // read it: the deadline timer starts now
        return new Promise((resolve) => (finish = resolve));
      });
      startTurn(session);
      toolCall('r1', 'update_counter', { delta: 1 });
      expect(ctx.signal.aborted).to.equal(false);
      await aborted(ctx.signal);
      expect(Date.now()).to.be.at.least(ctx.deadline - 2);
      await sleep(50); // well past the deadline: still nothing answered on the handler's behalf
      expect(submits(), 'nothing posted at the deadline').to.deep.equal([]);
      finish({ value: 'late' });
      await submitted('r1');
      expect(resultOf('r1')).to.deep.equal({ value: 'late' });
      fake.fail({ code: 'TOOL_TIMEOUT', message: 'Tool call timed out' }, submits('r1')[0]);
      await nextTask();
      const failures = errors.filter((e) => e.error.code === 'SUBMIT_TOOL_RESULT_FAILED');
      expect(failures).to.have.length(1);
      expect((failures[0]!.error.details as any).cause).to.deep.equal({
        code: 'TOOL_TIMEOUT',
        message: 'Tool call timed out',
      });
      expect(submits('r1')).to.have.length(1);
      expect(unhandled.events).to.deep.equal([]);
    } finally {
      unhandled.stop();
    }
  });

  it('aborts ctx.signal when a signal is first read after the deadline', async () => {
    const { session } = await open(skillsOf(counterTool({ timeoutMs: 30 })));
    let ctx!: ToolCallContext;
    session.onTool('update_counter', (_args, c) => {
      ctx = c;
      return new Promise(() => {});
    });
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    await sleep(60);
    expect(ctx.signal.aborted).to.equal(true);
    expect(submits()).to.deep.equal([]);
  });

  it('aborts ctx.signal when Core ends the session; a later result is not posted, but said (SUBMIT_TOOL_RESULT_FAILED)', async () => {
    const { session } = await open(skillsOf(counterTool()));
    const errors = collectErrors(session);
    let ctx!: ToolCallContext;
    let finish!: (v: unknown) => void;
    session.onTool('update_counter', (_args, c) => {
      ctx = c;
      void c.signal;
      return new Promise((resolve) => (finish = resolve));
    });
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    expect(ctx.signal.aborted).to.equal(false);
    fake.event('s1', 'ended', { seq: ++seq });
    expect(ctx.signal.aborted).to.equal(true);
    expect(errors).to.deep.equal([]);
    finish({ value: 1 });
    await nextTask();
    expect(submits()).to.deep.equal([]);
    // Nothing lost silently: the result that could not go is reported, its cause the session's end.
    expect(errors.map((e) => e.error.code)).to.deep.equal(['SUBMIT_TOOL_RESULT_FAILED']);
    const { details } = errors[0]!.error as { details: { tool: string; toolRequestId: string; cause: PedelecError } };
    expect(details.tool).to.equal('update_counter');
    expect(details.toolRequestId).to.equal('r1');
    expect(details.cause).to.deep.equal(ctx.signal.reason);
    expect(errors[0]!.error.message).to.equal(details.cause.message);
  });

  it('runs no handler for a call whose status listener ended the session', async () => {
    const { session } = await open(skillsOf(counterTool()));
    const ran: string[] = [];
    session.onStatus((status) => {
      if (status === 'waiting_tool_result') session.detach();
    });
    session.onTool('update_counter', () => void ran.push('handler'));
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    await nextTask();
    expect(ran).to.deep.equal([]);
    expect(submits()).to.deep.equal([]);
  });

  it('a timeoutMs beyond what a timer can hold (~24.8 days) does not abort ctx.signal at once', async () => {
    const { session } = await open(skillsOf(counterTool({ timeoutMs: 3_000_000_000 })));
    let ctx!: ToolCallContext;
    session.onTool('update_counter', (_args, c) => {
      ctx = c;
      void c.signal;
      return new Promise(() => {});
    });
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    await sleep(30);
    expect(ctx.deadline - Date.now()).to.be.greaterThan(2 ** 31);
    expect(ctx.signal.aborted).to.equal(false);
  });

  it('aborts ctx.signal after a successful end(); a later result is not posted', async () => {
    const { session } = await open(skillsOf(counterTool()));
    let ctx!: ToolCallContext;
    let finish!: (v: unknown) => void;
    session.onTool('update_counter', (_args, c) => {
      ctx = c;
      return new Promise((resolve) => (finish = resolve));
    });
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    const ending = session.end();
    fake.respond({}, fake.last('end_session'));
    await ending;
    // Read lazily, after the end: already aborted.
    expect(ctx.signal.aborted).to.equal(true);
    finish({ value: 1 });
    await nextTask();
    expect(submits()).to.deep.equal([]);
  });

  it('aborts ctx.signal when the bridge disconnects', async () => {
    const { session } = await open(skillsOf(counterTool()));
    const signals: AbortSignal[] = [];
    const contexts: ToolCallContext[] = [];
    session.onTool('update_counter', (_args, c) => {
      signals.push(c.signal); // read before the disconnect
      return new Promise(() => {});
    });
    session.onTool('lazy', (_args, c) => {
      contexts.push(c); // read only afterwards
      return new Promise(() => {});
    });
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    toolCall('r2', 'lazy');
    expect(signals[0]!.aborted).to.equal(false);
    fake.disconnect();
    expect(signals[0]!.aborted).to.equal(true);
    expect(contexts[0]!.signal.aborted).to.equal(true);
  });

  it("a fast handler's signal is not aborted later by its deadline timer", async () => {
    const { session } = await open(skillsOf(counterTool({ timeoutMs: 30 })));
    let signal!: AbortSignal;
    session.onTool('update_counter', (_args, c) => {
      signal = c.signal;
      return 'done';
    });
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    expect(resultOf('r1')).to.equal('done');
    await sleep(60);
    // The timer is cleared when the call settles (tools-api.md "Dispatch speed").
    expect(signal.aborted).to.equal(false);
  });
});

// ───────────────────────────── exactly one submit ─────────────────────────────

describe('exactly one submit per toolRequestId', () => {
  it('ignores a repeated tool_call while the request is running', async () => {
    const { session } = await open(skillsOf(counterTool()));
    let runs = 0;
    let finish!: (v: unknown) => void;
    session.onTool('update_counter', () => {
      runs++;
      return new Promise((resolve) => (finish = resolve));
    });
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    toolCall('r1', 'update_counter', { delta: 1 });
    await nextTask();
    expect(runs).to.equal(1);
    finish('once');
    await submitted('r1');
    toolCall('r1', 'update_counter', { delta: 1 });
    await nextTask();
    expect(runs).to.equal(1);
    expect(submits('r1')).to.have.length(1);
    expect(resultOf('r1')).to.equal('once');
  });

  it('ignores a repeated tool_call once the request was answered', async () => {
    const { session } = await open(skillsOf(counterTool()));
    let runs = 0;
    session.onTool('update_counter', () => ++runs);
    startTurn(session);
    toolCall('r1', 'update_counter', { delta: 1 });
    toolCall('r1', 'update_counter', { delta: 2 });
    fake.respond({}, submits('r1')[0]);
    await nextTask();
    toolCall('r1', 'update_counter', { delta: 3 });
    expect(runs).to.equal(1);
    expect(submits('r1')).to.have.length(1);
    // A different request id still runs.
    toolCall('r2', 'update_counter', { delta: 1 });
    expect(runs).to.equal(2);
  });

  it('ignores a repeat of a request answered with an SDK error (not found, invalid args)', async () => {
    const { session } = await open(skillsOf(counterTool()));
    startTurn(session);
    toolCall('r1', 'unknown_tool');
    toolCall('r2', 'update_counter', { delta: 'x' });
    let runs = 0;
    session.onTool(() => ++runs);
    toolCall('r1', 'unknown_tool');
    toolCall('r2', 'update_counter', { delta: 1 });
    expect(runs).to.equal(0);
    expect(submits('r1')).to.have.length(1);
    expect(submits('r2')).to.have.length(1);
  });
});

// ───────────────────────────── dispatch speed ─────────────────────────────

describe('dispatch speed (ours)', () => {
  it("submits a synchronous handler's result in the same task as the event", async () => {
    const { session } = await open(
      skillsOf(counterTool({ handler: ({ delta }: { delta: number }) => ({ value: delta * 2 }) })),
    );
    startTurn(session);
    const before = fake.posted.length;
    toolCall('r1', 'update_counter', { delta: 21 });
    // No await: the submit must already be posted when fake.event(...) returns.
    const posted = fake.posted.slice(before);
    expect(posted.map((m) => m.type)).to.deep.equal(['submit_tool_result']);
    expect(posted[0]!.result).to.deep.equal({ value: 42 });
    // SDK-made answers too.
    toolCall('r2', 'nobody_answers');
    expect(submits('r2')).to.have.length(1);
  });

  it('creates the AbortController lazily: only when a handler reads ctx.signal', async () => {
    const { session } = await open(skillsOf(counterTool()));
    session.onTool('quiet', () => 'no signal');
    session.onTool('curious', (_args, ctx) => (ctx.signal.aborted ? 'aborted' : 'live'));
    startTurn(session);
    const Original = globalThis.AbortController;
    let constructed = 0;
    class CountingAbortController extends Original {
      constructor() {
        super();
        constructed++;
      }
    }
    globalThis.AbortController = CountingAbortController;
    try {
      toolCall('r1', 'quiet');
      toolCall('r2', 'update_counter', { delta: 1 }); // TOOL_HANDLER_NOT_FOUND: no handler at all
      expect(constructed).to.equal(0);
      toolCall('r3', 'curious');
      expect(constructed, 'the control: reading ctx.signal constructs one').to.equal(1);
    } finally {
      globalThis.AbortController = Original;
    }
    expect(resultOf('r1')).to.equal('no signal');
    expect(resultOf('r3')).to.equal('live');
  });
});

// ───────────────────────────── context ─────────────────────────────

describe('ToolCallContext', () => {
  it('carries the tool_call fields, the turn, signal and deadline — and no seq', async () => {
    const { session } = await open(skillsOf(counterTool({ timeoutMs: 5000 })));
    let running!: StatusEventContext;
    session.onStatus((status, ctx) => {
      if (status === 'running') running = ctx;
    });
    let ctx!: ToolCallContext;
    session.onTool('update_counter', (_args, c) => void (ctx = c));
    const createdAt = session.sessionCreatedAt;
    startTurn(session);
    const before = Date.now();
    toolCall('req-7', 'update_counter', { delta: 1 });
    const after = Date.now();
    expect(ctx.type).to.equal('tool_call');
    expect(ctx.toolRequestId).to.equal('req-7');
    expect(ctx.tool).to.equal('update_counter');
    expect(ctx.sessionId).to.equal('s1');
    expect(ctx.provider).to.equal('codex');
    expect(ctx.model).to.equal('gpt-test');
    expect(ctx.source).to.equal('core');
    expect(ctx.sessionCreatedAt).to.equal(createdAt);
    expect(ctx.turnId).to.be.a('string').and.equal(running.turnId);
    expect(ctx.turnStartedAt).to.be.a('number').and.equal(running.turnStartedAt);
    expect(ctx.turnKind).to.equal('user');
    expect(ctx.eventReceivedAt).to.be.within(before, after);
    expect(ctx.eventEmittedAt).to.be.within(before, after);
    expect(ctx.deadline).to.equal(ctx.eventReceivedAt + 5000);
    expect(ctx.signal).to.be.instanceOf(AbortSignal);
    expect('seq' in ctx).to.equal(false);
    expect(Object.keys(ctx)).not.to.include('seq');
    for (const key of [
      'type',
      'toolRequestId',
      'tool',
      'turnId',
      'turnStartedAt',
      'eventReceivedAt',
      'turnKind',
      'signal',
      'deadline',
    ]) {
      expect(ctx, key).to.have.property(key);
    }
  });

  it('has turnKind "prepare" for a call during prepare()', async () => {
    const { session } = await open();
    let ctx!: ToolCallContext;
    session.onTool('warm_up', (_args, c) => void (ctx = c));
    const preparing = session.prepare();
    preparing.catch(() => {});
    toolCall('r1', 'warm_up');
    expect(ctx.turnKind).to.equal('prepare');
    expect(resultOf('r1')).to.equal(null);
  });

  it('a tool_call outside any turn runs no handler and is reported as SDK_PROTOCOL_ERROR', async () => {
    const { session } = await open();
    const errors = collectErrors(session);
    let runs = 0;
    session.onTool(() => ++runs);
    toolCall('r1', 'anything');
    expect(runs).to.equal(0);
    expect(submits()).to.deep.equal([]);
    expect(errors.map((e) => e.error.code)).to.deep.equal(['SDK_PROTOCOL_ERROR']);
  });
});
