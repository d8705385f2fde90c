/**
 * Shared by the declaration tests (test/elements/declarations/*.test.ts): an args schema that uses
 * every keyword <pedelec-arg> can declare, the same schema as markup, lookups in a fixture, and the
 * hooks every file runs its tests under (a fresh fake Chrome port per test, `fake`).
 */
import type { PedelecErrorEvent, PedelecSessionElement, PedelecToolElement } from '../../../src/index.js';
import { installFakeChrome, uninstallFakeChrome, uniqueTag, type FakePort } from '../helpers.js';

/** One args schema that uses every keyword <pedelec-arg> can declare. */
export const SCHEMA = {
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
export const SCHEMA_AS_ARGS = `
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

export const EMPTY_SCHEMA = { type: 'object', properties: {} };

export function sessionIn(host: Element, selector = 'pedelec-session'): PedelecSessionElement {
  const found = host.querySelector(selector);
  if (!found) throw new Error(`no ${selector} in the fixture`);
  return found as PedelecSessionElement;
}

export function toolIn(root: ParentNode, name: string): PedelecToolElement {
  const found = root.querySelector(`pedelec-tool[name="${name}"]`);
  if (!found) throw new Error(`no pedelec-tool named ${name}`);
  return found as PedelecToolElement;
}

export function makeTool(name: string, description = `The ${name} tool.`): PedelecToolElement {
  const tool = document.createElement('pedelec-tool');
  tool.setAttribute('name', name);
  tool.setAttribute('description', description);
  return tool;
}

/** A tiny component with an open shadow root holding `inner` (defined once per call, unique tag). */
export function defineShadowHost(inner: string): string {
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

export type ErrorDetails = { tool: string | null; reason: string; path?: string };
export const detailsOf = (event: PedelecErrorEvent) => event.detail.error.details as ErrorDetails;

/** The fake Chrome port of the running test (installed by {@link declarationHooks}). */
export let fake: FakePort;

/** Registers, in the calling `describe`, a fresh fake Chrome port before each test, removed after it. */
export function declarationHooks(): void {
  beforeEach(() => (fake = installFakeChrome()));
  afterEach(() => uninstallFakeChrome());
}
