/**
 * The Pedelec bridge as a feature of the Core: pages connect on `/bridge`, each connection a
 * {@link BridgeConnection} over the shared sessions, agents and approvals. Stopping it ends every
 * session first, so pages are told `ended` before their socket closes.
 */
import { WebSocketServer } from 'ws';
import { closeSockets, type DevFeature } from '../http/feature.js';
import { BridgeConnection, type BridgeDeps } from './bridge.js';
import { PatternChecks } from './pattern-check.js';

export type BridgeFeatureInputs = Omit<BridgeDeps, 'patterns' | 'maxBufferedBytes'> & {
  /** The largest frame a page may send. */
  maxFrameBytes: number;
  /** How long checking one call's args against a schema with a `pattern` may take. */
  patternBudgetMs: number;
};

export function bridgeFeature(inputs: BridgeFeatureInputs): DevFeature {
  const { maxFrameBytes, patternBudgetMs, ...shared } = inputs;
  const patterns = new PatternChecks(patternBudgetMs);
  // Two of the largest frames a page may send: room for any one reply, not for a page that stopped reading.
  const deps: BridgeDeps = { ...shared, patterns, maxBufferedBytes: 2 * maxFrameBytes };
  const sockets = new WebSocketServer({ noServer: true, maxPayload: maxFrameBytes });
  return {
    routes: [],
    sockets: [
      {
        path: '/bridge',
        forPages: true,
        sockets,
        accept: (ws, _req, origin) => void new BridgeConnection(ws, origin, deps),
      },
    ],
    async close() {
      deps.registry.endAll(); // pages get `ended` before their socket closes
      await closeSockets([sockets]);
      await patterns.close();
    },
  };
}
