/**
 * The Core's HTTP server, listening before any feature is built: the port it got (`--port 0` picks
 * one) and so its URL and its own origins are known when the features are composed, and passed to
 * them as values. Requests are handed over by {@link Listener.serve}, which the composition calls in
 * the same turn as the listen completes, so no request can arrive in between.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { DevCoreError } from '../errors.js';
import { portHolder, portInUseMessage } from './port-holder.js';
import { isLoopbackHost } from './security.js';

export type Listener = {
  /** The port listened on. */
  port: number;
  /** `http://host:port`, no trailing slash. */
  baseUrl: string;
  /** The exact origins of this server's own pages (the inspector's), by every name it answers to. */
  ownOrigins: ReadonlySet<string>;
  /** Hands requests and upgrades to their handlers. */
  serve(
    onRequest: (req: IncomingMessage, res: ServerResponse) => void,
    onUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void,
  ): void;
  /** Stops listening and cuts every HTTP connection. */
  close(): Promise<void>;
};

/** `::1` → `[::1]`; the wildcard addresses are reached through loopback. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function listenError(error: NodeJS.ErrnoException, host: string, port: number): DevCoreError {
  if (error.code === 'EACCES')
    return new DevCoreError(
      'PORT_NOT_ALLOWED',
      `Not allowed to listen on port ${port} of ${host}; choose another with --port.`,
    );
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND')
    return new DevCoreError('HOST_UNAVAILABLE', `Cannot listen on ${host}: no such address on this machine.`);
  return new DevCoreError('LISTEN_FAILED', `Cannot listen on ${host}:${port}: ${error.message}`);
}

/** Listens on `host:port`; a port in use or a host not of this machine is a {@link DevCoreError}. */
export async function listen(host: string, port: number, reportBug: (error: unknown) => void): Promise<Listener> {
  const server: Server = createServer();
  server.on('clientError', (_error, socket) => socket.destroy());
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new DevCoreError('PORT_IN_USE', portInUseMessage(host, port, await portHolder(host, port)));
    throw listenError(error as NodeJS.ErrnoException, host, port);
  }
  server.on('error', reportBug);
  const actualPort = (server.address() as AddressInfo).port;
  const names = isLoopbackHost(host) ? ['127.0.0.1', 'localhost', '[::1]', urlHost(host)] : [urlHost(host)];
  return {
    port: actualPort,
    baseUrl: `http://${urlHost(host)}:${actualPort}`,
    ownOrigins: new Set(names.map((name) => `http://${name}:${actualPort}`)),
    serve(onRequest, onUpgrade) {
      server.on('request', onRequest);
      server.on('upgrade', onUpgrade);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
