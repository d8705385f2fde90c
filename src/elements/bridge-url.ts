import { type PedelecError } from '../core/index.js';
import { pedelecError } from '../core/errors.js';
import { isLoopbackHost } from '../core/loopback.js';

/** Where a session element's client connects. */
export type BridgeConfig = { kind: 'extension'; extensionId?: string } | { kind: 'websocket'; url: string };

/**
 * Reads a `bridge` value. Empty → the extension. A `ws:`/`wss:` URL → the development Core over
 * WebSocket, but from markup only on a loopback host: injected markup must not be able to send the
 * page's tools to a foreign server. A foreign host is accepted only when `trusted` (set from script).
 */
export function parseBridge(
  value: string | null | undefined,
  trusted: boolean,
  extensionId?: string,
): BridgeConfig | PedelecError {
  const text = (value ?? '').trim();
  if (text === '') return extensionId ? { kind: 'extension', extensionId } : { kind: 'extension' };
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    // not a URL: reported below, as a URL of another scheme is
  }
  if (url?.protocol !== 'ws:' && url?.protocol !== 'wss:') {
    return pedelecError('INVALID_INPUT', `bridge must be a ws:// or wss:// URL, got "${text}"`, { bridge: text });
  }
  if (!trusted && !isLoopbackHost(url.hostname)) {
    return pedelecError(
      'INVALID_INPUT',
      `bridge attribute may only name a loopback host (localhost, 127.x.x.x, [::1]); set the bridge property from script for ${url.host}`,
      { bridge: text },
    );
  }
  return { kind: 'websocket', url: url.href };
}

/** One key per bridge configuration: sessions with equal keys share a client and a connection. */
export function bridgeKey(config: BridgeConfig): string {
  return config.kind === 'websocket' ? config.url : `ext:${config.extensionId ?? ''}`;
}
