/**
 * Schemas and tool entries built to break normalization (reliability.md "Bad declarations"): width
 * never costs recursion, depth beyond 64 levels is left unvalidated, and whatever still throws while
 * one tool is read rejects createSession with INVALID_INPUT — never with a stack overflow's RangeError.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import type { PedelecError } from '../../../src/core/index.js';
import { fake, newClient, open, startTurn, toolCall, resultOf, skillsOf, toolHooks } from './harness.js';
import { rejection } from '../../support/promises.js';

toolHooks();

/** An object schema with `count` integer properties `p0`, `p1`, …, all required. */
function wideSchema(count: number) {
  const properties: Record<string, { type: 'integer' }> = {};
  for (let i = 0; i < count; i++) properties[`p${i}`] = { type: 'integer' };
  return { type: 'object', properties, required: Object.keys(properties) };
}

/** `levels` object nodes, each holding the next as its property `x`; the innermost holds `leaf`. */
function deepSchema(levels: number, leaf: unknown) {
  let node: unknown = leaf;
  for (let i = 0; i < levels; i++) node = { type: 'object', properties: { x: node } };
  return node as { type: 'object' };
}

/** Args `{ x: { x: … value } }`, `levels` objects deep. */
function deepArgs(levels: number, value: unknown) {
  let args: unknown = value;
  for (let i = 0; i < levels; i++) args = { x: args };
  return args;
}

describe('hostile schemas and tool entries', () => {
  it('a schema of 16 000 properties creates the session and validates every property (it used to throw RangeError)', async () => {
    const count = 16_000;
    const tool = { name: 'wide', description: 'Takes many numbers.', argsSchema: wideSchema(count) };
    const { session } = await open(skillsOf(tool));
    let calls = 0;
    session.onTool('wide', () => ++calls);
    startTurn(session);

    const args: Record<string, unknown> = {};
    for (let i = 0; i < count; i++) args[`p${i}`] = i;
    toolCall('r1', 'wide', args);
    expect(resultOf('r1')).to.equal(1);

    // The last property is checked as the first is.
    toolCall('r2', 'wide', { ...args, [`p${count - 1}`]: 'x' });
    expect(resultOf('r2').error).to.include({
      code: 'TOOL_ARGS_INVALID',
      message: `p${count - 1}: must be an integer`,
    });
    const { [`p${count - 1}`]: _last, ...missing } = args;
    toolCall('r3', 'wide', missing);
    expect(resultOf('r3').error).to.include({ code: 'TOOL_ARGS_INVALID', message: `p${count - 1}: is required` });
    expect(calls).to.equal(1);
  });

  it('100 000 required names are compiled and checked (linear time: test/perf/validation-time.node.test.ts)', async () => {
    const required = Array.from({ length: 100_000 }, (_, i) => `r${i}`);
    const tool = { name: 'many', description: 'Requires many names.', argsSchema: { type: 'object', required } };
    const { session } = await open(skillsOf(tool), { onWarning: () => {} });
    let calls = 0;
    session.onTool('many', () => ++calls);
    startTurn(session);
    toolCall('r1', 'many', Object.fromEntries(required.map((name) => [name, 1])));
    expect(resultOf('r1')).to.equal(1);
    toolCall('r2', 'many', {});
    // Every failing path is named, up to the ten errors one validation reports.
    const names = Array.from({ length: 10 }, (_, i) => `r${i}: is required`).join('; ');
    expect(resultOf('r2').error).to.include({ code: 'TOOL_ARGS_INVALID', message: names });
  });

  it('schema nodes deeper than 64 levels are left unvalidated with one SCHEMA_NOT_VALIDATED; the levels above are validated', async () => {
    const warnings: PedelecError[] = [];
    // 70 object levels under the root, then a string: nodes 66 and below are beyond the bound.
    const argsSchema = deepSchema(70, { type: 'string' });
    const tool = { name: 'deep', description: 'Takes nested objects.', argsSchema };
    const { session } = await open(skillsOf(tool), { onWarning: (w) => warnings.push(w) });
    expect(fake.last('create_session').input.skills.tools[0].argsSchema, 'sent as given').to.deep.equal(argsSchema);
    expect(warnings.map((w) => w.code)).to.deep.equal(['SCHEMA_NOT_VALIDATED']);
    const [path] = (warnings[0]!.details as { paths: string[] }).paths;
    // The first node not compiled is the 65th: 64 `.properties.x` steps below the root.
    expect(path).to.equal(`argsSchema${'.properties.x'.repeat(64)}`);

    let calls = 0;
    session.onTool('deep', () => ++calls);
    startTurn(session);
    // Above the bound, a wrong type is refused; at and below it, anything passes (not validated).
    toolCall('r1', 'deep', deepArgs(10, 5));
    expect(resultOf('r1').error?.code).to.equal('TOOL_ARGS_INVALID');
    toolCall('r2', 'deep', deepArgs(64, 5));
    expect(resultOf('r2')).to.equal(1);
    expect(calls).to.equal(1);
  });

  it('a tool entry whose getter throws rejects createSession with INVALID_INPUT, and posts nothing', async () => {
    const good = { name: 'good', description: 'Works.', argsSchema: { type: 'object' } };
    const hostile = {
      name: 'hostile',
      get description(): string {
        throw new Error('description is not readable');
      },
      argsSchema: { type: 'object' },
    };
    const error = await rejection(
      newClient().createSession({ provider: 'codex', model: 'm', skills: skillsOf(good, hostile) } as any),
    );
    expect(error).to.include({ code: 'INVALID_INPUT' });
    expect(error.message).to.contain('description is not readable');
    expect(fake.posted).to.deep.equal([]);
  });
});
