/**
 * Property-based fuzzing of the bridge (docs/design/reliability.md "Bridge faults"): at least 10 000 random
 * and mutated bridge messages reach a client with two live sessions (one mid-turn); afterwards no
 * uncaught error or unhandled rejection occurred, no prototype was modified, and a normal turn still
 * works on a fresh session of the same client.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import { expect } from '../support/expect.js';
import fc from 'fast-check';
import { Pedelec, type PedelecSession } from '../../src/core/index.js';
import type { PedelecError } from '../../src/core/errors.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../support/fake-chrome.js';
import { nextTask } from '../support/waits.js';

const SEED = 20240917;
const NUM_RUNS = 100;
const BATCH = 100;
const MiB = 1024 * 1024;
const HUGE = 'x'.repeat(MiB);
const HUGE_UNICODE = '\u{1F6B2}'.repeat(MiB / 4);
const FRESH_ID = 'fresh-after-fuzz';

/** A requestId to be replaced, at delivery, by the id of the n-th request the page really posted. */
const POSTED = Symbol('posted');
type PostedRef = { [POSTED]: number };
/** A `seq` to be replaced, at delivery, by a running counter plus this offset: repeats and reorderings. */
const SEQ = Symbol('seq');
type SeqRef = { [SEQ]: number };

const protoKeys = () => ({
  object: Reflect.ownKeys(Object.prototype).map(String).sort(),
  array: Reflect.ownKeys(Array.prototype).map(String).sort(),
  func: Reflect.ownKeys(Function.prototype).map(String).sort(),
  promise: Reflect.ownKeys(Promise.prototype).map(String).sort(),
});

/** `{"__proto__": payload, ...rest}` parsed by JSON.parse: an own `__proto__` key, as the wire gives it. */
function withProtoKey(rest: unknown, payload: unknown): unknown {
  const stringify = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? String(x) : x)) ?? 'null';
  const body = rest !== null && typeof rest === 'object' && !Array.isArray(rest) ? stringify(rest).slice(1, -1) : '';
  return JSON.parse(`{"__proto__":${stringify(payload)}${body ? `,${body}` : ''}}`);
}

describe('bridge fuzzing (fast-check)', () => {
  let fake: FakePort;
  let client: Pedelec | undefined;
  const uncaught: unknown[] = [];
  // Node's: an exception nothing caught (in a timer, a listener) and a rejection nothing handled.
  const onUncaught = (error: unknown) => void uncaught.push(error);

  beforeEach(() => {
    uncaught.length = 0;
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onUncaught);
    fake = installFakeChrome();
  });

  afterEach(async () => {
    client?.disconnect();
    client = undefined;
    await nextTask();
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
    uninstallFakeChrome();
  });

  it('survives 10 000 random and mutated messages, then runs a normal turn', { timeout: 60_000 }, async () => {
    const protoBefore = protoKeys();
    const warnings: PedelecError[] = [];
    client = new Pedelec({ bridgeTimeoutMs: 2_000, onWarning: (w) => warnings.push(w) });
    const c = client;
    const channelId = c.channelId;

    // Two live sessions; one that a fuzzed message ends is replaced (same id) before the next batch.
    const sessionErrors: PedelecError[] = [];
    const open = async (id: string): Promise<PedelecSession<string>> => {
      const creating = c.createSession({ provider: 'codex', model: 'm' });
      fake.respond({ sessionId: id }, fake.last('create_session'));
      const s = await creating;
      // Handlers and listeners of every kind, some of them throwing.
      s.onError((e) => sessionErrors.push(e));
      s.onStatus(() => {});
      s.onEnded(() => {});
      s.onChat(() => {
        throw new Error('a listener that throws');
      });
      if (id === 's1') {
        s.onTool((tool, args, ctx) => {
          if (tool === 'throw') throw new Error('handler threw');
          if (tool === 'reject') return Promise.reject(new Error('handler rejected'));
          if (tool === 'signal') return new Promise((resolve) => setTimeout(() => resolve(ctx.signal!.aborted), 0));
          if (tool === 'bad') return () => 1;
          return args;
        });
      }
      return s;
    };
    let s1 = await open('s1');
    let s2 = await open('s2');

    // s1 mid-turn: send_text answered, the turn still running; a catch handler is attached.
    let firstTurn: 'pending' | 'resolved' | 'rejected' = 'pending';
    s1.sendText('hello').then(
      () => (firstTurn = 'resolved'),
      () => (firstTurn = 'rejected'),
    );
    fake.respond({}, fake.last('send_text'));
    await nextTask();
    expect(s1.getStatus()).to.equal('running');
    expect(firstTurn).to.equal('pending');

    // ─────────────── arbitraries ───────────────
    const json = fc.jsonValue({ maxDepth: 3 });
    const protoObject = fc.tuple(json, json).map(([rest, payload]) => withProtoKey(rest, payload));
    const weird = fc.oneof(
      { weight: 6, arbitrary: json },
      { weight: 2, arbitrary: protoObject },
      {
        weight: 1,
        arbitrary: fc.constantFrom<unknown>(
          null,
          undefined,
          0,
          -1,
          NaN,
          Infinity,
          true,
          false,
          '',
          [],
          {},
          [[]],
          '__proto__',
          'constructor',
          'toString',
        ),
      },
      {
        weight: 1,
        arbitrary: fc.anything({
          maxDepth: 2,
          withNullPrototype: true,
          withBigInt: true,
          withMap: true,
          withSet: true,
          withDate: true,
        }),
      },
    );
    /** A huge string: rare (a few times per run). */
    const huge = fc.constantFrom(HUGE, HUGE_UNICODE);
    const str = fc.oneof({ weight: 30, arbitrary: fc.string({ maxLength: 40 }) }, { weight: 1, arbitrary: huge });
    const field = <T>(valid: fc.Arbitrary<T>) =>
      fc.oneof(
        { weight: 6, arbitrary: valid as fc.Arbitrary<unknown> },
        { weight: 3, arbitrary: weird },
        { weight: 1, arbitrary: str },
      );

    const channel = fc.constantFrom<unknown>(
      channelId,
      channelId,
      channelId,
      undefined,
      'pedelec_other_client',
      `${channelId} `,
    );
    const sessionId = fc.constantFrom<unknown>('s1', 's1', 's2', 's2', 'unknown-session', '', 'S1', 's1 ');
    const requestId = fc.oneof(
      fc.nat(1_000).map((i): PostedRef => ({ [POSTED]: i })),
      fc.constantFrom<unknown>('sdk_0_0', 'nope', '', 0),
    );
    const seq = fc.oneof(
      { weight: 10, arbitrary: fc.integer({ min: -4, max: 2 }).map((d): SeqRef => ({ [SEQ]: d })) },
      { weight: 6, arbitrary: fc.constant(undefined) },
      { weight: 2, arbitrary: fc.constantFrom<unknown>(0, 1, -1, 1.5, -0, '4', null, NaN) },
      { weight: 1, arbitrary: weird },
    );
    const status = fc.constantFrom<unknown>(
      'idle',
      'running',
      'waiting_tool_result',
      'error',
      'ended',
      'IDLE',
      'busy',
      '',
    );
    const tool = fc.constantFrom<unknown>(
      'echo',
      'throw',
      'reject',
      'signal',
      'bad',
      'undeclared_tool',
      '',
      '__proto__',
      'constructor',
    );
    const errorValue = fc.oneof(
      fc.record(
        { code: field(fc.constantFrom('SESSION_ERROR', 'X', '')), message: field(fc.string()), details: weird },
        { requiredKeys: [] },
      ),
      weird,
    );

    const base = { channelId: channel, sessionId, seq };
    const templates = [
      fc.record({
        channelId: channel,
        type: fc.constant('response'),
        requestId,
        ok: fc.constantFrom<unknown>(true, false),
        result: weird,
        error: errorValue,
      }),
      fc.record({ ...base, type: fc.constant('chat_delta'), text: str }),
      fc.record({ ...base, type: fc.constant('status_changed'), status }),
      fc.record({ ...base, type: fc.constant('done') }),
      fc.record({ ...base, type: fc.constant('error'), error: errorValue }),
      fc.record({ channelId: channel, type: fc.constant('error'), error: errorValue }), // transport-wide
      fc.record({ ...base, type: fc.constant('ended') }),
      fc.record({
        ...base,
        type: fc.constant('tool_call'),
        toolRequestId: fc.oneof(fc.constantFrom('t1', 't2', 't3'), fc.string({ maxLength: 8 })),
        tool,
        args: weird,
      }),
    ];
    const typeNames = fc.constantFrom<unknown>(
      'response',
      'chat_delta',
      'status_changed',
      'done',
      'error',
      'ended',
      'tool_call',
      'create_session',
      'unknown_type',
      '',
    );

    /** A valid message with each field kept, removed, replaced by a wrong type, or given an `__proto__` twin. */
    const mutated = fc
      .tuple(
        fc.oneof(...templates),
        fc.array(fc.tuple(fc.constantFrom('delete', 'replace', 'type', 'proto', 'add'), fc.nat(10), weird), {
          maxLength: 4,
        }),
      )
      .map(([msg, mutations]) => {
        let out: any = { ...(msg as Record<string, unknown>) };
        const keys = Object.keys(out);
        for (const [op, k, value] of mutations) {
          const key = keys[k % keys.length]!;
          if (op === 'delete') delete out[key];
          else if (op === 'replace') out[key] = value;
          else if (op === 'type') out.type = value;
          else if (op === 'add') out[`extra${k}`] = value;
          else if (op === 'proto') {
            const { requestId: ref, ...rest } = out;
            out = { ...(withProtoKey(rest, value) as object), ...(ref !== undefined && { requestId: ref }) };
          }
        }
        return out;
      });

    const message = fc.oneof(
      { weight: 8, arbitrary: mutated },
      { weight: 1, arbitrary: weird },
      {
        weight: 1,
        arbitrary: fc.record(
          { channelId: channel, type: typeNames, sessionId, seq, requestId, ok: weird, status, text: str },
          { requiredKeys: [] },
        ),
      },
    );

    // ─────────────── the run ───────────────
    let delivered = 0;
    let hugeDelivered = 0;
    let seqCounter = 0;
    const deliver = (msg: unknown) => {
      let out = msg;
      const ref = (msg as any)?.requestId?.[POSTED];
      if (typeof ref === 'number') {
        const posted = fake.posted[ref % fake.posted.length]!;
        out = { ...(out as object), requestId: posted.requestId };
      }
      const delta = (msg as any)?.seq?.[SEQ];
      seqCounter++;
      if (typeof delta === 'number') out = { ...(out as object), seq: Math.max(0, seqCounter + delta) };
      delivered++;
      if (JSON.stringify(out, (_k, x) => (typeof x === 'bigint' ? 0 : x))?.length > MiB) hugeDelivered++;
      fake.emit(out);
    };

    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        // Keep turns going: each live session is asked for one (SESSION_BUSY when one is running).
        if (s1.getStatus() === 'ended') s1 = await open('s1');
        if (s2.getStatus() === 'ended') s2 = await open('s2');
        for (const s of [s1, s2]) {
          const before = fake.posted.length;
          s.sendText('more').catch(() => {});
          if (fake.posted.length > before) fake.respond({}, fake.last());
        }
        for (const msg of batch) deliver(msg);
        await nextTask();
        // Failing inside the property lets fast-check report (and shrink to) the guilty batch.
        expect(uncaught, 'uncaught errors / unhandled rejections').to.deep.equal([]);
        expect(protoKeys()).to.deep.equal(protoBefore);
        expect(({} as any).polluted).to.equal(undefined);
      }),
      { seed: SEED, numRuns: NUM_RUNS, endOnFailure: false },
    );
    expect(delivered).to.be.at.least(10_000);
    // The run did reach the code under test: tool calls answered, errors reported, huge strings sent.
    expect(fake.posted.filter((m) => m.type === 'submit_tool_result').length, 'tool results submitted').to.be.above(10);
    expect(sessionErrors.length, 'session errors reported').to.be.above(100);
    expect(hugeDelivered, 'messages over 1 MiB').to.be.within(2, 200);

    // Let tool handlers, submits and their timeouts settle.
    await nextTask();
    expect(uncaught, 'uncaught errors / unhandled rejections').to.deep.equal([]);
    expect(protoKeys()).to.deep.equal(protoBefore);
    for (const e of [...sessionErrors, ...warnings]) {
      expect(e, 'errors reach the page as PedelecErrors').to.be.an('object');
      expect(e.code).to.be.a('string');
      expect(e.message).to.be.a('string');
    }

    // The fuzzed sessions are in a coherent state: ended, or able to finish a turn and run another.
    for (const [id, s] of [
      ['s1', s1],
      ['s2', s2],
    ] as const) {
      expect(['idle', 'running', 'waiting_tool_result', 'ended', 'error']).to.include(s.getStatus());
      if (s.getStatus() === 'ended') continue;
      fake.event(id, 'status_changed', { status: 'idle' });
      await nextTask();
      const turn = s.sendText('again');
      fake.respond({}, fake.last('send_text'));
      fake.event(id, 'status_changed', { status: 'running' });
      fake.event(id, 'status_changed', { status: 'idle' });
      await turn;
      expect(s.getStatus()).to.equal('idle');
    }
    await nextTask();
    expect(firstTurn, 'the first turn settled').not.to.equal('pending');

    // ─────────────── a normal turn on a fresh session of the same client ───────────────
    expect(c.unavailableReason).to.equal(null);
    const creating = c.createSession({ provider: 'codex', model: 'm' });
    fake.respond({ sessionId: FRESH_ID }, fake.last('create_session'));
    const fresh = await creating;
    expect(fresh.sessionId).to.equal(FRESH_ID);
    expect(fresh.getStatus()).to.equal('idle');
    const calls: unknown[] = [];
    fresh.onTool((tool, args) => {
      calls.push({ tool, args });
      return { sum: (args as { a: number; b: number }).a + (args as { a: number; b: number }).b };
    });
    let resolved = false;
    const sent = fresh.sendText('add 2 and 3').then(() => (resolved = true));
    const sendText = fake.last('send_text');
    expect(sendText).to.include({ channelId, sessionId: FRESH_ID, text: 'add 2 and 3' });
    fake.respond({}, sendText);
    fake.event(FRESH_ID, 'status_changed', { status: 'running' });
    fake.event(FRESH_ID, 'tool_call', { toolRequestId: 'fresh-t1', tool: 'add', args: { a: 2, b: 3 } });
    await fake.request('submit_tool_result', (m) => m.toolRequestId === 'fresh-t1');
    expect(calls).to.deep.equal([{ tool: 'add', args: { a: 2, b: 3 } }]);
    const submit = fake.last('submit_tool_result');
    expect(submit).to.deep.include({ channelId, sessionId: FRESH_ID, toolRequestId: 'fresh-t1', result: { sum: 5 } });
    fake.respond({}, submit);
    await nextTask();
    expect(resolved).to.equal(false);
    fake.event(FRESH_ID, 'status_changed', { status: 'idle' });
    await sent;
    expect(resolved).to.equal(true);
    expect(fresh.getStatus()).to.equal('idle');

    await nextTask();
    expect(uncaught, 'uncaught errors / unhandled rejections').to.deep.equal([]);
    expect(protoKeys()).to.deep.equal(protoBefore);
  });
});
