// How long a tool's own timeout takes to give a call up (the rules themselves: ../bridge.test.ts, where
// the error names the 40 ms that applied). Its bounds are the configured deadlines themselves: at least
// the tool's 40 ms (not the agent's shorter 20 ms), and far below the default 60 s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_TOOL_TIMEOUT_MS } from 'pedelec-elements/protocol';
import type { ToolManifest } from '../../src/agents/types.js';
import { parseScript } from '../../src/index.js';
import { BridgeClient, chatText, createSession, skills, startCore } from '../helpers.js';

const TOOL_TIMEOUT_MS = 40;
/** Timers count whole milliseconds: one may fire a fraction of one early against performance.now(). */
const CLOCK_MS = 1;

test("script rules: a tool's own 40 ms timeout gives the call up after 40 ms, not after the agent's 20 ms nor the default 60 s", async (t) => {
  const script = parseScript({
    rules: [
      {
        match: { regex: 'slow' },
        steps: [{ call: 'slow', args: { timeoutMs: 20 } }, { say: '{{result.error.code}}' }],
      },
    ],
  });
  const core = await startCore(t, { script });
  const page = await BridgeClient.open(t, core);
  const slow: ToolManifest = {
    name: 'slow',
    description: 'Slow.',
    argsSchema: { type: 'object' },
    timeoutMs: TOOL_TIMEOUT_MS,
  };
  const sessionId = await createSession(page, { skills: skills(slow) });

  const from = page.mark();
  const started = performance.now();
  await page.ok('send_text', { sessionId, text: 'slow please' });
  await page.until((m) => m.type === 'tool_call', { from });
  const events = await page.turnEnd(sessionId, from);
  const elapsed = performance.now() - started;
  assert.equal(chatText(events), 'TOOL_TIMEOUT');
  t.diagnostic(`the call was given up ${elapsed.toFixed(1)} ms after send_text`);
  assert.ok(elapsed >= TOOL_TIMEOUT_MS - CLOCK_MS, `given up after ${elapsed.toFixed(1)} ms`);
  assert.ok(elapsed < DEFAULT_TOOL_TIMEOUT_MS / 30, `given up after ${elapsed.toFixed(0)} ms`);
});
