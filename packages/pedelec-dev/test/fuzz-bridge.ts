// Property-based fuzzing of the development Core's `/bridge` socket (reliability.md, "Bridge faults";
// issue 9: "the same for the dev Core's socket with random frames"), for fuzz.test.ts (a short run) and
// perf/fuzz.test.ts (the long one). With a fixed seed, random and mutated frames go over several page
// connections — arbitrary JSON, every request type of the bridge protocol with wrong field types /
// missing fields / `__proto__` keys / huge strings, unknown types, non-JSON text, binary and invalid
// UTF-8 frames, and connections cut mid-stream. Afterwards the server must still serve a normal
// tool-calling turn, nothing may have thrown uncaught, no bug may have been reported, and no session
// may outlive the connections that owned it.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import fc from 'fast-check';
import { WebSocket, type RawData } from 'ws';
import { BRIDGE_REQUEST_TYPES } from 'pedelec-elements/protocol';
import { until } from '../../../test/support/waits.js';
import { startDevCore, type DevCore } from '../src/index.js';
import { BridgeClient, PAGE_ORIGIN, createSession, delay, skills, untilAnswer, type Message } from './helpers.js';

const SEED = 0x5eed_f022;
const WAIT_MS = 5000;

/** How much to fuzz: `connections` × `framesPerConnection` fuzzed frames, the `abrupt` ones cut mid-stream. */
export type FuzzRun = {
  connections: number;
  framesPerConnection: number;
  /** These connections are terminated mid-stream, 63 + their index frames before their end. */
  abrupt: ReadonlySet<number>;
  /** The run fails unless at least this many frames were sent. */
  minFrames: number;
};

/** Where a mutation may write: keys and array indexes from the request's root. */
type FieldPath = (string | number)[];

/** The live session and ids a connection's frames are built with. */
type FrameContext = {
  channelId: string;
  sessionId: string | undefined;
  foreignSessionId: string | undefined;
  counter: number;
  lastToolRequestId: string | undefined;
};

/** A valid request of each type, given a live session and a fake tool request id. */
function validRequest(
  type: string,
  { channelId, sessionId, requestId }: { channelId: string; sessionId?: string | undefined; requestId: string },
): Message {
  const base = { channelId, requestId, type };
  switch (type) {
    case 'create_session':
      return { ...base, input: { provider: 'scripted', skills: skills(), autoEndOnDisconnect: true } };
    case 'resume_session':
    case 'reactivate_session':
    case 'abort_session_setup':
    case 'prepare_session':
    case 'end_session':
    case 'list_assets':
      return { ...base, sessionId };
    case 'send_text':
      return { ...base, sessionId, text: '/call update_counter {"delta": 1}' };
    case 'submit_tool_result':
      return { ...base, sessionId, toolRequestId: 'toolreq_fuzz', result: { value: 1 } };
    case 'create_asset_upload':
      return { ...base, sessionId, filename: 'a.txt', sizeBytes: 3, mimeType: 'text/plain', targetPath: '/a.txt' };
    case 'create_asset_download':
      return { ...base, sessionId, path: '/a.txt' };
    case 'open_workspace':
      return { ...base, callerSdkVersion: '0.4.6' };
    case 'workspace_list_files':
    case 'workspace_list_folders':
      return { ...base, workspaceId: 'ws_fuzz', path: 'a' };
    case 'create_workspace_file_upload':
      return { ...base, workspaceId: 'ws_fuzz', filename: 'a.txt', sizeBytes: 3, mimeType: 'text/plain' };
    case 'create_workspace_file_download':
      return { ...base, workspaceId: 'ws_fuzz', path: 'a.txt' };
    case 'workspace_run':
      return { ...base, workspaceId: 'ws_fuzz', script: 'console.log(1)', timeoutMs: 1000 };
    case 'prepare_workspace_deno_modules':
      return { ...base, workspaceId: 'ws_fuzz', moduleNames: ['m'] };
    case 'create_workspace_deno_module_upload':
      return { ...base, workspaceId: 'ws_fuzz', moduleName: 'm', expectedSizeBytes: 10 };
    case 'create_deno_module_upload':
      return { ...base, sessionId, moduleName: 'm', expectedSizeBytes: 10 };
    case 'complete_session_setup':
      return { ...base, sessionId };
    default:
      return base;
  }
}

/** Paths (one level, or into `input` / `input.skills`) a mutation may touch. */
function fieldPaths(request: Message): FieldPath[] {
  const paths: FieldPath[] = Object.keys(request).map((k) => [k]);
  if (request.input && typeof request.input === 'object') {
    for (const k of [...Object.keys(request.input), 'model', 'extra']) paths.push(['input', k]);
    paths.push(
      ['input', 'skills', 'tools'],
      ['input', 'skills', 'guidance'],
      ['input', 'skills', 'tools', 0, 'argsSchema'],
    );
  }
  return paths;
}

function setPath(target: Message, path: FieldPath, value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (node[key] === null || typeof node[key] !== 'object') node[key] = {};
    node = node[key];
  }
  node[path[path.length - 1]!] = value;
}

function deletePath(target: Message, path: FieldPath): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (node[key] === null || typeof node[key] !== 'object') return;
    node = node[key];
  }
  delete node[path[path.length - 1]!];
}

// ---- Arbitraries -------------------------------------------------------------------------------

const wrongValue = fc.oneof(
  fc.constant(null),
  fc.constant(''),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  fc.constant({ __proto__: null, polluted: true }),
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'),
  fc.constant(-0),
  fc.constant(Number.MAX_SAFE_INTEGER + 2),
  fc.constant('/call update_counter {"delta": "two"}'),
  fc.constant('/call update_counter {"__proto__": {"polluted": true}, "delta": 1}'),
  fc.constant('/call update_counter not json'),
  fc.constant('/call nope {}'),
  fc.constant('../../etc/passwd'),
  fc.constant('/.hidden/../../x'),
);

const mutation = fc.oneof(
  fc.record({ kind: fc.constant('wrong'), pick: fc.nat(), value: wrongValue }),
  fc.record({ kind: fc.constant('missing'), pick: fc.nat() }),
  fc.record({ kind: fc.constant('extra'), key: fc.string({ maxLength: 12 }), value: fc.jsonValue({ maxDepth: 3 }) }),
  fc.record({ kind: fc.constant('proto'), pick: fc.nat(), value: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({
    kind: fc.constant('unknownType'),
    type: fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'),
    ),
  }),
  fc.record({ kind: fc.constant('foreignSession') }),
  fc.record({ kind: fc.constant('callText'), args: fc.jsonValue({ maxDepth: 3 }) }),
  fc.record({ kind: fc.constant('toolResult'), result: fc.jsonValue({ maxDepth: 4 }) }),
);

/** What to send: a mutated request, arbitrary JSON, non-JSON text, or a binary frame. */
const frameSpec = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      frame: fc.constant('mutated'),
      type: fc.constantFrom(...BRIDGE_REQUEST_TYPES),
      mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ frame: fc.constant('valid'), type: fc.constantFrom(...BRIDGE_REQUEST_TYPES) }) },
  { weight: 2, arbitrary: fc.record({ frame: fc.constant('json'), value: fc.jsonValue({ maxDepth: 4 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      frame: fc.constant('text'),
      value: fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ frame: fc.constant('binary'), value: fc.uint8Array({ maxLength: 300 }) }) },
);

/** Turns a spec into the bytes to send; `{ data, binary }`. */
/** What a frame spec is: a mutated or valid request, arbitrary JSON, non-JSON text, or a binary frame. */
type FrameSpec = typeof frameSpec extends fc.Arbitrary<infer T> ? T : never;

function build(spec: FrameSpec, ctx: FrameContext): { data: string | Buffer; binary: boolean } {
  if (spec.frame === 'json') return { data: JSON.stringify(spec.value) ?? 'null', binary: false };
  if (spec.frame === 'text') return { data: spec.value, binary: false };
  if (spec.frame === 'binary') return { data: Buffer.from(spec.value), binary: true };
  const request = validRequest(spec.type, {
    channelId: ctx.channelId,
    sessionId: ctx.sessionId,
    requestId: `fz_${ctx.counter++}`,
  });
  if (spec.frame === 'valid') return { data: JSON.stringify(request), binary: false };
  let raw: string | null = null;
  for (const m of spec.mutations) {
    const paths = fieldPaths(request);
    switch (m.kind) {
      case 'wrong':
        setPath(request, paths[m.pick % paths.length]!, m.value);
        break;
      case 'missing':
        deletePath(request, paths[m.pick % paths.length]!);
        break;
      case 'extra':
        request[m.key] = m.value;
        break;
      case 'proto': {
        // A literal "__proto__" key in the JSON text (JSON.stringify would drop an object's prototype).
        const path = paths[m.pick % paths.length]!;
        raw = JSON.stringify(request).replace(
          /^\{/,
          `{"__proto__":${JSON.stringify({ [path[0]!]: m.value, polluted: true })},`,
        );
        if (request.input)
          raw = raw.replace('"input":{', `"input":{"__proto__":{"provider":"scripted","polluted":true},`);
        break;
      }
      case 'unknownType':
        request.type = m.type;
        break;
      case 'foreignSession':
        request.sessionId = ctx.foreignSessionId;
        break;
      case 'callText':
        request.text = `/call update_counter ${JSON.stringify(m.args)}`;
        break;
      case 'toolResult':
        request.result = m.result;
        if (ctx.lastToolRequestId) request.toolRequestId = ctx.lastToolRequestId;
        break;
    }
  }
  // Keep the final session count predictable: only sessions that end with their connection.
  if (request.input && typeof request.input === 'object' && request.input.autoEndOnDisconnect === false)
    request.input.autoEndOnDisconnect = true;
  if (raw !== null && /"autoEndOnDisconnect":false/.test(raw))
    raw = raw.replaceAll('"autoEndOnDisconnect":false', '"autoEndOnDisconnect":true');
  return { data: raw ?? JSON.stringify(request), binary: false };
}

// ---- Connections -------------------------------------------------------------------------------

function openPage(core: DevCore, sockets: Set<WebSocket>): Promise<WebSocket> {
  const socket = new WebSocket(core.bridgeUrl, { origin: PAGE_ORIGIN, maxPayload: 64 * 1024 * 1024 });
  sockets.add(socket);
  socket.on('error', () => {});
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('open timed out')), WAIT_MS);
    socket.once('open', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** What `track` follows of one connection. */
type Tracked = {
  responses: number;
  /** Tool calls not yet answered, by their toolRequestId. */
  toolCalls: string[];
  nonJson: number;
  /** A response said THREAD_NOT_FOUND: a fuzzed frame ended the connection's session. */
  sessionGone: boolean;
  /** Sends a request and resolves with its response (null after a bounded wait). */
  request(request: Message): Promise<Message | null>;
  /** Resolves true once `n` responses came, false after a bounded wait. */
  waitResponses(n: number): Promise<boolean>;
};

/**
 * Counts the responses a connection gets and remembers its tool calls; `waitResponses(n)` is bounded.
 * `outcomes` counts the responses over the whole run (ok or error code), for the diagnostic.
 */
function track(socket: WebSocket, outcomes: Map<string, number>): Tracked {
  const waiters = new Set<() => void>();
  const awaited = new Map<string, (message: Message) => void>();
  const count = (key: string) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  const state: Tracked = {
    responses: 0,
    toolCalls: [],
    nonJson: 0,
    sessionGone: false,
    request: (request) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => {
          awaited.delete(request.requestId);
          resolve(null);
        }, WAIT_MS);
        awaited.set(request.requestId, (message) => {
          clearTimeout(timer);
          awaited.delete(request.requestId);
          resolve(message);
        });
        socket.send(JSON.stringify(request));
      }),
    waitResponses: (n) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          resolve(false);
        }, WAIT_MS);
        const check = () => {
          if (state.responses < n) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(true);
        };
        waiters.add(check);
        check();
      }),
  };
  socket.on('message', (data: RawData) => {
    let message: Message;
    try {
      message = JSON.parse(data.toString()) as Message;
    } catch {
      state.nonJson++;
      return;
    }
    if (message.type === 'response') {
      state.responses++;
      const code: string = message.ok ? 'ok' : message.error?.code;
      count(code);
      if (code === 'THREAD_NOT_FOUND') state.sessionGone = true;
      awaited.get(message.requestId)?.(message);
    }
    if (message.type === 'tool_call') {
      state.toolCalls.push(message.toolRequestId);
      count('(tool_call events)');
    }
    for (const w of [...waiters]) w();
  });
  return state;
}

/** The next message on a socket, parsed (null after a bounded wait). */
const firstMessage = (socket: WebSocket) =>
  new Promise<Message | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), WAIT_MS);
    socket.once('message', (data: RawData) => {
      clearTimeout(timer);
      resolve(JSON.parse(data.toString()) as Message);
    });
  });

const closed = (socket: WebSocket) =>
  new Promise<number | 'timeout' | null>((resolve) => {
    if (socket.readyState === WebSocket.CLOSED) return resolve(null);
    const timer = setTimeout(() => resolve('timeout'), WAIT_MS);
    socket.once('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });

/** Live sessions, read through the inspector's `hello` (the server's only session listing). */
async function liveSessions(core: DevCore): Promise<Message[]> {
  const socket = new WebSocket(
    `${core.url.replace(/^http/, 'ws')}/_pedelec/inspector/socket?token=${core.inspectorToken}`,
    {
      origin: core.url,
    },
  );
  socket.on('error', () => {});
  try {
    const hello = await new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('inspector hello timed out')), WAIT_MS);
      socket.once('message', (data: RawData) => {
        clearTimeout(timer);
        resolve(JSON.parse(data.toString()) as Message);
      });
      socket.once('close', () => reject(new Error('inspector closed')));
    });
    assert.equal(hello.type, 'hello');
    return hello.sessions;
  } finally {
    socket.terminate();
  }
}

// ---- The run -----------------------------------------------------------------------------------

/** Fuzzes a fresh Core's bridge as `run` says, then checks that it still serves a normal turn. */
export async function fuzzBridge(t: TestContext, run: FuzzRun): Promise<void> {
  const { connections: CONNECTIONS, framesPerConnection: FRAMES_PER_CONNECTION, abrupt: ABRUPT } = run;
  const outcomes = new Map<string, number>();
  const uncaught: [string, unknown][] = [];
  const onUncaught = (error: unknown) => uncaught.push(['uncaughtException', error]);
  const onUnhandled = (reason: unknown) => uncaught.push(['unhandledRejection', reason]);
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUnhandled);
  const bugs: unknown[] = [];
  const sockets = new Set<WebSocket>();
  // Workspaces in a folder of the test's: a pick (open_workspace without a path) is answered at once,
  // and no fuzzed path reaches the user's data folder.
  const folder = await mkdtemp(join(tmpdir(), 'pedelec-dev-fuzz-'));
  const core = await startDevCore({
    port: 0,
    host: '127.0.0.1',
    workspaceRoot: folder,
    workspace: folder,
    onBug: (error) => bugs.push(error),
    defaultToolTimeoutMs: 2000,
    // Fuzzed create_session frames make sessions of one origin by the dozen; the limits have tests of their own.
    maxSessions: 100_000,
    maxSessionsPerOrigin: 100_000,
  });
  t.after(async () => {
    for (const socket of sockets) socket.terminate();
    await core.close();
    await rm(folder, { recursive: true, force: true });
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUnhandled);
  });
  const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort();

  // A session owned by another connection, which fuzzed requests try to reach.
  const owner = await openPage(core, sockets);
  const ownerState = track(owner, outcomes);
  const channelOwner = 'pedelec_fuzz_owner';
  owner.send(JSON.stringify(validRequest('create_session', { channelId: channelOwner, requestId: 'own_1' })));
  assert.ok(await ownerState.waitResponses(1));
  const foreignSessionId: string | undefined = (await liveSessions(core))[0]?.sessionId;
  assert.match(String(foreignSessionId), /^session_/);

  let fuzzed = 0;
  let huge = 0;
  let recreated = 0;
  const specs = fc.sample(frameSpec, { seed: SEED, numRuns: FRAMES_PER_CONNECTION * CONNECTIONS });
  for (let c = 0; c < CONNECTIONS; c++) {
    const socket = await openPage(core, sockets);
    const state = track(socket, outcomes);
    const ctx: FrameContext = {
      channelId: `pedelec_fuzz_${c}`,
      sessionId: undefined,
      foreignSessionId,
      counter: 0,
      lastToolRequestId: undefined,
    };
    // A live session of its own, so mutated requests reach the session code, not just the router.
    const first = firstMessage(socket);
    socket.send(JSON.stringify(validRequest('create_session', { channelId: ctx.channelId, requestId: 'own' })));
    let expected = 1;
    const created = await first;
    ctx.sessionId = created?.result?.sessionId;
    assert.match(String(ctx.sessionId), /^session_/, `connection ${c} got a session`);

    const cutAt = ABRUPT.has(c) ? FRAMES_PER_CONNECTION - 63 - c : -1; // mid-batch, with frames in flight
    for (let i = 0; i < FRAMES_PER_CONNECTION; i++) {
      if (i === cutAt) break;
      ctx.lastToolRequestId = state.toolCalls.at(-1) ?? ctx.lastToolRequestId;
      const { data, binary } = build(specs[c * FRAMES_PER_CONNECTION + i]!, ctx);
      socket.send(data, { binary });
      fuzzed++;
      expected++;
      // A few ~1 MB strings in otherwise valid requests, in several fields.
      if (i % 400 === 199) {
        const big = 'x'.repeat(1024 * 1024 - (i % 7));
        const type = BRIDGE_REQUEST_TYPES[((i / 400 + c) % BRIDGE_REQUEST_TYPES.length) | 0]!;
        const request = validRequest(type, {
          channelId: ctx.channelId,
          sessionId: ctx.sessionId,
          requestId: `big_${i}`,
        });
        const field = ['text', 'sessionId', 'type', 'toolRequestId', 'path'][(c + i) % 5]!;
        request[field] = big;
        socket.send(JSON.stringify(request));
        fuzzed++;
        huge++;
        expected++;
      }
      // Keep the pipe bounded: let the server catch up every 50 frames. Then keep the fuzzing deep:
      // answer the tool calls that are waiting, and replace a session a fuzzed frame has ended.
      if (i % 50 === 49) {
        assert.ok(
          await state.waitResponses(expected),
          `connection ${c}: ${state.responses}/${expected} responses after frame ${i}`,
        );
        for (const toolRequestId of state.toolCalls.splice(0)) {
          expected++;
          await state.request({
            channelId: ctx.channelId,
            requestId: `answer_${i}_${toolRequestId}`,
            type: 'submit_tool_result',
            sessionId: ctx.sessionId,
            toolRequestId,
            result: { value: i },
          });
        }
        if (state.sessionGone) {
          state.sessionGone = false;
          expected++;
          const again = await state.request(
            validRequest('create_session', { channelId: ctx.channelId, requestId: `recreate_${i}` }),
          );
          assert.equal(again?.ok, true, `connection ${c}: a new session after frame ${i}`);
          ctx.sessionId = again.result.sessionId;
          recreated++;
        }
      }
    }
    if (cutAt >= 0) {
      await delay(1); // let part of the last batch reach the server
      socket.terminate(); // mid-stream: no close handshake, requests and responses still in flight
    } else {
      assert.ok(
        await state.waitResponses(expected),
        `connection ${c}: every request answered (${state.responses}/${expected})`,
      );
      assert.equal(state.nonJson, 0, 'the server only sends JSON');
      socket.close();
      await closed(socket);
    }
    sockets.delete(socket);
  }

  // Invalid UTF-8 in text frames: the socket is closed (1007), the server carries on.
  for (const bytes of [
    [0xc3, 0x28],
    [0xff, 0xfe, 0xfd],
    [0xed, 0xa0, 0x80],
    [0x7b, 0x22, 0xe2, 0x82, 0x22, 0x7d],
  ]) {
    const socket = await openPage(core, sockets);
    socket.send(Buffer.from(bytes), { binary: false });
    fuzzed++;
    assert.equal(await closed(socket), 1007);
    sockets.delete(socket);
  }

  // A connection cut in the middle of a turn with a pending tool call.
  {
    const socket = await openPage(core, sockets);
    const state = track(socket, outcomes);
    const response = firstMessage(socket);
    socket.send(JSON.stringify(validRequest('create_session', { channelId: 'pedelec_fuzz_cut', requestId: 'c1' })));
    const cutSession: string | undefined = (await response)?.result?.sessionId;
    assert.match(String(cutSession), /^session_/);
    socket.send(
      JSON.stringify(
        validRequest('send_text', { channelId: 'pedelec_fuzz_cut', sessionId: cutSession, requestId: 'c2' }),
      ),
    );
    await until(() => state.toolCalls.length > 0, 'the turn to reach its tool call', { timeoutMs: WAIT_MS });
    assert.equal(state.toolCalls.length, 1, 'the turn reached its tool call');
    socket.terminate();
    sockets.delete(socket);
  }

  owner.close();
  await closed(owner);
  sockets.delete(owner);

  // Sessions end with the connections that owned them (all fuzzed ones auto-end).
  await untilAnswer(
    () => liveSessions(core),
    (live) => live.length === 0,
    (live) => `no session to outlive its connection; still live: ${JSON.stringify(live)}`,
    { timeoutMs: WAIT_MS, everyMs: 20 },
  );

  // The server still serves: a new page runs a normal tool-calling turn.
  const page = await BridgeClient.open(t, core);
  const sessionId = await createSession(page);
  const from = page.mark();
  await page.ok('send_text', { sessionId, text: '/call update_counter {"delta": 2}' });
  const call = await page.until((m) => m.type === 'tool_call', { from });
  assert.equal(call.tool, 'update_counter');
  assert.deepEqual(call.args, { delta: 2 });
  assert.deepEqual(
    await page.ok('submit_tool_result', { sessionId, toolRequestId: call.toolRequestId, result: { value: 2 } }),
    {},
  );
  const events = await page.turnEnd(sessionId, from);
  assert.deepEqual(events.at(-1), { ...events.at(-1), type: 'operation_completed', success: true });
  assert.equal(events.at(-2)!.status, 'idle');
  assert.match(
    events
      .filter((m) => m.type === 'chat_delta')
      .map((m) => m.text)
      .join(''),
    /update_counter returned \{"value":2\}/,
  );

  const live = await liveSessions(core);
  assert.deepEqual(
    live.map((s) => s.sessionId),
    [sessionId],
    'only the final check’s session is live',
  );

  assert.deepEqual(uncaught, [], 'no uncaught exception or unhandled rejection');
  assert.deepEqual(bugs, [], 'no internal error reported');
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), protoBefore, 'Object.prototype unchanged');
  assert.equal(({} as Message).polluted, undefined);
  assert.ok(fuzzed >= run.minFrames, `fuzzed ${fuzzed} frames`);
  t.diagnostic(
    `fuzzed ${fuzzed} frames (${huge} of ~1 MB) over ${CONNECTIONS + 5} connections; ${recreated} sessions re-created`,
  );
  t.diagnostic(`outcomes: ${JSON.stringify(Object.fromEntries([...outcomes].sort((a, b) => b[1] - a[1])))}`);
}
