/**
 * The args schema a <pedelec-tool> declares (docs/design/elements.md, args-schema.md "Declaring it in HTML"):
 * the schema attribute, an inline JSON script, <pedelec-arg> children and the argsSchema property give
 * the identical schema, as the equivalent JSON would be (kept and warned about alike); an unbound schema
 * property is no source; unknown keywords pass through with one pedelec-warning; a schema the kit cannot
 * fully validate is offered, with one SCHEMA_NOT_VALIDATED pedelec-warning per tool.
 */
import { expect } from '@open-wc/testing';
import '../../../src/define.js';
import type {
  PedelecErrorEvent,
  PedelecWarningEvent,
  PedelecSessionElement,
  PedelecToolElement,
} from '../../../src/index.js';
import {
  SCHEMA,
  SCHEMA_AS_ARGS,
  EMPTY_SCHEMA,
  sessionIn,
  toolIn,
  makeTool,
  declarationHooks,
  detailsOf,
  fake,
} from './harness.js';
import {
  beginTurn,
  callTool,
  endSession,
  finishTurn,
  manifestTool,
  mount,
  mountHost,
  record,
  startSession,
  toolNames,
} from '../helpers.js';
import { nextTask } from '../../support/waits.js';

const warningPaths = (events: PedelecWarningEvent[], tool: string) =>
  events
    .map((e) => e.detail.warning.details as { tool: string; path: string })
    .filter((d) => d.tool === tool)
    .map((d) => d.path);

describe('declarations', () => {
  declarationHooks();

  describe('args schema: the four ways give the identical schema', () => {
    it('schema attribute, inline JSON script, <pedelec-arg> children and the argsSchema property', async () => {
      const host = await mount(`
        <pedelec-session>
          <pedelec-tool name="by_attribute" description="d" schema='${JSON.stringify(SCHEMA)}'></pedelec-tool>
          <pedelec-tool name="by_script" description="d"><script type="application/json">${JSON.stringify(SCHEMA)}</script></pedelec-tool>
          <pedelec-tool name="by_args" description="d">${SCHEMA_AS_ARGS}</pedelec-tool>
          <pedelec-tool name="by_property" description="d"></pedelec-tool>
        </pedelec-session>`);
      const session = sessionIn(host);
      const byProperty = toolIn(host, 'by_property');
      byProperty.argsSchema = structuredClone(SCHEMA) as typeof byProperty.argsSchema;
      await byProperty.updateComplete;

      expect(toolNames(session)).to.deep.equal(['by_attribute', 'by_script', 'by_args', 'by_property']);
      for (const name of ['by_attribute', 'by_script', 'by_args', 'by_property']) {
        expect(manifestTool(session, name).argsSchema, `manifest argsSchema of ${name}`).to.deep.equal(SCHEMA);
        expect(toolIn(host, name).definition?.argsSchema, `definition.argsSchema of ${name}`).to.deep.equal(SCHEMA);
        expect(toolIn(host, name).hasAttribute('invalid'), name).to.equal(false);
      }
    });

    it('<pedelec-arg>: JSON default for strings is parsed, other text is literal; enum JSON or comma list', async () => {
      const host = await mount(`
        <pedelec-session>
          <pedelec-tool name="t" description="d">
            <pedelec-arg name="quoted" type="string" default='"as json"'></pedelec-arg>
            <pedelec-arg name="literal" type="string" default="as text"></pedelec-arg>
            <pedelec-arg name="listed" type="string" enum="a,b , c"></pedelec-arg>
            <pedelec-arg name="jsonEnum" type="string" enum='["x, y","z"]'></pedelec-arg>
            <pedelec-arg name="numbers" type="number" enum="[1.5, 2]" default="1.5"></pedelec-arg>
            <pedelec-arg name="object" type="object" default='{"k":[1,2]}'></pedelec-arg>
          </pedelec-tool>
        </pedelec-session>`);
      expect(manifestTool(sessionIn(host), 't').argsSchema).to.deep.equal({
        type: 'object',
        properties: {
          quoted: { type: 'string', default: 'as json' },
          literal: { type: 'string', default: 'as text' },
          listed: { type: 'string', enum: ['a', 'b', 'c'] },
          jsonEnum: { type: 'string', enum: ['x, y', 'z'] },
          numbers: { type: 'number', enum: [1.5, 2], default: 1.5 },
          object: { type: 'object', default: { k: [1, 2] } },
        },
      });
    });

    it('markup is read as JSON data, as a clone would give it (-0 as 0, a number that is not finite as null)', async () => {
      const host = await mount(`
        <pedelec-session>
          <pedelec-tool name="by_args" description="d">
            <pedelec-arg name="n" type="number" minimum="-0" maximum="Infinity" default="-0" examples='[-0, {"z": -0}, 1e400]'></pedelec-arg>
          </pedelec-tool>
          <pedelec-tool name="by_attribute" description="d" schema='{"type":"object","properties":{"n":{"type":"number","default":-0,"examples":[-1e400]}}}'></pedelec-tool>
        </pedelec-session>`);
      const session = sessionIn(host);
      await nextTask();
      // maximum: null (what JSON gives for Infinity) cannot be used: that node is left unvalidated,
      // exactly as for a JS-defined tool.
      expect(toolIn(host, 'by_args').invalidReason).to.equal(null);
      expect(manifestTool(session, 'by_args').argsSchema.properties!.n).to.include({ maximum: null });
      const n = toolIn(host, 'by_args').definition!.argsSchema.properties!.n as Record<string, unknown>;
      expect(Object.is(n.minimum, 0) && Object.is(n.default, 0), 'no -0').to.equal(true);
      expect(n.examples).to.deep.equal([0, { z: 0 }, null]);
      expect(Object.is((n.examples as [number])[0], 0)).to.equal(true);
      const byAttribute = manifestTool(session, 'by_attribute').argsSchema.properties!.n as Record<string, unknown>;
      expect(Object.is(byAttribute.default, 0)).to.equal(true);
      expect(byAttribute.examples).to.deep.equal([null]);
    });

    it("the manifest shares no object with a tool's definition or the page's argsSchema", async () => {
      const host = await mount(`
        <pedelec-session>
          <pedelec-tool name="by_args" description="d"><pedelec-arg name="q" required></pedelec-arg></pedelec-tool>
          <pedelec-tool name="by_attribute" description="d" schema='{"type":"object","properties":{"q":{"type":"string"}}}'></pedelec-tool>
          <pedelec-tool name="by_property" description="d"></pedelec-tool>
        </pedelec-session>`);
      const session = sessionIn(host);
      const page = { type: 'object', properties: { q: { type: 'string' } } } as const;
      const byProperty = toolIn(host, 'by_property');
      byProperty.argsSchema = page as unknown as typeof byProperty.argsSchema;
      await byProperty.updateComplete;
      await nextTask();
      const before = JSON.stringify(session.manifest);
      for (const name of ['by_args', 'by_attribute', 'by_property']) {
        const schema = toolIn(host, name).definition!.argsSchema as { properties: Record<string, { type: string }> };
        schema.properties.q!.type = 'number';
        expect(manifestTool(session, name).argsSchema, name).to.not.equal(schema);
      }
      (page.properties.q as { type: string }).type = 'boolean';
      expect(JSON.stringify(session.manifest)).to.equal(before);
    });

    it('no schema at all → { type: "object", properties: {} }', async () => {
      const host = await mount(
        `<pedelec-session><pedelec-tool name="bare" description="No args."></pedelec-tool></pedelec-session>`,
      );
      expect(manifestTool(sessionIn(host), 'bare')).to.deep.equal({
        name: 'bare',
        description: 'No args.',
        argsSchema: EMPTY_SCHEMA,
      });
      expect(toolIn(host, 'bare').definition?.argsSchema).to.deep.equal(EMPTY_SCHEMA);
    });

    it('two sources at once → invalid (ambiguous), whichever two', async () => {
      const json = JSON.stringify(EMPTY_SCHEMA);
      const host = await mount(`
        <pedelec-session>
          <pedelec-tool name="attr_and_script" description="d" schema='${json}'><script type="application/json">${json}</script></pedelec-tool>
          <pedelec-tool name="script_and_args" description="d"><script type="application/json">${json}</script><pedelec-arg name="x"></pedelec-arg></pedelec-tool>
          <pedelec-tool name="attr_and_args" description="d" schema='${json}'><pedelec-arg name="x"></pedelec-arg></pedelec-tool>
          <pedelec-tool name="property_and_args" description="d"><pedelec-arg name="x"></pedelec-arg></pedelec-tool>
          <pedelec-tool name="single" description="d" schema='${json}'></pedelec-tool>
        </pedelec-session>`);
      const session = sessionIn(host);
      const withProperty = toolIn(host, 'property_and_args');
      withProperty.argsSchema = structuredClone(EMPTY_SCHEMA) as typeof withProperty.argsSchema;
      await withProperty.updateComplete;
      await nextTask();
      expect(toolNames(session)).to.deep.equal(['single']);
      for (const name of ['attr_and_script', 'script_and_args', 'attr_and_args', 'property_and_args']) {
        const tool = toolIn(host, name);
        expect(tool.hasAttribute('invalid'), name).to.equal(true);
        expect(tool.invalidReason, name).to.be.a('string').and.not.equal('');
      }
    });

    it('argument names __proto__ and constructor are ordinary own properties', async () => {
      const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();
      const json =
        '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"},"hasOwnProperty":{"type":"boolean"}},"required":["__proto__"]}';
      const host = await mount(`
        <pedelec-session>
          <pedelec-tool name="by_args" description="d">
            <pedelec-arg name="__proto__" type="string" required></pedelec-arg>
            <pedelec-arg name="constructor" type="integer"></pedelec-arg>
            <pedelec-arg name="hasOwnProperty" type="boolean"></pedelec-arg>
          </pedelec-tool>
          <pedelec-tool name="by_json" description="d" schema='${json}'></pedelec-tool>
        </pedelec-session>`);
      const session = sessionIn(host);
      const expected = JSON.parse(json);
      for (const name of ['by_args', 'by_json']) {
        for (const schema of [manifestTool(session, name).argsSchema, toolIn(host, name).definition!.argsSchema]) {
          const properties = schema.properties as Record<string, unknown>;
          expect(Object.getPrototypeOf(properties), name).to.equal(Object.prototype);
          expect(Object.hasOwn(properties, '__proto__'), `${name}: own __proto__`).to.equal(true);
          expect(Object.hasOwn(properties, 'constructor'), `${name}: own constructor`).to.equal(true);
          expect(Object.hasOwn(properties, 'hasOwnProperty'), `${name}: own hasOwnProperty`).to.equal(true);
          expect(Object.getOwnPropertyDescriptor(properties, '__proto__')?.value).to.deep.equal({ type: 'string' });
          expect(Object.getOwnPropertyDescriptor(properties, 'constructor')?.value).to.deep.equal({ type: 'integer' });
          expect(Object.keys(properties).sort()).to.deep.equal(['__proto__', 'constructor', 'hasOwnProperty']);
          expect(JSON.stringify(schema)).to.equal(JSON.stringify(expected));
          expect(schema.required).to.deep.equal(['__proto__']);
        }
      }
      // …and the validator reads them as own data too.
      toolIn(host, 'by_args').handler = (args) => ({ keys: Object.keys(args as object) });
      const missing = await session.invoke('by_args', {});
      expect(missing.ok).to.equal(false);
      expect(!missing.ok && missing.error.code).to.equal('TOOL_ARGS_INVALID');
      const given = await session.invoke('by_args', JSON.parse('{"__proto__":"x","constructor":3}'));
      expect(given).to.deep.equal({ ok: true, result: { keys: ['__proto__', 'constructor'] } });

      expect(Object.getOwnPropertyNames(Object.prototype).sort()).to.deep.equal(prototypeBefore);
      expect(({} as Record<string, unknown>).type).to.equal(undefined);
      expect(Object.getPrototypeOf({})).to.equal(Object.prototype);
    });
  });

  describe('markup kept as the equivalent JSON', () => {
    it('an items attribute on a non-array arg is kept (and warned about) exactly as the equivalent JSON', async () => {
      const host = await mountHost();
      const warnings = record<PedelecWarningEvent>(host, 'pedelec-warning');
      host.innerHTML = `<pedelec-session>
      <pedelec-tool name="by_args" description="d"><pedelec-arg name="tags" items="string"></pedelec-arg></pedelec-tool>
      <pedelec-tool name="by_json" description="d"
        schema='{"type":"object","properties":{"tags":{"type":"string","items":{"type":"string"}}}}'></pedelec-tool>
    </pedelec-session>`;
      await nextTask();
      const session = host.querySelector('pedelec-session') as PedelecSessionElement;
      expect(warningPaths(warnings, 'by_json')).to.deep.equal(['argsSchema.properties.tags.items']);
      // Markup: `items` silently vanishes, no warning (whereas minimum="3" on a string is kept and warned).
      expect(manifestTool(session, 'by_args').argsSchema).to.deep.equal(manifestTool(session, 'by_json').argsSchema);
      expect(warningPaths(warnings, 'by_args')).to.deep.equal(['argsSchema.properties.tags.items']);
    });

    it('nested args under an arg that is not an object/array are not dropped without a word', async () => {
      const host = await mountHost();
      const warnings = record<PedelecWarningEvent>(host, 'pedelec-warning');
      // type="object" forgotten on the parent: the agent is told `filter` is a plain string.
      host.innerHTML = `<pedelec-session>
      <pedelec-tool name="by_args" description="d">
        <pedelec-arg name="filter"><pedelec-arg name="field" required></pedelec-arg></pedelec-arg>
      </pedelec-tool>
      <pedelec-tool name="by_json" description="d"
        schema='{"type":"object","properties":{"filter":{"type":"string","properties":{"field":{"type":"string"}},"required":["field"]}}}'></pedelec-tool>
    </pedelec-session>`;
      await nextTask();
      const session = host.querySelector('pedelec-session') as PedelecSessionElement;
      expect(warningPaths(warnings, 'by_json')).to.include('argsSchema.properties.filter.properties');
      expect(manifestTool(session, 'by_args').argsSchema).to.deep.equal(manifestTool(session, 'by_json').argsSchema);
      expect(warningPaths(warnings, 'by_args')).to.include('argsSchema.properties.filter.properties');
    });

    it('properties set on a <pedelec-arg> before its upgrade are its declaration', async () => {
      const other = document.implementation.createHTMLDocument('');
      const tool = other.createElement('pedelec-tool');
      tool.setAttribute('name', 'early');
      tool.setAttribute('description', 'd');
      const arg = other.createElement('pedelec-arg') as unknown as Record<string, unknown>;
      arg.name = 'delta';
      arg.type = 'integer';
      arg.required = true;
      arg.description = undefined;
      tool.append(arg as unknown as Element);
      const host = await mount(`<pedelec-session></pedelec-session>`);
      const session = sessionIn(host);
      session.append(document.adoptNode(tool));
      await nextTask();
      expect(manifestTool(session, 'early').argsSchema).to.deep.equal({
        type: 'object',
        properties: { delta: { type: 'integer' } },
        required: ['delta'],
      });
    });

    it('args nested deeper than any schema may be (built from script) are reported as too deep, and the session goes on', async () => {
      const host = await mount(
        `<pedelec-session><pedelec-tool name="ok" description="d"></pedelec-tool></pedelec-session>`,
      );
      const session = sessionIn(host);
      const deep = document.createElement('pedelec-tool');
      deep.setAttribute('name', 'deep');
      deep.setAttribute('description', 'd');
      let parent: Element = deep;
      for (let i = 0; i < 5000; i++) {
        const arg = document.createElement('pedelec-arg');
        arg.setAttribute('name', 'a');
        arg.setAttribute('type', 'object');
        parent.append(arg);
        parent = arg;
      }
      const errors = record<PedelecErrorEvent>(session, 'pedelec-error');
      session.append(deep);
      await nextTask();
      expect(toolNames(session)).to.deep.equal(['ok']);
      expect(deep.hasAttribute('invalid')).to.equal(true);
      expect(errors.map((e) => e.detail.error.message)).to.satisfy((messages: string[]) =>
        messages.some((m) => /deeper than 64 levels/.test(m)),
      );
      const late = document.createElement('pedelec-tool');
      late.setAttribute('name', 'late');
      late.setAttribute('description', 'd');
      session.append(late);
      await nextTask();
      expect(toolNames(session)).to.deep.equal(['ok', 'late']);
    });
  });

  describe('a schema the kit cannot fully validate', () => {
    it('is offered, from JSON or <pedelec-arg>, with one SCHEMA_NOT_VALIDATED pedelec-warning per tool naming every path', async () => {
      const json = {
        type: 'object',
        properties: {
          when: { type: 'date' },
          n: { type: 'integer', minimum: '3' },
          either: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          ok: { type: 'integer' },
        },
      };
      const host = await mountHost();
      const warnings = record<PedelecWarningEvent>(host, 'pedelec-warning');
      const errors = record<PedelecErrorEvent>(host, 'pedelec-error');
      host.innerHTML = `<pedelec-session provider="codex" model="m">
      <pedelec-tool name="by_json" description="d" schema='${JSON.stringify(json)}'></pedelec-tool>
      <pedelec-tool name="by_args" description="d">
        <pedelec-arg name="s" min-length="5" max-length="3"></pedelec-arg>
        <pedelec-arg name="list" type="array"></pedelec-arg>
        <pedelec-arg name="ok" type="integer"></pedelec-arg>
      </pedelec-tool>
      <pedelec-tool name="unreadable" description="d"><pedelec-arg name="n" type="integer" minimum="abc"></pedelec-arg></pedelec-tool>
      <pedelec-tool name="misspelled" description="d"><pedelec-arg name="n" type="interger"></pedelec-arg></pedelec-tool>
    </pedelec-session>`;
      const session = sessionIn(host);
      await nextTask();

      expect(toolNames(session)).to.deep.equal(['by_json', 'by_args']);
      expect(manifestTool(session, 'by_json').argsSchema).to.deep.equal(json);
      const notValidated = warnings.filter((e) => e.detail.warning.code === 'SCHEMA_NOT_VALIDATED');
      expect(notValidated.map((e) => e.detail.warning.details)).to.deep.equal([
        {
          tool: 'by_json',
          paths: [
            'argsSchema.properties.when.type',
            'argsSchema.properties.n.minimum',
            'argsSchema.properties.either.type',
          ],
        },
        {
          tool: 'by_args',
          paths: ['argsSchema.properties.s.minLength', 'argsSchema.properties.list.items'],
        },
      ]);
      expect(notValidated[1]!.detail.warning.message).to.contain('argsSchema.properties.s.minLength');
      // Markup that cannot be read as a schema at all is still an invalid declaration; so is a type
      // markup misspelled, which JSON could mean (and is only warned about there).
      expect(errors.map((e) => [e.detail.error.code, detailsOf(e).path])).to.deep.equal([
        ['INVALID_INPUT', 'argsSchema.properties.n.minimum'],
        ['INVALID_INPUT', 'argsSchema.properties.n.type'],
      ]);
      expect(toolIn(host, 'unreadable').invalidReason).to.contain('minimum="abc" is not a number');
      expect(toolIn(host, 'misspelled').invalidReason).to.contain(
        'type="interger" is not one of string, number, integer, boolean, array, object, null',
      );

      // Later builds do not warn again.
      session.append(makeTool('other'));
      await nextTask();
      expect(warnings.filter((e) => e.detail.warning.code === 'SCHEMA_NOT_VALIDATED')).to.have.length(2);

      // The nodes left unvalidated accept any value; the others are still checked.
      let received: unknown;
      toolIn(host, 'by_args').handler = (args) => ((received = args), 'done');
      await startSession(session, fake);
      const { turn } = await beginTurn(session, fake);
      const args = { s: 1, list: [1, 'a', null], ok: 2 };
      expect((await callTool(fake, 'by_args', args)).result).to.equal('done');
      expect(received).to.deep.equal(args);
      const refused = await callTool(fake, 'by_args', { ok: 'x' }, { seq: 2, toolRequestId: 'r2' });
      expect(refused.result.error.code).to.equal('TOOL_ARGS_INVALID');
      await finishTurn(turn, fake);
      await endSession(session, fake);
    });
  });

  describe('the schema property unbound (undefined) is no schema source', () => {
    it('with <pedelec-arg> children: not ambiguous, the args schema is the children', async () => {
      const host = await mount(
        `<pedelec-session><pedelec-tool name="t" description="T."><pedelec-arg name="n" type="integer"></pedelec-arg></pedelec-tool></pedelec-session>`,
      );
      const session = host.querySelector('pedelec-session') as PedelecSessionElement;
      const tool = host.querySelector('pedelec-tool') as PedelecToolElement;
      (tool as { schema: string | null | undefined }).schema = undefined; // e.g. Vue :schema="undefined", React schema={undefined}
      await nextTask();
      expect(tool.invalidReason).to.equal(null);
      expect(tool.hasAttribute('invalid')).to.equal(false);
      expect(manifestTool(session, 't').argsSchema).to.deep.equal({
        type: 'object',
        properties: { n: { type: 'integer' } },
      });
    });

    it('alone: the empty object schema', async () => {
      const host = await mount(
        `<pedelec-session><pedelec-tool name="t" description="T."></pedelec-tool></pedelec-session>`,
      );
      const session = host.querySelector('pedelec-session') as PedelecSessionElement;
      const tool = host.querySelector('pedelec-tool') as PedelecToolElement;
      (tool as { schema: string | null | undefined }).schema = undefined;
      await nextTask();
      expect(tool.invalidReason).to.equal(null);
      expect(manifestTool(session, 't').argsSchema).to.deep.equal({ type: 'object', properties: {} });
    });
  });

  describe('unknown schema keywords', () => {
    let logged: unknown[][];
    const originals: Partial<Record<'warn' | 'error' | 'log' | 'info' | 'debug', (...args: unknown[]) => void>> = {};
    beforeEach(() => {
      logged = [];
      for (const level of ['warn', 'error', 'log', 'info', 'debug'] as const) {
        originals[level] = console[level];
        console[level] = (...args: unknown[]) => void logged.push([level, ...args]);
      }
    });
    afterEach(() => {
      for (const level of ['warn', 'error', 'log', 'info', 'debug'] as const) console[level] = originals[level]!;
    });

    it('pass through untouched, fire one pedelec-warning, and print nothing', async () => {
      const schema = { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: false };
      const host = await mountHost();
      const warnings = record<PedelecWarningEvent>(host, 'pedelec-warning');
      const errors = record<PedelecErrorEvent>(host, 'pedelec-error');
      host.innerHTML = `<pedelec-session><pedelec-tool name="loose" description="d" schema='${JSON.stringify(schema)}'></pedelec-tool></pedelec-session>`;
      const session = sessionIn(host);
      await nextTask();

      expect(manifestTool(session, 'loose').argsSchema).to.deep.equal(schema);
      expect(toolIn(host, 'loose').hasAttribute('invalid')).to.equal(false);
      expect(errors).to.have.length(0);
      expect(warnings).to.have.length(1);
      expect(warnings[0]!.target).to.equal(session);
      expect(warnings[0]!.detail.warning.message).to.contain('additionalProperties');

      // Later builds do not warn again.
      toolIn(host, 'loose').setAttribute('description', 'Changed.');
      session.append(makeTool('other'));
      await nextTask();
      expect(toolNames(session)).to.deep.equal(['loose', 'other']);
      expect(warnings).to.have.length(1);
      expect(logged, 'console output').to.deep.equal([]);
    });

    it('a required name missing from properties is a warning, not an error', async () => {
      const schema = { type: 'object', properties: {}, required: ['ghost'] };
      const host = await mountHost();
      const warnings = record<PedelecWarningEvent>(host, 'pedelec-warning');
      host.innerHTML = `<pedelec-session><pedelec-tool name="t" description="d" schema='${JSON.stringify(schema)}'></pedelec-tool></pedelec-session>`;
      const session = sessionIn(host);
      await nextTask();
      expect(manifestTool(session, 't').argsSchema).to.deep.equal(schema);
      expect(warnings).to.have.length(1);
      expect(warnings[0]!.detail.warning.message).to.contain('ghost');
      expect(logged).to.deep.equal([]);
    });
  });
});
