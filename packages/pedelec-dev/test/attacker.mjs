// The attacks of the "Dev Core bounds" findings, all at once, against a Core started elsewhere
// (exhaustion.test.mjs runs this in a process of its own, so that making the attacks does not slow
// down the test's own well-behaved page). argv[2]: the Core's `{ url, bridgeUrl }` as JSON. Prints
// one JSON line: what each attack got. Every loop is bounded; the whole run ends by itself.
import { WebSocket } from 'ws';

const { bridgeUrl } = JSON.parse(process.argv[2]);
const ATTACKER = 'http://localhost:6666';
const WAIT_MS = 20_000;

/** A bare page client: requests with ids, responses and events by callback. */
async function connect(origin = ATTACKER) {
  const socket = new WebSocket(bridgeUrl, { origin, maxPayload: 64 * 1024 * 1024 });
  socket.on('error', () => {});
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
  const waiting = new Map();
  const listeners = new Set();
  let counter = 0;
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString());
    if (message.type === 'response') waiting.get(message.requestId)?.(message);
    for (const listener of listeners) listener(message);
  });
  const closed = new Promise((resolve) => socket.once('close', (code) => resolve(code)));
  return {
    socket,
    closed,
    request(type, payload = {}) {
      const requestId = `attack_${++counter}`;
      socket.send(JSON.stringify({ channelId: 'attack', requestId, type, ...payload }));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${type}: no answer`)), WAIT_MS);
        waiting.set(requestId, (message) => {
          clearTimeout(timer);
          waiting.delete(requestId);
          resolve(message);
        });
      });
    },
    /** The chat text of the session's next turn. */
    async turn(sessionId, text) {
      let reply = '';
      const ended = new Promise((resolve) => {
        const listener = (m) => {
          if (m.sessionId !== sessionId) return;
          if (m.type === 'chat_delta') reply += m.text;
          if (m.type === 'operation_completed') {
            listeners.delete(listener);
            resolve();
          }
        };
        listeners.add(listener);
      });
      const sent = await this.request('send_text', { sessionId, text });
      if (!sent.ok) return `refused: ${sent.error.code}`;
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, WAIT_MS))]);
      return reply;
    },
    close: () => socket.terminate(),
  };
}

const tool = (name, argsSchema) => ({ name, description: `${name}.`, argsSchema });
async function session(client, tools, persistent = false) {
  const created = await client.request('create_session', {
    input: { provider: 'scripted', skills: { guidance: '', tools }, autoEndOnDisconnect: !persistent },
  });
  return created.ok ? created.result.sessionId : created.error.code;
}

const nest = (levels) =>
  levels === 0 ? { type: 'string' } : { type: 'array', minItems: 100, items: nest(levels - 1) };

/** Finding 1: the 271-byte schema of nested minItems arrays, and "hello". */
async function sampleAttack() {
  const client = await connect();
  const lengths = [];
  for (let i = 0; i < 3; i++) {
    const sessionId = await session(client, [
      tool('nested', { type: 'object', properties: { a: nest(5) }, required: ['a'] }),
    ]);
    lengths.push((await client.turn(sessionId, 'hello')).length);
  }
  client.close();
  return { replyLengths: lengths };
}

/** Finding 1: a catastrophic pattern reached through /call, three times. */
async function patternAttack() {
  const client = await connect();
  const sessionId = await session(client, [
    tool('catastrophic', { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } }),
  ]);
  const replies = [];
  for (let i = 0; i < 3; i++)
    replies.push(await client.turn(sessionId, `/call catastrophic {"s":"${'a'.repeat(40)}!"}`));
  client.close();
  return { refused: replies.filter((r) => /TOOL_ARGS_INVALID/.test(r)).length };
}

/** Finding 1: an asset-ticket flood: 2 000 requests sent at once. */
async function ticketFlood() {
  const client = await connect();
  const sessionId = await session(client, []);
  const codes = {};
  const answers = await Promise.all(
    Array.from({ length: 2000 }, (_, i) =>
      client.request('create_asset_upload', { sessionId, filename: `f${i}.bin`, sizeBytes: 1024 }),
    ),
  );
  for (const answer of answers) {
    const code = answer.ok ? 'ok' : answer.error.code;
    codes[code] = (codes[code] ?? 0) + 1;
  }
  client.close();
  return codes;
}

/**
 * Finding 2: persistent sessions piled up and left. From one origin (what a page can do) and from 15
 * (what a local script spoofing Origin headers can do), 25 each; then every connection leaves.
 */
async function sessionPile() {
  const codes = {};
  const clients = [];
  for (let o = 0; o < 15; o++) {
    const client = await connect(`http://localhost:${7000 + o}`);
    clients.push(client);
    for (let i = 0; i < 25; i++) {
      const result = await session(client, [], true);
      const code = result.startsWith('session_') ? 'created' : result;
      codes[code] = (codes[code] ?? 0) + 1;
    }
  }
  for (const client of clients) client.close();
  return codes;
}

/** Finding 4: half-sent frames: 20 connections each declare an 8 MiB frame, send 2 MiB of it, and stop. */
async function halfSentFrames() {
  const closes = [];
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      const client = await connect();
      const declared = 8 * 1024 * 1024;
      const header = Buffer.alloc(14);
      header[0] = 0x81; // FIN, text
      header[1] = 0x80 | 127; // masked, 64-bit length
      header.writeBigUInt64BE(BigInt(declared), 2);
      header.writeUInt32BE(0x01020304, 10); // the mask
      client.socket._socket.write(Buffer.concat([header, Buffer.alloc(2 * 1024 * 1024, 0x61)]));
      const code = await Promise.race([
        client.closed,
        new Promise((resolve) => setTimeout(() => resolve('open'), WAIT_MS)),
      ]);
      closes.push(code);
      client.close();
    }),
  );
  return { closedWith: [...new Set(closes)], connections: closes.length };
}

const ATTACKS = { sampleAttack, patternAttack, ticketFlood, sessionPile, halfSentFrames };
// argv[3], optional: a comma-separated subset of the attacks, to run one alone.
const chosen = process.argv[3] ? process.argv[3].split(',') : Object.keys(ATTACKS);
const results = {};
await Promise.all(
  Object.entries(ATTACKS)
    .filter(([name]) => chosen.includes(name))
    .map(async ([name, run]) => {
      try {
        results[name] = await run();
      } catch (error) {
        results[name] = { failed: String(error?.message ?? error) };
      }
    }),
);
console.log(JSON.stringify(results));
process.exit(0);
