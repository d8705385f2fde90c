/**
 * invoke() answers exactly as an agent call would (spec/elements.md), found in review; each test failed
 * before its fix: a JS tool whose handler was taken away goes to the fallback; args that throw when read
 * give TOOL_ARGS_INVALID (never a throw, and every tool-start has its tool-result); a tool that went away
 * while the session is starting is TOOL_UNAVAILABLE, as a moment later.
 */
/**
 * Review r18: handler resolution for JS tools and invoke() (spec/elements.md "invoke()", "Changes after
 * start", "Handler resolution for element tools"; spec/tools-api.md "Handler resolution").
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../src/define.js';
import type { PedelecSessionElement, PedelecToolResultEvent, PedelecToolStartEvent } from '../../src/index.js';
import { approvedStatus, installFakeChrome, nextTask, record, uninstallFakeChrome, type FakePort } from './helpers.js';

let fake: FakePort;
beforeEach(() => {
  fake = installFakeChrome();
});
afterEach(() => {
  fake.disconnect(); // a shared client left open by a failing test is dead for the next one
  uninstallFakeChrome();
});

const schema = { type: 'object', properties: {} } as const;

describe('invoke() as an agent call', () => {
  it('invoke() before start: a JS tool whose handler was taken away goes to the fallback, as an agent call does', async () => {
    const el = await fixture<PedelecSessionElement>(
      html`<pedelec-session provider="codex" model="m"></pedelec-session>`,
    );
    el.tools = [{ name: 'js', description: 'JS.', argsSchema: schema, handler: () => 'old handler' }];
    await nextTask();
    expect(await el.invoke('js', {})).to.deep.equal({ ok: true, result: 'old handler' });
    // The same tool, now without a handler: no inline handler any more, so the fallback answers.
    el.tools = [{ name: 'js', description: 'JS.', argsSchema: schema }];
    el.fallback = (tool) => `fallback for ${tool}`;
    await nextTask();
    expect(await el.invoke('js', {})).to.deep.equal({ ok: true, result: 'fallback for js' });
  });

  it('invoke() never throws or rejects, and still fires pedelec-tool-result, when reading the args throws', async () => {
    const el = await fixture<PedelecSessionElement>(
      html`<pedelec-session provider="codex" model="m">
        <pedelec-tool name="t" description="T."><pedelec-arg name="n" type="integer"></pedelec-arg></pedelec-tool>
      </pedelec-session>`,
    );
    el.fallback = () => 'ran';
    const starts = record<PedelecToolStartEvent>(el, 'pedelec-tool-start');
    const results = record<PedelecToolResultEvent>(el, 'pedelec-tool-result');
    await nextTask();
    const args = {
      get n(): number {
        throw new Error('boom');
      },
    };
    let outcome: unknown;
    try {
      outcome = await el.invoke('t', args);
    } catch (error) {
      outcome = { threw: String(error) };
    }
    expect(outcome).to.have.property('ok', false);
    expect(results.length, 'one pedelec-tool-result per pedelec-tool-start').to.equal(starts.length);
  });

  it('invoke() while starting: a tool that went away after its manifest was taken gets TOOL_UNAVAILABLE, not the fallback', async () => {
    const el = await fixture<PedelecSessionElement>(
      html`<pedelec-session provider="codex" model="m">
        <pedelec-tool name="x" description="X."></pedelec-tool>
      </pedelec-session>`,
    );
    const ran: string[] = [];
    el.fallback = (tool) => ran.push(`fallback ${tool}`);
    await nextTask();
    const starting = el.start(); // create_session (with x) is on its way: x is being sent to Core
    await fake.request('get_approval_status');
    el.querySelector('pedelec-tool')!.remove();
    await nextTask();
    expect(el.status).to.equal('starting');
    const whileStarting = await el.invoke('x', {});
    await fake.answer('get_approval_status', approvedStatus());
    await fake.answer('create_session', { sessionId: 's1' });
    await starting;
    const afterStart = await el.invoke('x', {});
    expect(afterStart).to.deep.include({ ok: false });
    expect(whileStarting, 'the same answer as a moment later').to.deep.equal(afterStart);
    expect(ran).to.deep.equal([]);
    const ending = el.end();
    await fake.answer('end_session');
    await ending;
  });
});
