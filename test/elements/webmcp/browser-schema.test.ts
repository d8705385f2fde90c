/**
 * Schemas validating browsers accept (agents-2026 §2; docs/webmcp.md "Schemas the browser accepts"):
 * a tool whose args schema uses keywords outside the browsers' set is registered with a copy that
 * keeps only that set — one `WEBMCP_SCHEMA_REDUCED` warning names the paths left out — while the kit
 * still refuses, on the browser agent's calls, the args the full schema refuses.
 */
import { expect } from '@open-wc/testing';
import type { PedelecSessionElement, PedelecWarningEvent } from '../../../src/index.js';
import { mountHost, record } from '../helpers.js';
import { until } from '../../support/waits.js';
import { callAsAgent, listedSo, recordContext, textOf, webmcpHooks } from './harness.js';

/** The keywords a validating browser takes (docs/webmcp.md). */
const ACCEPTED = new Set([
  'type',
  'properties',
  'required',
  'enum',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'items',
  'prefixItems',
  'additionalProperties',
  'default',
  'description',
]);

/** Every keyword of `node` and of the nodes below it, with `additionalProperties`' values. */
function keywordsIn(node: any, out: string[] = []): string[] {
  for (const [key, value] of Object.entries(node)) {
    out.push(key === 'additionalProperties' ? `additionalProperties:${JSON.stringify(value)}` : key);
    if (key === 'properties') for (const child of Object.values(value as object)) keywordsIn(child, out);
    if (key === 'items' && value && typeof value === 'object') keywordsIn(value, out);
  }
  return out;
}

const ORDER_SCHEMA = {
  type: 'object',
  properties: {
    email: { type: 'string', format: 'email', description: 'Where the receipt goes.' },
    tags: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, uniqueItems: true },
    size: {
      oneOf: [
        { type: 'integer', minimum: 1 },
        { type: 'string', enum: ['S', 'M', 'L'] },
      ],
    },
    ref: { $ref: '#/properties/email' },
    extra: { type: 'object', additionalProperties: true },
    choice: { anyOf: [{ type: 'string' }, { type: 'number' }] },
    code: { type: 'string', pattern: '^[A-Z]{3}$' },
  },
  required: ['email', 'tags'],
  additionalProperties: false,
};

describe('<pedelec-session webmcp>: schemas validating browsers accept', () => {
  webmcpHooks();
  let recording: ReturnType<typeof recordContext> | undefined;
  afterEach(() => recording?.restore());

  it('registers only the accepted keywords, says once what it left out, and still refuses what the full schema refuses', async () => {
    recording = recordContext();
    const host = await mountHost();
    const warnings = record<PedelecWarningEvent>(host, 'pedelec-warning');
    host.innerHTML = '<pedelec-session webmcp></pedelec-session>';
    const el = host.querySelector('pedelec-session') as PedelecSessionElement;
    el.tools = [
      {
        name: 'order',
        description: 'Place an order.',
        argsSchema: ORDER_SCHEMA as any,
        handler: () => ({ placed: true }),
      },
    ];
    await listedSo('order', () => true, 'the tool listed');

    const [sent] = recording.registered.filter((r) => r.name === 'order');
    const keywords = keywordsIn(sent.tool.inputSchema);
    expect(keywords.filter((k) => !ACCEPTED.has(k.split(':')[0]) || k === 'additionalProperties:true')).to.deep.equal(
      [],
    );
    expect(sent.tool.inputSchema).to.deep.equal({
      type: 'object',
      properties: {
        email: { type: 'string', description: 'Where the receipt goes.' },
        tags: { type: 'array', items: { type: 'string', minLength: 1 } },
        size: {},
        ref: {},
        extra: { type: 'object' },
        choice: {},
        code: { type: 'string', pattern: '^[A-Z]{3}$' },
      },
      required: ['email', 'tags'],
      additionalProperties: false,
    });

    await until(() => warnings.some((w) => w.detail.warning.code === 'WEBMCP_SCHEMA_REDUCED'), 'the warning');
    const reduced = warnings.filter((w) => w.detail.warning.code === 'WEBMCP_SCHEMA_REDUCED');
    expect(reduced).to.have.length(1);
    expect(reduced[0].detail.warning.details).to.deep.equal({
      tool: 'order',
      paths: [
        'argsSchema.properties.email.format',
        'argsSchema.properties.tags.minItems',
        'argsSchema.properties.tags.uniqueItems',
        'argsSchema.properties.size.oneOf',
        'argsSchema.properties.ref.$ref',
        'argsSchema.properties.extra.additionalProperties',
        'argsSchema.properties.choice.anyOf',
      ],
    });

    // The kit's own check is the full schema's: minItems, uniqueItems and oneOf still refuse.
    for (const [args, reason] of [
      [{ email: 'a@b.c', tags: [] }, 'minItems'],
      [{ email: 'a@b.c', tags: ['x', 'x'] }, 'uniqueItems'],
      [{ email: 'a@b.c', tags: ['x'], size: true }, 'oneOf'],
    ] as const) {
      const answer = await callAsAgent('order', args);
      expect(answer.isError, JSON.stringify(args)).to.equal(true);
      expect(textOf(answer)).to.match(/^TOOL_ARGS_INVALID: /);
      // Firefox's older API passes on the text only; Chromium's keeps the structured error.
      if (answer.structuredContent)
        expect(answer.structuredContent.error.details.errors.map((e: any) => e.reason)).to.deep.equal([reason]);
    }
    expect(await callAsAgent('order', { email: 'a@b.c', tags: ['x'], size: 'M' })).to.deep.include({
      structuredContent: { placed: true },
    });

    // Said once per tool: registering it again (a description change) says nothing new.
    el.tools = [{ ...el.tools[0], description: 'Place an order now.' }];
    await listedSo('order', (t) => t.description === 'Place an order now.', 'the new description');
    expect(warnings.filter((w) => w.detail.warning.code === 'WEBMCP_SCHEMA_REDUCED')).to.have.length(1);
  });

  it('a schema inside the accepted set is registered as it is, without a warning', async () => {
    recording = recordContext();
    const host = await mountHost();
    const warnings = record<PedelecWarningEvent>(host, 'pedelec-warning');
    host.innerHTML = `<pedelec-session webmcp>
        <pedelec-tool name="count" description="Count.">
          <pedelec-arg name="n" type="integer" minimum="1" maximum="9" required></pedelec-arg>
          <pedelec-arg name="label" type="string" pattern="^a" min-length="1"></pedelec-arg>
        </pedelec-tool>
      </pedelec-session>`;
    await listedSo('count', () => true, 'the tool listed');
    const [sent] = recording.registered.filter((r) => r.name === 'count');
    expect(sent.tool.inputSchema).to.deep.equal({
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 1, maximum: 9 },
        label: { type: 'string', pattern: '^a', minLength: 1 },
      },
      required: ['n'],
    });
    expect(warnings.map((w) => w.detail.warning.code)).to.deep.equal([]);
  });
});
