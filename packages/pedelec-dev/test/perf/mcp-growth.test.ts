// The shipped MCP processes do not grow per call: an MCP client calls a page's tool over and over
// through `pedelec-dev mcp` (the stdio relay, a process that lives as long as the desktop client)
// and so through `/mcp` of a `pedelec-dev --mcp` — each its own process, running the sources through
// tsx, with listener-probe.ts preloaded. No AbortSignal in either may gather abort listeners (the relay's SDK transport hands
// one signal to every fetch: src/mcp/signal-per-request.ts), neither heap may grow with the calls
// once warm, and neither prints anything (no MaxListenersExceededWarning).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI_SOURCE, LinkPage, nodeTs, startCoreChild, untilAnswer } from '../helpers.js';

/** Both processes: a full collection on demand, and the probe imported (after tsx's loader). */
const PROBE = { flags: ['--expose-gc'], preloads: [new URL('../listener-probe.ts', import.meta.url)] };
/** Calls before the first reading: the processes' code warms up (compiles, caches) in these. */
const WARM_UP_CALLS = 1000;
/** Calls between the two readings. */
const CALLS = 1000;
/**
 * Most abort listeners one signal may hold at once: one per request in flight (the calls here run
 * one at a time, beside the relay's GET stream), with room to spare. Without the per-request
 * signals the relay's reached about one per call.
 */
const MAX_ABORT_LISTENERS = 4;
/**
 * How much a heap may grow per call, measured after a full collection. Once warm, what still grows
 * is compiled code (heap snapshots of both processes, 1000 calls against 4000: only code and its
 * metadata differ), 0.1–1.6 KB per call over these calls; keeping each call's HTTP response in the
 * relay adds about 4 KB. So this catches a retention that large, not a smaller one.
 */
const MAX_HEAP_GROWTH_PER_CALL = 4096;
const READING_TIMEOUT_MS = 10_000;

/** What listener-probe.ts prints on request. */
type ProbeReading = { abortListenersMax: number; heapUsed: number };

/** The probe's readings on a process's stderr, and every other line it printed there. */
function watchProbe(stderr: Readable) {
  const state = {
    readings: [] as ProbeReading[],
    other: [] as string[],
    buffered: '',
    arrived: null as (() => void) | null,
  };
  stderr.on('data', (chunk: Buffer) => {
    state.buffered += chunk;
    let newline;
    while ((newline = state.buffered.indexOf('\n')) >= 0) {
      const line = state.buffered.slice(0, newline);
      state.buffered = state.buffered.slice(newline + 1);
      const probe = /^\{"probe":/.test(line) ? (JSON.parse(line).probe as ProbeReading) : null;
      if (probe) state.readings.push(probe);
      else state.other.push(line);
      state.arrived?.();
    }
  });
  return {
    other: state.other,
    /** Asks for a reading (`ask` sends the process SIGUSR2) and resolves with it. */
    read(ask: () => void): Promise<ProbeReading> {
      const count = state.readings.length;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          state.arrived = null;
          reject(new Error(`no probe reading within ${READING_TIMEOUT_MS} ms; stderr: ${state.other.join('\n')}`));
        }, READING_TIMEOUT_MS);
        state.arrived = () => {
          if (state.readings.length === count) return;
          clearTimeout(timer);
          state.arrived = null;
          resolve(state.readings[count]!);
        };
        ask();
      });
    },
  };
}

test(`the stdio relay and /mcp stay flat over ${CALLS} calls: no abort listeners pile up, no heap growth, no warning`, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-growth-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const tokenFile = join(dir, 'token');
  const core = await startCoreChild(t, { mcp: true, mcpTokenFile: tokenFile }, { heapMb: 128, ...PROBE });
  const coreProbe = watchProbe(core.stderr);
  await LinkPage.open(t, core);
  // The environment the SDK gives a server it starts, with what tsx needs.
  const { command, args, env } = nodeTs(
    CLI_SOURCE,
    ['mcp', '--port', String(core.port), '--mcp-token-file', tokenFile],
    { ...PROBE, env: getDefaultEnvironment() },
  );
  const transport = new StdioClientTransport({
    command,
    args,
    env: env as Record<string, string>, // every value set: the SDK's defaults and TSX_TSCONFIG_PATH
    stderr: 'pipe',
  });
  const relayProbe = watchProbe(transport.stderr as Readable);
  const client = new Client({ name: 'growth-test', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  await untilAnswer(
    () => client.listTools(),
    ({ tools }) => tools.some((tool) => tool.name === 'add'),
    'the page’s tool listed',
    { timeoutMs: 5000, everyMs: 20 },
  );

  const callMany = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const result = (await client.callTool({ name: 'add', arguments: { a: i, b: 1 } })) as CallToolResult;
      assert.deepEqual(result.structuredContent, { sum: i + 1 });
    }
  };
  const readBoth = () =>
    Promise.all([
      relayProbe.read(() => process.kill(transport.pid!, 'SIGUSR2')),
      coreProbe.read(() => core.kill('SIGUSR2')),
    ]);
  await callMany(WARM_UP_CALLS);
  const [relayBefore, coreBefore] = await readBoth();
  await callMany(CALLS);
  const [relayAfter, coreAfter] = await readBoth();

  const readings: [string, ProbeReading, ProbeReading][] = [
    ['the relay', relayBefore, relayAfter],
    ['the server', coreBefore, coreAfter],
  ];
  for (const [name, before, after] of readings) {
    assert.ok(
      after.abortListenersMax <= MAX_ABORT_LISTENERS,
      `${name}: one AbortSignal held ${after.abortListenersMax} abort listeners at once`,
    );
    const perCall = (after.heapUsed - before.heapUsed) / CALLS;
    assert.ok(perCall < MAX_HEAP_GROWTH_PER_CALL, `${name}: its heap grew ${Math.round(perCall)} bytes per call`);
  }
  assert.deepEqual(relayProbe.other, [], 'the relay printed nothing');
  assert.deepEqual(coreProbe.other, [], 'the server printed nothing');
});
