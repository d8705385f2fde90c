/**
 * The skills a page declares (docs/design/tools-api.md "defineTool", normalization steps 1–6): defineTool
 * returns its argument; createSession checks the skills object and each entry in the spec's order,
 * sends a JSON clone of exactly the documented fields, and checks the clone against the subset without
 * ever rejecting it (what it cannot validate is named in one warning per tool; unknown keywords pass
 * through with a warning each).
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import { expect } from '../../support/expect.js';
import { defineTool, type PedelecError } from '../../../src/core/index.js';
import {
  fake,
  newClient,
  open,
  startTurn,
  toolCall,
  resultOf,
  submitted,
  counterSchema,
  counterTool,
  pageTool,
  skillsOf,
  toolHooks,
} from './harness.js';
import { rejection as rejectionOf } from '../../support/promises.js';

toolHooks();

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
      expect(error).to.deep.include({ code: 'INVALID_INPUT', message: 'skills.guidance must be a string' });
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
      // Step 6 never rejects: the malformed keyword is named, by its JSON path, in a warning.
      const warnings: PedelecError[] = [];
      const { session } = await open(skillsOf(entry), { onWarning: (w) => warnings.push(w) });
      expect(session.sessionId).to.equal('s1');
      expect(warnings.map((w) => [w.code, (w.details as { paths?: string[] }).paths])).to.deep.equal([
        ['SCHEMA_NOT_VALIDATED', ['argsSchema.properties.delta.minimum']],
      ]);
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
      expect(Object.keys(input).sort()).to.deep.equal([
        'autoEndOnDisconnect',
        'effort',
        'effortLevel',
        'model',
        'provider',
        'skills',
      ]);
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
        effort: undefined,
        effortLevel: undefined,
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

    it('never sends the foreign-agent fields (title, readOnly, untrustedContent, private), typed or not', async () => {
      const foreign = { title: 'Counter', readOnly: true, untrustedContent: true, private: true };
      const typed = defineTool({
        name: 'typed',
        description: 'd',
        argsSchema: { type: 'object' },
        timeoutMs: 5000,
        ...foreign,
      });
      await open(skillsOf(typed, pageTool({ title: 42, readOnly: 'yes' })));
      const sent = fake.last('create_session').input.skills.tools;
      expect(sent.map((tool: object) => Object.keys(tool).sort())).to.deep.equal([
        ['argsSchema', 'description', 'name', 'timeoutMs'],
        ['argsSchema', 'description', 'name'],
      ]);
    });
  });

  describe('step 6 (ours): the subset, never a rejection', () => {
    it('creates the session with a known keyword with a wrong value, naming its JSON path in a warning', async () => {
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
        const warnings: PedelecError[] = [];
        const { session } = await open(skillsOf(counterTool({ argsSchema })), { onWarning: (w) => warnings.push(w) });
        expect(session.sessionId, path).to.equal('s1');
        expect(fake.last('create_session').input.skills.tools[0].argsSchema, path).to.deep.equal(argsSchema);
        expect(
          warnings.map((w) => w.code),
          path,
        ).to.deep.equal(['SCHEMA_NOT_VALIDATED']);
        expect(warnings[0]!.message, path).to.contain(path);
        expect((warnings[0]!.details as { paths: string[] }).paths, path).to.deep.equal([path]);
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
