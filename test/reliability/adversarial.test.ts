/**
 * docs/design/reliability.md clauses that the suites per module covered only in part (see test/RELIABILITY.md):
 * hostile arguments through a live session (not just the validator; how long they take to check is
 * timed in test/perf/validation-time.node.test.ts), bad results and a disconnect
 * during a call as the page sees them on `<pedelec-session>`, a handler that never settles leaving
 * nothing alive, and forged context ids granting nothing. Bridge: the fake Chrome port.
 */
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../src/define.js';
import {
  Pedelec,
  type PedelecError,
  type PedelecErrorEvent,
  type PedelecSession,
  type PedelecSessionElement,
  type PedelecToolElement,
  type PedelecToolStartEvent,
  type ToolCallContext,
} from '../../src/index.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort, type Posted } from '../support/fake-chrome.js';
import { nextTask } from '../support/waits.js';
import { openClientCount } from '../../src/elements/session/client-pool.js';
import { approvedStatus, record, twoSessions } from '../elements/helpers.js';
import { installCounters, type Counters } from './harness.js';
import { until } from '../support/waits.js';

let fake: FakePort;
let clients: Pedelec[] = [];
let seq = 0;
let unhandled: unknown[] = [];
/** Capture phase: the test asserts on these itself (none are expected). */
const onRejection = (event: PromiseRejectionEvent) => {
  unhandled.push(event.reason);
  event.preventDefault();
};

beforeEach(() => {
  fake = installFakeChrome();
  clients = [];
  seq = 0;
  unhandled = [];
  window.addEventListener('unhandledrejection', onRejection, { capture: true });
});

afterEach(() => {
  clients.forEach((c) => c.disconnect());
  uninstallFakeChrome();
  window.removeEventListener('unhandledrejection', onRejection, { capture: true });
});

/** A few tasks: long enough for the browser to report an unhandled rejection. */
const tasks = async (n = 3) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};

async function open(tools: unknown[]): Promise<PedelecSession> {
  const client = new Pedelec();
  clients.push(client);
  const pending = client.createSession({ provider: 'codex', model: 'm', skills: { guidance: 'g', tools } as any });
  fake.respond({ sessionId: 's1' }, fake.last('create_session'));
  const session = await pending;
  session.sendText('hi').catch(() => {});
  return session;
}

function toolCall(toolRequestId: string, tool: string, args: unknown, extra: Record<string, unknown> = {}): void {
  fake.event('s1', 'tool_call', { seq: ++seq, toolRequestId, tool, args, ...extra });
}

/** Resolves once the page submitted a result for each of `ids` (to the fake Core, which does not answer). */
const submitted = (...ids: string[]) =>
  Promise.all(ids.map((id) => fake.request('submit_tool_result', (m) => m.toolRequestId === id)));

function resultOf(toolRequestId: string): any {
  const list = fake.posted.filter((m) => m.type === 'submit_tool_result' && m.toolRequestId === toolRequestId);
  expect(list, `one submit_tool_result for ${toolRequestId}`).to.have.length(1);
  return list[0]!.result;
}

const protoKeys = () =>
  [Object.prototype, Array.prototype, Function.prototype, String.prototype].map((p) =>
    Reflect.ownKeys(p).map(String).sort(),
  );

// ───────────────────────────── bad arguments, through a live session ─────────────────────────────

describe('reliability: hostile arguments reach a live session', () => {
  it('a 10 MB string over maxLength with a pathological pattern → TOOL_ARGS_INVALID, handler not called', async () => {
    const calls: unknown[] = [];
    await open([
      {
        name: 'note',
        description: 'Saves a note.',
        argsSchema: {
          type: 'object',
          properties: { text: { type: 'string', maxLength: 1000, pattern: '^(a+)+$' } },
          required: ['text'],
        },
        handler: (args: unknown) => calls.push(args),
      },
    ]);
    toolCall('r1', 'note', { text: `${'a'.repeat(10 * 1024 * 1024)}!` });
    const result = resultOf('r1');
    expect(result.error.code).to.equal('TOOL_ARGS_INVALID');
    expect(result.error.message).to.equal('text: must be at most 1000 characters');
    expect(calls).to.deep.equal([]);
  });

  it('a valid 10 MB string is checked and reaches the handler once', async () => {
    const lengths: number[] = [];
    await open([
      {
        name: 'note',
        description: 'Saves a note.',
        argsSchema: {
          type: 'object',
          properties: { text: { type: 'string', maxLength: 20_000_000, pattern: 'z$' } },
          required: ['text'],
        },
        handler: (args: { text: string }) => lengths.push(args.text.length),
      },
    ]);
    toolCall('r1', 'note', { text: `${'a'.repeat(10 * 1024 * 1024)}z` });
    expect(lengths).to.deep.equal([10 * 1024 * 1024 + 1]);
  });

  it('100 000 items with uniqueItems: a late duplicate → TOOL_ARGS_INVALID, handler not called; unique ones pass', async () => {
    const calls: number[] = [];
    await open([
      {
        name: 'tag',
        description: 'Tags records.',
        argsSchema: {
          type: 'object',
          properties: {
            records: {
              type: 'array',
              uniqueItems: true,
              items: { type: 'object', properties: { id: { type: 'integer' } } },
            },
          },
          required: ['records'],
        },
        handler: (args: { records: unknown[] }) => calls.push(args.records.length),
      },
    ]);
    const records = Array.from({ length: 100_000 }, (_, i) => ({ id: i, tags: ['x', i % 7] }));
    toolCall('r1', 'tag', { records: [...records, { tags: ['x', 5], id: 5 }] });
    expect(resultOf('r1').error).to.deep.include({
      code: 'TOOL_ARGS_INVALID',
      message: 'records: must not contain duplicates (items 5 and 100000 are equal)',
    });
    expect(calls).to.deep.equal([]);
    toolCall('r2', 'tag', { records });
    expect(calls).to.deep.equal([100_000]);
  });

  it('__proto__ and constructor keys are own data: validated, passed through, and no prototype changes', async () => {
    const before = protoKeys();
    const seen: unknown[] = [];
    await open([
      {
        name: 'configure',
        description: 'Configures.',
        argsSchema: JSON.parse(
          '{"type":"object","properties":{"__proto__":{"type":"object","properties":{"polluted":{"type":"boolean"}}},"constructor":{"type":"string"}},"required":["__proto__"]}',
        ),
        handler: (args: unknown) => {
          seen.push(args);
          return args;
        },
      },
    ]);
    toolCall('r1', 'configure', JSON.parse('{"__proto__":{"polluted":true},"constructor":"x"}'));
    toolCall('r2', 'configure', JSON.parse('{"__proto__":{"polluted":"yes"}}'));
    toolCall('r3', 'configure', JSON.parse('{"__proto__":{},"constructor":{"prototype":{"polluted":true}}}'));
    toolCall('r4', 'configure', {}); // `__proto__` inherited, not own: required is missing
    await submitted('r1', 'r2', 'r3', 'r4');
    expect(seen).to.have.length(1);
    expect(Object.getPrototypeOf(seen[0])).to.equal(Object.prototype);
    expect(Object.hasOwn(seen[0] as object, '__proto__')).to.equal(true);
    // Sent as read: a copy whose `__proto__` key is own data too.
    expect(resultOf('r1')).to.deep.equal(seen[0]);
    expect(Object.hasOwn(resultOf('r1'), '__proto__')).to.equal(true);
    expect(Object.getPrototypeOf(resultOf('r1'))).to.equal(Object.prototype);
    expect(resultOf('r2').error.message).to.equal('__proto__.polluted: must be a boolean');
    expect(resultOf('r3').error.message).to.match(/^constructor: must be a string/);
    expect(resultOf('r4').error.message).to.equal('__proto__: is required');
    expect(protoKeys()).to.deep.equal(before);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });

  it('nesting 100 000 deep: TOOL_ARGS_INVALID where the schema descends, accepted where it does not; no stack overflow', async () => {
    const calls: string[] = [];
    await open([
      {
        name: 'store',
        description: 'Stores.',
        argsSchema: {
          type: 'object',
          properties: {
            list: { type: 'array', uniqueItems: true, items: { type: 'object' } },
            blob: { type: 'object' },
          },
        },
        handler: () => calls.push('called'),
      },
    ]);
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    toolCall('r1', 'store', { list: [deep, deep] });
    expect(resultOf('r1').error).to.deep.include({
      code: 'TOOL_ARGS_INVALID',
      message: 'list[0]: nested deeper than 64 levels',
    });
    expect(calls).to.deep.equal([]);
    toolCall('r2', 'store', { blob: deep });
    await submitted('r2');
    expect(calls).to.deep.equal(['called']);
  });
});

// ───────────────────────────── the element's view ─────────────────────────────

async function startedElement(markup: ReturnType<typeof html>): Promise<PedelecSessionElement> {
  const el = await fixture<PedelecSessionElement>(markup);
  const started = el.start();
  await fake.answer('get_approval_status', approvedStatus());
  await fake.answer('create_session', { sessionId: 's1' });
  await started;
  return el;
}

/** Starts a turn; `turn` settles with 'done' or the error (wrapped: an async function would await it). */
async function openTurn(el: PedelecSessionElement): Promise<{ turn: Promise<unknown> }> {
  const turn = el.sendText('hi').then(
    () => 'done',
    (error: PedelecError) => error,
  );
  await fake.answer('send_text');
  return { turn };
}

/** Removes a started element and answers its end_session, so its shared client is closed. */
async function removeElement(el: PedelecSessionElement): Promise<void> {
  el.remove();
  await fake.answer('end_session');
  await until(() => openClientCount() === 0, 'the shared client to close');
}

const lastSubmit = (id: string): Posted | undefined =>
  fake.posted.find((m) => m.type === 'submit_tool_result' && m.toolRequestId === id);

describe('reliability: <pedelec-session> reports bad results and bridge faults as pedelec-error', () => {
  class Failure extends Error {}
  const cyclic = () => {
    const node: Record<string, unknown> = {};
    node.self = node;
    return node;
  };
  const bad: Array<[string, () => unknown, string]> = [
    ['a cycle', () => ({ node: cyclic() }), 'result.node.self'],
    ['a BigInt', () => ({ n: 1n }), 'result.n'],
    ['a function', () => ({ f: () => 1 }), 'result.f'],
    ['a symbol', () => [Symbol('s')], 'result[0]'],
    ['a Map', () => ({ m: new Map() }), 'result.m'],
    ['a Set', () => ({ s: new Set() }), 'result.s'],
    ['a DOM node', () => ({ el: document.body }), 'result.el'],
    ['NaN', () => ({ n: NaN }), 'result.n'],
    ['Infinity', () => ({ n: Infinity }), 'result.n'],
    ['an instance of a class extending a built-in', () => ({ p: new Failure('x') }), 'result.p'],
    ['undefined in an array', () => ({ list: [undefined] }), 'result.list[0]'],
  ];

  it('non-JSON results → TOOL_RESULT_INVALID with the path to the agent, one pedelec-error each; Date converted silently', async () => {
    const el = await startedElement(
      html`<pedelec-session provider="codex" model="m"
        ><pedelec-tool name="produce" description="Produces."></pedelec-tool
      ></pedelec-session>`,
    );
    const errors = record<PedelecErrorEvent>(el, 'pedelec-error');
    const tool = el.querySelector('pedelec-tool') as PedelecToolElement;
    await openTurn(el);
    for (const [label, value, path] of bad) {
      tool.handler = value;
      const id = `bad ${label}`;
      const reported = oneEvent(el, 'pedelec-error');
      fake.event('s1', 'tool_call', { seq: ++seq, toolRequestId: id, tool: 'produce', args: {} });
      await submitted(id);
      await reported;
      const result = lastSubmit(id)?.result;
      expect(result?.error, label).to.deep.include({ code: 'TOOL_RESULT_INVALID', details: { path } });
    }
    expect(errors.map((e) => [e.detail.error.code, (e.detail.error.details as { path: string }).path])).to.deep.equal(
      bad.map(([, , path]) => ['TOOL_RESULT_INVALID', path]),
    );
    tool.handler = () => ({ at: new Date(0) });
    fake.event('s1', 'tool_call', { seq: ++seq, toolRequestId: 'date', tool: 'produce', args: {} });
    await submitted('date');
    await nextTask(); // no pedelec-error follows
    expect(lastSubmit('date')?.result).to.deep.equal({ at: '1970-01-01T00:00:00.000Z' });
    expect(errors).to.have.length(bad.length);
    await removeElement(el);
  });

  it('a disconnect during a tool call: signal aborted, turn rejected, the late result → pedelec-error SUBMIT_TOOL_RESULT_FAILED (cause EXTENSION_DISCONNECTED), no unhandled rejection; restart() works', async () => {
    const el = await startedElement(
      html`<pedelec-session provider="codex" model="m"
        ><pedelec-tool name="slow" description="Slow."></pedelec-tool
      ></pedelec-session>`,
    );
    const errors = record<PedelecErrorEvent>(el, 'pedelec-error');
    let ctx!: ToolCallContext;
    let finish!: (value: unknown) => void;
    (el.querySelector('pedelec-tool') as PedelecToolElement).handler = (_args, c) => {
      ctx = c;
      return new Promise((resolve) => (finish = resolve));
    };
    const { turn } = await openTurn(el);
    const running = oneEvent(el, 'pedelec-tool-start');
    fake.event('s1', 'tool_call', { seq: ++seq, toolRequestId: 'c1', tool: 'slow', args: {} });
    await running; // its handler has its ctx
    fake.disconnect();
    expect(ctx.signal!.aborted).to.equal(true);
    expect(((await turn) as PedelecError).code).to.equal('EXTENSION_DISCONNECTED');
    finish({ late: true });
    await tasks();
    const failures = errors.map((e) => e.detail.error).filter((e) => e.code === 'SUBMIT_TOOL_RESULT_FAILED');
    expect(failures).to.have.length(1);
    expect(failures[0]!.details).to.deep.include({ tool: 'slow', toolRequestId: 'c1' });
    expect((failures[0]!.details as { cause: PedelecError }).cause.code).to.equal('EXTENSION_DISCONNECTED');
    expect(lastSubmit('c1'), 'nothing posted on the dead port').to.equal(undefined);
    expect(unhandled).to.deep.equal([]);
    expect(el.status).to.equal('error');

    // A normal turn afterwards: restart() reconnects (the fake hands out a fresh connection).
    fake.posted.length = 0;
    const restarted = el.restart();
    await fake.answer('get_approval_status', approvedStatus()); // on the new client
    await fake.answer('create_session', { sessionId: 's2' });
    await restarted;
    const next = el.sendText('again');
    await fake.answer('send_text');
    fake.event('s2', 'done', { seq: 1 });
    await next;
    expect(el.status).to.equal('idle');
    await removeElement(el);
  });
});

// ───────────────────────────── handler faults ─────────────────────────────

describe('reliability: a handler that never settles keeps nothing alive', () => {
  let counters: Counters;
  beforeEach(() => (counters = installCounters()));
  afterEach(() => counters.restore());

  it('its signal aborts at the deadline (nothing answered for it), and once the session ends no timer or pending request remains', async () => {
    const session = await open([
      { name: 'stuck', description: 'Never answers.', argsSchema: { type: 'object' }, timeoutMs: 30 },
    ]);
    await fake.answer('send_text');
    const signals: AbortSignal[] = [];
    session.onTool('stuck', (_args, ctx) => {
      signals.push(ctx.signal!);
      return new Promise(() => {});
    });
    toolCall('r1', 'stuck', {});
    toolCall('r2', 'stuck', {});
    expect(counters.timers(), 'one deadline timer per call that read its signal').to.equal(2);
    await until(() => signals.every((s) => s.aborted), 'the deadline');
    expect(signals.map((s) => (s.reason as PedelecError).code)).to.deep.equal(['TOOL_TIMEOUT', 'TOOL_TIMEOUT']);
    expect(
      fake.posted.filter((m) => m.type === 'submit_tool_result'),
      "Core's own timeout answers the agent",
    ).to.deep.equal([]);
    toolCall('r3', 'stuck', {}); // this one is still inside its deadline when the session ends
    expect(counters.timers()).to.equal(1);
    fake.event('s1', 'ended', { seq: ++seq });
    expect(signals[2]!.aborted).to.equal(true);
    expect((signals[2]!.reason as PedelecError).code).to.equal('SESSION_ENDED');
    expect(counters.timers(), 'no timer outlives the session').to.equal(0);
    expect(fake.posted.filter((m) => m.type === 'submit_tool_result')).to.deep.equal([]);
  });
});

// ───────────────────────────── context ids ─────────────────────────────

describe('reliability: context ids are not used for authorization', () => {
  it('a tool_call carrying forged context fields gets the same checks and a context built by the session', async () => {
    const el = await startedElement(
      html`<pedelec-session provider="codex" model="m">
        <pedelec-tool name="open" description="Open."
          ><pedelec-arg name="n" type="integer" required></pedelec-arg
        ></pedelec-tool>
        <pedelec-tool name="locked" description="Disabled later."></pedelec-tool>
      </pedelec-session>`,
    );
    const starts = record<PedelecToolStartEvent>(el, 'pedelec-tool-start');
    const contexts: ToolCallContext[] = [];
    (el.querySelector('pedelec-tool[name="open"]') as PedelecToolElement).handler = (_args, ctx) => {
      contexts.push(ctx);
      return 'ok';
    };
    const lockedCalls: unknown[] = [];
    const locked = el.querySelector('pedelec-tool[name="locked"]') as PedelecToolElement;
    locked.handler = (args) => lockedCalls.push(args);
    const changed = oneEvent(el, 'pedelec-tools-changed');
    locked.disabled = true;
    await changed;
    await openTurn(el);

    // Fields a forger might hope the kit trusts: a local call, the SDK as source, another turn.
    const forged = {
      source: 'sdk',
      local: true,
      via: 'local',
      turnKind: 'local',
      turnId: 'turn_forged',
      sessionCreatedAt: 0,
      provider: 'admin',
      deadline: 1,
    };
    fake.event('s1', 'tool_call', {
      seq: ++seq,
      toolRequestId: 'local_1',
      tool: 'open',
      args: { n: 'not a number' },
      ...forged,
    });
    fake.event('s1', 'tool_call', { seq: ++seq, toolRequestId: 'local_2', tool: 'locked', args: {}, ...forged });
    fake.event('s1', 'tool_call', { seq: ++seq, toolRequestId: 'local_3', tool: 'open', args: { n: 1 }, ...forged });
    await submitted('local_1', 'local_2', 'local_3');
    expect(lastSubmit('local_1')?.result.error.code, 'still validated').to.equal('TOOL_ARGS_INVALID');
    expect(lastSubmit('local_2')?.result.error.code, 'still unavailable').to.equal('TOOL_UNAVAILABLE');
    expect(lockedCalls).to.deep.equal([]);
    expect(lastSubmit('local_3')?.result).to.equal('ok');
    const [ctx] = contexts;
    expect(ctx).to.deep.include({
      source: 'core',
      turnKind: 'user',
      provider: 'codex',
      sessionId: 's1',
      via: 'pedelec',
    });
    expect(ctx!.turnId)
      .to.match(/^turn_\d+_/)
      .and.not.equal('turn_forged');
    expect(ctx!.deadline).to.be.above(Date.now());
    expect(starts.map((e) => e.detail.via)).to.deep.equal(['pedelec', 'pedelec', 'pedelec']);

    // A local invoke() numbered like the forged call is another call: the agent's did not touch it.
    const local = await el.invoke('open', { n: 2 });
    expect(local).to.deep.equal({ ok: true, result: 'ok' });
    expect(
      fake.posted.filter((m) => m.type === 'submit_tool_result'),
      'invoke() posts nothing',
    ).to.have.length(3);
    await removeElement(el);
  });

  it('a tool_call naming a session of another client (channel) never reaches that session', async () => {
    const first = await open([
      { name: 'secret', description: 'Secret.', argsSchema: { type: 'object' }, handler: () => 'secret' },
    ]);
    const calls: unknown[] = [];
    first.onTool('secret', () => calls.push('called'));
    // Same session id, but the message comes on another channel: another client's conversation.
    fake.emit({
      channelId: 'pedelec_forged',
      type: 'tool_call',
      sessionId: 's1',
      seq: ++seq,
      toolRequestId: 'x1',
      tool: 'secret',
      args: {},
    });
    await nextTask(); // a call would have run by now
    expect(calls).to.deep.equal([]);
    expect(fake.posted.filter((m) => m.type === 'submit_tool_result')).to.deep.equal([]);
  });
});

// ───────────────────────────── lifecycle ─────────────────────────────

describe('reliability: a session element removed while it starts', () => {
  it('ends the session Core creates after the removal (shared client still open), and stays inactive', async () => {
    const [stays, leaves] = await twoSessions();
    const starting = stays.start();
    await fake.answer('get_approval_status', approvedStatus());
    await fake.answer('create_session', { sessionId: 's1' });
    await starting;

    const start = leaves.start().then(
      (session) => session,
      (error: PedelecError) => error,
    );
    await fake.answer('get_approval_status', approvedStatus());
    const create = await fake.request('create_session');
    leaves.remove();
    await nextTask(); // teardown ran (a microtask after removal)
    fake.answered.add(create);
    fake.respond({ sessionId: 's2' }, create);
    await start;
    await fake.request('end_session');
    const ends = fake.posted.filter((m) => m.type === 'end_session');
    expect(
      ends.map((m) => m.sessionId),
      'the orphan session is ended',
    ).to.deep.equal(['s2']);
    fake.answered.add(ends[0]!);
    fake.respond({}, ends[0]);
    await nextTask();
    expect(leaves.session).to.equal(null);
    expect(leaves.status).to.equal('inactive');
    expect(stays.status).to.equal('idle');
    await removeElement(stays);
  });

  it('alone on its client: the start rejects SESSION_ENDED, and the element stays inactive without a pedelec-error', async () => {
    const root = await fixture<HTMLDivElement>(
      html`<div><pedelec-session provider="codex" model="m"></pedelec-session></div>`,
    );
    const el = root.querySelector('pedelec-session') as PedelecSessionElement;
    const errors = record<PedelecErrorEvent>(el, 'pedelec-error');
    const start = el.start().then(
      () => null,
      (error: PedelecError) => error,
    );
    await fake.answer('get_approval_status', approvedStatus());
    await fake.request('create_session');
    el.remove();
    await nextTask(); // teardown ran (a microtask after removal)
    expect((await start)?.code).to.equal('SESSION_ENDED');
    expect(el.status).to.equal('inactive');
    expect(el.session).to.equal(null);
    expect(errors).to.deep.equal([]);
    expect(openClientCount()).to.equal(0);
  });
});
