/**
 * Declarations: how <pedelec-tool>, <pedelec-arg> and <pedelec-guidance> turn markup into the
 * session's manifest (spec/elements.md, args-schema.md "Declaring it in HTML", reliability.md "Bad
 * declarations"), and what custom-elements.json documents for them.
 */
import { expect } from '@open-wc/testing';
import '../../src/define.js';
import {
  PedelecArgElement,
  PedelecGuidanceElement,
  PedelecSessionElement,
  PedelecToolElement,
  type PedelecErrorEvent,
  type PedelecWarningEvent,
} from '../../src/index.js';
import {
  beginTurn,
  callTool,
  endSession,
  finishTurn,
  installFakeChrome,
  manifestTool,
  mount,
  mountHost,
  nextTask,
  record,
  startSession,
  toolNames,
  uninstallFakeChrome,
  uniqueTag,
  type FakePort,
} from './helpers.js';

/** One args schema that uses every keyword <pedelec-arg> can declare. */
const SCHEMA = {
  type: 'object',
  properties: {
    query: {
      type: 'string',
      description: 'What to search for.',
      minLength: 1,
      maxLength: 200,
      pattern: '^[a-z ]+$',
      default: 'hello world',
      examples: ['cats', 'dogs'],
    },
    mode: { type: 'string', enum: ['fast', 'exact'], default: 'fast' },
    level: { type: 'integer', enum: [1, 2, 3], minimum: 1, maximum: 3, default: 2 },
    ratio: { type: 'number', minimum: -0.5, maximum: 1.5, examples: [0.25] },
    flag: { type: 'boolean', default: false },
    tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 5, uniqueItems: true },
    filter: {
      type: 'object',
      description: 'Narrow the results.',
      properties: { field: { type: 'string', enum: ['title', 'body'] }, value: { type: 'number' } },
      required: ['field'],
    },
    rows: {
      type: 'array',
      description: 'Rows to add.',
      maxItems: 10,
      items: {
        type: 'object',
        properties: { id: { type: 'integer', minimum: 0 }, cells: { type: 'array', items: { type: 'string' } } },
        required: ['id'],
      },
    },
  },
  required: ['query', 'mode'],
};

/** The same schema as <pedelec-arg> children (literal `default` text, comma-separated enum…). */
const SCHEMA_AS_ARGS = `
  <pedelec-arg name="query" type="string" required description="What to search for." min-length="1" max-length="200"
               pattern="^[a-z ]+$" default="hello world" examples='["cats","dogs"]'></pedelec-arg>
  <pedelec-arg name="mode" type="string" required enum="fast, exact" default="fast"></pedelec-arg>
  <pedelec-arg name="level" type="integer" enum="[1,2,3]" minimum="1" maximum="3" default="2"></pedelec-arg>
  <pedelec-arg name="ratio" type="number" minimum="-0.5" maximum="1.5" examples="[0.25]"></pedelec-arg>
  <pedelec-arg name="flag" type="boolean" default="false"></pedelec-arg>
  <pedelec-arg name="tags" type="array" items="string" min-items="1" max-items="5" unique-items></pedelec-arg>
  <pedelec-arg name="filter" type="object" description="Narrow the results.">
    <pedelec-arg name="field" type="string" required enum='["title","body"]'></pedelec-arg>
    <pedelec-arg name="value" type="number"></pedelec-arg>
  </pedelec-arg>
  <pedelec-arg name="rows" type="array" description="Rows to add." max-items="10">
    <pedelec-arg name="id" type="integer" required minimum="0"></pedelec-arg>
    <pedelec-arg name="cells" type="array" items="string"></pedelec-arg>
  </pedelec-arg>
`;

const EMPTY_SCHEMA = { type: 'object', properties: {} };

function sessionIn(host: Element, selector = 'pedelec-session'): PedelecSessionElement {
  const found = host.querySelector(selector);
  if (!found) throw new Error(`no ${selector} in the fixture`);
  return found as PedelecSessionElement;
}

function toolIn(root: ParentNode, name: string): PedelecToolElement {
  const found = root.querySelector(`pedelec-tool[name="${name}"]`);
  if (!found) throw new Error(`no pedelec-tool named ${name}`);
  return found as PedelecToolElement;
}

function makeTool(name: string, description = `The ${name} tool.`): PedelecToolElement {
  const tool = document.createElement('pedelec-tool');
  tool.setAttribute('name', name);
  tool.setAttribute('description', description);
  return tool;
}

/** A tiny component with an open shadow root holding `inner` (defined once per call, unique tag). */
function defineShadowHost(inner: string): string {
  const tag = uniqueTag('shadow-host');
  customElements.define(
    tag,
    class extends HTMLElement {
      constructor() {
        super();
        this.attachShadow({ mode: 'open' }).innerHTML = inner;
      }
    },
  );
  return tag;
}

type ErrorDetails = { tool: string | null; reason: string; path?: string };
const detailsOf = (event: PedelecErrorEvent) => event.detail.error.details as ErrorDetails;

describe('declarations', () => {
  let fake: FakePort;
  beforeEach(() => (fake = installFakeChrome()));
  afterEach(() => uninstallFakeChrome());

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
      // maximum: null (what JSON gives for Infinity) is refused, exactly as for a JS-defined tool.
      expect(toolIn(host, 'by_args').invalidReason).to.match(
        /argsSchema\.properties\.n\.maximum must be a finite number/,
      );
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

  describe('ownership', () => {
    it('a tool belongs to its nearest session; nested sessions keep their own tools and guidance', async () => {
      const host = await mount(`
        <pedelec-session id="outer">
          <pedelec-guidance>Outer guidance.</pedelec-guidance>
          <pedelec-tool name="outer_first" description="d"></pedelec-tool>
          <pedelec-session id="inner">
            <pedelec-guidance>Inner guidance.</pedelec-guidance>
            <pedelec-tool name="inner_tool" description="d"></pedelec-tool>
          </pedelec-session>
          <pedelec-tool name="outer_last" description="d"></pedelec-tool>
        </pedelec-session>`);
      const outer = sessionIn(host, '#outer');
      const inner = sessionIn(host, '#inner');
      expect(toolNames(outer)).to.deep.equal(['outer_first', 'outer_last']);
      expect(toolNames(inner)).to.deep.equal(['inner_tool']);
      expect(outer.manifest?.guidance).to.equal('Outer guidance.');
      expect(inner.manifest?.guidance).to.equal('Inner guidance.');

      // A tool added to the inner session later still goes to the inner one only.
      inner.append(makeTool('inner_late'));
      expect(toolNames(outer)).to.deep.equal(['outer_first', 'outer_last']);
      expect(toolNames(inner)).to.deep.equal(['inner_tool', 'inner_late']);
    });

    it('a tool inside the shadow root of a component in a session belongs to that session, in tree order', async () => {
      const tag = defineShadowHost(`<pedelec-tool name="in_shadow" description="From a shadow root."></pedelec-tool>`);
      const host = await mount(`
        <pedelec-session>
          <pedelec-tool name="before" description="d"></pedelec-tool>
          <${tag}></${tag}>
          <pedelec-tool name="after" description="d"></pedelec-tool>
        </pedelec-session>`);
      const session = sessionIn(host);
      expect(toolNames(session)).to.deep.equal(['before', 'in_shadow', 'after']);
      const shadowTool = host.querySelector(tag)!.shadowRoot!.querySelector('pedelec-tool') as PedelecToolElement;
      shadowTool.handler = () => ({ from: 'shadow' });
      expect(await session.invoke('in_shadow', {})).to.deep.equal({ ok: true, result: { from: 'shadow' } });
    });

    it('the shadow-root component inside a nested session belongs to the inner session only', async () => {
      const tag = defineShadowHost(`<pedelec-tool name="in_shadow" description="d"></pedelec-tool>`);
      const host = await mount(`
        <pedelec-session id="outer">
          <pedelec-session id="inner"><${tag}></${tag}></pedelec-session>
        </pedelec-session>`);
      expect(toolNames(sessionIn(host, '#inner'))).to.deep.equal(['in_shadow']);
      expect(toolNames(sessionIn(host, '#outer'))).to.deep.equal([]);
    });

    it('a session defined after its tools takes them (and takes them from an outer session)', async () => {
      const tag = uniqueTag('late-session');
      const host = await mount(`
        <pedelec-session id="outer">
          <pedelec-tool name="outer_tool" description="d"></pedelec-tool>
          <${tag}>
            <pedelec-tool name="late_a" description="d"></pedelec-tool>
            <pedelec-guidance>Late guidance.</pedelec-guidance>
            <pedelec-tool name="late_b" description="d"></pedelec-tool>
          </${tag}>
        </pedelec-session>`);
      await nextTask();
      const outer = sessionIn(host, '#outer');
      customElements.define(tag, class extends PedelecSessionElement {});
      const late = host.querySelector(tag) as PedelecSessionElement;
      expect(late).to.be.instanceOf(PedelecSessionElement);
      await late.updateComplete;
      expect(toolNames(late)).to.deep.equal(['late_a', 'late_b']);
      expect(late.manifest?.guidance).to.equal('Late guidance.');
      expect(toolNames(outer)).to.deep.equal(['outer_tool']);
      expect(outer.manifest?.guidance).to.equal('');
    });

    it('tools defined after their session join it (a PedelecToolElement subclass under a new tag)', async () => {
      const tag = uniqueTag('late-tool');
      const host = await mount(`
        <pedelec-session>
          <${tag} name="late" description="Defined late."><pedelec-arg name="n" type="integer" required></pedelec-arg></${tag}>
        </pedelec-session>`);
      const session = sessionIn(host);
      await nextTask();
      expect(toolNames(session)).to.deep.equal([]);
      customElements.define(tag, class extends PedelecToolElement {});
      await (host.querySelector(tag) as PedelecToolElement).updateComplete;
      expect(manifestTool(session, 'late')).to.deep.equal({
        name: 'late',
        description: 'Defined late.',
        argsSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      });
    });

    it('tools of a PedelecToolElement subclass tag keep tree order among <pedelec-tool>s', async () => {
      const tag = uniqueTag('sub-tool');
      customElements.define(tag, class extends PedelecToolElement {});
      const host = await mount(`
        <pedelec-session>
          <${tag} name="first" description="d"></${tag}>
          <pedelec-tool name="second" description="d"></pedelec-tool>
          <${tag} name="dup" description="The first dup in tree order."></${tag}>
          <pedelec-tool name="dup" description="The second dup."></pedelec-tool>
        </pedelec-session>`);
      const session = sessionIn(host);
      expect(toolNames(session)).to.deep.equal(['first', 'second', 'dup']);
      expect(manifestTool(session, 'dup').description).to.equal('The first dup in tree order.');
    });

    it('properties set before upgrade (handler, argsSchema, name, description) are kept', async () => {
      const tag = uniqueTag('late-tool');
      const host = await mount(`<pedelec-session></pedelec-session>`);
      const session = sessionIn(host);
      const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] };
      const early = document.createElement(tag) as PedelecToolElement;
      early.name = 'early';
      early.description = 'Set before upgrade.';
      early.argsSchema = structuredClone(schema) as PedelecToolElement['argsSchema'];
      early.handler = (args) => ({ got: (args as { n: number }).n });
      early.setAttribute('timeout-ms', '1500');
      session.append(early);
      await nextTask();
      expect(toolNames(session)).to.deep.equal([]);

      customElements.define(tag, class extends PedelecToolElement {});
      expect(early).to.be.instanceOf(PedelecToolElement);
      await early.updateComplete;
      expect(manifestTool(session, 'early')).to.deep.equal({
        name: 'early',
        description: 'Set before upgrade.',
        timeoutMs: 1500,
        argsSchema: schema,
      });
      expect(await session.invoke('early', { n: 4 })).to.deep.equal({ ok: true, result: { got: 4 } });
    });

    it('created by markup, by document.createElement and by new', async () => {
      // Markup.
      const marked = await mount(
        `<pedelec-session><pedelec-tool name="by_markup" description="d"><pedelec-arg name="n" type="integer"></pedelec-arg></pedelec-tool></pedelec-session>`,
      );
      const expectedSchema = { type: 'object', properties: { n: { type: 'integer' } } };
      expect(sessionIn(marked).manifest?.tools).to.deep.equal([
        { name: 'by_markup', description: 'd', argsSchema: expectedSchema },
      ]);

      // document.createElement.
      const host = await mountHost();
      const created = document.createElement('pedelec-session');
      expect(created).to.be.instanceOf(PedelecSessionElement);
      const createdTool = document.createElement('pedelec-tool');
      expect(createdTool).to.be.instanceOf(PedelecToolElement);
      createdTool.setAttribute('name', 'by_create');
      createdTool.setAttribute('description', 'd');
      const createdArg = document.createElement('pedelec-arg');
      expect(createdArg).to.be.instanceOf(PedelecArgElement);
      createdArg.setAttribute('name', 'n');
      createdArg.setAttribute('type', 'integer');
      const createdGuidance = document.createElement('pedelec-guidance');
      expect(createdGuidance).to.be.instanceOf(PedelecGuidanceElement);
      createdGuidance.textContent = 'Created.';
      createdTool.append(createdArg);
      created.append(createdGuidance, createdTool);
      host.append(created);
      expect(created.manifest).to.deep.equal({
        guidance: 'Created.',
        tools: [{ name: 'by_create', description: 'd', argsSchema: expectedSchema }],
      });

      // new.
      const constructed = new PedelecSessionElement();
      const constructedTool = new PedelecToolElement();
      constructedTool.name = 'by_new';
      constructedTool.description = 'd';
      const constructedArg = new PedelecArgElement();
      constructedArg.name = 'n';
      constructedArg.type = 'integer';
      const constructedGuidance = new PedelecGuidanceElement();
      constructedGuidance.textContent = 'Constructed.';
      constructedTool.append(constructedArg);
      constructed.append(constructedGuidance, constructedTool);
      host.append(constructed);
      expect(constructed.manifest).to.deep.equal({
        guidance: 'Constructed.',
        tools: [{ name: 'by_new', description: 'd', argsSchema: expectedSchema }],
      });
      // Sibling sessions do not see each other's tools.
      expect(toolNames(created)).to.deep.equal(['by_create']);
    });

    it('tools added and removed later update the manifest', async () => {
      const host = await mount(
        `<pedelec-session><pedelec-tool name="a" description="d"></pedelec-tool></pedelec-session>`,
      );
      const session = sessionIn(host);
      expect(toolNames(session)).to.deep.equal(['a']);
      const b = makeTool('b');
      session.append(b);
      await nextTask();
      expect(toolNames(session)).to.deep.equal(['a', 'b']);
      toolIn(host, 'a').remove();
      await nextTask();
      expect(toolNames(session)).to.deep.equal(['b']);
      b.remove();
      await nextTask();
      expect(toolNames(session)).to.deep.equal([]);
    });

    it('a detached tool leaves the manifest and rejoins when reattached (also into another session)', async () => {
      const host = await mount(`
        <pedelec-session id="one">
          <pedelec-tool name="a" description="d"></pedelec-tool>
          <pedelec-tool name="moving" description="d"></pedelec-tool>
          <pedelec-tool name="c" description="d"></pedelec-tool>
        </pedelec-session>
        <pedelec-session id="two"></pedelec-session>`);
      const one = sessionIn(host, '#one');
      const two = sessionIn(host, '#two');
      const moving = toolIn(host, 'moving');
      moving.handler = () => 'still here';

      const next = moving.nextSibling;
      moving.remove();
      expect(toolNames(one)).to.deep.equal(['a', 'c']);
      expect((await one.invoke('moving', {})).ok).to.equal(false);

      one.insertBefore(moving, next);
      await moving.updateComplete;
      expect(toolNames(one)).to.deep.equal(['a', 'moving', 'c']);
      expect(await one.invoke('moving', {})).to.deep.equal({ ok: true, result: 'still here' });

      two.append(moving);
      await nextTask();
      expect(toolNames(one)).to.deep.equal(['a', 'c']);
      expect(toolNames(two)).to.deep.equal(['moving']);
      expect(await two.invoke('moving', {})).to.deep.equal({ ok: true, result: 'still here' });
    });

    it('tool order is tree order, whatever the order of insertion', async () => {
      const host = await mount(
        `<pedelec-session><pedelec-tool name="c" description="d"></pedelec-tool></pedelec-session>`,
      );
      const session = sessionIn(host);
      const wrapper = document.createElement('div');
      wrapper.append(makeTool('e'));
      session.append(wrapper);
      session.prepend(makeTool('a'));
      session.insertBefore(makeTool('b'), toolIn(host, 'c'));
      wrapper.before(makeTool('d'));
      expect(toolNames(session)).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
      await nextTask();
      // Moving one later in the tree moves it in the manifest.
      session.append(toolIn(host, 'a'));
      expect(toolNames(session)).to.deep.equal(['b', 'c', 'd', 'e', 'a']);
    });
  });

  describe('batched rebuilds', () => {
    it('1 000 tools (3 args each) inserted in one task cost exactly one build', async () => {
      const host = await mount(`<pedelec-session></pedelec-session>`);
      const session = sessionIn(host);
      await nextTask();
      const before = session.buildCount;

      const tools: PedelecToolElement[] = [];
      for (let i = 0; i < 1000; i++) {
        const tool = makeTool(`tool_${i}`);
        for (const [name, type] of [
          ['text', 'string'],
          ['count', 'integer'],
          ['on', 'boolean'],
        ]) {
          const arg = document.createElement('pedelec-arg');
          arg.setAttribute('name', name!);
          arg.setAttribute('type', type!);
          if (name === 'count') arg.setAttribute('required', '');
          tool.append(arg);
        }
        session.append(tool);
        tools.push(tool);
      }
      await nextTask();
      const afterBatch = session.buildCount;
      const manifest = session.manifest!;
      expect(afterBatch - before, 'builds for the batch of 1 000').to.equal(1);
      expect(manifest.tools).to.have.length(1000);
      expect(manifest.tools.map((t) => t.name)).to.deep.equal(tools.map((_, i) => `tool_${i}`));
      expect(manifest.tools[999]!.argsSchema).to.deep.equal({
        type: 'object',
        properties: { text: { type: 'string' }, count: { type: 'integer' }, on: { type: 'boolean' } },
        required: ['count'],
      });
    });

    it('one change among 1 000 tools costs one build (attribute, property, or a <pedelec-arg> child)', async () => {
      const host = await mount(`<pedelec-session></pedelec-session>`);
      const session = sessionIn(host);
      const tools: PedelecToolElement[] = [];
      for (let i = 0; i < 1000; i++) {
        const tool = makeTool(`tool_${i}`);
        const arg = document.createElement('pedelec-arg');
        arg.setAttribute('name', 'n');
        arg.setAttribute('type', 'integer');
        tool.append(arg);
        session.append(tool);
        tools.push(tool);
      }
      await nextTask();
      expect(session.manifest?.tools).to.have.length(1000);

      const beforeAttribute = session.buildCount;
      tools[500]!.setAttribute('description', 'Changed by attribute.');
      await nextTask();
      expect(session.buildCount - beforeAttribute, 'builds for one attribute change').to.equal(1);
      expect(manifestTool(session, 'tool_500').description).to.equal('Changed by attribute.');

      const beforeProperty = session.buildCount;
      tools[501]!.description = 'Changed by property.';
      await nextTask();
      expect(session.buildCount - beforeProperty, 'builds for one property change').to.equal(1);
      expect(manifestTool(session, 'tool_501').description).to.equal('Changed by property.');

      const beforeArg = session.buildCount;
      tools[502]!.querySelector('pedelec-arg')!.setAttribute('minimum', '0');
      await nextTask();
      expect(session.buildCount - beforeArg, 'builds for one <pedelec-arg> change').to.equal(1);
      expect(manifestTool(session, 'tool_502').argsSchema).to.deep.equal({
        type: 'object',
        properties: { n: { type: 'integer', minimum: 0 } },
      });
    });

    it('a handler change is never a tool change: no build', async () => {
      const host = await mount(
        `<pedelec-session><pedelec-tool name="t" description="d"></pedelec-tool></pedelec-session>`,
      );
      const session = sessionIn(host);
      const tool = toolIn(host, 't');
      await tool.updateComplete;
      await nextTask();
      const before = session.buildCount;
      const manifest = session.manifest;
      tool.handler = () => 'first';
      await tool.updateComplete;
      await nextTask();
      tool.handler = () => 'second';
      await tool.updateComplete;
      await nextTask();
      expect(session.buildCount).to.equal(before);
      expect(session.manifest).to.equal(manifest);
      expect(await session.invoke('t', {})).to.deep.equal({ ok: true, result: 'second' });
    });
  });

  describe('edges found in review', () => {
    it('a class or data-* change on an arg is no tool change: no build, no recompiled validator', async () => {
      const host = await mount(
        `<pedelec-session><pedelec-tool name="t" description="d"><pedelec-arg name="n" type="integer"></pedelec-arg></pedelec-tool></pedelec-session>`,
      );
      const session = sessionIn(host);
      await nextTask();
      const before = session.buildCount;
      const arg = host.querySelector('pedelec-arg')!;
      arg.classList.add('highlight');
      arg.setAttribute('data-x', '1');
      await nextTask();
      expect(session.buildCount).to.equal(before);
      arg.setAttribute('minimum', '3');
      await nextTask();
      expect(session.buildCount).to.equal(before + 1);
      expect(manifestTool(session, 't').argsSchema).to.deep.equal({
        type: 'object',
        properties: { n: { type: 'integer', minimum: 3 } },
      });
    });

    it('a tool that becomes invalid costs one build (its own invalid attribute is no change)', async () => {
      const host = await mount(
        `<pedelec-session><pedelec-tool name="t" description="d"></pedelec-tool></pedelec-session>`,
      );
      const session = sessionIn(host);
      const tool = toolIn(host, 't');
      await nextTask();
      const before = session.buildCount;
      tool.setAttribute('schema', '{bad');
      await tool.updateComplete;
      await nextTask();
      expect(tool.hasAttribute('invalid')).to.equal(true);
      expect(session.buildCount).to.equal(before + 1);
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

  describe('invalid declarations are isolated', () => {
    /** id → the tool name `details.tool` names, and the JSON path where one applies. */
    const BAD: Record<string, { tool: string; path?: string }> = {
      'bad-name': { tool: '1bad' },
      'empty-description': { tool: 'empty_description' },
      'bad-json': { tool: 'bad_json' },
      'bad-script': { tool: 'bad_script' },
      'bad-keyword': { tool: 'bad_keyword', path: 'argsSchema.properties.delta.minimum' },
      'bad-arg-number': { tool: 'bad_arg_number', path: 'argsSchema.properties.delta.minimum' },
      'two-sources': { tool: 'two_sources' },
      duplicate: { tool: 'good' },
      'bad-timeout': { tool: 'bad_timeout' },
      'bad-arg-type': { tool: 'bad_arg_type', path: 'argsSchema.properties.when.type' },
    };
    const MARKUP = `
      <pedelec-session provider="codex" model="m">
        <pedelec-tool name="good" description="Doubles n."><pedelec-arg name="n" type="integer" required></pedelec-arg></pedelec-tool>
        <pedelec-tool id="bad-name" name="1bad" description="Bad name."></pedelec-tool>
        <pedelec-tool id="empty-description" name="empty_description" description=""></pedelec-tool>
        <pedelec-tool id="bad-json" name="bad_json" description="d" schema="{not json"></pedelec-tool>
        <pedelec-tool id="bad-script" name="bad_script" description="d"><script type="application/json">{"type":</script></pedelec-tool>
        <pedelec-tool id="bad-keyword" name="bad_keyword" description="d"
                      schema='{"type":"object","properties":{"delta":{"type":"integer","minimum":"3"}}}'></pedelec-tool>
        <pedelec-tool id="bad-arg-number" name="bad_arg_number" description="d"><pedelec-arg name="delta" type="integer" minimum="abc"></pedelec-arg></pedelec-tool>
        <pedelec-tool id="two-sources" name="two_sources" description="d" schema='{"type":"object","properties":{}}'><pedelec-arg name="x"></pedelec-arg></pedelec-tool>
        <pedelec-tool id="duplicate" name="good" description="A second tool of that name."></pedelec-tool>
        <pedelec-tool id="bad-timeout" name="bad_timeout" description="d" timeout-ms="abc"></pedelec-tool>
        <pedelec-tool id="bad-arg-type" name="bad_arg_type" description="d"><pedelec-arg name="when" type="date"></pedelec-arg></pedelec-tool>
        <pedelec-tool name="also_good" description="Also works."></pedelec-tool>
      </pedelec-session>`;

    it('each bad tool is left out, reflects invalid, has invalidReason, and gets exactly one pedelec-error', async () => {
      const host = await mountHost();
      const errors = record<PedelecErrorEvent>(host, 'pedelec-error');
      host.innerHTML = MARKUP;
      const session = sessionIn(host);
      await nextTask();

      expect(toolNames(session)).to.deep.equal(['good', 'also_good']);
      for (const [id, expected] of Object.entries(BAD)) {
        const tool = host.querySelector(`#${id}`) as PedelecToolElement;
        expect(tool.hasAttribute('invalid'), `${id}: invalid attribute`).to.equal(true);
        expect(tool.invalidReason, `${id}: invalidReason`).to.be.a('string').and.not.equal('');
        const mine = errors.filter((e) => e.element === tool);
        expect(mine, `${id}: pedelec-error events`).to.have.length(1);
        const event = mine[0]!;
        expect(event.target).to.equal(session);
        expect(event.detail.error.code, id).to.equal('INVALID_INPUT');
        const details = detailsOf(event);
        expect(details.tool, `${id}: details.tool`).to.equal(expected.tool);
        expect(details.reason, `${id}: details.reason`).to.be.a('string').and.not.equal('');
        if (expected.path) expect(details.path, `${id}: details.path`).to.equal(expected.path);
      }
      for (const name of ['good', 'also_good']) {
        const tool = toolIn(host, name);
        expect(tool.hasAttribute('invalid'), name).to.equal(false);
        expect(tool.invalidReason, name).to.equal(null);
      }
      expect(errors, 'no other pedelec-error').to.have.length(Object.keys(BAD).length);

      // More builds report nothing again: one event per bad tool, not per build.
      session.append(makeTool('later'));
      await nextTask();
      expect(toolNames(session)).to.deep.equal(['good', 'also_good', 'later']);
      expect(errors).to.have.length(Object.keys(BAD).length);
    });

    it('the good tools still work: the session starts with them and a call to one is answered', async () => {
      const host = await mountHost();
      const errors = record<PedelecErrorEvent>(host, 'pedelec-error');
      host.innerHTML = MARKUP;
      const session = sessionIn(host);
      toolIn(session, 'good').handler = (args) => ({ doubled: (args as { n: number }).n * 2 });
      await nextTask();
      const errorCount = errors.length;

      const create = await startSession(session, fake);
      expect(session.status).to.equal('idle');
      expect((create.input.skills.tools as Array<{ name: string }>).map((t) => t.name)).to.deep.equal([
        'good',
        'also_good',
      ]);
      const { turn } = await beginTurn(session, fake);
      const submit = await callTool(fake, 'good', { n: 21 });
      expect(submit.result).to.deep.equal({ doubled: 42 });
      await finishTurn(turn, fake);
      expect(errors).to.have.length(errorCount);
      await endSession(session, fake);
    });

    it('fixing a bad declaration removes invalid and adds the tool, in tree order', async () => {
      const host = await mountHost();
      const errors = record<PedelecErrorEvent>(host, 'pedelec-error');
      host.innerHTML = MARKUP;
      const session = sessionIn(host);
      await nextTask();
      const errorCount = errors.length;

      const empty = host.querySelector('#empty-description') as PedelecToolElement;
      empty.setAttribute('description', 'Now described.');
      await nextTask();
      expect(empty.hasAttribute('invalid')).to.equal(false);
      expect(empty.invalidReason).to.equal(null);
      expect(toolNames(session)).to.deep.equal(['good', 'empty_description', 'also_good']);

      const badJson = host.querySelector('#bad-json') as PedelecToolElement;
      badJson.setAttribute('schema', '{"type":"object","properties":{"q":{"type":"string"}}}');
      const duplicate = host.querySelector('#duplicate') as PedelecToolElement;
      duplicate.name = 'renamed';
      const badArg = host.querySelector('#bad-arg-type pedelec-arg')!;
      badArg.setAttribute('type', 'string');
      await nextTask();
      for (const tool of [badJson, duplicate, host.querySelector('#bad-arg-type') as PedelecToolElement]) {
        expect(tool.hasAttribute('invalid'), tool.id).to.equal(false);
        expect(tool.invalidReason, tool.id).to.equal(null);
      }
      expect(toolNames(session)).to.deep.equal([
        'good',
        'empty_description',
        'bad_json',
        'renamed',
        'bad_arg_type',
        'also_good',
      ]);
      expect(manifestTool(session, 'bad_arg_type').argsSchema).to.deep.equal({
        type: 'object',
        properties: { when: { type: 'string' } },
      });
      expect(errors, 'fixing fires no pedelec-error').to.have.length(errorCount);
    });

    it('duplicate names: the first in tree order wins, also when the later one is inserted before it', async () => {
      const host = await mountHost();
      const errors = record<PedelecErrorEvent>(host, 'pedelec-error');
      host.innerHTML = `<pedelec-session><pedelec-tool id="original" name="same" description="Original."></pedelec-tool></pedelec-session>`;
      const session = sessionIn(host);
      const original = host.querySelector('#original') as PedelecToolElement;
      await nextTask();
      expect(errors).to.have.length(0);

      const newcomer = makeTool('same', 'Newcomer.');
      session.prepend(newcomer);
      await nextTask();
      expect(session.manifest?.tools.map((t) => t.description)).to.deep.equal(['Newcomer.']);
      expect(newcomer.hasAttribute('invalid')).to.equal(false);
      expect(original.hasAttribute('invalid')).to.equal(true);
      expect(errors).to.have.length(1);
      expect(errors[0]!.element).to.equal(original);
      expect(detailsOf(errors[0]!).tool).to.equal('same');

      newcomer.remove();
      await nextTask();
      expect(original.hasAttribute('invalid')).to.equal(false);
      expect(session.manifest?.tools.map((t) => t.description)).to.deep.equal(['Original.']);
    });

    it('a disabled tool is left out without being invalid, and comes back when enabled', async () => {
      const host = await mountHost();
      const errors = record<PedelecErrorEvent>(host, 'pedelec-error');
      host.innerHTML = `<pedelec-session><pedelec-tool name="a" description="d" disabled></pedelec-tool><pedelec-tool name="b" description="d"></pedelec-tool></pedelec-session>`;
      const session = sessionIn(host);
      await nextTask();
      expect(toolNames(session)).to.deep.equal(['b']);
      const a = toolIn(host, 'a');
      expect(a.hasAttribute('invalid')).to.equal(false);
      a.removeAttribute('disabled');
      await nextTask();
      expect(toolNames(session)).to.deep.equal(['a', 'b']);
      expect(errors).to.have.length(0);
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

  describe('<pedelec-guidance>', () => {
    it('its text content becomes manifest.guidance, and follows text changes', async () => {
      const host = await mount(`
        <pedelec-session>
          <pedelec-guidance>
            Use update_counter when the user asks to change the counter.
          </pedelec-guidance>
        </pedelec-session>`);
      const session = sessionIn(host);
      expect(session.manifest).to.deep.equal({
        guidance: 'Use update_counter when the user asks to change the counter.',
        tools: [],
      });
      const guidance = host.querySelector('pedelec-guidance')!;
      guidance.textContent = 'Something else.';
      await nextTask();
      expect(session.manifest?.guidance).to.equal('Something else.');

      // Detached it no longer counts; reattached it counts again.
      guidance.remove();
      expect(session.manifest?.guidance ?? '').to.equal('');
      session.append(guidance);
      expect(session.manifest?.guidance).to.equal('Something else.');
    });

    it('is hidden, in the document and inside a shadow root', async () => {
      const tag = defineShadowHost(`<pedelec-guidance>Shadow guidance.</pedelec-guidance>`);
      const host = await mount(
        `<pedelec-session><pedelec-guidance>Visible? No.</pedelec-guidance><${tag}></${tag}></pedelec-session>`,
      );
      const light = host.querySelector('pedelec-guidance')!;
      const shadow = host.querySelector(tag)!.shadowRoot!.querySelector('pedelec-guidance')!;
      for (const guidance of [light, shadow]) {
        expect(getComputedStyle(guidance).display).to.equal('none');
        expect(guidance.getBoundingClientRect().height).to.equal(0);
      }
      const guidance = sessionIn(host).manifest?.guidance;
      expect(guidance).to.contain('Visible? No.').and.to.contain('Shadow guidance.');
    });

    it('guidance attribute and child at once → pedelec-error INVALID_INPUT', async () => {
      const host = await mountHost();
      const errors = record<PedelecErrorEvent>(host, 'pedelec-error');
      host.innerHTML = `<pedelec-session guidance="From the attribute."><pedelec-guidance>From the child.</pedelec-guidance></pedelec-session>`;
      const session = sessionIn(host);
      await nextTask();
      expect(errors).to.have.length(1);
      expect(errors[0]!.target).to.equal(session);
      expect(errors[0]!.detail.error.code).to.equal('INVALID_INPUT');
    });
  });

  describe('rendering', () => {
    it('<pedelec-tool> and <pedelec-arg> render nothing (display: none, no boxes), also inside a shadow root', async () => {
      const tag = defineShadowHost(
        `<pedelec-tool name="s" description="d">Text<pedelec-arg name="x">arg text</pedelec-arg></pedelec-tool><pedelec-arg name="stray">stray</pedelec-arg>`,
      );
      const host = await mount(`
        <pedelec-session>
          <pedelec-tool name="t" description="d">Some text<pedelec-arg name="x">arg text</pedelec-arg></pedelec-tool>
          <pedelec-arg name="stray">stray arg text</pedelec-arg>
          <${tag}></${tag}>
        </pedelec-session>`);
      const shadowRoot = host.querySelector(tag)!.shadowRoot!;
      for (const root of [host, shadowRoot] as ParentNode[]) {
        const tool = root.querySelector('pedelec-tool')!;
        const nestedArg = root.querySelector('pedelec-tool > pedelec-arg')!;
        const strayArg = root.querySelector('pedelec-arg[name="stray"]')!;
        // A tool and a stray arg are styled display: none; an arg inside a tool is not even in the flat tree.
        expect(getComputedStyle(tool).display, 'pedelec-tool').to.equal('none');
        expect(getComputedStyle(strayArg).display, 'stray pedelec-arg').to.equal('none');
        for (const el of [tool, nestedArg, strayArg])
          expect(el.getClientRects().length, `boxes of ${el.outerHTML}`).to.equal(0);
      }
      expect(toolNames(sessionIn(host))).to.deep.equal(['t', 's']);
    });

    it('guidance text never shows: not when the page replaces document.adoptedStyleSheets, nor under a display rule of its own', async () => {
      const before = document.adoptedStyleSheets;
      const sheet = new CSSStyleSheet();
      sheet.replaceSync('.card * { display: block }');
      try {
        document.adoptedStyleSheets = [sheet]; // e.g. a CSS-in-JS library replacing the list
        const host = await mount(
          `<div class="card"><pedelec-session><pedelec-guidance>Secret agent instructions</pedelec-guidance><pedelec-tool name="t" description="d"></pedelec-tool></pedelec-session></div>`,
        );
        const guidance = host.querySelector('pedelec-guidance')!;
        expect(guidance.getClientRects().length, 'no box for the guidance').to.equal(0);
        expect(
          getComputedStyle(host.querySelector('pedelec-tool')!).display,
          'tools: the sheet is adopted again, !important',
        ).to.equal('none');
      } finally {
        document.adoptedStyleSheets = before;
      }
    });

    it('stays hidden when moved from the document into another shadow root', async () => {
      const tag = defineShadowHost('<slot></slot>');
      const host = await mount(`<div><${tag}></${tag}></div>`);
      const shadowRoot = host.querySelector(tag)!.shadowRoot!;
      const tool = document.createElement('pedelec-tool');
      tool.innerHTML = '<pedelec-arg name="x">arg text</pedelec-arg>text';
      const guidance = document.createElement('pedelec-guidance');
      guidance.textContent = 'guidance text';
      const arg = document.createElement('pedelec-arg');
      arg.textContent = 'stray arg text';
      host.append(tool, guidance, arg);
      for (const el of [tool, guidance, arg])
        expect(el.getClientRects().length, `${el.localName} in the document`).to.equal(0);
      shadowRoot.append(tool, guidance, arg); // now where the document's stylesheet does not reach
      for (const el of [tool, guidance, arg]) {
        expect(getComputedStyle(el).display, `${el.localName} moved into a shadow root`).to.equal('none');
        expect(el.getClientRects().length, `boxes of ${el.localName}`).to.equal(0);
      }
    });
  });

  describe('custom-elements.json', () => {
    type Declaration = {
      tagName?: string;
      summary?: string;
      attributes?: Array<{ name: string }>;
      members?: Array<{ kind: string; name: string; privacy?: string; static?: boolean }>;
      events?: Array<{ name?: string }>;
    };
    let declarations: Map<string, Declaration>;

    before(async () => {
      const response = await fetch('/custom-elements.json');
      const manifest = (await response.json()) as { modules: Array<{ declarations?: Declaration[] }> };
      declarations = new Map();
      for (const module of manifest.modules)
        for (const d of module.declarations ?? []) if (d.tagName) declarations.set(d.tagName, d);
    });

    const attributes = (tag: string) => (declarations.get(tag)?.attributes ?? []).map((a) => a.name);
    const members = (tag: string, kind: string) =>
      (declarations.get(tag)?.members ?? [])
        .filter((m) => m.kind === kind && !m.static && m.privacy !== 'private' && m.privacy !== 'protected')
        .map((m) => m.name);
    const events = (tag: string) => (declarations.get(tag)?.events ?? []).map((e) => e.name);

    it('declares the four elements, each with a summary', () => {
      for (const tag of ['pedelec-session', 'pedelec-tool', 'pedelec-arg', 'pedelec-guidance']) {
        expect(declarations.has(tag), tag).to.equal(true);
        expect(declarations.get(tag)!.summary, `${tag} summary`).to.be.a('string').and.not.equal('');
      }
    });

    it('<pedelec-session>: every attribute, property, method and event of elements.md', () => {
      expect(attributes('pedelec-session')).to.include.members([
        'provider',
        'model',
        'guidance',
        'bridge',
        'bridge-timeout-ms',
        'extension-id',
        'autostart',
        'persist',
        'session-id',
        'novalidate',
      ]);
      expect(members('pedelec-session', 'field')).to.include.members([
        'session',
        'client',
        'manifest',
        'tools',
        'fallback',
        'toolsStale',
        'status',
        'sessionId',
        'bridge',
      ]);
      expect(members('pedelec-session', 'method')).to.include.members([
        'start',
        'sendText',
        'prepare',
        'end',
        'restart',
        'checkAvailability',
        'onTool',
        'invoke',
      ]);
      expect(events('pedelec-session')).to.include.members([
        'pedelec-tool-start',
        'pedelec-tool-result',
        'pedelec-turn',
        'pedelec-ready',
        'pedelec-status',
        'pedelec-chat-delta',
        'pedelec-error',
        'pedelec-ended',
        'pedelec-tools-changed',
        'pedelec-warning',
      ]);
    });

    it('<pedelec-tool>: attributes, properties and its event', () => {
      expect(attributes('pedelec-tool')).to.include.members([
        'name',
        'description',
        'timeout-ms',
        'schema',
        'disabled',
      ]);
      expect(members('pedelec-tool', 'field')).to.include.members([
        'handler',
        'argsSchema',
        'definition',
        'invalidReason',
      ]);
      expect(events('pedelec-tool')).to.include.members(['pedelec-tool-call']);
    });

    it('<pedelec-arg>: every attribute of elements.md', () => {
      expect(attributes('pedelec-arg')).to.include.members([
        'name',
        'type',
        'required',
        'description',
        'enum',
        'minimum',
        'maximum',
        'min-length',
        'max-length',
        'pattern',
        'min-items',
        'max-items',
        'unique-items',
        'default',
        'examples',
        'items',
      ]);
    });

    it('declares only pedelec- prefixed event names (no unnamed or analyzer-guessed events)', () => {
      for (const tag of ['pedelec-session', 'pedelec-tool', 'pedelec-arg', 'pedelec-guidance']) {
        const names = events(tag);
        for (const name of names)
          expect(name, `events of ${tag}: ${JSON.stringify(names)}`)
            .to.be.a('string')
            .and.match(/^pedelec-[a-z]+(-[a-z]+)*$/);
      }
    });
  });
});
