// `pedelec-dev mcp`, started and ended over and over as desktop clients do (agents-2026 §4): 100 relay
// starts leave the server's 2025-era sessions and 2026-07-28 listen streams where they were. Each
// start is a real process (the built relay, dist/cli.js) under a real client over stdio, half of them
// 2025-era (the 1.x SDK client) and half 2026-07-28 (the 2.x one); each lists the page's tool and
// ends by closing its stdin. Two clients connected straight to /mcp (one of each era) hold what the
// server starts with, so "where they were" is not merely zero.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpOpen } from '../../src/index.js';
import { connectMcp } from '../../../../test/support/mcp-client.mjs';
import { until } from '../../../../test/support/waits.js';
import { LinkPage, startCore } from '../helpers.js';
import { connectionsTo } from './connections.js';

const STARTS = 100;
/** Relays running at once: the starts are sequential within each lane. */
const LANES = 4;
const BUILT_CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

// 100 process starts: about 100 s on 2 CPUs with nothing else running, within the five minutes the
// perf tier gives a file (scripts/test-node.mjs).
test(
  `${STARTS} relay starts in a row leave the server's sessions and listen streams where they were`,
  {
    timeout: 300_000,
  },
  async (t) => {
    assert.ok(existsSync(BUILT_CLI), 'dist/cli.js is missing: npm run build makes it');
    const dir = await mkdtemp(join(tmpdir(), 'relay-starts-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const tokenFile = join(dir, 'token');
    const core = await startCore(t, { mcp: true, mcpTokenFile: tokenFile });
    await LinkPage.open(t, core);
    const to = { url: core.mcpUrl, token: core.mcpToken };
    for (const era of ['legacy', 'modern']) await (await connectMcp(t, era, to, 'held')).watchTools(() => {});
    const before = await settled(
      () => core.mcpOpen(),
      (open) => open.sessions === 1 && open.listenStreams === 1,
      () => '',
    );

    const args = ['mcp', '--port', String(core.port), '--mcp-token-file', tokenFile];
    const oneStart = async (n: number) => {
      const relay = { command: process.execPath, args: [BUILT_CLI, ...args] };
      const client = await connectMcp(t, n % 2 === 0 ? 'legacy' : 'modern', relay, `relay-start-${n}`);
      try {
        const { tools } = await client.listTools();
        assert.ok(
          tools.some((tool: { name: string }) => tool.name === 'add'),
          `start ${n} lists the page's tool`,
        );
      } finally {
        await client.raw.close(); // closes the relay's stdin: it ends
      }
    };
    const lane = async (first: number) => {
      for (let n = first; n < STARTS; n += LANES) await oneStart(n);
    };
    const startedAt = Date.now();
    await Promise.all(Array.from({ length: LANES }, (_, i) => lane(i)));
    const tookMs = Date.now() - startedAt;

    const ended = Date.now();
    const after = await settled(
      () => core.mcpOpen(),
      (open) => open.sessions === before.sessions && open.listenStreams === before.listenStreams,
      // Who is still connected, should the server hold more than before: this process holds the two
      // clients kept open; any other process would be a relay that did not end.
      () => `; connections to the server: ${JSON.stringify(connectionsTo(core.port))}`,
    );
    assert.deepEqual(after, before);
    console.log(
      `${STARTS} relay starts in ${tookMs} ms (${LANES} at a time); open after: ${JSON.stringify(after)}, ` +
        `settled in ${Date.now() - ended} ms`,
    );
  },
);

/**
 * `read()` once `ok` accepts it: a relay's stream closes a moment after its process ends. 5 s at most,
 * well under the server's keep-alive writes (15 s), so a stream that only ends when its next write
 * fails counts as outliving its relay.
 */
function settled(read: () => McpOpen, ok: (open: McpOpen) => boolean, more: () => string): Promise<McpOpen> {
  let last = read();
  return until(
    () => {
      last = read();
      return ok(last) ? last : undefined;
    },
    () => `the server's open sessions and streams to settle; last ${JSON.stringify(last)}${more()}`,
    { timeoutMs: 5_000, everyMs: 50 },
  );
}
