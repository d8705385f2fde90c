/**
 * pedelec-elements/transports — ports other than the extension's, for `new Pedelec({ transport })`:
 * a WebSocket to the development Core (`pedelec-dev`) and an in-memory pair for tests and demos.
 * An entry of their own so the core entry stays small for pages that only talk to the extension.
 * Node-safe, like the core: nothing here touches the DOM at import time.
 */
export { websocketTransport } from './core/transports/websocket.js';
export { createMemoryPair } from './core/transports/memory.js';
export type { MemoryPeer } from './core/transports/memory.js';
