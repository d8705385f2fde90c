import { extensionDisconnected, normalizeError, type PedelecError } from '../errors.js';
import { portEvent, type BridgePort, type PortFactory } from '../bridge-port.js';

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
    /** Messages posted before the real port opened; null once it did, or once this port closed. */
    let queue: unknown[] | null = [];
    let real: BridgePort | null = null;
    let failure: PedelecError | undefined;
    let closed = false;
    const fail = (error: PedelecError) => {
      if (closed) return;
      closed = true;
      queue = null;
      failure = error;
      emitDisconnect(port);
    };

    const port: BridgePort = {
      get error() {
        return real?.error ?? failure;
      },
      postMessage(message) {
        if (real) return real.postMessage(message);
        if (!queue) throw failure ?? extensionDisconnected();
        queue.push(message);
      },
      onMessage,
      onDisconnect,
      disconnect() {
        if (closed) return;
        closed = true;
        queue = null;
        real?.disconnect?.();
      },
    };

    load().then(
      (open) => {
        if (closed) return;
        let opened: BridgePort;
        try {
          opened = open();
        } catch (thrown) {
          return fail(normalizeError(thrown, 'EXTENSION_UNAVAILABLE', 'Pedelec extension is unavailable.'));
        }
        real = opened;
        opened.onMessage.addListener((message) => !closed && emitMessage(message));
        opened.onDisconnect.addListener(() => {
          if (closed) return;
          closed = true;
          emitDisconnect(port);
        });
        const pending = queue ?? [];
        queue = null;
        pending.forEach((message) => opened.postMessage(message));
      },
      (error: PedelecError) => fail(error),
    );
    return port;
  };
}
