// README "The core SDK" → Transports: the two ports that left the core entry, imported from their
// own entry, `pedelec-elements/transports`, and handed to a core client.
import type { MemoryPeer } from 'pedelec-elements/transports';
import WebSocket from 'ws';
import { Pedelec } from 'pedelec-elements/core';
import { createMemoryPair, websocketTransport } from 'pedelec-elements/transports';

const dev = new Pedelec({ transport: websocketTransport('ws://127.0.0.1:7717/bridge') });
const { transport, peer } = createMemoryPair(); // peer plays the extension
const local = new Pedelec({ transport });

// README: in Node before 22 (no global WebSocket), pass the `ws` package's class.
const fromNode = new Pedelec({ transport: websocketTransport('ws://127.0.0.1:7717/bridge', WebSocket) });

export const clients: Pedelec[] = [dev, local, fromNode];
export const extensionSide: MemoryPeer = peer;

// @ts-expect-error the transports are no longer exported by the core entry
export { createMemoryPair as fromCore } from 'pedelec-elements/core';
