import { pedelecError } from '../errors.js';
import { PEDELEC_EXTENSION_ID, PORT_NAME, type BridgePort, type PortFactory } from '../bridge-port.js';

type ChromeRuntime = { connect?: (extensionId: string, info: { name: string }) => BridgePort; lastError?: unknown };

/** `globalThis.chrome.runtime`, read when asked (tests install and delete it around each test). */
export const chromeRuntime = (): ChromeRuntime | undefined =>
  (globalThis as { chrome?: { runtime?: ChromeRuntime } }).chrome?.runtime;

/**
 * The default transport: a long-lived port to the Pedelec extension. Throws `EXTENSION_UNAVAILABLE`
 * where the extension cannot be reached (`chrome.runtime.connect` missing — the origin is not
 * externally_connectable), and whatever `connect` throws.
 */
export function extensionTransport(extensionId: string = PEDELEC_EXTENSION_ID): PortFactory {
  return () => {
    const runtime = chromeRuntime();
    // connect missing, or returning no port: unavailable either way.
    const port = runtime?.connect?.(extensionId, { name: PORT_NAME });
    if (!port) throw pedelecError('EXTENSION_UNAVAILABLE', 'Pedelec extension is unavailable.');
    return port;
  };
}
