/**
 * Tools built to break normalization (reliability.md "Bad declarations"): one such tool never takes the
 * session's other tools down with it. A schema of 16 000 properties is offered and validated (the
 * validator used to recurse once per four properties and throw RangeError, and the session then
 * started with no tools at all and no pedelec-error); a tool entry that throws when read is left out
 * alone, with its pedelec-error.
 */
import { expect } from '@open-wc/testing';
import '../../../src/define.js';
import type { PedelecErrorEvent, PedelecWarningEvent, ToolDefinition } from '../../../src/index.js';
import { sessionIn, fake, declarationHooks } from './harness.js';
import { beginTurn, callTool, endSession, finishTurn, mountHost, record, startSession, toolNames } from '../helpers.js';
import { nextTask } from '../../support/waits.js';

const MARKUP = `<pedelec-session provider="codex" model="m">
  <pedelec-tool name="good" description="Works."><pedelec-arg name="n" type="integer"></pedelec-arg></pedelec-tool>
</pedelec-session>`;

describe('declarations: tools built to break normalization', () => {
  declarationHooks();

  it('a schema of 16 000 properties is offered beside the other tools, and a call to it is validated', async () => {
    const count = 16_000;
    const properties: Record<string, { type: 'integer' }> = {};
    for (let i = 0; i < count; i++) properties[`p${i}`] = { type: 'integer' };
    const host = await mountHost();
    const errors = record<PedelecErrorEvent>(host, 'pedelec-error');
    host.innerHTML = MARKUP;
    const session = sessionIn(host);
    session.tools = [{ name: 'wide', description: 'Takes many numbers.', argsSchema: { type: 'object', properties } }];
    let calls = 0;
    session.onTool('wide', () => ++calls);
    await nextTask();
    expect(toolNames(session)).to.deep.equal(['good', 'wide']);
    expect(errors).to.have.length(0);

    const create = await startSession(session, fake);
    expect(create.input.skills.tools.map((t: { name: string }) => t.name)).to.deep.equal(['good', 'wide']);
    const { turn } = await beginTurn(session, fake);
    const refused = await callTool(fake, 'wide', { [`p${count - 1}`]: 'x' });
    expect(refused.result.error).to.include({
      code: 'TOOL_ARGS_INVALID',
      message: `p${count - 1}: must be an integer`,
    });
    expect((await callTool(fake, 'wide', { p0: 1 }, { seq: 2 })).result).to.equal(1);
    expect(calls).to.equal(1);
    await finishTurn(turn, fake);
    await endSession(session, fake);
  });

  it('a tools entry that throws when read is left out alone, with one pedelec-error INVALID_INPUT', async () => {
    const host = await mountHost();
    const errors = record<PedelecErrorEvent>(host, 'pedelec-error');
    const warnings = record<PedelecWarningEvent>(host, 'pedelec-warning');
    host.innerHTML = MARKUP;
    const session = sessionIn(host);
    const hostile = {
      name: 'hostile',
      get description(): string {
        throw new Error('description is not readable');
      },
      argsSchema: { type: 'object' },
    } as unknown as ToolDefinition;
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    session.tools = [
      hostile,
      revoked.proxy as ToolDefinition,
      { name: 'fine', description: 'Also works.', argsSchema: { type: 'object' } },
    ];
    await nextTask();
    expect(toolNames(session)).to.deep.equal(['good', 'fine']);
    expect(errors.map((e) => e.detail.error.code)).to.deep.equal(['INVALID_INPUT', 'INVALID_INPUT']);
    expect(errors[0]!.detail.error.message).to.contain('description is not readable');
    expect(errors[0]!.detail.error.message).to.match(/^tool: tool could not be read \(/);
    expect(warnings).to.have.length(0);

    const create = await startSession(session, fake);
    expect(create.input.skills.tools.map((t: { name: string }) => t.name)).to.deep.equal(['good', 'fine']);
    await endSession(session, fake);
  });
});
