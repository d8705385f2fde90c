import { extensionDisconnected, normalizeError, type PedelecError } from '../errors.js';
import { portEvent, type BridgePort, type PortFactory } from '../bridge-port.js';

/**
 * Where a deferred port stands: its transport's code still loading (what is posted waits in
 * `queue`), the real port open (everything goes through it), or closed (`error`: why, when it was
 * not closed by the page).
 */
type Phase =
  { name: 'loading'; queue: unknown[] } | { name: 'open'; real: BridgePort } | { name: 'closed'; error?: PedelecError };

/**
 * A transport whose code loads on first use (a page on the extension never downloads the development
 * Core's socket code): the port is returned at once and holds what is posted until the real port is
 * open, then forwards both ways. A load or an open that fails disconnects the port with why
 * (`CHUNK_LOAD_FAILED`, or the transport's own error), as a port that never opened does.
 */
export function deferredTransport(load: () => Promise<PortFactory>): PortFactory {
  return () => {
    const [onMessage, emitMessage] = portEvent<unknown>();
    const [onDisconnect, emitDisconnect] = portEvent<unknown>();
    let phase: Phase = { name: 'loading', queue: [] };
    /** The port went away by itself (not by `disconnect()`): closed with `error`, and its listeners told. */
    const lost = (error: PedelecError | undefined) => {
      phase = { name: 'closed', error };
      emitDisconnect(port);
    };

    const port: BridgePort = {
      get error() {
        return phase.name === 'open' ? phase.real.error : phase.name === 'closed' ? phase.error : undefined;
      },
      postMessage(message) {
        if (phase.name === 'open') return phase.real.postMessage(message);
        if (phase.name === 'closed') throw phase.error ?? extensionDisconnected();
        phase.queue.push(message);
      },
      onMessage,
      onDisconnect,
      disconnect() {
        if (phase.name === 'open') phase.real.disconnect?.();
        phase = { name: 'closed' };
      },
    };

    load().then(
      (open) => {
        if (phase.name !== 'loading') return;
        const { queue } = phase;
        let real: BridgePort;
        try {
          real = open();
        } catch (thrown) {
          return lost(normalizeError(thrown, 'EXTENSION_UNAVAILABLE', 'Pedelec extension is unavailable.'));
        }
        const current = () => phase.name === 'open' && phase.real === real;
        real.onMessage.addListener((message) => current() && emitMessage(message));
        real.onDisconnect.addListener(() => current() && lost(real.error));
        phase = { name: 'open', real };
        queue.forEach((message) => real.postMessage(message));
      },
      (error: PedelecError) => phase.name === 'loading' && lost(error),
    );
    return port;
  };
}
