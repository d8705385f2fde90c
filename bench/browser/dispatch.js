// `dispatch`: the cost of one tool call through the kit. A fake Core on the memory transport sends
// `tool_call` events to a real `Pedelec` client; a trivial synchronous handler answers each one. The
// clock runs from the event entering the client (the port's onMessage listener) to its
// `submit_tool_result` being posted (the port's postMessage), without and with argument validation.
//
// Two ways to feed the calls:
// - burst: all N events are queued at once, so the clock sees the client's work alone (spec);
// - sequential: the next call is sent once the previous result arrived and was answered, as Core does
//   (one call pending at a time); the clock then also sees the response handling and the transport hops.
//
// performance.now() ticks in 5 µs steps at best, finer than one call's cost is not measurable alone:
// calls are timed in windows of WINDOW consecutive calls, and "µs per call" is window ÷ WINDOW.
import { Pedelec } from '../../dist/core/index.js';
import { createMemoryPair } from '../../dist/transports.js';
import { quantile } from '../lib/stats.mjs';
import { SCHEMA, validArgs } from './fixtures.js';
import { collectGarbage, expose, nextTask } from './timing.js';

const WINDOW = 50;
const TOOL = 'search';
const SESSION_ID = 'bench-session';

/** The memory transport's page end, with the two probes the clock needs. */
function probedTransport(transport, probe) {
  return () => {
    const port = transport();
    return {
      postMessage(message) {
        port.postMessage(message);
        if (message.type === 'submit_tool_result') probe.posted();
      },
      onMessage: {
        addListener(listener) {
          port.onMessage.addListener((message) => {
            if (message.type === 'tool_call') probe.entered();
            listener(message);
          });
        },
      },
      onDisconnect: port.onDisconnect,
      disconnect: () => port.disconnect(),
    };
  };
}

/** Counts calls and stamps the windows: WINDOW calls from the first one entering to the last one posted. */
function makeProbe(calls) {
  const windows = new Float64Array(Math.floor(calls / WINDOW));
  let entered = 0;
  let posted = 0;
  let windowStart = 0;
  let first = 0;
  let last = 0;
  return {
    entered() {
      if (entered++ % WINDOW === 0) {
        windowStart = performance.now();
        if (entered === 1) first = windowStart;
      }
    },
    posted() {
      if (++posted % WINDOW === 0 || posted === calls) {
        const now = performance.now();
        if (posted % WINDOW === 0) windows[posted / WINDOW - 1] = now - windowStart;
        if (posted === calls) last = now;
      }
    },
    result: () => ({ entered, posted, totalMs: last - first, windows }),
  };
}

/**
 * A fake Core: answers create_session and send_text, sends the prepared tool calls (all at once, or
 * one per answered result), answers every submit_tool_result, and ends the turn after the last one.
 */
function fakeCore(peer, { calls, sequential, messages }) {
  let submitted = 0;
  let refused = 0;
  let channelId = '';
  const respond = (request, result = {}) =>
    peer.postMessage({
      channelId: request.channelId,
      type: 'response',
      requestId: request.requestId,
      ok: true,
      result,
    });
  const send = (i) => {
    messages[i].channelId = channelId;
    peer.postMessage(messages[i]);
  };
  peer.onMessage.addListener((message) => {
    switch (message.type) {
      case 'create_session':
        channelId = message.channelId;
        return respond(message, { sessionId: SESSION_ID });
      case 'send_text':
        respond(message);
        if (sequential) send(0);
        else for (let i = 0; i < calls; i++) send(i);
        return;
      case 'submit_tool_result':
        if (message.result?.error) refused++;
        respond(message);
        submitted++;
        if (sequential && submitted < calls) send(submitted);
        if (submitted === calls) {
          peer.postMessage({
            channelId,
            type: 'status_changed',
            sessionId: SESSION_ID,
            seq: calls + 1,
            status: 'idle',
          });
        }
        return;
      default:
        return respond(message);
    }
  });
  return { refused: () => refused };
}

async function runOnce({ calls, validate, sequential }) {
  // Everything a run needs is made before the clock starts: a fresh client and session, and one
  // fresh args object per call (as a real port would deliver).
  const messages = Array.from({ length: calls }, (_, i) => ({
    channelId: '',
    type: 'tool_call',
    sessionId: SESSION_ID,
    seq: i + 1,
    toolRequestId: `toolreq_${i}`,
    tool: TOOL,
    args: validArgs(3),
  }));
  const { transport, peer } = createMemoryPair();
  const probe = makeProbe(calls);
  const core = fakeCore(peer, { calls, sequential, messages });
  const client = new Pedelec({ transport: probedTransport(transport, probe), validateArgs: validate });
  const session = await client.createSession({
    provider: 'bench',
    model: 'bench',
    skills: {
      guidance: '',
      tools: [
        {
          name: TOOL,
          description: 'Searches the catalogue.',
          argsSchema: SCHEMA,
          handler: (args) => ({ ok: true, limit: args.limit }),
        },
      ],
    },
  });
  collectGarbage();
  await session.sendText('go'); // resolves when the fake Core says idle, after the last result
  client.disconnect();
  const { entered, posted, totalMs, windows } = probe.result();
  if (entered !== calls || posted !== calls)
    throw new Error(`dispatch: ${entered} calls entered, ${posted} results posted, ${calls} expected`);
  if (core.refused() > 0) throw new Error(`dispatch: ${core.refused()} calls were refused (validation must pass)`);
  const perCall = Array.from(windows, (ms) => (ms * 1000) / WINDOW);
  return { callsPerSecond: (calls * 1000) / totalMs, medianUs: quantile(perCall, 0.5), p99Us: quantile(perCall, 0.99) };
}

expose('dispatch', async ({ calls = 20_000, runs = 5 } = {}) => {
  const variants = [];
  for (const sequential of [false, true]) {
    for (const validate of [false, true])
      variants.push({ mode: sequential ? 'sequential' : 'burst', validate, sequential, samples: [] });
  }
  for (const v of variants) await runOnce({ calls, validate: v.validate, sequential: v.sequential }); // warm-up
  for (let run = 0; run < runs; run++) {
    for (const v of variants) {
      await nextTask();
      v.samples.push(await runOnce({ calls, validate: v.validate, sequential: v.sequential }));
    }
  }
  return {
    calls,
    window: WINDOW,
    variants: variants.map(({ mode, validate, samples }) => ({
      mode,
      validate,
      callsPerSecond: samples.map((s) => s.callsPerSecond),
      medianUs: samples.map((s) => s.medianUs),
      p99Us: samples.map((s) => s.p99Us),
    })),
  };
});
