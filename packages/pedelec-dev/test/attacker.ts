// The attacks of the "Dev Core bounds" findings, all at once, against a Core started elsewhere
// (perf/exhaustion.test.ts runs this source in a process of its own, so that making the attacks does
// not slow down the test's own well-behaved page). argv[2]: the Core's `{ url, bridgeUrl }` as JSON.
// Prints one JSON line: what each attack got. Every loop is bounded; the whole run ends by itself.
// Standalone (no helpers.ts): this process needs no server code.
import type { Socket } from 'node:net';
import { WebSocket, type RawData } from 'ws';

/** A frame off the wire: untyped JSON. */
type Message = Record<string, any>;

const { bridgeUrl } = JSON.parse(process.argv[2] ?? '{}') as { bridgeUrl: string };
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
  const waiting = new Map<string, (message: Message) => void>();
  const listeners = new Set<(message: Message) => void>();
  let counter = 0;
  socket.on('message', (data: RawData) => {
    const message = JSON.parse(data.toString()) as Message;
    if (message.type === 'response') waiting.get(message.requestId)?.(message);
    for (const listener of listeners) listener(message);
  });
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  return {
    socket,
    closed,
    request(type: string, payload: Message = {}): Promise<Message> {
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
    async turn(sessionId: string, text: string): Promise<string> {
      let reply = '';
      const ended = new Promise<void>((resolve) => {
        const listener = (m: Message) => {
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

type Client = Awaited<ReturnType<typeof connect>>;
type Tool = { name: string; description: string; argsSchema: object };

const tool = (name: string, argsSchema: object): Tool => ({ name, description: `${name}.`, argsSchema });
/** A scripted session's id, or the refusal's code. */
async function session(client: Client, tools: Tool[], persistent = false): Promise<string> {
  const created = await client.request('create_session', {
    input: { provider: 'scripted', skills: { guidance: '', tools }, autoEndOnDisconnect: !persistent },
  });
  return created.ok ? created.result.sessionId : created.error.code;
}

const nest = (levels: number): object =>
  levels === 0 ? { type: 'string' } : { type: 'array', minItems: 100, items: nest(levels - 1) };

/** Finding 1: the 271-byte schema of nested minItems arrays, and "hello". */
async function sampleAttack() {
  const client = await connect();
  const lengths: number[] = [];
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
  const replies: string[] = [];
  for (let i = 0; i < 3; i++)
    replies.push(await client.turn(sessionId, `/call catastrophic {"s":"${'a'.repeat(40)}!"}`));
  client.close();
  return { refused: replies.filter((r) => /TOOL_ARGS_INVALID/.test(r)).length };
}

/** Finding 1: an asset-ticket flood: 2 000 requests sent at once. */
async function ticketFlood() {
  const client = await connect();
  const sessionId = await session(client, []);
  const codes: Record<string, number> = {};
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
  const codes: Record<string, number> = {};
  const clients: Client[] = [];
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
  const closes: (number | 'open')[] = [];
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      const client = await connect();
      const declared = 8 * 1024 * 1024;
      const header = Buffer.alloc(14);
      header[0] = 0x81; // FIN, text
      header[1] = 0x80 | 127; // masked, 64-bit length
      header.writeBigUInt64BE(BigInt(declared), 2);
      header.writeUInt32BE(0x01020304, 10); // the mask
      // Under ws, to send what no well-behaved client would.
      const raw = (client.socket as unknown as { _socket: Socket })._socket;
      raw.write(Buffer.concat([header, Buffer.alloc(2 * 1024 * 1024, 0x61)]));
      const code = await Promise.race([
        client.closed,
        new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), WAIT_MS)),
      ]);
      closes.push(code);
      client.close();
    }),
  );
  return { closedWith: [...new Set(closes)], connections: closes.length };
}

const ATTACKS: Record<string, () => Promise<unknown>> = {
  sampleAttack,
  patternAttack,
  ticketFlood,
  sessionPile,
  halfSentFrames,
};
// argv[3], optional: a comma-separated subset of the attacks, to run one alone.
const chosen = process.argv[3] ? process.argv[3].split(',') : Object.keys(ATTACKS);
const results: Record<string, unknown> = {};
await Promise.all(
  Object.entries(ATTACKS)
    .filter(([name]) => chosen.includes(name))
    .map(async ([name, run]) => {
      try {
        results[name] = await run();
      } catch (error) {
        results[name] = { failed: String((error as Error)?.message ?? error) };
      }
    }),
);
console.log(JSON.stringify(results));
process.exit(0);
